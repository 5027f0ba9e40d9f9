/* glTF extensions on small files made by tests/data/gltf/make_extensions.py:
 * KHR_animation_pointer and KHR_node_visibility (pointer.gltf): pointers
 * parse to paths and targets, a pointer oak does not animate is skipped with
 * a warning, bad pointers fail in one line, the .oakm cache keeps them, and a
 * placed instance animates its material, lamp, camera and node visibility,
 * in the numbers and in the picture the CPU backend draws.
 * KHR_materials_variants (variants.gltf): variants parse, bad mappings fail,
 * the cache keeps them, and switching an instance's variant recolours it.
 * KHR_materials_pbrSpecularGlossiness (specgloss.gltf) converts to
 * metallic-roughness, factors and baked textures. EXT_mesh_gpu_instancing
 * (instancing.gltf): placements parse (a normalized SHORT rotation
 * included) and survive the cache, bad ones fail in one line, a placed
 * instance is a stream whose records follow the node and go with the
 * instance, and every placement is drawn. MSFT_lod (lod.gltf): levels and
 * coverage parse and survive the cache, bad ones fail or fall back to the
 * highest level, and a placed group shows one level by its coverage. */
#include <math.h>

#include <cglm/cglm.h>

#include "oak_test.h"

#include <oak/anim.h>

static const char *k_file = "tests/data/gltf/pointer.gltf";

TEST(gltfPointerChannelsParseToPathsAndTargets) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, k_file, &d));
    if (!g) return;
    CHECK_EQ_INT(g->clip_count, 1);
    const oak_gltf_clip *c = &g->clips[0];
    /* eight channels, the texture-transform offset skipped */
    CHECK_EQ_INT(c->channel_count, 7);
    CHECK(g->warning_count >= 1);
    static const struct {
        oak_anim_path path;
        uint32_t index;
        oak_anim_target target;
    } want[] = {
        {OAK_ANIM_PATH_BASE_COLOR, 0, OAK_ANIM_TARGET_MATERIAL},
        {OAK_ANIM_PATH_ROUGHNESS, 0, OAK_ANIM_TARGET_MATERIAL},
        {OAK_ANIM_PATH_VISIBLE, 0, OAK_ANIM_TARGET_NODE},
        {OAK_ANIM_PATH_VISIBLE, 4, OAK_ANIM_TARGET_NODE},
        {OAK_ANIM_PATH_LIGHT_INTENSITY, 0, OAK_ANIM_TARGET_LIGHT},
        {OAK_ANIM_PATH_CAMERA_YFOV, 0, OAK_ANIM_TARGET_CAMERA},
        {OAK_ANIM_PATH_TRANSLATION, 1, OAK_ANIM_TARGET_NODE},
    };
    for (uint32_t k = 0; k < c->channel_count && k < 7; k++) {
        CHECK_EQ_INT(c->channels[k].path, want[k].path);
        CHECK_EQ_INT(c->channels[k].node, want[k].index);
        uint32_t w;
        CHECK_EQ_INT(oak_anim_path_target(c->channels[k].path, &w), want[k].target);
        CHECK_EQ_INT(c->samplers[c->channels[k].sampler].width, w);
    }
    CHECK_EQ_INT(c->samplers[c->channels[2].sampler].interp, OAK_INTERP_STEP);
    CHECK(g->nodes[0].visible && g->nodes[5].visible);
    CHECK(!g->nodes[4].visible);
    oak_gltf_free(g);
}

/* pointer.gltf's text with one substring replaced, loaded from memory */
static oak_result load_edited(const char *from, const char *to, uint32_t *warnings) {
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file(k_file, &data, &size));
    if (!data) return OAK_ERROR_IO;
    char *text = oak_alloc(size + 256);
    const char *at = strstr(data, from);
    CHECK(at != NULL);
    if (!at) {
        oak_free(text), oak_free(data);
        return OAK_ERROR_IO;
    }
    size_t head = (size_t)(at - (const char *)data);
    memcpy(text, data, head);
    strcpy(text + head, to);
    size_t tail = size - head - strlen(from);
    memcpy(text + head + strlen(to), at + strlen(from), tail);
    size_t n = head + strlen(to) + tail;
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    oak_result r = oak_gltf_load_memory(&g, text, n, "edited.gltf", &d);
    if (warnings) *warnings = g ? g->warning_count : 0;
    oak_gltf_free(g);
    oak_free(text);
    oak_free(data);
    return r;
}

