/* Starting a test on the backend named on its command line: the Vulkan
 * validation layer on (its findings fail the test), driver and layer pinned
 * so LSan can name their frames, the engine with the test's log. Returns 0
 * to go on, or the exit code: 2 when the engine does not start,
 * OAK_TEST_SKIP when the backend does not run here. */
#ifndef OAK_TEST_BACKEND_START_H
#define OAK_TEST_BACKEND_START_H

#include <dlfcn.h>

#include "oak_test.h"

/* The same with the test's own engine desc (an allocator, say). */
static inline int oak_test_backend_start_desc(const char *backend, const oak_engine_desc *desc) {
    if (!strcmp(backend, "vulkan")) {
        setenv("OAK_VK_VALIDATION", "1", 0);
        dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
        dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    }
    if (oak_init(desc) != OAK_OK) {
        fprintf(stderr, "oak_init failed: %s\n", oak_last_error());
        return 2;
    }
    char report[2048];
    if (oak_backend_probe(backend, report, sizeof report) != OAK_OK) {
        fprintf(stderr, "skipped: %s does not run here (%s)\n", backend, oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    return 0;
}

static inline int oak_test_backend_start(const char *backend, oak_log_fn log) {
    oak_engine_desc desc = {.log = log, .log_level = OAK_LOG_WARN};
    return oak_test_backend_start_desc(backend, &desc);
}

/* A log for tests on a backend: validation findings and errors counted
 * (each test checks both stay 0), warnings and worse printed. */
static int g_oak_test_validation, g_oak_test_errors;
static inline void oak_test_count_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (strstr(msg, "vulkan validation") || strstr(msg, "gl: debug error"))
        g_oak_test_validation++;
    else if (level >= OAK_LOG_ERROR)
        g_oak_test_errors++;
    if (level >= OAK_LOG_WARN) fprintf(stderr, "log: %s\n", msg);
}

/* A dark world for emissive test scenes: no sky, no ambient light (the rest
 * as oak_environment_defaults), and post settings that show raw light:
 * exposure 1, no tone curve, dither, FXAA, AO or bloom. */
static inline void oak_test_dark_world(oak_environment *env, oak_post *post) {
    *env = oak_environment_defaults();
    memset(env->sky_zenith_display, 0, sizeof env->sky_zenith_display);
    memset(env->sky_horizon_display, 0, sizeof env->sky_horizon_display);
    memset(env->ambient_sky, 0, sizeof env->ambient_sky);
    memset(env->ambient_ground, 0, sizeof env->ambient_ground);
    *post = (oak_post){.exposure = 1,
                       .ao = OAK_AO_OFF,
                       .no_fxaa = true,
                       .no_dither = true,
                       .no_tonemap = true,
                       .bloom = OAK_BLOOM_OFF};
}

/* A material that shows `level` of linear radiance and reflects nothing
 * (black base, rough dielectric); 0: black. */
static inline oak_material oak_test_emitter(float level) {
    oak_material m = {0};
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    md.metallic = 0, md.roughness = 1;
    md.emissive[0] = md.emissive[1] = md.emissive[2] = level > 0 ? 1.0f : 0.0f;
    md.emissive_strength = level > 0 ? level : 1; /* 0 would read as the default, 1 */
    CHECK_OK(oak_make_material(&m, &md));
    return m;
}

/* The CPU backend's picture of `in` after drawing it `frames` times on a
   w x h renderer of its own (the reference a GPU backend is held to);
   false, with the failure checked, when it could not draw. */
static inline bool oak_test_cpu_picture(const oak_frame_input *in, int frames, uint32_t w,
                                        uint32_t h, uint8_t *px) {
    oak_renderer *rc = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&rc, &d));
    if (!rc) return false;
    bool ok = true;
    for (int f = 0; f < frames && ok; f++) ok = oak_renderer_draw(rc, in) == OAK_OK;
    ok = ok && oak_renderer_read_pixels(rc, px, (size_t)w * h * 4) == OAK_OK;
    CHECK(ok);
    oak_destroy_renderer(rc);
    return ok;
}

