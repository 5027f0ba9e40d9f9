/* Screen-space reflections on puddles (docs/SHADING.md "Screen-space
 * reflections") on a backend (argv[1]: cpu, vulkan or gl): a wet floor
 * (wetness 1, on a patch the puddle noise covers whole) with a red box
 * standing on it, the eye looking at the floor in front of the box. The ssr
 * pass runs only past wetness 0.5; where the box's mirror image falls, the
 * puddle takes its hue (R over the mean of G and B well above 2), and below
 * 1 without puddles; a box behind the eye changes no byte (the screen cannot
 * see it); still water mirrors a box held over it through the same march
 * over the opaque copy; on the CPU the same bytes at 1 and 3 threads, and
 * the mirror buffer marks the measured pixels; on vulkan and gl the CPU's
 * pictures at the parity rule. */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
#include "backend_start.h"
#include "render/pass_table.h"
#include "render/renderer_internal.h"

#define W 160
#define H 90
/* a patch 327 .. 333 m along x, -12 .. -3 m along z whose puddle noise is
   above 0.71 everywhere (fully a puddle past cover 0.45 + edge 0.08) */
#define X0 330.0f

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_box;
static oak_material g_floor, g_red;

static void make_assets(void) {
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.2f;
    md.metallic = 0, md.roughness = 0.9f;
    CHECK_OK(oak_make_material(&g_floor, &md));
    md.base_color[0] = 0.9f, md.base_color[1] = md.base_color[2] = 0.02f;
    md.roughness = 0.6f;
    CHECK_OK(oak_make_material(&g_red, &md));
}

static void place(oak_scene *sc, oak_material m, float x, float y, float z, float sx, float sy,
                  float sz) {
    oak_entity e = oak_scene_create(sc, "thing");
    oak_transform t = oak_transform_identity();
    t.position[0] = x, t.position[1] = y, t.position[2] = z;
    t.scale[0] = sx, t.scale[1] = sy, t.scale[2] = sz;
    oak_scene_set_transform(sc, e, &t);
    oak_mesh_renderer mr = {.mesh = g_box, .material = m};
    oak_scene_set_mesh_renderer(sc, e, &mr);
}

/* The floor (top at y = 0), a sun from behind the eye, the eye 1.2 m up at z = -3
   looking down at the floor in front of z = -9.5; a red box 1 x 1.5 x 1 m
   standing with its face to the eye at z = -9.5 (front), or 4 m behind the
   eye (behind). */
static oak_scene *make_scene(float wetness, bool front, bool behind) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return NULL;
    oak_environment *env = oak_scene_environment(sc);
    *env = oak_environment_defaults();
    env->wetness = wetness;
    oak_post *post = oak_scene_post(sc);
    post->exposure = 1;
    post->ao = OAK_AO_OFF;
    post->bloom = OAK_BLOOM_OFF;
    post->taa = OAK_TAA_OFF;
    post->no_dither = true;
    place(sc, g_floor, X0, -0.5f, -8, 30, 1, 30);
    if (front) place(sc, g_red, X0, 0.75f, -10, 1, 1.5f, 1);
    if (behind) place(sc, g_red, X0, 0.75f, 1, 1, 1.5f, 1);
    oak_entity sun = oak_scene_create(sc, "sun");
    float from[3] = {X0 + 8, 20, 10}, at[3] = {X0, 0, -8};
    oak_transform t = oak_transform_look_at(from, at);
    oak_scene_set_transform(sc, sun, &t);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    oak_scene_set_light(sc, sun, &l);
    oak_entity cam = oak_scene_create(sc, "camera");
    float eye[3] = {X0, 1.2f, -3}, look[3] = {X0, 0.3f, -9};
    t = oak_transform_look_at(eye, look);
    oak_scene_set_transform(sc, cam, &t);
    oak_camera c = {.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 500};
    oak_scene_set_camera(sc, cam, &c);
    oak_scene_set_active_camera(sc, cam);
    return sc;
}