static bool error_has(const char *s) {
    return strstr(oak_last_error(), s) != NULL && !strchr(oak_last_error(), '\n');
}

TEST(gltfBadPointersFailInOneLineOrAreSkipped) {
    /* an index past the array the pointer names */
    CHECK_EQ_INT(load_edited("/materials/0/pbrMetallicRoughness/roughnessFactor",
                             "/materials/7/pbrMetallicRoughness/roughnessFactor", NULL),
                 OAK_ERROR_PARSE);
    CHECK(error_has("is past the 1 it can name"));
    fprintf(stderr, "  %s\n", oak_last_error());
    /* a leading zero is not an RFC 6901 index: not a pointer oak knows */
    uint32_t warnings = 0;
    CHECK_OK(load_edited("/cameras/0/perspective/yfov", "/cameras/00/perspective/yfov", &warnings));
    CHECK_EQ_INT(warnings, 2);
    /* the other projection's property is not defined on this camera */
    CHECK_OK(load_edited("/cameras/0/perspective/yfov", "/cameras/0/orthographic/xmag", &warnings));
    CHECK_EQ_INT(warnings, 2);
    /* a boolean sampled LINEAR is held as STEP with a warning; CUBICSPLINE fails */
    CHECK_OK(load_edited("\"output\": 6,\n     \"interpolation\": \"STEP\"",
                         "\"output\": 6,\n     \"interpolation\": \"LINEAR\"", &warnings));
    CHECK_EQ_INT(warnings, 2);
    CHECK_EQ_INT(load_edited("\"output\": 6,\n     \"interpolation\": \"STEP\"",
                             "\"output\": 6,\n     \"interpolation\": \"CUBICSPLINE\"", NULL),
                 OAK_ERROR_PARSE);
    CHECK(error_has("must be STEP"));
    /* visible must be a boolean */
    CHECK_EQ_INT(load_edited("\"visible\": false", "\"visible\": 0", NULL), OAK_ERROR_PARSE);
    CHECK(error_has("must be true or false"));
}

TEST(gltfPointerChannelsSurviveTheCache) {
    oak_gltf *g = NULL, *back = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, k_file, &d));
    if (!g) return;
    char path[512];
    oak_test_out(path, sizeof path, "pointer.oakm");
    CHECK_OK(oak_gltf_bake(g, path));
    CHECK_OK(oak_gltf_load(&back, path, &d));
    if (back) {
        CHECK_EQ_INT(back->clips[0].channel_count, g->clips[0].channel_count);
        for (uint32_t k = 0; k < g->clips[0].channel_count; k++) {
            CHECK_EQ_INT(back->clips[0].channels[k].path, g->clips[0].channels[k].path);
            CHECK_EQ_INT(back->clips[0].channels[k].node, g->clips[0].channels[k].node);
        }
        for (uint32_t n = 0; n < g->node_count; n++)
            CHECK_EQ_INT(back->nodes[n].visible, g->nodes[n].visible);
    }
    oak_gltf_free(back);
    oak_gltf_free(g);
}

typedef struct placed {
    oak_gltf *g;
    oak_scene *scene;
    oak_gltf_instance *inst;
} placed;

static bool place_file(placed *p, const char *file) {
    memset(p, 0, sizeof *p);
    CHECK_OK(oak_gltf_load(&p->g, file, NULL));
    CHECK_OK(oak_make_scene(&p->scene));
    if (!p->g || !p->scene) return false;
    CHECK_OK(oak_gltf_instantiate(&p->inst, p->scene, p->g, (oak_entity){0}, "pointer"));
    return p->inst != NULL;
}

static bool place(placed *p) {
    if (!place_file(p, k_file)) return false;
    oak_anim_play(oak_gltf_instance_player(p->inst), 0, false);
    return true;
}

static void unplace(placed *p) {
    oak_gltf_instance_free(p->inst);
    oak_destroy_scene(p->scene);
    oak_gltf_free(p->g);
}