/* The parity rule on two RGBA8 pictures of w x h: >= 99.5% of channels
 * within 2/255 and a mean difference under 0.5/255 (printed, then checked);
 * true when it holds. */
static inline bool oak_test_parity(const char *what, const uint8_t *a, const uint8_t *b, uint32_t w,
                                   uint32_t h) {
    size_t n = (size_t)w * h * 4, ok = 0;
    double sum = 0;
    int most = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a[i] - (int)b[i]);
        ok += d <= 2, sum += d, most = d > most ? d : most;
    }
    double within = (double)ok / (double)n, mean = sum / (double)n;
    fprintf(stderr, "  %s: %.4f within 2/255, mean %.4f/255, max %d\n", what, within, mean, most);
    CHECK(within >= 0.995);
    CHECK(mean < 0.5);
    return within >= 0.995 && mean < 0.5;
}

/* The sunlit scene the stream tests draw: `count` draws of the given
 * arrays, one directional sun casting shadows from above and aside, the
 * default sky, exposure 1, and a camera of fov_deg and zfar whose pose is
 * the caller's (streams, colours and the rest too), its LOD distances as
 * authored (lod_scale pinned to 1: the stream tests count the authored bands
 * at renders far under 1080 lines). */
static inline void oak_test_sunlit_input(oak_frame_input *in, uint32_t count,
                                         const oak_mesh *meshes, const oak_material *materials,
                                         const mat4 *world, oak_render_light *sun,
                                         oak_environment *env, oak_post *post, float fov_deg,
                                         float zfar) {
    sun->light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    sun->light.cast_shadows = true;
    sun->direction[0] = -0.4f, sun->direction[1] = -0.8f, sun->direction[2] = -0.45f;
    *env = oak_environment_defaults();
    *post = (oak_post){.exposure = 1};
    in->camera = (oak_camera){
        .fov_y = fov_deg * (float)OAK_PI / 180.0f, .znear = 0.1f, .zfar = zfar, .lod_scale = 1};
    in->draw_count = count;
    in->meshes = meshes;
    in->materials = materials;
    in->transforms = world;
    in->light_count = 1;
    in->lights = sun;
    in->environment = env;
    in->post = post;
}

/* The CPU's bytes do not depend on the job pool's size: `picture` (the
 * test's own, starting and stopping the engine itself) draws its scene at
 * 1 and at 3 threads into one and three (`bytes` each; one keeps the first
 * picture for the caller), and both are made and equal. */
static inline void oak_test_same_at_threads(const char *what,
                                            bool (*picture)(uint32_t threads, uint8_t *px),
                                            uint8_t *one, uint8_t *three, size_t bytes) {
    bool made = picture(1, one) && picture(3, three);
    CHECK(made);
    if (!made) return;
    size_t diff = 0;
    for (size_t i = 0; i < bytes; i++) diff += one[i] != three[i];
    fprintf(stderr, "  %s at 1 and 3 threads: %zu bytes differ\n", what, diff);
    CHECK_EQ_INT((int)diff, 0);
}

/* Frame 0 of a fresh renderer on `backend` against the CPU's frame 0 of the
 * same input, under the parity rule (a and b: w x h RGBA8 scratch). */
static inline void oak_test_parity_frame(const char *what, const char *backend,
                                         const oak_frame_input *in, uint32_t w, uint32_t h,
                                         uint8_t *a, uint8_t *b) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (r && oak_test_cpu_picture(in, 1, w, h, a)) {
        CHECK_OK(oak_renderer_draw(r, in));
        CHECK_OK(oak_renderer_read_pixels(r, b, (size_t)w * h * 4));
        char label[64];
        snprintf(label, sizeof label, "%s cpu vs %s", what, backend);
        oak_test_parity(label, a, b, w, h);
    }
    if (r) oak_destroy_renderer(r);
}

