/* The .oakm cache: baking then loading gives the same model, byte for byte
 * in every stream, for every shared model; a version, size or content
 * mismatch is reported, never trusted; every truncation fails cleanly. */
#include "oak_test.h"

#include <oak/gltf.h>

#include "gltf_test_assets.h"

static const char *const g_files[] = {
    "CornellBox/CornellBox.glb",
    "FlightHelmet/FlightHelmet.gltf",
    "GltfPrimitives/gltf_primitives.glb",
    "SimpleSkin/SimpleSkin.gltf",
    "TonemappingTest/TonemappingTest.gltf",
    "animated/MorphStressTest.gltf",
    "barycentric/barycentric.gltf",
    "cube/cube.gltf",
    "cubes/Cubes.glb",
    "sphere/sphere.gltf",
    "torus/torus.gltf",
};

static bool same_bytes(const void *a, const void *b, size_t n) {
    if (!a || !b) return a == b;
    return memcmp(a, b, n) == 0;
}

static bool same_str(const char *a, const char *b) {
    return (!a || !b) ? (!a || !*a) == (!b || !*b) : strcmp(a, b) == 0;
}

static void check_same_model(const oak_gltf *a, const oak_gltf *b) {
    CHECK_EQ_INT(a->node_count, b->node_count);
    CHECK_EQ_INT(a->mesh_count, b->mesh_count);
    CHECK_EQ_INT(a->material_count, b->material_count);
    CHECK_EQ_INT(a->image_count, b->image_count);
    CHECK_EQ_INT(a->texture_count, b->texture_count);
    CHECK_EQ_INT(a->skin_count, b->skin_count);
    CHECK_EQ_INT(a->clip_count, b->clip_count);
    CHECK_EQ_INT(a->light_count, b->light_count);
    CHECK_EQ_INT(a->primitive_count, b->primitive_count);
    CHECK(same_bytes(&a->bounds, &b->bounds, sizeof a->bounds));
    if (a->node_count != b->node_count || a->mesh_count != b->mesh_count) return;
    for (uint32_t i = 0; i < a->node_count; i++) {
        const oak_gltf_node *x = &a->nodes[i], *y = &b->nodes[i];
        CHECK(same_str(x->name, y->name));
        CHECK(same_str(x->extras, y->extras));
        CHECK(x->parent == y->parent && x->mesh == y->mesh && x->skin == y->skin);
        CHECK(same_bytes(x->translation, y->translation, 40));
        CHECK(same_bytes(x->children, y->children, 4 * x->child_count));
    }
    for (uint32_t m = 0; m < a->mesh_count; m++)
        for (uint32_t p = 0; p < a->meshes[m].primitive_count; p++) {
            const oak_gltf_primitive *x = &a->meshes[m].primitives[p];
            const oak_gltf_primitive *y = &b->meshes[m].primitives[p];
            size_t n = x->vertex_count;
            CHECK_EQ_INT(x->vertex_count, y->vertex_count);
            CHECK_EQ_INT(x->index_count, y->index_count);
            CHECK(same_bytes(x->positions, y->positions, 12 * n));
            CHECK(same_bytes(x->normals, y->normals, 12 * n));
            CHECK(same_bytes(x->tangents, y->tangents, 16 * n));
            CHECK(same_bytes(x->uv0, y->uv0, 8 * n));
            CHECK(same_bytes(x->colors, y->colors, 16 * n));
            CHECK(same_bytes(x->indices, y->indices, 4 * (size_t)x->index_count));
            CHECK(same_bytes(x->joints, y->joints, 2 * n * x->influence_count));
            CHECK(same_bytes(x->weights, y->weights, 4 * n * x->influence_count));
            CHECK_EQ_INT(x->target_count, y->target_count);
            for (uint32_t t = 0; t < x->target_count && t < y->target_count; t++)
                CHECK(same_bytes(x->targets[t].positions, y->targets[t].positions, 12 * n));
        }
    for (uint32_t i = 0; i < a->material_count; i++) {
        CHECK(same_str(a->materials[i].name, b->materials[i].name));
        CHECK(same_bytes(a->materials[i].desc.base_color, b->materials[i].desc.base_color, 16));
        CHECK(same_bytes(a->materials[i].image, b->materials[i].image, 20));
        CHECK_EQ_INT(a->materials[i].desc.alpha_mode, b->materials[i].desc.alpha_mode);
    }
    for (uint32_t i = 0; i < a->image_count; i++)
        CHECK(same_bytes(a->images[i].rgba, b->images[i].rgba,
                         (size_t)a->images[i].width * a->images[i].height * 4));
    for (uint32_t i = 0; i < a->clip_count; i++)
        for (uint32_t s = 0; s < a->clips[i].sampler_count; s++) {
            const oak_anim_sampler *x = &a->clips[i].samplers[s], *y = &b->clips[i].samplers[s];
            CHECK_EQ_INT(x->key_count, y->key_count);
            CHECK(same_bytes(x->times, y->times, 4 * x->key_count));
            CHECK(same_bytes(x->values, y->values, 4 * (size_t)x->key_count * x->width));
        }
}