static void pose_at(placed *p, float t) {
    oak_anim_set_time(oak_gltf_instance_player(p->inst), t);
    oak_anim_update(p->scene, 0);
}

/* draws in the scene's frame input that are not hidden */
static uint32_t shown_draws(placed *p) {
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(p->scene, &in));
    uint32_t n = 0;
    for (uint32_t i = 0; i < in.draw_count; i++) n += !(in.flags[i] & OAK_DRAW_HIDDEN);
    return n;
}

TEST(gltfPointerAnimatesMaterialLampCameraAndVisibility) {
    placed p;
    if (!place(&p)) return unplace(&p);
    /* at rest the veil hides itself and the card under it: one draw of two */
    CHECK_EQ_INT(shown_draws(&p), 1);
    pose_at(&p, 0.5f);
    const oak_material_data *m = oak_material_get(p.g->material_handles[0]);
    if (m) {
        CHECK_NEAR(m->desc.base_color[0], 0.5, 1e-6);
        CHECK_NEAR(m->desc.base_color[1], 0.5, 1e-6);
        CHECK_NEAR(m->desc.base_color[2], 0, 1e-6);
        CHECK_NEAR(m->desc.roughness, 0.4, 1e-6);
    }
    const oak_light *l =
        oak_scene_get(p.scene, oak_gltf_instance_node(p.inst, 2), OAK_COMPONENT_LIGHT);
    CHECK(l != NULL);
    if (l) CHECK_NEAR(l->intensity, 15, 1e-4);
    const oak_camera *cam =
        oak_scene_get(p.scene, oak_gltf_instance_node(p.inst, 3), OAK_COMPONENT_CAMERA);
    CHECK(cam != NULL);
    if (cam) CHECK_NEAR(cam->fov_y, 0.75, 1e-6);
    CHECK_NEAR(oak_scene_transform(p.scene, oak_gltf_instance_node(p.inst, 1))->position[0], 0.5,
               1e-6);
    CHECK_EQ_INT(shown_draws(&p), 1);
    /* STEP: from 1 s the holder (and so the card) is hidden, the veil still */
    pose_at(&p, 1.0f);
    CHECK_EQ_INT(shown_draws(&p), 0);
    pose_at(&p, 1.99f);
    CHECK_EQ_INT(shown_draws(&p), 0);
    /* at 2 s the veil shows, and the card under it with it */
    pose_at(&p, 2.0f);
    CHECK_EQ_INT(shown_draws(&p), 1);
    /* a clip that stops animating gives the rest values back */
    oak_anim_player *pl = oak_gltf_instance_player(p.inst);
    pl->clip = -1;
    pl->blend_clip = 0;
    pl->blend_weight = 0.25f;
    pl->blend_time = 0.5f;
    pl->playing = false;
    oak_anim_update(p.scene, 0);
    m = oak_material_get(p.g->material_handles[0]);
    /* rest white blended a quarter toward (0.5, 0.5, 0) */
    if (m) {
        CHECK_NEAR(m->desc.base_color[0], 0.875, 1e-6);
        CHECK_NEAR(m->desc.base_color[2], 0.75, 1e-6);
    }
    /* a quarter is under half: the boolean keeps its rest value (veil hidden) */
    CHECK_EQ_INT(shown_draws(&p), 1);
    unplace(&p);
}

enum { W = 64, H = 64 };

static void draw(placed *p, uint8_t *rgba) {
    oak_renderer *ren = NULL;
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&ren, &rd));
    if (!ren) return;
    CHECK_OK(oak_scene_draw(p->scene, ren));
    CHECK_OK(oak_renderer_read_pixels(ren, rgba, W * H * 4));
    oak_destroy_renderer(ren);
}

static void draw_at(placed *p, float t, uint8_t *rgba) {
    pose_at(p, t);
    draw(p, rgba);
}

static int channel_gap(const uint8_t *a, const uint8_t *b, int x, int y) {
    int m = 0;
    for (int k = 0; k < 3; k++) {
        int d = abs(a[(y * W + x) * 4 + k] - b[(y * W + x) * 4 + k]);
        if (d > m) m = d;
    }
    return m;
}