static void draw(oak_scene *sc, uint8_t *px) {
    CHECK_OK(oak_scene_draw(sc, g_main));
    CHECK_OK(oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4));
}

static bool ssr_ran(void) {
    return _oak_pass_runs(&_oak_pass_table()[OAK_PASS_SSR], &g_main->frontend.view,
                          g_main->backend->caps);
}

/* The pixels where the box's face shows in the floor: the face (z = -9.5,
   x 329.5 .. 330.5, y 0 .. 1.5) mirrored below the floor (y to -y) and
   projected by the frame's view, less a 2-pixel margin. */
static int g_x0, g_x1, g_y0, g_y1;
static void mirror_rect(void) {
    const oak_render_view *v = &g_main->frontend.view;
    float lo[2] = {1e9f, 1e9f}, hi[2] = {-1e9f, -1e9f};
    for (int i = 0; i < 4; i++) {
        vec4 p = {X0 - 0.5f + (float)(i & 1), -1.5f * (float)(i >> 1), -9.5f, 1}, c;
        glm_mat4_mulv((vec4 *)v->view_proj, p, c);
        float sx = (c[0] / c[3] * 0.5f + 0.5f) * W, sy = (0.5f - c[1] / c[3] * 0.5f) * H;
        lo[0] = fminf(lo[0], sx), hi[0] = fmaxf(hi[0], sx);
        lo[1] = fminf(lo[1], sy), hi[1] = fmaxf(hi[1], sy);
    }
    g_x0 = (int)ceilf(lo[0]) + 2, g_x1 = (int)floorf(hi[0]) - 2;
    g_y0 = (int)ceilf(lo[1]) + 2, g_y1 = (int)floorf(hi[1]) - 2;
}

/* R over the mean of G and B (linear light) over the mirror rectangle */
static double hue(const uint8_t *px) {
    double r = 0, gb = 0;
    for (int y = g_y0; y <= g_y1; y++)
        for (int x = g_x0; x <= g_x1; x++) {
            const uint8_t *p = px + ((size_t)y * W + (size_t)x) * 4;
            r += oak_test_linear(p[0]);
            gb += 0.5 * (oak_test_linear(p[1]) + oak_test_linear(p[2]));
        }
    return gb > 0 ? r / gb : 0;
}

TEST(puddlesMirrorTheBox) {
    static uint8_t wet[W * H * 4], damp[W * H * 4];
    oak_scene *sc = make_scene(1, true, false);
    if (!sc) return;
    draw(sc, wet);
    bool ran = ssr_ran();
    mirror_rect();
    fprintf(stderr, "  mirror rectangle x %d .. %d, y %d .. %d; ssr ran %d at wetness 1\n", g_x0,
            g_x1, g_y0, g_y1, ran);
    CHECK(ran);
    CHECK(g_x1 - g_x0 >= 4 && g_y1 - g_y0 >= 2 && g_x0 >= 0 && g_x1 < W && g_y0 >= 0 && g_y1 < H);
    if (!(g_x1 - g_x0 >= 4 && g_y1 - g_y0 >= 2 && g_x0 >= 0 && g_x1 < W && g_y0 >= 0 && g_y1 < H))
        return;
    if (!strcmp(g_backend, "cpu")) { /* each measured pixel a mirror */
        const cpu_backend *b = g_main->self;
        int mirrors = 0, n = 0;
        for (int y = g_y0; y <= g_y1; y++)
            for (int x = g_x0; x <= g_x1; x++, n++) {
                const float *m = b->ssr + ((size_t)y * W + (size_t)x) * 8;
                mirrors += m[0] > 0 && m[1] > 0 && m[2] > 0;
            }
        fprintf(stderr, "  %d of %d measured pixels are mirrors\n", mirrors, n);
        CHECK_EQ_INT(mirrors, n);
    }
    double h_wet = hue(wet);
    oak_scene_environment(sc)->wetness = 0.45f; /* wet, no puddles: no ssr */
    draw(sc, damp);
    bool ran_damp = ssr_ran();
    double h_damp = hue(damp);
    oak_scene_environment(sc)->wetness = 0;
    draw(sc, damp);
    bool ran_dry = ssr_ran();
    double h_dry = hue(damp);
    fprintf(stderr,
            "  R / mean(G, B) under the box: %.3f puddles, %.3f at wetness 0.45, %.3f dry\n", h_wet,
            h_damp, h_dry);
    CHECK(!ran_damp && !ran_dry);
    CHECK(h_wet > 2.0);
    CHECK(h_damp < 1.0);
    CHECK(h_dry < 1.0);
    char path[512];
    CHECK_OK(oak_image_write_png(oak_test_out(path, sizeof path, "ssr_wet.png"), W, H, wet));
    oak_destroy_scene(sc);
}