/* An sRGB byte in linear light. */
static inline double oak_test_linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* The mean width, in output pixels, over which rows cross the edge from
   10% to 90% of the way from dark to light (green channel, linear light),
   over the rows 20 .. H - 20 of a W x H RGBA8 picture (test_taa,
   test_render_scale). */
static inline double oak_test_edge_width(const uint8_t *px, uint32_t W, uint32_t H) {
    double sum = 0;
    int rows = 0;
    for (uint32_t y = 20; y < H - 20; y++) {
        double lo = 1, hi = 0;
        for (uint32_t x = 0; x < W; x++) {
            double c = oak_test_linear(px[(y * W + x) * 4 + 1]);
            lo = fmin(lo, c), hi = fmax(hi, c);
        }
        double a = lo + 0.1 * (hi - lo), b = lo + 0.9 * (hi - lo);
        /* the first column past each level, interpolated between columns */
        double xa = -1, xb = -1;
        /* walked from the dark side (the light quad lies to the left) */
        bool flip = px[(y * W) * 4 + 1] > px[(y * W + W - 1) * 4 + 1];
        for (uint32_t i = 1; i < W; i++) {
            uint32_t x = flip ? W - i : i, xp = flip ? W - 1 - i : i - 1;
            double c0 = oak_test_linear(px[(y * W + x) * 4 + 1]),
                   c1 = oak_test_linear(px[(y * W + xp) * 4 + 1]);
            if (xa < 0 && c0 < a && c1 >= a) xa = i - 1 + (a - c0) / (c1 - c0);
            if (xb < 0 && c0 < b && c1 >= b) xb = i - 1 + (b - c0) / (c1 - c0);
        }
        if (xa < 0 || xb < 0) continue;
        sum += xb - xa;
        rows++;
    }
    return rows ? sum / rows : 1e9;
}

/* The scene drawn by r and read back into px (w x h RGBA8); false, and the
   check failed, when either step fails. */
static inline bool oak_test_draw_scene(oak_renderer *r, oak_scene *scene, uint8_t *px, uint32_t w,
                                       uint32_t h) {
    bool ok = oak_scene_draw(scene, r) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)w * h * 4) == OAK_OK;
    CHECK(ok);
    return ok;
}

/* A camera framing pts (n points) by fr, made the scene's active one, and
   a directional sun from 1, 3 and 2 m off the camera toward the origin:
   the glTF pictures' set-up. Returns the camera entity. */
static inline oak_entity oak_test_frame_and_light(oak_scene *scene, const float *pts, uint32_t n,
                                                  const oak_framing *fr) {
    oak_transform xf;
    oak_camera cam;
    CHECK_OK(oak_frame_points(&xf, &cam, pts, n, fr));
    oak_entity ce = oak_scene_create(scene, "camera");
    oak_scene_set_transform(scene, ce, &xf);
    oak_scene_set_camera(scene, ce, &cam);
    oak_scene_set_active_camera(scene, ce);
    oak_entity sun = oak_scene_create(scene, "sun");
    float eye[3] = {xf.position[0] + 1, xf.position[1] + 3, xf.position[2] + 2}, at[3] = {0};
    oak_transform st = oak_transform_look_at(eye, at);
    oak_scene_set_transform(scene, sun, &st);
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    oak_scene_set_light(scene, sun, &l);
    return ce;
}

/* Pixels of two w x h RGBA8 pictures whose largest channel moved by more
   than tol/255. */
static inline uint32_t oak_test_changed_pixels(const uint8_t *a, const uint8_t *b, uint32_t w,
                                               uint32_t h, int tol) {
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)w * h; i++) {
        int most = 0;
        for (int c = 0; c < 3; c++) {
            int d = abs((int)a[i * 4 + c] - (int)b[i * 4 + c]);
            most = d > most ? d : most;
        }
        n += most > tol;
    }
    return n;
}

#endif