TEST(gltfPointerAnimationShowsInThePicture) {
    placed p;
    if (!place(&p)) return unplace(&p);
    static uint8_t a[W * H * 4], b[W * H * 4], c[W * H * 4];
    /* 0.5 s: the card, yellowish (0.5, 0.5, 0), moved 0.5 m right, seen at
       3 m through a 0.75 rad field: its centre at (32 + 0.5 / (3 tan 0.375)
       * 32, 32) = (45.6, 32) */
    draw_at(&p, 0.5f, a);
    const uint8_t *px = a + (32 * W + 45) * 4;
    fprintf(stderr, "  card at 0.5 s: %u %u %u\n", px[0], px[1], px[2]);
    CHECK(px[0] > px[2] + 20 && px[1] > px[2] + 20);
    /* 1.99 s: everything hidden; 2 s: the veil's card appears 1.5 m up,
       through a 1.5 rad field: centre (32, 32 - 1.5 / (3 tan 0.75) * 32) =
       (32, 14.8), about 11.5 px across */
    draw_at(&p, 1.99f, b);
    draw_at(&p, 2.0f, c);
    CHECK(channel_gap(a, b, 45, 32) > 40);
    CHECK(channel_gap(b, c, 32, 15) > 24);
    int changed = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) changed += channel_gap(b, c, x, y) > 24;
    /* 11.45 px a metre: 131 px inside, and most of its 46 px of edge */
    fprintf(stderr, "  pixels the veil's card changed at 2 s: %d (131 to 177 expected)\n", changed);
    CHECK(changed > 110 && changed < 200);
    unplace(&p);
}

/* ---- KHR_materials_variants ----------------------------------------------- */

static const char *k_variants = "tests/data/gltf/variants.gltf";

TEST(gltfVariantsParseAndSurviveTheCache) {
    oak_gltf *g = NULL, *back = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, k_variants, &d));
    if (!g) return;
    CHECK_EQ_INT(g->variant_count, 3);
    CHECK_EQ_INT(oak_gltf_find_variant(g, "blue"), 1);
    CHECK_EQ_INT(oak_gltf_find_variant(g, "2"), 2);
    CHECK_EQ_INT(oak_gltf_find_variant(g, "green"), -1);
    const oak_gltf_primitive *p = &g->meshes[0].primitives[0];
    CHECK(p->variant_material != NULL);
    if (p->variant_material) {
        CHECK_EQ_INT(p->variant_material[0], 1);
        CHECK_EQ_INT(p->variant_material[1], 2);
        CHECK_EQ_INT(p->variant_material[2], -1);
    }
    char path[512];
    oak_test_out(path, sizeof path, "variants.oakm");
    CHECK_OK(oak_gltf_bake(g, path));
    CHECK_OK(oak_gltf_load(&back, path, &d));
    if (back) {
        CHECK_EQ_INT(back->variant_count, 3);
        CHECK(strcmp(back->variant_names[2], "bare") == 0);
        const oak_gltf_primitive *q = &back->meshes[0].primitives[0];
        CHECK(q->variant_material && q->variant_material[1] == 2);
    }
    oak_gltf_free(back);
    oak_gltf_free(g);
}

/* variants.gltf's text with one substring replaced, loaded from memory */
static oak_result load_variants_edited(const char *from, const char *to) {
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file(k_variants, &data, &size));
    if (!data) return OAK_ERROR_IO;
    char *text = oak_alloc(size + 256);
    const char *at = strstr(data, from);
    CHECK(at != NULL);
    size_t head = at ? (size_t)(at - (const char *)data) : 0;
    memcpy(text, data, head);
    strcpy(text + head, to);
    size_t tail = at ? size - head - strlen(from) : 0;
    if (at) memcpy(text + head + strlen(to), at + strlen(from), tail);
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    oak_result r = oak_gltf_load_memory(&g, text, head + strlen(to) + tail, "edited.gltf", &d);
    oak_gltf_free(g);
    oak_free(text);
    oak_free(data);
    return r;
}

TEST(gltfBadVariantMappingsFailInOneLine) {
    CHECK_EQ_INT(load_variants_edited("\"variants\": [\n          1\n", "\"variants\": [\n 3\n"),
                 OAK_ERROR_PARSE);
    CHECK(error_has("is not one of the 3 variants"));
    fprintf(stderr, "  %s\n", oak_last_error());
    CHECK_EQ_INT(load_variants_edited("\"material\": 2,", "\"material\": 9,"), OAK_ERROR_PARSE);
    CHECK(error_has("material"));
    fprintf(stderr, "  %s\n", oak_last_error());
}

