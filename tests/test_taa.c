/* The taa pass on a backend (argv[1]: cpu, vulkan or gl): a slanted edge
 * converges after 32 still frames to the backend's own 8 x 8 (64-sample)
 * supersampled picture where TAA off stays aliased, its edge 1.5 px or
 * narrower and still from frame to frame; a flat frame is the
 * same with TAA as without (no drift, no blur); a moving quad leaves no
 * ghost behind it; the motion vectors of a moved draw seen by a moved
 * camera, and of the sky under a turned one, are the analytic screen
 * displacement; the pass runs only when
 * asked; the sharpen after it narrows an edge without overshoot and leaves
 * a flat frame alone; and on vulkan and gl the picture is the CPU's at the
 * parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "render/renderer_internal.h"
#include "scene_helpers.h"

#define W 160
#define H 90
/* the convergence test's size: its 4 x 4 reference is 320 x 180 */
#define CW 80
#define CH 45
/* the still-scene check (issue 12): 32 frames against 8 x 8 = 64 samples a pixel */
#define STILL_FRAMES 32
#define SS           8

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_ground, g_quad, g_tile;
static oak_material g_dark, g_light, g_mid;

/* A black world (no lights, black sky and ambient) seen straight down from
 * 5 m: an emissive ground and one emissive quad over it. */
typedef oak_test_scene scene;

static void scene_init(scene *s, oak_mesh top, oak_material ground, oak_material over, bool taa) {
    oak_test_scene_begin(s);
    oak_test_scene_set(s, 0, g_ground, ground);
    oak_test_scene_set(s, 1, top, over);
    s->world[1][3][1] = 0.01f; /* just over the ground */
    s->post.taa = taa ? OAK_TAA_ON : OAK_TAA_OFF;
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    mat4 cam = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 5, 0, 1}};
    glm_mat4_copy(cam, s->in.camera_world);
}

static void draw_on(oak_renderer *r, const scene *s, uint8_t *px, size_t size) {
    oak_test_scene_draw(r, s, px, size);
}

static oak_renderer *renderer(uint32_t w, uint32_t h) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

static double linear(uint8_t v) {
    return oak_test_linear(v);
}

/* The stage has CPU time of its own (see test_bloom.c's). */
static bool ran(const char *stage) {
    oak_stage_timing t[32];
    uint32_t n = oak_renderer_timings(g_main, t, 32);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, stage) && t[i].cpu_ms > 0) return true;
    return false;
}

/* The light quad turned 20 degrees about the vertical, its +x edge through
   the middle of the view: a slanted light/dark edge across the frame. */
static void slant(scene *s) {
    scene_init(s, g_quad, g_dark, g_light, false);
    glm_mat4_identity(s->world[1]);
    glm_rotate_y(s->world[1], glm_rad(20), s->world[1]);
    /* the quad is 10 m: its +x edge is 5 m out along its turned x axis */
    s->world[1][3][0] = -5 * s->world[1][0][0];
    s->world[1][3][2] = -5 * s->world[1][0][2];
    s->world[1][3][1] = 0.01f;
}

/* After STILL_FRAMES frames of a still camera the edge's pixels match the
   SS x SS (64-sample) supersampled picture (drawn SS times the size with
   TAA off, each box resolved as TAA blends: weighted by 1 / (1 + luma),
   Karis) to a mean error under 0.07 on a 0.05 / 0.8 edge (8 jitter phases
   against 64 samples: 0.065 measured on every backend, 0.058 against a
   4 x 4 reference), where the aliased picture is off by more than 0.12
   (0.18). The
   error to the plain box mean is printed too: the weighting leans edges
   toward the darker side (docs/SHADING.md). */
