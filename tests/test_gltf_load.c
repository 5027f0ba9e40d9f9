/* glTF loading: every shared model loads with the counts its file states
 * and bounds equal to its POSITION accessors' min/max; accessor decoding
 * (normalized, strided, sparse, quantized) against hand-made bytes; and
 * hand-broken files each fail with their one-line message. */
#include "oak_test.h"

#include <cjson/cJSON.h>
#include <oak/gltf.h>

#include "gltf_test_assets.h"

typedef struct model_counts {
    const char *file;
    uint32_t nodes, meshes, primitives, materials, textures, skins, clips, lights;
} model_counts;

/* Counted from each file's JSON arrays. */
static const model_counts g_models[] = {
    {"CornellBox/CornellBox.glb", 4, 4, 6, 5, 0, 0, 0, 0},
    {"FlightHelmet/FlightHelmet.gltf", 6, 6, 6, 6, 15, 0, 0, 0},
    {"GltfPrimitives/gltf_primitives.glb", 1, 1, 4, 4, 0, 0, 0, 0},
    {"SimpleSkin/SimpleSkin.gltf", 3, 1, 1, 0, 0, 1, 1, 0},
    {"TonemappingTest/TonemappingTest.gltf", 3, 3, 8, 8, 1, 0, 0, 0},
    {"animated/MorphStressTest.gltf", 1, 1, 2, 2, 3, 0, 3, 0},
    {"barycentric/barycentric.gltf", 1, 1, 1, 0, 0, 0, 0, 0},
    {"cube/cube.gltf", 1, 1, 1, 1, 0, 0, 0, 0},
    {"cubes/Cubes.glb", 5, 3, 3, 3, 0, 0, 0, 1},
    {"sphere/sphere.gltf", 1, 1, 1, 0, 0, 0, 0, 0},
    {"torus/torus.gltf", 1, 1, 1, 0, 0, 0, 0, 0},
};

/* The JSON of a .gltf or .glb, parsed independently of the loader. */
static cJSON *read_json(const char *path) {
    void *data;
    size_t size;
    if (oak_read_file(path, &data, &size)) return NULL;
    const char *text = data;
    size_t len = size;
    if (size >= 20 && memcmp(data, "glTF", 4) == 0) {
        uint32_t jlen;
        memcpy(&jlen, (uint8_t *)data + 12, 4);
        text = (const char *)data + 20;
        len = jlen;
    }
    cJSON *j = cJSON_ParseWithLength(text, len);
    oak_free(data);
    return j;
}

static void check_primitive_bounds(const char *path, const oak_gltf *g) {
    cJSON *j = read_json(path);
    CHECK(j != NULL);
    if (!j) return;
    cJSON *acc = cJSON_GetObjectItem(j, "accessors"), *meshes = cJSON_GetObjectItem(j, "meshes");
    for (uint32_t m = 0; m < g->mesh_count; m++) {
        cJSON *prims = cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, (int)m), "primitives");
        for (uint32_t p = 0; p < g->meshes[m].primitive_count; p++) {
            cJSON *attrs = cJSON_GetObjectItem(cJSON_GetArrayItem(prims, (int)p), "attributes");
            int a = cJSON_GetObjectItem(attrs, "POSITION")->valueint;
            cJSON *mn = cJSON_GetObjectItem(cJSON_GetArrayItem(acc, a), "min");
            cJSON *mx = cJSON_GetObjectItem(cJSON_GetArrayItem(acc, a), "max");
            const oak_bounds *b = &g->meshes[m].primitives[p].bounds;
            for (int k = 0; k < 3; k++) {
                double lo = cJSON_GetArrayItem(mn, k)->valuedouble;
                double hi = cJSON_GetArrayItem(mx, k)->valuedouble;
                double tol = 1e-5 * (1 + fabs(lo) + fabs(hi));
                CHECK_NEAR(b->min[k], lo, tol);
                CHECK_NEAR(b->max[k], hi, tol);
            }
        }
    }
    cJSON_Delete(j);
}

