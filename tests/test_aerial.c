/* Aerial perspective (render/aerial.c, docs/SHADING.md "Aerial
 * perspective") on a backend (argv[1]; 77 where the backend lacks
 * OAK_CAP_AERIAL): off (no key light above the atmosphere) draws no volume
 * and the same bytes; a surface 1 m away is unchanged within 1/255; at noon
 * a grey wall 20 km away is bluer than one 200 m away, and the volume's
 * transmittance there is exp(-the extinction's integral) computed here
 * along the same ray, within 2%; at dusk the far wall toward the sun is
 * redder than at noon; under an overcast deck (sky_grey) the air is grey;
 * the volume is the same bytes at 1 and 3 threads;
 * on vulkan and gl the noon and dusk far walls are the CPU's picture under
 * the parity rule. */
#include <time.h>

#include "oak_test.h"

#include "backend_start.h"
#include "scene_helpers.h"
#include "render/aerial.h"
#include "render/renderer_internal.h"

#define W 96
#define H 64

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_box;

typedef oak_test_scene scene;

/* the key light above the atmosphere: elevation el (degrees) toward -Z
   (azimuth 0) or +Z (180) */
static void set_light(oak_environment *e, float el_deg, float az_deg, float lux) {
    float el = glm_rad(el_deg), az = glm_rad(az_deg);
    e->aerial_lux = lux;
    e->aerial_dir[0] = cosf(el) * sinf(az);
    e->aerial_dir[1] = sinf(el);
    e->aerial_dir[2] = -cosf(el) * cosf(az);
}

/* A dark world, the camera 2 m up looking along -Z, an emissive grey wall
   (luminance `level`) filling the view `dist` metres ahead; exposure 1/10000 */
static void wall_scene(scene *s, float dist, float level) {
    oak_test_scene_begin(s);
    s->post.exposure = 1.0f / 10000.0f;
    s->post.taa = OAK_TAA_OFF;
    s->in.camera = (oak_camera){.fov_y = glm_rad(40), .znear = 0.1f, .zfar = 60000.0f};
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){0, 2, 0});
    oak_test_scene_set(s, 0, g_box, oak_test_emitter(level));
    float size = dist * 2.0f;
    s->world[0][0][0] = size, s->world[0][1][1] = size, s->world[0][2][2] = 0.01f * dist;
    s->world[0][3][1] = 2, s->world[0][3][2] = -dist;
}

static void draw(const scene *s, uint8_t *px) {
    oak_test_scene_draw(g_main, s, px, (size_t)W * H * 4);
}

/* the mean linear value of channel c over the middle 8 x 8 pixels */
static double mid(const uint8_t *px, int c) {
    double sum = 0;
    for (int y = H / 2 - 4; y < H / 2 + 4; y++)
        for (int x = W / 2 - 4; x < W / 2 + 4; x++)
            sum += oak_test_linear(px[((size_t)y * W + x) * 4 + c]);
    return sum / 64;
}

/* Off (aerial_lux 0, a direction given) builds no volume and draws what
   the renderer drew before any aerial perspective; on changes the far
   wall; off again is the first picture to the byte. */
TEST(aerialOffChangesNothing) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4], c[W * H * 4];
    wall_scene(&s, 5000, 1000);
    set_light(&s.env, 40, 0, 0);
    draw(&s, a);
    bool none = g_main->frontend.view.aerial == NULL;
    set_light(&s.env, 40, 0, 128000);
    draw(&s, b);
    bool some = g_main->frontend.view.aerial != NULL;
    set_light(&s.env, 40, 0, 0);
    draw(&s, c);
    size_t on = oak_test_bytes_differ(a, b, sizeof a), back = oak_test_bytes_differ(a, c, sizeof a);
    fprintf(stderr, "  aerial off: volume %s; on: %zu bytes differ; off again: %zu differ\n",
            none ? "none" : "built", on, back);
    CHECK(none && some);
    CHECK(on > sizeof a / 4);
    CHECK_EQ_INT((int)back, 0);
}

/* A wall 1 m away under the noon sun: within 1/255 of the wall without
   aerial perspective in every channel of every pixel. */
TEST(nearIsIdentity) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    wall_scene(&s, 1, 1000);
    draw(&s, a);
    set_light(&s.env, 60, 180, 128000);
    draw(&s, b);
    int worst = 0;
    for (size_t i = 0; i < sizeof a; i++)
        worst = abs(a[i] - b[i]) > worst ? abs(a[i] - b[i]) : worst;
    fprintf(stderr, "  wall at 1 m: largest change %d / 255\n", worst);
    CHECK(worst <= 1);
}

/* The wall's blue over red at 200 m and 20 km under the noon sun (60
   degrees up, behind the eye) as drawn: the far one at least 1.3 times
   the near one's ratio. */