TEST(gltfVariantRecoloursTheInstance) {
    placed p;
    if (!place_file(&p, k_variants)) return unplace(&p);
    oak_entity cam = oak_scene_create(p.scene, "eye");
    float eye[3] = {0, 0, 3}, at[3] = {0, 0, 0};
    oak_transform xf = oak_transform_look_at(eye, at);
    oak_scene_set_transform(p.scene, cam, &xf);
    oak_scene_set_camera(p.scene, cam, &(oak_camera){.fov_y = 0.8f});
    oak_entity sun = oak_scene_create(p.scene, "sun");
    oak_transform st = oak_transform_look_at(eye, at);
    oak_scene_set_transform(p.scene, sun, &st);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    oak_scene_set_light(p.scene, sun, &l);
    static uint8_t rgba[W * H * 4];
    /* the left card's centre: x = -0.6 m at 3 m through 0.8 rad: 32 - 0.6 /
       (3 tan 0.4) * 32 = 16.9 px */
    const uint8_t *px = rgba + (32 * W + 17) * 4;
    struct {
        int32_t variant;
        int r, b; /* which channel leads: +1 red, -1 blue, 0 neither */
    } cases[] = {{-1, 0, 0}, {0, 1, 0}, {1, 0, 1}, {2, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_OK(oak_gltf_instance_set_variant(p.inst, cases[i].variant));
        draw(&p, rgba);
        fprintf(stderr, "  variant %d: %u %u %u\n", cases[i].variant, px[0], px[1], px[2]);
        if (cases[i].r) CHECK(px[0] > px[1] + 60 && px[0] > px[2] + 60);
        if (cases[i].b) CHECK(px[2] > px[0] + 60 && px[2] > px[1] + 60);
        if (!cases[i].r && !cases[i].b) CHECK(abs(px[0] - px[2]) < 24 && px[1] > 120);
    }
    CHECK_EQ_INT(oak_gltf_instance_set_variant(p.inst, 3), OAK_ERROR_INVALID_ARGUMENT);
    unplace(&p);
}

/* ---- KHR_materials_pbrSpecularGlossiness ----------------------------------- */

TEST(gltfSpecularGlossinessConvertsToMetalRough) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load(&g, "tests/data/gltf/specgloss.gltf", &d));
    if (!g) return;
    /* a dielectric: 4% specular is no metal, the diffuse is the base */
    const oak_material_desc *m = &g->materials[0].desc;
    CHECK_NEAR(m->metallic, 0, 1e-5);
    CHECK_NEAR(m->roughness, 0.2, 1e-6);
    CHECK_NEAR(m->base_color[0], 0.5, 1e-5);
    /* a metal: no diffuse, its specular is the base */
    m = &g->materials[1].desc;
    CHECK_NEAR(m->metallic, 1, 1e-4);
    CHECK_NEAR(m->roughness, 0, 1e-6);
    CHECK_NEAR(m->base_color[0], 0.9, 1e-3);
    CHECK_NEAR(m->base_color[1], 0.6, 1e-3);
    CHECK_NEAR(m->base_color[2], 0.3, 1e-3);
    /* textured: two baked images, read as the diffuse texture was */
    const oak_gltf_material *t = &g->materials[2];
    CHECK_EQ_INT(g->image_count, 4);
    CHECK(t->image[0] == 2 && t->image[1] == 3);
    if (t->image[0] == 2 && g->images[2].rgba && g->images[3].rgba) {
        const uint8_t *base = g->images[2].rgba, *mr = g->images[3].rgba;
        fprintf(stderr, "  texel 0: base %u %u %u, rough %u metal %u; texel 1: rough %u metal %u\n",
                base[0], base[1], base[2], mr[1], mr[2], mr[5], mr[6]);
        /* red diffuse over sRGB 10 specular (0.3%): a red dielectric, gloss 0.8 */
        CHECK(base[0] == 255 && base[1] == 0 && base[2] == 0);
        CHECK_EQ_INT(mr[1], 51);
        CHECK_EQ_INT(mr[2], 0);
        /* white diffuse over a bright coloured specular: mostly metal, gloss 1 */
        CHECK_EQ_INT(mr[5], 0);
        CHECK(mr[6] > 128);
        CHECK(t->desc.metallic == 1 && t->desc.roughness == 1 && t->desc.base_color[0] == 1);
    }
    oak_gltf_free(g);
}