/* A box behind the eye: the depth buffer does not hold it, so the puddles
   cannot show it; the picture is the one without it, byte for byte. */
TEST(behindTheEyeChangesNothing) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_scene *s0 = make_scene(1, false, false), *s1 = make_scene(1, false, true);
    if (s0 && s1) {
        draw(s0, a);
        draw(s1, b);
        size_t diff = 0;
        for (size_t i = 0; i < sizeof a; i++) diff += a[i] != b[i];
        fprintf(stderr, "  a box behind the eye: %zu bytes differ\n", diff);
        CHECK(ssr_ran());
        CHECK_EQ_INT((int)diff, 0);
    }
    if (s0) oak_destroy_scene(s0);
    if (s1) oak_destroy_scene(s1);
}

/* Still water (level 0) over a floor 1.5 m down, the red box held 0.2 m
   above it (its mirror image then lies on water, not on the box seen
   through it); the eye as above. With box false, the same without it. */
static oak_water *g_water;
static oak_scene *make_lake(bool box) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return NULL;
    *oak_scene_environment(sc) = oak_environment_defaults();
    oak_post *post = oak_scene_post(sc);
    post->exposure = 1;
    post->ao = OAK_AO_OFF;
    post->bloom = OAK_BLOOM_OFF;
    post->taa = OAK_TAA_OFF;
    post->no_dither = true;
    place(sc, g_floor, X0, -2, -8, 30, 1, 30);
    if (box) place(sc, g_red, X0, 0.95f, -10, 1, 1.5f, 1);
    oak_entity sun = oak_scene_create(sc, "sun");
    float from[3] = {X0 + 8, 20, 10}, at[3] = {X0, 0, -8};
    oak_transform t = oak_transform_look_at(from, at);
    oak_scene_set_transform(sc, sun, &t);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    oak_scene_set_light(sc, sun, &l);
    oak_entity cam = oak_scene_create(sc, "camera");
    float eye[3] = {X0, 1.2f, -3}, look[3] = {X0, 0.3f, -9};
    t = oak_transform_look_at(eye, look);
    oak_scene_set_transform(sc, cam, &t);
    oak_camera c = {.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 500};
    oak_scene_set_camera(sc, cam, &c);
    oak_scene_set_active_camera(sc, cam);
    oak_water_desc d = {.steepness = -1, .grid_cells = 64, .grid_spacing = 0.5f};
    g_water = NULL;
    CHECK_OK(oak_make_water(&g_water, sc, &d));
    if (g_water) CHECK_OK(oak_water_update(g_water, eye, 0));
    return sc;
}

static void free_lake(oak_scene *sc) {
    oak_destroy_water(g_water);
    g_water = NULL;
    oak_destroy_scene(sc);
}

/* Water's surface mirrors the box through the same march, over the opaque
   copy: where the box's face shows mirrored (y 0.2 .. 1.7 below the
   level), R over the mean of G and B, against the lake without the box. */