TEST(gltfEveryModelLoadsWithFileCountsAndBounds) {
    for (size_t i = 0; i < sizeof g_models / sizeof g_models[0]; i++) {
        const model_counts *mc = &g_models[i];
        char path[256];
        gltf_asset(path, sizeof path, mc->file);
        oak_gltf *g = NULL;
        oak_result r = oak_gltf_load(&g, path, NULL);
        if (r) fprintf(stderr, "  %s: %s\n", mc->file, oak_last_error());
        CHECK_OK(r);
        if (!g) continue;
        CHECK_EQ_INT(g->node_count, mc->nodes);
        CHECK_EQ_INT(g->mesh_count, mc->meshes);
        CHECK_EQ_INT(g->primitive_count, mc->primitives);
        CHECK_EQ_INT(g->material_count, mc->materials);
        CHECK_EQ_INT(g->texture_count, mc->textures);
        CHECK_EQ_INT(g->skin_count, mc->skins);
        CHECK_EQ_INT(g->clip_count, mc->clips);
        CHECK_EQ_INT(g->light_count, mc->lights);
        check_primitive_bounds(path, g);
        /* every triangle primitive became a registry mesh with its vertices */
        for (uint32_t m = 0; m < g->mesh_count; m++)
            for (uint32_t p = 0; p < g->meshes[m].primitive_count; p++) {
                const oak_gltf_primitive *pr = &g->meshes[m].primitives[p];
                const oak_mesh_data *md = oak_mesh_get(pr->mesh);
                CHECK(md != NULL);
                if (!md) continue;
                CHECK_EQ_INT(md->vertex_count, pr->vertex_count);
                CHECK_EQ_INT(md->index_count, pr->index_count);
                CHECK((md->joints != NULL) == (pr->influence_count > 0));
            }
        for (uint32_t i = 0; i < g->material_count; i++)
            CHECK(oak_material_get(g->material_handles[i]) != NULL);
        oak_gltf_free(g);
    }
}

TEST(gltfSingleNodeModelBoundsEqualAccessorRange) {
    /* cube.gltf: one untransformed node, POSITION min -1, max 1 */
    char path[256];
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, "cube/cube.gltf"), &d));
    if (!g) return;
    for (int k = 0; k < 3; k++) {
        CHECK_NEAR(g->bounds.min[k], -1, 1e-6);
        CHECK_NEAR(g->bounds.max[k], 1, 1e-6);
    }
    CHECK_NEAR(g->bounds.radius, sqrtf(3), 1e-5);
    oak_gltf_free(g);
}

TEST(gltfTranslatedNodesMoveModelBounds) {
    /* CornellBox: the room mesh spans its accessor range moved by its node's
     * translation; the whole model's box must contain it. */
    char path[256];
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, "CornellBox/CornellBox.glb"), &d));
    if (!g) return;
    const oak_gltf_node *n = &g->nodes[3];
    CHECK(strcmp(n->name, "cornell.box") == 0);
    CHECK_NEAR(n->translation[0], -276.800048828125, 1e-3);
    const oak_bounds *pb = &g->meshes[n->mesh].primitives[0].bounds;
    for (int k = 0; k < 3; k++) {
        CHECK(g->bounds.min[k] <= pb->min[k] + n->translation[k] + 1e-3f);
        CHECK(g->bounds.max[k] >= pb->max[k] + n->translation[k] - 1e-3f);
    }
    /* KHR_materials_emissive_strength on the light's material */
    CHECK_NEAR(g->materials[0].desc.emissive_strength, 100, 0);
    CHECK(g->materials[0].desc.double_sided);
    oak_gltf_free(g);
}