static const char *k_instancing = "tests/data/gltf/instancing.gltf";

/* the file has no camera: one 6 m back on +z, 60 degrees tall */
static void add_camera(oak_scene *scene) {
    oak_entity cam = oak_scene_create(scene, "eye");
    oak_transform t = oak_transform_identity();
    t.position[2] = 6;
    oak_scene_set_transform(scene, cam, &t);
    oak_scene_set_camera(scene, cam, &(oak_camera){.fov_y = 1.0471976f});
}

TEST(gltfInstancingParsesAndSurvivesTheCache) {
    oak_gltf *g = NULL, *back = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, k_instancing, &d));
    if (!g) return;
    char path[512];
    oak_test_out(path, sizeof path, "instancing.oakm");
    CHECK_OK(oak_gltf_bake(g, path));
    CHECK_OK(oak_gltf_load(&back, path, &d));
    const oak_gltf *both[2] = {g, back};
    for (int k = 0; k < 2 && back; k++) {
        const oak_gltf_node *n = &both[k]->nodes[0];
        CHECK_EQ_INT(n->instance_count, 3);
        CHECK_EQ_INT(both[k]->nodes[1].instance_count, 0);
        if (n->instance_count != 3) continue;
        CHECK_NEAR(n->instances[0].translation[0], -1, 0);
        CHECK_NEAR(n->instances[2].translation[0], 1, 0);
        /* a normalized SHORT quaternion, made unit */
        CHECK_NEAR(n->instances[1].rotation[2], 0.70710678, 1e-6);
        CHECK_NEAR(n->instances[1].rotation[3], 0.70710678, 1e-6);
        CHECK_NEAR(n->instances[0].rotation[3], 1, 1e-6);
        CHECK_NEAR(n->instances[2].scale[1], 2, 0);
    }
    oak_gltf_free(back);
    oak_gltf_free(g);
}

TEST(gltfBadInstancingFailsInOneLine) {
    static const char *const files[][2] = {
        {"tests/data/gltf/instancing_counts.gltf",
         "SCALE has 2 placements where the others have 3"},
        {"tests/data/gltf/instancing_zero_rotation.gltf", "ROTATION[0] is not a unit quaternion"},
        {"tests/data/gltf/instancing_empty.gltf", "names no attribute"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        oak_gltf *g = NULL;
        oak_gltf_desc d = {.no_assets = true, .no_images = true};
        CHECK(oak_gltf_load(&g, files[i][0], &d) == OAK_ERROR_PARSE);
        CHECK(g == NULL);
        const char *why = oak_last_error();
        CHECK(strstr(why, "EXT_mesh_gpu_instancing") && strstr(why, files[i][1]) &&
              !strchr(why, '\n'));
        if (!strstr(why, files[i][1])) fprintf(stderr, "  got: %s\n", why);
    }
}

TEST(gltfInstancingPlacesAStreamThatFollowsTheNode) {
    placed p;
    if (!place_file(&p, k_instancing)) {
        unplace(&p);
        return;
    }
    add_camera(p.scene);
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(p.scene, &in));
    CHECK_EQ_INT(in.stream_count, 1);
    CHECK_EQ_INT(in.draw_count, 1); /* "plain" alone: the rack is the stream */
    if (in.stream_count == 1) {
        const oak_instance *rec = oak_stream_records(in.streams[0]);
        CHECK_EQ_INT(oak_stream_count(in.streams[0]), 3);
        /* the rack at z = -1, scale 2: placement (1, 0, 0) lands at (2, 0, -1) */
        CHECK_NEAR(rec[2].position[0], 2, 1e-6);
        CHECK_NEAR(rec[2].position[2], -1, 1e-6);
        CHECK_NEAR(rec[1].scale, 1, 1e-6);               /* 0.5 of 2 */
        CHECK_NEAR(rec[2].scale, 2 * cbrtf(2.0f), 1e-5); /* (1, 2, 1) drawn uniform */
        CHECK_NEAR(rec[1].rotation[2], 0.70710678, 1e-6);
        /* the instance moved: the records follow */
        oak_transform t = oak_transform_identity();
        t.position[0] = 5;
        oak_scene_set_transform(p.scene, oak_gltf_instance_root(p.inst), &t);
        uint64_t v0 = oak_stream_version(in.streams[0]);
        CHECK_OK(oak_scene_frame_input(p.scene, &in));
        CHECK_NEAR(rec[2].position[0], 7, 1e-6);
        CHECK(oak_stream_version(in.streams[0]) != v0);
        /* and stand still while it does */
        v0 = oak_stream_version(in.streams[0]);
        CHECK_OK(oak_scene_frame_input(p.scene, &in));
        CHECK(oak_stream_version(in.streams[0]) == v0);
    }
    /* freed: its stream goes with it */
    oak_gltf_instance_free(p.inst);
    p.inst = NULL;
    CHECK_OK(oak_scene_frame_input(p.scene, &in));
    CHECK_EQ_INT(in.stream_count, 0);
    unplace(&p);
}