TEST(cacheLoadsTheSameModelAsTheSource) {
    for (size_t i = 0; i < sizeof g_files / sizeof g_files[0]; i++) {
        char path[256], out[512];
        oak_gltf *src = NULL, *baked = NULL;
        oak_gltf_desc d = {.no_assets = true};
        CHECK_OK(oak_gltf_load(&src, gltf_asset(path, sizeof path, g_files[i]), &d));
        if (!src) continue;
        oak_test_out(out, sizeof out, "cache_model.oakm");
        CHECK_OK(oak_gltf_bake(src, out));
        CHECK_OK(oak_gltf_load(&baked, out, &d));
        if (baked) check_same_model(src, baked);
        oak_gltf_free(src);
        oak_gltf_free(baked);
    }
}

/* With registry assets: the cache's meshes hold the same post-processed
 * streams and its textures the same mip chains, made without filtering. */
TEST(cacheGivesTheSameRegistryMeshesAndMipChains) {
    const char *files[] = {"FlightHelmet/FlightHelmet.gltf", "SimpleSkin/SimpleSkin.gltf",
                           "animated/MorphStressTest.gltf"};
    for (int f = 0; f < 3; f++) {
        char path[256], out[512];
        oak_gltf *src = NULL, *baked = NULL;
        CHECK_OK(oak_gltf_load(&src, gltf_asset(path, sizeof path, files[f]), NULL));
        if (!src) continue;
        oak_test_out(out, sizeof out, "cache_assets.oakm");
        CHECK_OK(oak_gltf_bake(src, out));
        CHECK_OK(oak_gltf_load(&baked, out, NULL));
        if (baked) {
            check_same_model(src, baked);
            for (uint32_t m = 0; m < src->mesh_count; m++)
                for (uint32_t p = 0; p < src->meshes[m].primitive_count; p++) {
                    const oak_mesh_data *a = oak_mesh_get(src->meshes[m].primitives[p].mesh);
                    const oak_mesh_data *b = oak_mesh_get(baked->meshes[m].primitives[p].mesh);
                    CHECK(a && b);
                    if (!a || !b) continue;
                    size_t n = a->vertex_count;
                    CHECK_EQ_INT(a->vertex_count, b->vertex_count);
                    CHECK(memcmp(a->normals, b->normals, 12 * n) == 0);
                    CHECK(memcmp(a->tangents, b->tangents, 16 * n) == 0);
                    CHECK(memcmp(&a->bounds, &b->bounds, sizeof a->bounds) == 0);
                }
            uint32_t chains = 0;
            for (uint32_t i = 0; i < src->image_count; i++) {
                const oak_texture_data *a = oak_texture_get(src->image_textures[i]);
                const oak_texture_data *b = oak_texture_get(baked->image_textures[i]);
                if (!a) a = oak_texture_get(src->image_data_textures[i]);
                if (!b) b = oak_texture_get(baked->image_data_textures[i]);
                CHECK(a && b);
                if (!a || !b) continue;
                CHECK_EQ_INT(a->mip_count, b->mip_count);
                CHECK_EQ_INT(a->format, b->format);
                for (uint32_t l = 0; l < a->mip_count && l < b->mip_count; l++)
                    CHECK(memcmp(a->mips[l], b->mips[l],
                                 (size_t)a->mip_width[l] * a->mip_height[l] * 4) == 0);
                chains += baked->images[i].mip_count > 1;
            }
            CHECK_EQ_INT(chains, src->image_count); /* every image came with its chain */
        }
        oak_gltf_free(src);
        oak_gltf_free(baked);
    }
}