static double blue_over_red(float dist, float el, float az) {
    static scene s;
    static uint8_t px[W * H * 4];
    wall_scene(&s, dist, 1000);
    set_light(&s.env, el, az, 128000);
    draw(&s, px);
    double r = mid(px, 0), bl = mid(px, 2);
    fprintf(stderr, "  wall at %.0f m, sun %.0f degrees up: linear %.4f %.4f %.4f\n", dist, el, r,
            mid(px, 1), bl);
    return bl / fmax(r, 1e-6);
}

TEST(farWallIsBluerAtNoon) {
    double near = blue_over_red(200, 60, 180), far = blue_over_red(20000, 60, 180);
    fprintf(stderr, "  B/R at 200 m %.3f, at 20 km %.3f (x%.2f)\n", near, far, far / near);
    CHECK(far > 1.3 * near);
}

/* At dusk (the sun 2 degrees up behind the wall) the far wall is redder
   than at noon: its R/B is higher. */
TEST(duskFarWallIsRedder) {
    double noon = 1.0 / blue_over_red(20000, 60, 180);
    double dusk = 1.0 / blue_over_red(20000, 2, 0);
    fprintf(stderr, "  R/B at 20 km: noon %.3f, dusk %.3f\n", noon, dusk);
    CHECK(dusk > 1.2 * noon);
}

/* Under an overcast deck (sky_grey 1) the air is as grey as the sky: the
   grey wall 20 km away under the noon sun keeps its B/R within 0.03 of 1
   (the volume's transmittance is one number, its light grey), where the
   same wall without the grey is bluer (at least 1.3); drawn on each
   backend, one frame after the other, so the volume is built again when
   only the grey moved. */
TEST(greyDeckGreysTheAir) {
    double blue = blue_over_red(20000, 60, 180);
    static scene s;
    static uint8_t px[W * H * 4];
    wall_scene(&s, 20000, 1000);
    set_light(&s.env, 60, 180, 128000);
    s.env.sky_grey = 1;
    draw(&s, px);
    double grey = mid(px, 2) / fmax(mid(px, 0), 1e-6);
    fprintf(stderr, "  wall at 20 km, B/R: clear %.3f, under a grey deck %.3f\n", blue, grey);
    CHECK(blue > 1.3);
    CHECK(fabs(grey - 1) < 0.03);
}

/* The GPUs apply the host's volume with the CPU's lookup (aerial.glsl):
   the far wall at noon and at dusk, with an unlit BLEND pane (blend_unlit
   on the GPUs) 5 km away over its left half, is the CPU's picture under
   the parity rule; and the GPU's wall shows the air (its B/R at noon at
   least 1.3 times the same wall's without aerial perspective, as drawn on
   this backend). */
static void parity_scene(scene *s, float el, float az) {
    wall_scene(s, 20000, 1000);
    set_light(&s->env, el, az, 128000);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.9f, md.base_color[1] = 0.5f, md.base_color[2] = 0.2f;
    md.base_color[3] = 0.5f;
    md.unlit = true, md.alpha_mode = OAK_ALPHA_BLEND;
    oak_material pane = {0};
    CHECK_OK(oak_make_material(&pane, &md));
    oak_test_scene_set(s, 1, g_box, pane);
    s->world[1][0][0] = 5000, s->world[1][1][1] = 10000, s->world[1][2][2] = 1;
    s->world[1][3][0] = -2500, s->world[1][3][1] = 2, s->world[1][3][2] = -5000;
}

TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4], off[W * H * 4];
    const float sun[2][2] = {{60, 180}, {2, 0}};
    for (int k = 0; k < 2; k++) {
        parity_scene(&s, sun[k][0], sun[k][1]);
        oak_test_parity_frame(k ? "dusk far wall" : "noon far wall", g_backend, &s.in, W, H, a, b);
        /* the middle right (the wall alone): B/R with and without the air */
        double br = 0, br_off = 0;
        draw(&s, b);
        set_light(&s.env, sun[k][0], sun[k][1], 0);
        draw(&s, off);
        for (int y = H / 2 - 4; y < H / 2 + 4; y++)
            for (int x = 3 * W / 4 - 4; x < 3 * W / 4 + 4; x++) {
                const uint8_t *p = b + ((size_t)y * W + x) * 4, *q = off + ((size_t)y * W + x) * 4;
                br += oak_test_linear(p[2]) / fmax(oak_test_linear(p[0]), 1e-6) / 64;
                br_off += oak_test_linear(q[2]) / fmax(oak_test_linear(q[0]), 1e-6) / 64;
            }
        fprintf(stderr, "  %s on %s: wall B/R %.3f, without the air %.3f\n", k ? "dusk" : "noon",
                g_backend, br, br_off);
        if (!k) CHECK(br > 1.3 * br_off);
        oak_destroy_material(s.mat[1]);
    }
}