TEST(gltfPunctualLightAndNodeMatrixRead) {
    char path[256];
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, "cubes/Cubes.glb"), &d));
    if (!g) return;
    CHECK_EQ_INT(g->nodes[0].light, 0);
    CHECK_EQ_INT(g->lights[0].type, OAK_GLTF_LIGHT_POINT);
    CHECK_NEAR(g->lights[0].intensity, 79.57747201077999, 1e-3);
    CHECK_NEAR(g->nodes[0].rotation[0], -0.7071068286895752, 1e-6);
    CHECK_EQ_INT(g->root_count, 5);
    oak_gltf_free(g);
}

#define TRI_B64 "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA="
#define VIEWS_OK                                                                                   \
    "{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,\"byteLength\":6}"
#define ACC_OK                                                                                     \
    "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"                     \
    "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}"
#define NODES_OK "{\"mesh\":0}"

static char *make_doc(const char *buffer_b64, const char *views, const char *accessors,
                      const char *nodes, const char *extra) {
    static char doc[8192];
    snprintf(
        doc, sizeof doc,
        "{\"asset\":{\"version\":\"2.0\"},"
        "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
        "\"bufferViews\":[%s],\"accessors\":[%s],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
        "\"nodes\":[%s],\"scenes\":[{\"nodes\":[0]}]%s}",
        buffer_b64, views, accessors, nodes, extra);
    return doc;
}

TEST(gltfFlightHelmetMaterialsCarryTheirTextures) {
    char path[256];
    oak_gltf *g = NULL;
    CHECK_OK(
        oak_gltf_load(&g, gltf_asset(path, sizeof path, "FlightHelmet/FlightHelmet.gltf"), NULL));
    if (!g) return;
    uint32_t textured = 0;
    for (uint32_t i = 0; i < g->material_count; i++) {
        const oak_material_data *md = oak_material_get(g->material_handles[i]);
        CHECK(md != NULL);
        if (!md) continue;
        const oak_texture_data *base = oak_texture_get(md->desc.base_color_tex.texture);
        const oak_texture_data *nrm = oak_texture_get(md->desc.normal_tex.texture);
        const oak_texture_data *orm = oak_texture_get(md->desc.metallic_roughness_tex.texture);
        if (base && nrm && orm) textured++;
        if (base) {
            CHECK_EQ_INT(base->format, OAK_FORMAT_RGBA8_SRGB);
            CHECK_EQ_INT(base->width, 512);
        }
        if (nrm) CHECK_EQ_INT(nrm->format, OAK_FORMAT_RGBA8);
    }
    /* all six materials have base, normal and occlusion-rough-metal maps */
    CHECK_EQ_INT(textured, 6);
    /* FlightHelmet ships tangents: the registry's are the file's */
    const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
    const oak_mesh_data *md = oak_mesh_get(p->mesh);
    CHECK(md && memcmp(md->tangents, p->tangents, 16 * (size_t)p->vertex_count) == 0);
    oak_gltf_free(g);
}

TEST(gltfHandMadeTriangleGetsFlatNormals) {
    const char *doc = make_doc(TRI_B64, VIEWS_OK, ACC_OK, NODES_OK, "");
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, doc, strlen(doc), NULL, &d));
    if (!g) return;
    const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
    CHECK_EQ_INT(p->vertex_count, 3);
    CHECK_EQ_INT(p->index_count, 3);
    for (int v = 0; v < 3; v++) {
        CHECK_NEAR(p->normals[3 * v + 2], 1, 1e-6); /* CCW in XY faces +Z */
        CHECK_NEAR(p->normals[3 * v], 0, 1e-6);
    }
    CHECK_NEAR(p->bounds.max[0], 1, 0);
    CHECK_NEAR(p->bounds.max[1], 1, 0);
    oak_gltf_free(g);
}