TEST(slantedEdgeConverges) {
    static scene s;
    static uint8_t big[CW * SS * CH * SS * 4], taa[CW * CH * 4], off[CW * CH * 4];
    static double ref[CW * CH], ref_plain[CW * CH];
    slant(&s);
    oak_renderer *rb = renderer(CW * SS, CH * SS), *rs = renderer(CW, CH);
    if (!rb || !rs) goto done;
    draw_on(rb, &s, big, sizeof big);
    for (uint32_t y = 0; y < CH; y++)
        for (uint32_t x = 0; x < CW; x++) {
            double sum = 0, wsum = 0, plain = 0;
            for (uint32_t j = 0; j < SS; j++)
                for (uint32_t i = 0; i < SS; i++) {
                    double c = linear(big[(((size_t)y * SS + j) * CW * SS + x * SS + i) * 4 + 1]);
                    sum += c / (1 + c), wsum += 1 / (1 + c), plain += c;
                }
            ref[y * CW + x] = sum / wsum;
            ref_plain[y * CW + x] = plain / (SS * SS);
        }
    draw_on(rs, &s, off, sizeof off);
    s.post.taa = OAK_TAA_ON;
    for (int f = 0; f < STILL_FRAMES; f++) draw_on(rs, &s, taa, sizeof taa);
    double dark = 1, light = 0;
    for (uint32_t i = 0; i < CW * CH; i++) {
        dark = fmin(dark, linear(off[i * 4 + 1]));
        light = fmax(light, linear(off[i * 4 + 1]));
    }
    double err_taa = 0, err_off = 0, err_plain = 0;
    int edge = 0;
    for (uint32_t i = 0; i < CW * CH; i++) {
        /* an edge pixel: partly covered in the reference */
        if (ref[i] < dark + 0.02 || ref[i] > light - 0.02) continue;
        err_taa += fabs(linear(taa[i * 4 + 1]) - ref[i]);
        err_off += fabs(linear(off[i * 4 + 1]) - ref[i]);
        err_plain += fabs(linear(taa[i * 4 + 1]) - ref_plain[i]);
        edge++;
    }
    double k = edge > 0 ? 1.0 / edge : 1;
    err_taa *= k, err_off *= k, err_plain *= k;
    fprintf(stderr,
            "  slanted edge, %d edge pixels: mean error to %dx%d supersampling %.4f with TAA "
            "(%d frames), %.4f without (to the plain box mean: %.4f with TAA)\n",
            edge, SS, SS, err_taa, STILL_FRAMES, err_off, err_plain);
    CHECK(edge > CH);
    CHECK(err_taa < 0.07);
    CHECK(err_off > 0.12);
    /* and the converged edge is sharp and still: its 10-90% width at most
       1.5 px, and one more frame moves the picture by under 0.5/255 a
       channel on average (issue 12) */
    static uint8_t next[CW * CH * 4];
    draw_on(rs, &s, next, sizeof next);
    double moved = 0;
    for (size_t i = 0; i < (size_t)CW * CH; i++)
        for (int c = 0; c < 3; c++) moved += abs((int)next[i * 4 + c] - (int)taa[i * 4 + c]);
    moved /= (double)CW * CH * 3;
    double width = oak_test_edge_width(taa, CW, CH);
    fprintf(stderr, "  the converged edge: 10-90%% width %.2f px, frame to frame %.3f/255\n", width,
            moved);
    CHECK(width <= 1.5);
    CHECK(moved < 0.5);
done:
    if (rb) oak_destroy_renderer(rb);
    if (rs) oak_destroy_renderer(rs);
}

/* A flat ground filling the view: TAA on gives the frame TAA off gives,
   every channel within 1/255, frame after frame. */
TEST(flatFrameStaysPut) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, g_quad, g_mid, g_mid, false);
    s.in.draw_count = 1;
    draw_on(g_main, &s, off, sizeof off);
    bool cpu = !strcmp(g_backend, "cpu");
    if (cpu) CHECK(!ran("taa"));
    s.post.taa = OAK_TAA_ON;
    int most = 0;
    for (int f = 0; f < 12; f++) {
        draw_on(g_main, &s, on, sizeof on);
        for (size_t i = 0; i < sizeof on; i++) {
            int d = abs((int)on[i] - (int)off[i]);
            most = d > most ? d : most;
        }
    }
    if (cpu) CHECK(ran("taa"));
    fprintf(stderr,
            "  flat frame (byte %d): TAA on differs from off by at most %d over 12 frames\n",
            off[0], most);
    CHECK(most <= 1);
}