/* ---- the volume itself ---------------------------------------------------- */

/* the view the renderer would make for a camera 2 m up along -Z pitched by
   `pitch` degrees, under a noon sun */
static void make_view(oak_render_view *v, float pitch) {
    memset(v, 0, sizeof *v);
    v->env = oak_environment_defaults();
    set_light(&v->env, 60, 180, 128000);
    v->env.sky_light = 1;
    mat4 world;
    glm_mat4_identity(world);
    glm_translate(world, (vec3){0, 2, 0});
    glm_rotate_x(world, glm_rad(pitch), world);
    glm_mat4_inv(world, v->view);
    oak_perspective_rz(glm_rad(40), (float)W / H, 0.1f, 60000.0f, v->proj);
    glm_mat4_mul(v->proj, v->view, v->view_proj);
    glm_mat4_inv(v->view_proj, v->inv_view_proj);
    v->camera_pos[0] = 0, v->camera_pos[1] = 2, v->camera_pos[2] = 0;
}

/* Extinction per km at height h km: Rayleigh, Mie and an ozone tent
   (Hillaire 2020's table 1), written again here from the paper. */
static void extinction(double h, double out[3]) {
    static const double ray[3] = {5.802e-3, 13.558e-3, 33.1e-3},
                        oz[3] = {0.650e-3, 1.881e-3, 0.085e-3};
    h = h < 0 ? 0 : h;
    double o = fmax(1.0 - fabs(h - 25.0) / 15.0, 0.0);
    for (int c = 0; c < 3; c++)
        out[c] = ray[c] * exp(-h / 8.0) + 4.40e-3 * exp(-h / 1.2) + oz[c] * o;
}

/* mean over the channels of exp(-integral of the extinction) from the eye
   to world P (metres), the ground a sphere of 6360 km */
static double transmittance_to(const oak_render_view *v, const float P[3]) {
    const double R = 6360.0;
    double d[3] = {P[0] - v->camera_pos[0], P[1] - v->camera_pos[1], P[2] - v->camera_pos[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) * 0.001; /* km */
    double tau[3] = {0, 0, 0};
    const int steps = 4000;
    for (int i = 0; i < steps; i++) {
        double t = (i + 0.5) / steps;
        double p[3] = {d[0] * t * 0.001, R + v->camera_pos[1] * 0.001 + d[1] * t * 0.001,
                       d[2] * t * 0.001};
        double e[3];
        extinction(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - R, e);
        for (int c = 0; c < 3; c++) tau[c] += e[c] * len / steps;
    }
    return (exp(-tau[0]) + exp(-tau[1]) + exp(-tau[2])) / 3.0;
}

TEST(transmittanceMatchesTheIntegral) {
    static oak_render_view v;
    float *vol = malloc((size_t)OAK_AERIAL_TEXELS * 4 * sizeof(float));
    CHECK(vol != NULL);
    if (!vol) return;
    double worst = 0;
    const float pitches[2] = {0, 5};
    const float dists[3] = {2000, 20000, 31000};
    for (int p = 0; p < 2; p++) {
        make_view(&v, pitches[p]);
        _oak_aerial_build(vol, &v);
        for (int k = 0; k < 3; k++) {
            /* P straight ahead on the view axis, and off to one side */
            for (int side = 0; side < 2; side++) {
                float a = glm_rad(pitches[p]), yaw = side ? glm_rad(12) : 0;
                float dir[3] = {-sinf(yaw) * cosf(a), sinf(a), -cosf(yaw) * cosf(a)};
                float P[3] = {dir[0] * dists[k], 2 + dir[1] * dists[k], dir[2] * dists[k]};
                float one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
                _oak_aerial_apply(vol, &v, P, one);
                _oak_aerial_apply(vol, &v, P, zero);
                double got = one[0] - zero[0], want = transmittance_to(&v, P);
                double err = fabs(got / want - 1);
                worst = fmax(worst, err);
                fprintf(stderr, "  pitch %.0f, %s, %.0f m: T %.4f, integral %.4f (%.2f%%)\n",
                        pitches[p], side ? "12 deg aside" : "ahead", dists[k], got, want,
                        100 * err);
            }
        }
    }
    free(vol);
    CHECK(worst < 0.02);
}

/* The volume at 1 and 3 threads: the same bytes */
static bool volume_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    static oak_render_view v;
    make_view(&v, 3);
    _oak_aerial_build((float *)(void *)px, &v);
    oak_shutdown();
    return true;
}