TEST(gltfQuantizedStridedSparseAccessorsDecode) {
    /* positions: normalized int16 at stride 8 (KHR_mesh_quantization); a
     * sparse block replaces vertex 2 with (0, 16384, 0); uvs normalized u8. */
    const char *doc =
        "{\"asset\":{\"version\":\"2.0\"},\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
        "\"extensionsUsed\":[\"KHR_mesh_quantization\",\"EXT_made_up\"],"
        "\"buffers\":[{\"byteLength\":40,\"uri\":\"data:application/octet-stream;base64,"
        "AAAAAAAAAAD/fwAAAAAAAAAAAIAAAAAA/wAA/4CAAAACAAAAAEAAAA==\"}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":24,\"byteStride\":8},"
        "{\"buffer\":0,\"byteOffset\":24,\"byteLength\":6},"
        "{\"buffer\":0,\"byteOffset\":32,\"byteLength\":1},"
        "{\"buffer\":0,\"byteOffset\":34,\"byteLength\":6}],"
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5122,\"normalized\":true,\"count\":3,"
        "\"type\":\"VEC3\",\"sparse\":{\"count\":1,\"indices\":{\"bufferView\":2,"
        "\"componentType\":5121},\"values\":{\"bufferView\":3}}},"
        "{\"bufferView\":1,\"componentType\":5121,\"normalized\":true,\"count\":3,\"type\":"
        "\"VEC2\"}],"
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"TEXCOORD_0\":1,"
        "\"NORMAL\":0}}]}],\"nodes\":[{\"mesh\":0}]}";
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, doc, strlen(doc), NULL, &d));
    if (!g) return;
    const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
    CHECK_EQ_INT(p->vertex_count, 3);
    CHECK_NEAR(p->positions[3], 1, 0);                    /* 32767 / 32767 */
    CHECK_NEAR(p->positions[7], 16384.0 / 32767.0, 1e-7); /* sparse */
    CHECK_NEAR(p->uv0[0], 1, 0);
    CHECK_NEAR(p->uv0[3], 1, 0);
    CHECK_NEAR(p->uv0[4], 128.0 / 255.0, 1e-7);
    CHECK_EQ_INT(g->root_count, 1); /* no scenes: every root */
    oak_gltf_free(g);
}

typedef struct broken_case {
    const char *name;
    const char *b64, *views, *accessors, *nodes, *extra;
    oak_result code;
    const char *message; /* must appear in the error */
} broken_case;