/* A 1 m light tile sliding 3 px a frame over a dark ground: pixels it left
   3 or more frames ago (and not within a pixel of where it is) are the
   ground again, within 2/255, in every frame of the run. */
TEST(movingTileLeavesNoGhost) {
    enum { FRAMES = 12 };
    static scene s, t;
    static uint8_t on[W * H * 4], off[FRAMES][W * H * 4];
    scene_init(&s, g_tile, g_dark, g_light, true);
    scene_init(&t, g_tile, g_dark, g_light, false);
    oak_renderer *ro = renderer(W, H);
    if (!ro) return;
    /* pixels per metre on the tile's plane: 2 d tan(30) metres over H rows */
    double ppm = H / (2 * 4.99 * tan(glm_rad(30)));
    float step = (float)(3.0 / ppm);
    int most = 0, checked = 0;
    for (int f = 0; f < FRAMES; f++) {
        s.world[1][3][0] = t.world[1][3][0] = -1.5f + step * (float)f;
        draw_on(ro, &t, off[f], sizeof off[f]);
        draw_on(g_main, &s, on, sizeof on);
        if (f < 4) continue;
        for (uint32_t y = 1; y + 1 < H; y++)
            for (uint32_t x = 1; x + 1 < W; x++) {
                size_t i = ((size_t)y * W + x) * 4;
                bool before = false, lately = false;
                for (int k = 0; k <= f - 4; k++) before |= off[k][i + 1] > off[f][0 + 1] + 8;
                for (int k = f - 3; k <= f; k++)
                    for (int dx = -1; dx <= 1; dx++)
                        lately |= off[k][i + (size_t)(dx * 4) + 1] > off[f][1] + 8;
                if (!before || lately) continue;
                checked++;
                for (int c = 0; c < 3; c++) {
                    int d = abs((int)on[i + c] - (int)off[f][i + c]);
                    most = d > most ? d : most;
                }
            }
    }
    fprintf(stderr, "  moving tile: %d uncovered pixel-frames checked, residual at most %d/255\n",
            checked, most);
    CHECK(checked > 100);
    CHECK(most <= 2);
    oak_destroy_renderer(ro);
}

/* --debug motion: the taa pass writes each pixel's vector into the frame
   (0.5 + m / (2 OAK_TAA_MOTION_VIEW)), read back as light. */
static void motion_at(uint32_t x, uint32_t y, const float *hdr, double m[2]) {
    const float *p = hdr + ((size_t)y * W + x) * 4;
    for (int k = 0; k < 2; k++) m[k] = ((double)p[k] - 0.5) * 2 * OAK_TAA_MOTION_VIEW;
}

/* The tile moved by t = (0.3, 0, -0.2) m and the camera by c = (0.1, 0,
   0.05) m between two frames: a point on the tile (4.99 m below the eye)
   moved on screen by (c - t) / (d tan 30) * (H / 2) pixels in each axis
   (x scaled by the aspect), the ground's (5 m) by c alone; every sampled
   pixel's vector is that within 0.05 px. */