TEST(waterMirrorsTheBox) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_scene *sc = make_lake(true);
    if (!sc) return;
    draw(sc, a);
    free_lake(sc);
    const oak_render_view *v = &g_main->frontend.view;
    float lo[2] = {1e9f, 1e9f}, hi[2] = {-1e9f, -1e9f};
    for (int i = 0; i < 4; i++) {
        vec4 p = {X0 - 0.5f + (float)(i & 1), -0.2f - 1.5f * (float)(i >> 1), -9.5f, 1}, c;
        glm_mat4_mulv((vec4 *)v->view_proj, p, c);
        float sx = (c[0] / c[3] * 0.5f + 0.5f) * W, sy = (0.5f - c[1] / c[3] * 0.5f) * H;
        lo[0] = fminf(lo[0], sx), hi[0] = fmaxf(hi[0], sx);
        lo[1] = fminf(lo[1], sy), hi[1] = fmaxf(hi[1], sy);
    }
    g_x0 = (int)ceilf(lo[0]) + 2, g_x1 = (int)floorf(hi[0]) - 2;
    g_y0 = (int)ceilf(lo[1]) + 2, g_y1 = (int)floorf(hi[1]) - 2;
    sc = make_lake(false);
    if (!sc) return;
    draw(sc, b);
    free_lake(sc);
    bool ok =
        g_x1 - g_x0 >= 4 && g_y1 - g_y0 >= 2 && g_x0 >= 0 && g_x1 < W && g_y0 >= 0 && g_y1 < H;
    CHECK(ok);
    if (!ok) return;
    double h_box = hue(a), h_none = hue(b);
    fprintf(stderr,
            "  water: rectangle x %d .. %d, y %d .. %d; R / mean(G, B) %.3f with the box, %.3f "
            "without\n",
            g_x0, g_x1, g_y0, g_y1, h_box, h_none);
    CHECK(h_box > 1.0);
    CHECK(h_none < 0.5);
    char path[512];
    CHECK_OK(oak_image_write_png(oak_test_out(path, sizeof path, "ssr_water.png"), W, H, a));
}

TEST(backendsAgree) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_scene *sc = make_scene(1, true, false);
    if (!sc) return;
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(sc, &in));
    oak_test_parity_frame("puddles mirroring a box", g_backend, &in, W, H, a, b);
    oak_destroy_scene(sc);
    sc = make_lake(true);
    if (!sc) return;
    CHECK_OK(oak_scene_frame_input(sc, &in));
    oak_test_parity_frame("water mirroring a box", g_backend, &in, W, H, a, b);
    free_lake(sc);
}

static bool cpu_picture_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    make_assets();
    oak_scene *sc = make_scene(1, true, false);
    bool ok = false;
    if (sc) {
        oak_frame_input in;
        CHECK_OK(oak_scene_frame_input(sc, &in));
        ok = oak_test_cpu_picture(&in, 1, W, H, px);
        oak_destroy_scene(sc);
    }
    oak_shutdown();
    return ok;
}

static bool cpu_lake_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    make_assets();
    oak_scene *sc = make_lake(true);
    bool ok = false;
    if (sc) {
        oak_frame_input in;
        CHECK_OK(oak_scene_frame_input(sc, &in));
        ok = oak_test_cpu_picture(&in, 1, W, H, px);
        free_lake(sc);
    }
    oak_shutdown();
    return ok;
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    make_assets();
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(puddlesMirrorTheBox);
        RUN(behindTheEyeChangesNothing);
        RUN(waterMirrorsTheBox);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    if (!strcmp(g_backend, "cpu")) {
        static uint8_t one[W * H * 4], three[W * H * 4];
        oak_test_same_at_threads("puddles mirroring a box", cpu_picture_at, one, three, sizeof one);
        oak_test_same_at_threads("water mirroring a box", cpu_lake_at, one, three, sizeof one);
    }
    return TEST_SUMMARY();
}