static const broken_case g_broken[] = {
    {"count past view", TRI_B64, VIEWS_OK,
     "{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\"},"
     "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_PARSE, "accessors[0].count exceeds bufferViews[0]"},
    {"view past buffer", TRI_B64,
     "{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":40,\"byteLength\":6}", ACC_OK,
     NODES_OK, "", OAK_ERROR_PARSE, "bufferViews[1] (offset 40 + length 6) exceeds buffers[0]"},
    {"index past vertices",
     "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAcAAAA=", VIEWS_OK, ACC_OK, NODES_OK, "",
     OAK_ERROR_PARSE, "meshes[0].primitives[0].indices[2] = 7 is past POSITION's count 3"},
    {"mesh index past meshes", TRI_B64, VIEWS_OK, ACC_OK, "{\"mesh\":3}", "", OAK_ERROR_PARSE,
     "nodes[0].mesh 3 is past the end of meshes (1)"},
    {"count as string", TRI_B64, VIEWS_OK,
     "{\"bufferView\":0,\"componentType\":5126,\"count\":\"3\",\"type\":\"VEC3\"},"
     "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_PARSE, "accessors[0].count must be a non-negative integer"},
    {"bad component type", TRI_B64, VIEWS_OK,
     "{\"bufferView\":0,\"componentType\":5124,\"count\":3,\"type\":\"VEC3\"},"
     "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_PARSE, "accessors[0].componentType 5124"},
    {"float indices", TRI_B64, VIEWS_OK,
     "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
     "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_PARSE, "must have an unsigned integer componentType"},
    {"stride narrower than element", TRI_B64,
     "{\"buffer\":0,\"byteLength\":36,\"byteStride\":4},{\"buffer\":0,\"byteOffset\":36,"
     "\"byteLength\":6}",
     ACC_OK, NODES_OK, "", OAK_ERROR_PARSE, "wider than bufferViews[0].byteStride 4"},
    {"required extension", TRI_B64, VIEWS_OK, ACC_OK, NODES_OK,
     ",\"extensionsRequired\":[\"KHR_texture_basisu\"]", OAK_ERROR_UNSUPPORTED,
     "\"KHR_texture_basisu\" is not supported"},
    {"huge accessor without data", TRI_B64, VIEWS_OK,
     "{\"componentType\":5126,\"count\":4194304,\"type\":\"VEC3\"},"
     "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_LIMIT, "accessors[0] has no bufferView and 4194304 elements"},
    {"bad base64", "AAAA*AAA", VIEWS_OK, ACC_OK, NODES_OK, "", OAK_ERROR_PARSE,
     "buffers[0].uri has a bad base64 character at 4"},
    {"short buffer", "AAAA", VIEWS_OK, ACC_OK, NODES_OK, "", OAK_ERROR_PARSE,
     "buffers[0].byteLength 44 exceeds its 3 bytes"},
    {"child cycle", TRI_B64, VIEWS_OK, ACC_OK,
     "{\"mesh\":0,\"children\":[1]},{\"children\":[2]},{\"children\":[1]}", "", OAK_ERROR_PARSE,
     "nodes[2].children[0] = 1 already has a parent"},
    {"two-node cycle beside the root", TRI_B64, VIEWS_OK, ACC_OK,
     "{\"mesh\":0},{\"children\":[2]},{\"children\":[1]}", "", OAK_ERROR_PARSE,
     "nodes[1] is in a cycle"},
    {"remote image", TRI_B64, VIEWS_OK, ACC_OK, NODES_OK,
     ",\"images\":[{\"uri\":\"http://example.com/tex.png\"}]", OAK_ERROR_UNSUPPORTED,
     "images[0].uri \"http://example.com/tex.png\" is not a local file"},
    {"sparse index past count",
     "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAcAAAA=", VIEWS_OK,
     "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":"
     "1,"
     "\"indices\":{\"bufferView\":1,\"componentType\":5123,\"byteOffset\":4},\"values\":{"
     "\"bufferView\":0}}},"
     "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"SCALAR\"}",
     NODES_OK, "", OAK_ERROR_PARSE,
     "accessors[0].sparse.indices[0] = 7 is past the accessor's count 3"},
    {"animation output short", TRI_B64, VIEWS_OK,
     ACC_OK ",{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"},"
            "{\"bufferView\":0,\"componentType\":5126,\"count\":1,\"type\":\"VEC3\"}",
     NODES_OK,
     ",\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
     "\"translation\"}}],"
     "\"samplers\":[{\"input\":2,\"output\":3,\"interpolation\":\"CUBICSPLINE\"}]}]",
     OAK_ERROR_PARSE, "animations[0].samplers[0].output has 1 values for 1 keys of width 3"},
    {"weights without targets", TRI_B64, VIEWS_OK,
     ACC_OK ",{\"bufferView\":1,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}", NODES_OK,
     ",\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"weights\"}}]"
     ","
     "\"samplers\":[{\"input\":2,\"output\":2}]}]",
     OAK_ERROR_PARSE, "has no morph targets"},
};

TEST(gltfHandBrokenFilesFailWithOneLineNamingThePlace) {
    for (size_t i = 0; i < sizeof g_broken / sizeof g_broken[0]; i++) {
        const broken_case *bc = &g_broken[i];
        const char *doc = make_doc(bc->b64, bc->views, bc->accessors, bc->nodes, bc->extra);
        oak_gltf *g = NULL;
        oak_gltf_desc d = {.no_assets = true};
        oak_result r = oak_gltf_load_memory(&g, doc, strlen(doc), "broken.gltf", &d);
        const char *msg = oak_last_error();
        bool ok = r == bc->code && strstr(msg, bc->message) &&
                  strncmp(msg, "broken.gltf: ", 13) == 0 && !strchr(msg, '\n') && g == NULL;
        if (!ok)
            fprintf(stderr, "  case \"%s\": got %s \"%s\", want %s \"%s\"\n", bc->name,
                    oak_result_name(r), msg, oak_result_name(bc->code), bc->message);
        CHECK(ok);
        oak_gltf_free(g);
    }
}

/* A document for the forgiving rules: the triangle's buffer (given as the
   whole uri), then extra buffers, the usual views and accessors, and the
   caller's nodes, scenes and any other members. */
static char *forgiving_doc(const char *uri, const char *more_buffers, const char *nodes,
                           const char *scenes, const char *extra) {
    static char doc[16384];
    snprintf(doc, sizeof doc,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"buffers\":[{\"byteLength\":44,\"uri\":\"%s\"}%s],"
             "\"bufferViews\":[" VIEWS_OK "],\"accessors\":[" ACC_OK "],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"nodes\":[%s],\"scenes\":[{\"nodes\":[%s]}]%s}",
             uri, more_buffers, nodes, scenes, extra);
    return doc;
}

#define TRI_URI "data:application/octet-stream;base64," TRI_B64

static oak_gltf *load_forgiving(const char *doc) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    oak_result r = oak_gltf_load_memory(&g, doc, strlen(doc), "forgiving.gltf", &d);
    if (r) fprintf(stderr, "  %s: %s\n", oak_result_name(r), oak_last_error());
    return g;
}

/* docs/GLTF.md "Forgiving rules": what does not stop a correct picture is a
   warning and the file draws. */
TEST(gltfForgivingRulesWarnAndTheModelLoads) {
    /* a child listed beside its parent: drawn once, under the parent */
    oak_gltf *g =
        load_forgiving(forgiving_doc(TRI_URI, "", "{\"children\":[1]},{\"mesh\":0}", "0,1", ""));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->root_count, 1);
        CHECK_EQ_INT(g->roots[0], 0);
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* only the child listed: drawn under its parent's transform, from the root */
    g = load_forgiving(forgiving_doc(
        TRI_URI, "", "{\"children\":[1],\"translation\":[5,0,0]},{\"mesh\":0}", "1", ""));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->root_count, 1);
        CHECK_EQ_INT(g->roots[0], 0);
        CHECK_NEAR(g->bounds.max[0], 6, 1e-6); /* the triangle's x = 1, moved by 5 */
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* a root listed twice: drawn once */
    g = load_forgiving(forgiving_doc(TRI_URI, "", "{\"mesh\":0}", "0,0", ""));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->root_count, 1);
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* a light of a type oak does not know: skipped, the node keeps no light */
    g = load_forgiving(forgiving_doc(
        TRI_URI, "", "{\"mesh\":0,\"extensions\":{\"KHR_lights_punctual\":{\"light\":1}}}", "0",
        ",\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[{\"type\":\"point\"},"
        "{\"type\":\"area\",\"intensity\":5}]}}"));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->light_count, 2);
        CHECK_EQ_INT(g->nodes[0].light, -1);
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* a buffer without data that nothing reads */
    g = load_forgiving(forgiving_doc(TRI_URI, ",{\"byteLength\":16}", "{\"mesh\":0}", "0", ""));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* a percent-encoded data: URI (RFC 2397 without ;base64) */
    static const float pos[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const uint16_t idx[4] = {0, 1, 2, 0};
    uint8_t bytes[44];
    memcpy(bytes, pos, 36);
    memcpy(bytes + 36, idx, 8);
    char uri[44 * 3 + 64];
    int at = snprintf(uri, sizeof uri, "data:application/octet-stream,");
    for (int i = 0; i < 44; i++)
        at += snprintf(uri + at, sizeof uri - (size_t)at, "%%%02X", bytes[i]);
    g = load_forgiving(forgiving_doc(uri, "", "{\"mesh\":0}", "0", ""));
    CHECK(g != NULL);
    if (g) {
        const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
        CHECK_EQ_INT(p->vertex_count, 3);
        CHECK_NEAR(p->positions[3], 1, 0);
        CHECK_NEAR(p->positions[7], 1, 0);
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
    /* factors outside their ranges: clamped */
    g = load_forgiving(
        forgiving_doc(TRI_URI, "", "{\"mesh\":0}", "0",
                      ",\"materials\":[{\"pbrMetallicRoughness\":{\"metallicFactor\":1.0000001,"
                      "\"roughnessFactor\":-0.25,\"baseColorFactor\":[1.5,0.5,0.5,1]}}]"));
    CHECK(g != NULL);
    if (g) {
        CHECK_NEAR(g->materials[0].desc.metallic, 1, 0);
        CHECK_NEAR(g->materials[0].desc.roughness, 0, 0);
        CHECK_NEAR(g->materials[0].desc.base_color[0], 1, 0);
        CHECK_NEAR(g->materials[0].desc.base_color[1], 0.5, 0);
        CHECK_EQ_INT(g->warning_count, 3);
        oak_gltf_free(g);
    }
    /* an image in a format oak does not read (a PPM): its texture is left out */
    g = load_forgiving(forgiving_doc(
        TRI_URI, "", "{\"mesh\":0}", "0",
        ",\"images\":[{\"uri\":\"data:image/x-portable-pixmap;base64,UDYKMSAxCjI1NQoAAAA=\"}],"
        "\"textures\":[{\"source\":0}],"
        "\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}]"));
    CHECK(g != NULL);
    if (g) {
        CHECK_EQ_INT(g->image_count, 1);
        CHECK(g->images[0].rgba == NULL);
        CHECK_EQ_INT(g->warning_count, 1);
        oak_gltf_free(g);
    }
}

/* What cannot be drawn safely is still refused in one line. */
TEST(gltfForgivingRulesStopAtWhatCannotDraw) {
    const char *doc = forgiving_doc(
        TRI_URI, ",{\"byteLength\":4}", "{\"mesh\":0}", "0",
        ",\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":"
        "\"translation\"}}],\"samplers\":[{\"input\":2,\"output\":0}]}]");
    /* a third view and accessor read the data-less buffer */
    char edited[16384];
    const char *views = strstr(doc, "\"bufferViews\":[");
    const char *accs = strstr(doc, "\"accessors\":[");
    CHECK(views && accs);
    if (!views || !accs) return;
    const char *views_end = strchr(views, ']');
    const char *accs_end = strstr(accs, "}]") + 1;
    snprintf(edited, sizeof edited,
             "%.*s,{\"buffer\":1,\"byteLength\":4}%.*s,"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":1,\"type\":\"SCALAR\"}%s",
             (int)(views_end - doc), doc, (int)(accs_end - views_end), views_end, accs_end);
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_EQ_INT(oak_gltf_load_memory(&g, edited, strlen(edited), "forgiving.gltf", &d),
                 OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "reads bufferViews[2], whose buffers[1] has no data") != NULL);
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    oak_gltf_free(g);
}