TEST(motionVectorsMatchTheMove) {
    static scene s;
    static float hdr[W * H * 4];
    scene_init(&s, g_tile, g_dark, g_light, false);
    s.post.debug = OAK_DEBUG_MOTION;
    draw_on(g_main, &s, (uint8_t[W * H * 4]){0}, W * H * 4);
    float t[3] = {0.3f, 0, -0.2f}, c[3] = {0.1f, 0, 0.05f};
    s.world[1][3][0] += t[0], s.world[1][3][2] += t[2];
    s.in.camera_world[3][0] += c[0], s.in.camera_world[3][2] += c[2];
    static uint8_t px[W * H * 4];
    draw_on(g_main, &s, px, sizeof px);
    CHECK_OK(g_main->backend->read_hdr(g_main->self, hdr, (size_t)W * H * 4));
    double aspect = (double)W / H, worst = 0;
    struct {
        double depth;
        float move[3];
        uint32_t x, y;
    } at[4];
    /* where the tile's middle is now: (t - c) from the eye at 4.99 m */
    double k = (H / 2.0) / (4.99 * tan(glm_rad(30)));
    uint32_t tx = (uint32_t)(W / 2.0 + (t[0] - c[0]) * k / 1.0),
             ty = (uint32_t)(H / 2.0 + (t[2] - c[2]) * k);
    at[0].depth = at[1].depth = 4.99, at[2].depth = at[3].depth = 5.0;
    at[0].x = tx, at[0].y = ty, at[1].x = tx + 3, at[1].y = ty - 4;
    at[2].x = 10, at[2].y = 10, at[3].x = W - 12, at[3].y = H - 9;
    for (int i = 0; i < 4; i++) {
        bool tile = i < 2;
        double kd = (H / 2.0) / (at[i].depth * tan(glm_rad(30)));
        double want[2] = {((double)c[0] - (tile ? t[0] : 0)) * kd,
                          ((double)c[2] - (tile ? t[2] : 0)) * kd};
        (void)aspect; /* square pixels: x and y take the same scale */
        double m[2];
        motion_at(at[i].x, at[i].y, hdr, m);
        double e = fmax(fabs(m[0] - want[0]), fabs(m[1] - want[1]));
        worst = fmax(worst, e);
        fprintf(stderr, "  %s pixel (%u, %u): vector (%.3f, %.3f), analytic (%.3f, %.3f)\n",
                tile ? "tile" : "ground", at[i].x, at[i].y, m[0], m[1], want[0], want[1]);
    }
    fprintf(stderr, "  motion vectors: largest error %.4f px\n", worst);
    CHECK(worst < 0.05);
}

/* Nothing but sky, and the camera (looking straight down) turned 2 degrees
   about the vertical, its own view axis, between two frames: the sky's
   vectors are that turn alone, a rotation of the picture about its middle,
   (u, v)_before = R(2 deg) (u, v)_now with u right and v up from the
   middle, within 0.05 px at every sampled pixel. */
TEST(skyMovesWithTheTurn) {
    static scene s;
    static float hdr[W * H * 4];
    static uint8_t px[W * H * 4];
    scene_init(&s, g_tile, g_dark, g_light, false);
    s.in.draw_count = 0;
    s.post.debug = OAK_DEBUG_MOTION;
    draw_on(g_main, &s, px, sizeof px);
    float a = glm_rad(2);
    mat4 turn;
    glm_rotate_make(turn, a, (vec3){0, 1, 0});
    glm_mat4_mul(turn, s.in.camera_world, s.in.camera_world);
    draw_on(g_main, &s, px, sizeof px);
    CHECK_OK(g_main->backend->read_hdr(g_main->self, hdr, (size_t)W * H * 4));
    static const uint32_t at[4][2] = {{5, 5}, {W - 3, 7}, {W / 2, H / 2}, {20, H - 4}};
    double worst = 0;
    for (int i = 0; i < 4; i++) {
        double u = at[i][0] + 0.5 - W / 2.0, v = -(at[i][1] + 0.5 - H / 2.0);
        double u2 = cos(a) * u - sin(a) * v, v2 = sin(a) * u + cos(a) * v;
        double want[2] = {u2 - u, -(v2 - v)}, m[2];
        motion_at(at[i][0], at[i][1], hdr, m);
        worst = fmax(worst, fmax(fabs(m[0] - want[0]), fabs(m[1] - want[1])));
        fprintf(stderr, "  sky pixel (%u, %u): vector (%.3f, %.3f), analytic (%.3f, %.3f)\n",
                at[i][0], at[i][1], m[0], m[1], want[0], want[1]);
    }
    fprintf(stderr, "  sky vectors: largest error %.4f px\n", worst);
    CHECK(worst < 0.05);
}