/* three placements drawn on the CPU: each one's centre changes from the
   picture without the instance */
TEST(gltfInstancingDrawsEveryPlacement) {
    placed p;
    uint8_t *with = oak_alloc(W * H * 4), *without = oak_alloc(W * H * 4);
    if (place_file(&p, k_instancing) && with && without) {
        add_camera(p.scene);
        oak_renderer *ren = NULL;
        oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H};
        CHECK_OK(oak_make_renderer(&ren, &rd));
        oak_frame_input in;
        for (int pass = 0; pass < 2 && ren; pass++) {
            if (pass == 1) {
                oak_gltf_instance_free(p.inst);
                p.inst = NULL;
            }
            CHECK_OK(oak_scene_frame_input(p.scene, &in));
            CHECK_OK(oak_renderer_draw(ren, &in));
            CHECK_OK(oak_renderer_read_pixels(ren, pass ? without : with, W * H * 4));
        }
        for (int k = -1; k <= 1 && ren; k++) {
            float col, row;
            const oak_render_view *v = oak_renderer_last_view(ren);
            vec4 q = {2.0f * (float)k, 0, -1, 1}, c;
            glm_mat4_mulv((vec4 *)v->view_proj, q, c);
            col = (c[0] / c[3] * 0.5f + 0.5f) * W;
            row = (0.5f - c[1] / c[3] * 0.5f) * H;
            int gap = channel_gap(with, without, (int)col, (int)row);
            fprintf(stderr, "  placement %d at (%.0f, %.0f): %d levels from the empty picture\n",
                    k + 1, col, row, gap);
            CHECK(gap > 10);
        }
        oak_destroy_renderer(ren);
    }
    oak_free(with);
    oak_free(without);
    unplace(&p);
}

static const char *k_lod = "tests/data/gltf/lod.gltf";

TEST(gltfLodParsesAndSurvivesTheCache) {
    oak_gltf *g = NULL, *back = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK_OK(oak_gltf_load(&g, k_lod, &d));
    if (!g) return;
    char path[512];
    oak_test_out(path, sizeof path, "lod.oakm");
    CHECK_OK(oak_gltf_bake(g, path));
    CHECK_OK(oak_gltf_load(&back, path, &d));
    const oak_gltf *both[2] = {g, back};
    for (int k = 0; k < 2 && back; k++) {
        const oak_gltf_node *n = &both[k]->nodes[0];
        CHECK_EQ_INT(n->lod_count, 2);
        CHECK_EQ_INT(n->lod_coverage_count, 3);
        if (n->lod_count != 2 || n->lod_coverage_count != 3) continue;
        CHECK_EQ_INT(n->lod_nodes[0], 1);
        CHECK_EQ_INT(n->lod_nodes[1], 2);
        CHECK_NEAR(n->lod_coverage[1], 0.2, 1e-7);
        CHECK_EQ_INT(both[k]->root_count, 1);
    }
    oak_gltf_free(back);
    oak_gltf_free(g);
}