TEST(gltfMemoryLoadRefusesExternalFilesAndNeedsVersion) {
    const char *doc = "{\"asset\":{\"version\":\"2.0\"},\"buffers\":[{\"byteLength\":4,"
                      "\"uri\":\"../../etc/passwd\"}]}";
    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load_memory(&g, doc, strlen(doc), NULL, NULL), OAK_ERROR_UNSUPPORTED);
    CHECK(strstr(oak_last_error(), "<memory>: buffers[0].uri names an external file") != NULL);
    const char *v1 = "{\"asset\":{\"version\":\"1.0\"}}", *none = "{\"asset\":{}}";
    CHECK_EQ_INT(oak_gltf_load_memory(&g, v1, strlen(v1), NULL, NULL), OAK_ERROR_UNSUPPORTED);
    CHECK(strstr(oak_last_error(), "asset.version \"1.0\" is not glTF 2") != NULL);
    CHECK_EQ_INT(oak_gltf_load_memory(&g, none, strlen(none), NULL, NULL), OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "asset.version is missing") != NULL);
    CHECK(g == NULL);
}

TEST(gltfJsonSyntaxErrorNamesLine) {
    const char *doc = "{\n\"asset\":{\"version\":\"2.0\"},\n\"nodes\":[{\"mesh\":0,}]\n}";
    oak_gltf *g = NULL;
    oak_result r = oak_gltf_load_memory(&g, doc, strlen(doc), "syntax.gltf", NULL);
    CHECK_EQ_INT(r, OAK_ERROR_PARSE);
    CHECK(strstr(oak_last_error(), "syntax.gltf:3: JSON syntax error") != NULL);
    if (!strstr(oak_last_error(), "syntax.gltf:3:")) fprintf(stderr, "  %s\n", oak_last_error());
}