static double edge_width(const uint8_t *px) {
    return oak_test_edge_width(px, W, H);
}

/* The sharpen after the resolve (oak_post.taa_sharpen 0.5): the converged
   slanted edge's 10-90% width narrows by at least 0.1 px, no byte leaves
   the range the unsharpened picture spans (the clamp to the 5 taps: no
   overshoot at all), and a flat frame is unchanged to the byte. */
TEST(sharpenNarrowsTheEdge) {
    static scene s;
    static uint8_t plain[W * H * 4], sharp[W * H * 4];
    uint8_t *pics[2] = {plain, sharp};
    slant(&s);
    for (int k = 0; k < 2; k++) {
        s.post.taa = OAK_TAA_OFF; /* the history starts again */
        draw_on(g_main, &s, pics[k], W * H * 4);
        s.post.taa = OAK_TAA_ON;
        s.post.taa_sharpen = k ? 0.5f : 0.0f;
        for (int f = 0; f < OAK_TAA_SAMPLES; f++) draw_on(g_main, &s, pics[k], W * H * 4);
    }
    double wp = edge_width(plain), ws = edge_width(sharp);
    int lo[3] = {255, 255, 255}, hi[3] = {0, 0, 0}, out = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int c = 0; c < 3; c++) {
            lo[c] = plain[i * 4 + c] < lo[c] ? plain[i * 4 + c] : lo[c];
            hi[c] = plain[i * 4 + c] > hi[c] ? plain[i * 4 + c] : hi[c];
        }
    for (size_t i = 0; i < (size_t)W * H; i++)
        for (int c = 0; c < 3; c++) out += sharp[i * 4 + c] < lo[c] || sharp[i * 4 + c] > hi[c];
    /* a flat frame: the same bytes with and without */
    scene_init(&s, g_quad, g_mid, g_mid, true);
    s.in.draw_count = 1;
    for (int k = 0; k < 2; k++) {
        s.post.taa = OAK_TAA_OFF;
        draw_on(g_main, &s, pics[k], W * H * 4);
        s.post.taa = OAK_TAA_ON;
        s.post.taa_sharpen = k ? 0.5f : 0.0f;
        for (int f = 0; f < 4; f++) draw_on(g_main, &s, pics[k], W * H * 4);
    }
    int differ = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) differ += plain[i] != sharp[i];
    fprintf(stderr,
            "  sharpen 0.5: edge 10-90%% %.2f px (without %.2f); %d bytes outside the plain "
            "range; flat frame: %d bytes differ\n",
            ws, wp, out, differ);
    CHECK(ws < wp - 0.1);
    CHECK_EQ_INT(out, 0);
    CHECK_EQ_INT(differ, 0);
}

/* The slanted edge after OAK_TAA_SAMPLES frames with the usual curve: the
   backend's picture is the CPU's at the parity rule. */
TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    slant(&s);
    s.post.taa = OAK_TAA_ON;
    s.post.no_tonemap = false;
    oak_renderer *rg = renderer(W, H);
    for (int k = 0; k < 2 && rg; k++) { /* without, then with the sharpen */
        s.post.taa_sharpen = k ? 0.5f : 0.0f;
        if (!oak_test_cpu_picture(&s.in, OAK_TAA_SAMPLES, W, H, a)) break;
        s.post.taa = OAK_TAA_OFF; /* the history starts again */
        draw_on(rg, &s, b, sizeof b);
        s.post.taa = OAK_TAA_ON;
        for (int f = 0; f < OAK_TAA_SAMPLES; f++) draw_on(rg, &s, b, sizeof b);
        char what[64];
        snprintf(what, sizeof what, "taa%s cpu vs %s after %d frames", k ? " sharpen 0.5" : "",
                 g_backend, OAK_TAA_SAMPLES);
        oak_test_parity(what, a, b, W, H);
    }
    if (rg) oak_destroy_renderer(rg);
}