TEST(gltfBadLodsFailOrFallBackToTheHighestLevel) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true, .no_images = true};
    CHECK(oak_gltf_load(&g, "tests/data/gltf/lod_past.gltf", &d) == OAK_ERROR_PARSE);
    const char *why = oak_last_error();
    CHECK(strstr(why, "nodes[0].extensions.MSFT_lod.ids[1] is not a node index") &&
          !strchr(why, '\n'));
    static const char *const soft[] = {"tests/data/gltf/lod_in_scene.gltf",
                                       "tests/data/gltf/lod_rising.gltf"};
    for (int i = 0; i < 2; i++) {
        g = NULL;
        CHECK_OK(oak_gltf_load(&g, soft[i], &d));
        if (!g) continue;
        CHECK_EQ_INT(g->warning_count, 1);
        /* in the scene: no levels at all; rising: levels without coverage */
        CHECK_EQ_INT(g->nodes[0].lod_count, i == 0 ? 0 : 2);
        CHECK_EQ_INT(g->nodes[0].lod_coverage_count, 0);
        oak_gltf_free(g);
    }
}

/* the mesh of the one level the frame input shows, -1 for none, -2 for more */
static int shown_level(placed *p) {
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(p->scene, &in));
    int level = -1;
    for (uint32_t i = 0; i < in.draw_count; i++) {
        if (in.flags[i] & OAK_DRAW_HIDDEN) continue;
        int m = -2;
        for (int k = 0; k < 3; k++)
            if (in.meshes[i].id == p->g->meshes[k].primitives[0].mesh.id) m = k;
        level = level == -1 ? m : -2;
    }
    return level;
}

TEST(gltfLodShowsOneLevelByScreenCoverage) {
    placed p;
    if (!place_file(&p, k_lod)) {
        unplace(&p);
        return;
    }
    add_camera(p.scene); /* 60 degrees tall */
    oak_entity cam = oak_scene_find(p.scene, "eye");
    /* the card's sphere (radius 0.707) covers 0.707 / (d tan 30 deg) = 1.22 / d
       of the view's height */
    static const struct {
        float d;
        int level;
    } steps[] = {{1.5f, 0}, {4, 1}, {20, 2}, {200, -1}, {2, 0}};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        oak_transform t = oak_transform_identity();
        t.position[2] = steps[i].d;
        oak_scene_set_transform(p.scene, cam, &t);
        int got = shown_level(&p);
        fprintf(stderr, "  at %5.1f m (coverage %.3f): level %d\n", (double)steps[i].d,
                1.2247 / steps[i].d, got);
        CHECK_EQ_INT(got, steps[i].level);
    }
    /* the level follows the group when it moves (the instance's root) */
    oak_transform t = oak_transform_identity();
    t.position[2] = 1.5f; /* the camera 0.5 m from the card */
    oak_scene_set_transform(p.scene, cam, &t);
    t.position[2] = -17; /* the card 18.5 m away: coverage 0.066 */
    oak_scene_set_transform(p.scene, oak_gltf_instance_root(p.inst), &t);
    CHECK_EQ_INT(shown_level(&p), 2);
    unplace(&p);
}

int main(void) {
    oak_test_init(0);
    RUN(gltfPointerChannelsParseToPathsAndTargets);
    RUN(gltfBadPointersFailInOneLineOrAreSkipped);
    RUN(gltfPointerChannelsSurviveTheCache);
    RUN(gltfPointerAnimatesMaterialLampCameraAndVisibility);
    RUN(gltfPointerAnimationShowsInThePicture);
    RUN(gltfVariantsParseAndSurviveTheCache);
    RUN(gltfBadVariantMappingsFailInOneLine);
    RUN(gltfVariantRecoloursTheInstance);
    RUN(gltfSpecularGlossinessConvertsToMetalRough);
    RUN(gltfInstancingParsesAndSurvivesTheCache);
    RUN(gltfBadInstancingFailsInOneLine);
    RUN(gltfInstancingPlacesAStreamThatFollowsTheNode);
    RUN(gltfInstancingDrawsEveryPlacement);
    RUN(gltfLodParsesAndSurvivesTheCache);
    RUN(gltfBadLodsFailOrFallBackToTheHighestLevel);
    RUN(gltfLodShowsOneLevelByScreenCoverage);
    oak_shutdown();
    return TEST_SUMMARY();
}