TEST(gltfMissingExternalBufferIsIoError) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    oak_result r = oak_gltf_load(&g, "tests/data/gltf/missing_bin.gltf", &d);
    CHECK_EQ_INT(r, OAK_ERROR_IO);
    CHECK(strstr(oak_last_error(), "buffers[0].uri: cannot read tests/data/gltf/nowhere.bin"));
    CHECK(g == NULL);
}

/* Every prefix of a .glb, with the header's length both as written and
 * patched to the prefix's size (so the parser meets cut chunks and cut
 * JSON, not just a length mismatch): each fails cleanly, none crashes. */
TEST(gltfEveryGlbTruncationFailsCleanly) {
    char path[256];
    void *data;
    size_t size;
    CHECK_OK(oak_read_file(gltf_asset(path, sizeof path, "GltfPrimitives/gltf_primitives.glb"),
                           &data, &size));
    if (!data) return;
    uint8_t *copy = oak_alloc(size);
    uint32_t failures = 0;
    oak_gltf_desc d = {.no_assets = true};
    for (size_t n = 0; n < size; n++) {
        for (int patch = 0; patch < 2; patch++) {
            memcpy(copy, data, n);
            if (patch && n >= 12) {
                uint32_t len = (uint32_t)n;
                memcpy(copy + 8, &len, 4);
            }
            oak_gltf *g = NULL;
            oak_result r = oak_gltf_load_memory(&g, copy, n, "cut.glb", &d);
            if (r == OAK_OK) {
                /* A cut exactly after the last byte a chunk needs can be whole. */
                oak_gltf_free(g);
                continue;
            }
            failures++;
            CHECK(g == NULL);
            CHECK(strncmp(oak_last_error(), "cut.glb", 7) == 0);
        }
    }
    /* All unpatched prefixes fail (length mismatch); patched ones fail
     * until the BIN chunk is whole (the last bytes are chunk padding). */
    CHECK(failures >= size * 2 - 8);
    fprintf(stderr, "  %zu-byte glb: %u of %zu cut loads failed cleanly\n", size, failures,
            size * 2);
    oak_free(copy);
    oak_free(data);
}

int main(void) {
    oak_test_init(0);
    RUN(gltfEveryModelLoadsWithFileCountsAndBounds);
    RUN(gltfSingleNodeModelBoundsEqualAccessorRange);
    RUN(gltfTranslatedNodesMoveModelBounds);
    RUN(gltfPunctualLightAndNodeMatrixRead);
    RUN(gltfFlightHelmetMaterialsCarryTheirTextures);
    RUN(gltfHandMadeTriangleGetsFlatNormals);
    RUN(gltfQuantizedStridedSparseAccessorsDecode);
    RUN(gltfHandBrokenFilesFailWithOneLineNamingThePlace);
    RUN(gltfForgivingRulesWarnAndTheModelLoads);
    RUN(gltfForgivingRulesStopAtWhatCannotDraw);
    RUN(gltfMemoryLoadRefusesExternalFilesAndNeedsVersion);
    RUN(gltfJsonSyntaxErrorNamesLine);
    RUN(gltfMissingExternalBufferIsIoError);
    RUN(gltfEveryGlbTruncationFailsCleanly);
    oak_shutdown();
    return TEST_SUMMARY();
}