/* The volume under a deck: sky_grey g pulls each texel's light toward its
   luminance by g (the frontend's pull of the sky's gradient), the
   luminance and the transmittance unchanged: at g = 1 every texel grey
   within 1e-6 relative, at g = 0.5 halfway within 1e-6. */
TEST(greyVolumeKeepsItsLuminance) {
    static oak_render_view v;
    size_t n = (size_t)OAK_AERIAL_TEXELS * 4;
    float *clear = malloc(n * sizeof(float)), *grey = malloc(n * sizeof(float));
    float *half = malloc(n * sizeof(float));
    CHECK(clear && grey && half);
    if (clear && grey && half) {
        make_view(&v, 3);
        _oak_aerial_build(clear, &v);
        v.env.sky_grey = 1;
        _oak_aerial_build(grey, &v);
        v.env.sky_grey = 0.5f;
        _oak_aerial_build(half, &v);
        double worst = 0, chroma = 0;
        for (size_t t = 0; t < n; t += 4) {
            double l = 0.2126 * clear[t] + 0.7152 * clear[t + 1] + 0.0722 * clear[t + 2];
            double lg = 0.2126 * grey[t] + 0.7152 * grey[t + 1] + 0.0722 * grey[t + 2];
            double scale = fmax(l, 1e-30);
            worst = fmax(worst, fabs(lg - l) / scale);
            worst = fmax(worst, fabs((double)grey[t + 3] - clear[t + 3]));
            for (int c = 0; c < 3; c++) {
                worst = fmax(worst, fabs(grey[t + c] - l) / scale);
                worst = fmax(worst, fabs(half[t + c] - 0.5 * (clear[t + c] + l)) / scale);
                chroma = fmax(chroma, fabs(clear[t + c] - l) / scale);
            }
        }
        fprintf(stderr,
                "  grey volume: worst relative error %.2e; the clear volume's largest channel off "
                "its luminance %.3f\n",
                worst, chroma);
        CHECK(worst < 1e-5);
        CHECK(chroma > 0.1); /* the clear air is coloured: the check can fail */
    }
    free(clear), free(grey), free(half);
}

/* `test_aerial cpu measure`: the volume's build, 20 times at the engine's
   thread count after one to warm the tables; the median and the worst, ms
   (docs/PERFORMANCE.md) */
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure_build(void) {
    static oak_render_view v;
    float *vol = malloc((size_t)OAK_AERIAL_TEXELS * 4 * sizeof(float));
    CHECK(vol != NULL);
    if (!vol) return;
    make_view(&v, 3);
    _oak_aerial_build(vol, &v);
    double ms[20], cpu[20];
    for (int i = 0; i < 20; i++) {
        v.camera_pos[0] = (float)i; /* as a moving eye would */
        struct timespec c0, c1;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
        uint64_t t0 = oak_time_ns();
        _oak_aerial_build(vol, &v);
        ms[i] = (double)(oak_time_ns() - t0) * 1e-6;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
        cpu[i] = (double)(c1.tv_sec - c0.tv_sec) * 1e3 + (double)(c1.tv_nsec - c0.tv_nsec) * 1e-6;
    }
    qsort(ms, 20, sizeof ms[0], cmp_double);
    qsort(cpu, 20, sizeof cpu[0], cmp_double);
    fprintf(stderr,
            "  aerial volume build: median %.2f ms, max %.2f ms (%u threads); CPU time of all "
            "threads: median %.2f ms\n",
            ms[10], ms[19], oak_job_threads(), cpu[10]);
    free(vol);
}

static void make_assets(void) {
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    unsetenv("OAK_AERIAL"); /* the A/B switch would turn off what is tested */
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!(oak_backend_caps(g_backend) & OAK_CAP_AERIAL)) {
        fprintf(stderr, "  %s lacks aerial perspective (OAK_CAP_AERIAL): skipped\n", g_backend);
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    if (argc > 2 && !strcmp(argv[2], "measure")) {
        measure_build();
        oak_shutdown();
        return TEST_SUMMARY();
    }
    make_assets();
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(aerialOffChangesNothing);
        RUN(nearIsIdentity);
        RUN(farWallIsBluerAtNoon);
        RUN(duskFarWallIsRedder);
        RUN(greyDeckGreysTheAir);
        RUN(transmittanceMatchesTheIntegral);
        if (!strcmp(g_backend, "cpu")) RUN(greyVolumeKeepsItsLuminance);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    if (!strcmp(g_backend, "cpu")) {
        static _Alignas(16) uint8_t one[OAK_AERIAL_TEXELS * 16], three[OAK_AERIAL_TEXELS * 16];
        oak_test_same_at_threads("aerial volume", volume_at, one, three, sizeof one);
    }
    return TEST_SUMMARY();
}