static void *bake_small(size_t *size) {
    char path[256], out[512];
    oak_gltf *src = NULL;
    oak_gltf_desc d = {.no_assets = true};
    if (oak_gltf_load(&src, gltf_asset(path, sizeof path, "SimpleSkin/SimpleSkin.gltf"), &d))
        return NULL;
    oak_test_out(out, sizeof out, "cache_small.oakm");
    void *data = NULL;
    if (!oak_gltf_bake(src, out)) oak_read_file(out, &data, size);
    oak_gltf_free(src);
    return data;
}

TEST(cacheVersionSizeAndContentMismatchesAreRefused) {
    size_t size = 0;
    uint8_t *data = bake_small(&size);
    CHECK(data != NULL);
    if (!data) return;
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    uint8_t *copy = oak_alloc(size + 1);

    memcpy(copy, data, size);
    copy[8] = OAK_OAKM_VERSION + 1;
    CHECK_EQ_INT(oak_gltf_load_memory(&g, copy, size, "v.oakm", &d), OAK_ERROR_UNSUPPORTED);
    char want[96];
    snprintf(want, sizeof want, "v.oakm: .oakm version %d, this oak reads version %d",
             OAK_OAKM_VERSION + 1, OAK_OAKM_VERSION);
    CHECK(strstr(oak_last_error(), want) != NULL);

    memcpy(copy, data, size);
    copy[size] = 0;
    CHECK_EQ_INT(oak_gltf_load_memory(&g, copy, size + 1, "s.oakm", &d), OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "bytes but the file has") != NULL);

    memcpy(copy, data, size);
    copy[size / 2] ^= 0x40;
    CHECK_EQ_INT(oak_gltf_load_memory(&g, copy, size, "h.oakm", &d), OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "h.oakm: .oakm contents do not match their hash") != NULL);
    CHECK(g == NULL);
    oak_free(copy);
    oak_free(data);
}

TEST(cacheEveryTruncationFailsCleanly) {
    size_t size = 0;
    uint8_t *data = bake_small(&size);
    CHECK(data != NULL);
    if (!data) return;
    oak_gltf_desc d = {.no_assets = true};
    uint32_t failed = 0;
    for (size_t n = 8; n < size; n++) {
        oak_gltf *g = NULL;
        if (oak_gltf_load_memory(&g, data, n, "cut.oakm", &d) != OAK_OK) failed++;
        CHECK(g == NULL);
        oak_gltf_free(g);
    }
    CHECK_EQ_INT(failed, size - 8);
    /* Again with the header's size and hash rewritten to match the cut, so
     * the reader meets the cut inside the model itself. */
    uint8_t *copy = oak_alloc(size);
    failed = 0;
    for (size_t n = 32; n < size; n++) {
        memcpy(copy, data, n);
        uint64_t total = n, hash = oak_gltf_cache_checksum(copy + 32, n - 32);
        memcpy(copy + 16, &total, 8);
        memcpy(copy + 24, &hash, 8);
        oak_gltf *g = NULL;
        if (oak_gltf_load_memory(&g, copy, n, "cut.oakm", &d) != OAK_OK) failed++;
        CHECK(g == NULL);
        oak_gltf_free(g);
    }
    CHECK_EQ_INT(failed, size - 32);
    oak_free(copy);
    oak_free(data);
}

int main(void) {
    oak_test_init(0);
    RUN(cacheLoadsTheSameModelAsTheSource);
    RUN(cacheGivesTheSameRegistryMeshesAndMipChains);
    RUN(cacheVersionSizeAndContentMismatchesAreRefused);
    RUN(cacheEveryTruncationFailsCleanly);
    oak_shutdown();
    return TEST_SUMMARY();
}