/* The default world (textured, sunlit ground, glossy spheres) after
   OAK_TAA_SAMPLES still frames: every pixel within 24/255 of its 3 x 3
   neighbourhood's range in the frame drawn without TAA. Clamping the
   history to the YCoCg box per channel left 9.3% of the pixels outside
   it here (5,267 of 56,604 on the CPU: black and white speckles, dark
   rings round highlights); the clip toward the neighbourhood's mean
   leaves 0.1% (59, at silhouettes, where TAA's resolve and FXAA differ). */
TEST(texturedWorldHasNoSpeckles) {
    enum { SW = 320, SH = 180 };
    static uint8_t px[2][SW * SH * 4];
    for (int k = 0; k < 2; k++) {
        oak_scene *s = NULL;
        CHECK_OK(oak_make_scene(&s));
        if (!s) return;
        CHECK_OK(oak_world_build(s, "default"));
        oak_scene_post(s)->taa = k ? OAK_TAA_ON : OAK_TAA_OFF;
        oak_renderer *r = renderer(SW, SH);
        for (int f = 0; r && f < (k ? OAK_TAA_SAMPLES : 1); f++) CHECK_OK(oak_scene_draw(s, r));
        if (r) CHECK_OK(oak_renderer_read_pixels(r, px[k], sizeof px[k]));
        oak_destroy_renderer(r);
        oak_destroy_scene(s);
    }
    size_t out = 0, total = 0;
    for (int y = 1; y < SH - 1; y++)
        for (int x = 1; x < SW - 1; x++) {
            bool bad = false;
            for (int c = 0; c < 3; c++) {
                int lo = 255, hi = 0, v = px[1][(y * SW + x) * 4 + c];
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        int u = px[0][((y + dy) * SW + x + dx) * 4 + c];
                        lo = u < lo ? u : lo, hi = u > hi ? u : hi;
                    }
                bad = bad || v < lo - 24 || v > hi + 24;
            }
            out += bad, total++;
        }
    fprintf(stderr, "  %s default world: %zu of %zu pixels off their no-TAA neighbourhood\n",
            g_backend, out, total);
    CHECK((double)out / (double)total < 0.01);
}

/* The row sits after blend and the clouds' mix (so it resolves them over
   frames too) and before depth of field (then exposure). */
TEST(passSitsAfterBlend) {
    CHECK(!strcmp(oak_pass_name(OAK_PASS_TAA), "taa"));
    CHECK(!strcmp(oak_pass_name(OAK_PASS_TAA - 1), "cloudmix"));
    CHECK(!strcmp(oak_pass_name(OAK_PASS_TAA - 2), "blend"));
    CHECK(!strcmp(oak_pass_name(OAK_PASS_TAA + 1), "dof"));
    CHECK(!strcmp(oak_pass_name(OAK_PASS_TAA + 2), "exposure"));
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_TAA)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    g_dark = oak_test_emitter(0.05f), g_light = oak_test_emitter(0.8f),
    g_mid = oak_test_emitter(0.5f);
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    oak_shape_desc qd = {.type = OAK_SHAPE_PLANE, .size = {10, 0, 10}};
    CHECK_OK(oak_make_shape(&g_quad, &qd));
    oak_shape_desc td = {.type = OAK_SHAPE_PLANE, .size = {1, 0, 1}};
    CHECK_OK(oak_make_shape(&g_tile, &td));
    fprintf(stderr, "  backend %s\n", g_backend);
    g_main = renderer(W, H);
    if (g_main) {
        RUN(passSitsAfterBlend);
        RUN(texturedWorldHasNoSpeckles);
        RUN(slantedEdgeConverges);
        RUN(flatFrameStaysPut);
        RUN(movingTileLeavesNoGhost);
        RUN(motionVectorsMatchTheMove);
        RUN(skyMovesWithTheTurn);
        RUN(sharpenNarrowsTheEdge);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
