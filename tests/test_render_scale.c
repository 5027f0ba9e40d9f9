/* Render scale on a backend (argv[1]: cpu, vulkan or gl): the setter clamps
 * to [0.25, 1] and refuses NaN and negatives; at 0.5 every pass runs at half
 * the size and the picture comes back at the output size, the bilinear
 * stretch of the half-size frame, within a stated error of the native
 * frame; textures keep their sharpness (mip bias log2 0.5); with TAA the
 * taa pass upsamples to the output size, nearer the native frame and
 * sharper than the stretch; the CPU gives the
 * same bytes at 1 and 3 threads; vulkan and gl give the CPU's picture at the
 * parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "scene_helpers.h"

#define W  160
#define H  90
#define HW 80
#define HH 45

static const char *g_backend = "cpu";
/* one renderer of each size for every test: a GPU renderer costs seconds to start */
static oak_renderer *g_full, *g_half;
static oak_mesh g_ground, g_quad;
static oak_material g_dark, g_light, g_noise;

typedef oak_test_scene scene;

/* A black world seen straight down from 5 m: a dark emissive ground and a
   10 m quad over it (its material `over`), turned 20 degrees so that its
   edge crosses the frame on a slant. */
static void scene_init(scene *s, oak_material over) {
    oak_test_scene_begin(s);
    oak_test_scene_set(s, 0, g_ground, g_dark);
    oak_test_scene_set(s, 1, g_quad, over);
    glm_rotate_y(s->world[1], glm_rad(20), s->world[1]);
    s->world[1][3][0] = -5 * s->world[1][0][0];
    s->world[1][3][2] = -5 * s->world[1][0][2];
    s->world[1][3][1] = 0.01f;
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    mat4 cam = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 5, 0, 1}};
    glm_mat4_copy(cam, s->in.camera_world);
}

static oak_renderer *renderer(uint32_t w, uint32_t h) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

static bool draw(oak_renderer *r, const scene *s, int frames, uint8_t *px, size_t size) {
    bool ok = true;
    for (int f = 0; f + 1 < frames && ok; f++) ok = oak_renderer_draw(r, &s->in) == OAK_OK;
    CHECK(ok);
    return ok && oak_test_scene_draw(r, s, px, size); /* the last frame, read */
}

static double linear(uint8_t v) {
    return oak_test_linear(v);
}

/* The same stretch as the renderer's (render/render_scale.c), written out
   here from its definition: texel centres matched, edges clamped, weights
   in 1/256ths, rounded. */
static void stretch(uint8_t *dst, const uint8_t *src) {
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            double u = (x + 0.5) * HW / W - 0.5, v = (y + 0.5) * HH / H - 0.5;
            u = u < 0 ? 0 : u > HW - 1 ? HW - 1 : u;
            v = v < 0 ? 0 : v > HH - 1 ? HH - 1 : v;
            uint32_t x0 = (uint32_t)u, y0 = (uint32_t)v;
            uint32_t fx = (uint32_t)((u - x0) * 256), fy = (uint32_t)((v - y0) * 256);
            uint32_t x1 = x0 + 1 < HW ? x0 + 1 : HW - 1, y1 = y0 + 1 < HH ? y0 + 1 : HH - 1;
            for (int k = 0; k < 4; k++) {
                uint32_t a = src[(y0 * HW + x0) * 4 + k], b = src[(y0 * HW + x1) * 4 + k];
                uint32_t c = src[(y1 * HW + x0) * 4 + k], d = src[(y1 * HW + x1) * 4 + k];
                uint32_t top = a * (256 - fx) + b * fx, bot = c * (256 - fx) + d * fx;
                dst[(y * W + x) * 4 + k] =
                    k == 3 ? 255 : (uint8_t)((top * (256 - fy) + bot * fy + 32768) >> 16);
            }
        }
}

static double edge_width(const uint8_t *px) {
    return oak_test_edge_width(px, W, H);
}

TEST(setterClampsAndRefuses) {
    int errors = g_oak_test_errors;
    oak_post p = {0};
    float got = -1;
    CHECK_OK(oak_post_set_render_scale(&p, 0.1f, &got));
    CHECK(got == 0.25f && p.render_scale == 0.25f);
    CHECK_OK(oak_post_set_render_scale(&p, 2.0f, &got));
    CHECK(got == 1.0f && p.render_scale == 1.0f);
    CHECK_OK(oak_post_set_render_scale(&p, 0.67f, &got));
    CHECK(got == 0.67f);
    CHECK_OK(oak_post_set_render_scale(&p, 0.0f, &got)); /* 0: the default, 1 */
    CHECK(got == 1.0f);
    p.render_scale = 0.5f;
    CHECK(oak_post_set_render_scale(&p, NAN, &got) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_post_set_render_scale(&p, -0.5f, &got) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_post_set_render_scale(&p, INFINITY, &got) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(p.render_scale == 0.5f); /* left as it was */
    /* a bad value written into the field makes the draw fail, not crash */
    static scene s;
    scene_init(&s, g_light);
    oak_renderer *r = g_full;
    s.post.render_scale = NAN;
    CHECK(oak_renderer_draw(r, &s.in) == OAK_ERROR_INVALID_ARGUMENT);
    s.post.render_scale = -1;
    CHECK(oak_renderer_draw(r, &s.in) == OAK_ERROR_INVALID_ARGUMENT);
    g_oak_test_errors = errors; /* those lines were asked for */
    s.post.render_scale = 0.1f; /* clamped when drawn: a quarter of each side */
    CHECK_OK(oak_renderer_draw(r, &s.in));
    uint32_t rw = 0, rh = 0;
    CHECK(oak_renderer_render_scale(r, &rw, &rh) == 0.25f);
    CHECK_EQ_INT(rw, 40);
    CHECK_EQ_INT(rh, 23); /* 22.5 rounded */
}

/* Scale 0.5 without TAA: the renderer says 80 x 45, the picture is 160 x 90
   and equals, byte for byte, the stretch of an 80 x 45 renderer's own
   picture of the same view; next to the native frame its mean error is
   under 0.02 (linear) and its edge is wider (the stretch blurs it). */
TEST(halfScaleIsTheStretchedHalfFrame) {
    static scene s;
    static uint8_t native[W * H * 4], half[W * H * 4], small[HW * HH * 4], want[W * H * 4];
    scene_init(&s, g_light);
    oak_renderer *r = g_full, *rs = g_half;
    if (!draw(r, &s, 1, native, sizeof native) || !draw(rs, &s, 1, small, sizeof small)) goto done;
    s.post.render_scale = 0.5f;
    if (!draw(r, &s, 1, half, sizeof half)) goto done;
    uint32_t w = 0, h = 0, rw = 0, rh = 0;
    oak_renderer_size(r, &w, &h);
    CHECK(oak_renderer_render_scale(r, &rw, &rh) == 0.5f);
    CHECK(w == W && h == H && rw == HW && rh == HH);
    stretch(want, small);
    int differ = 0;
    for (size_t i = 0; i < sizeof half; i++) differ += half[i] != want[i];
    double err = 0;
    for (size_t i = 0; i < (size_t)W * H; i++)
        err += fabs(linear(half[i * 4 + 1]) - linear(native[i * 4 + 1]));
    err /= W * H;
    double wn = edge_width(native), wh = edge_width(half);
    fprintf(stderr,
            "  scale 0.5: %d bytes differ from the stretched 80x45 frame; mean error to native "
            "%.4f; edge 10-90%% %.2f px (native %.2f px)\n",
            differ, err, wh, wn);
    CHECK_EQ_INT(differ, 0);
    CHECK(err < 0.02);
    CHECK(wh > wn);
    /* back at 1 the native picture returns */
    s.post.render_scale = 0;
    if (!draw(r, &s, 1, half, sizeof half)) goto done;
    CHECK(memcmp(half, native, sizeof half) == 0);
done:;
}

/* A noise texture (unlit, 256 x 256 texels over the 10 m quad: about 0.9
   output pixels a texel, so trilinear reads near level 0 at the output
   size and near level 1 at half of it): at scale 0.5 the mip bias keeps
   the texture's contrast (the standard deviation of the quad's pixels) well
   above that of an 80 x 45 renderer's frame, which reads a level coarser,
   both stretched alike. */
TEST(mipBiasKeepsTexturesSharp) {
    static scene s;
    static uint8_t half[W * H * 4], small[HW * HH * 4], plain[W * H * 4];
    scene_init(&s, g_noise);
    glm_mat4_identity(s.world[1]);
    s.world[1][3][1] = 0.01f; /* square to the frame, filling it */
    oak_renderer *r = g_full, *rs = g_half;
    if (!draw(rs, &s, 1, small, sizeof small)) goto done;
    s.post.render_scale = 0.5f;
    if (!draw(r, &s, 1, half, sizeof half)) goto done;
    stretch(plain, small);
    double sd[2];
    const uint8_t *pics[2] = {half, plain};
    for (int p = 0; p < 2; p++) {
        double sum = 0, sq = 0;
        int n = 0;
        for (uint32_t y = 10; y < H - 10; y++)
            for (uint32_t x = 30; x < W - 30; x++) {
                double c = pics[p][(y * W + x) * 4 + 1] / 255.0;
                sum += c, sq += c * c, n++;
            }
        sd[p] = sqrt(fmax(sq / n - (sum / n) * (sum / n), 0));
    }
    fprintf(stderr, "  noise texture at scale 0.5: contrast %.4f with the mip bias, %.4f without\n",
            sd[0], sd[1]);
    CHECK(sd[0] > 1.3 * sd[1]);
done:;
}

/* TAA at scale 0.5 upsamples: after oak_taa_frames (32) still frames the
   picture is output-sized from the taa pass on (no stretch), nearer the
   native frame than the stretch of the half-size frame (mean linear
   error), and its slanted edge is narrower than the stretch's and within
   0.5 px of the native frame's 10-90% width. */
TEST(taaUpsamplesAtHalfScale) {
    static scene s;
    static uint8_t native[W * H * 4], up[W * H * 4], plain[W * H * 4];
    scene_init(&s, g_light);
    oak_renderer *r = g_full;
    if (!draw(r, &s, 1, native, sizeof native)) goto done;
    s.post.render_scale = 0.5f;
    if (!draw(r, &s, 1, plain, sizeof plain)) goto done; /* the stretch */
    s.post.taa = OAK_TAA_ON;
    uint32_t frames = oak_taa_frames(&s.post);
    CHECK_EQ_INT(frames, 4 * OAK_TAA_SAMPLES);
    if (!draw(r, &s, (int)frames, up, sizeof up)) goto done;
    double err[2] = {0, 0};
    const uint8_t *pics[2] = {up, plain};
    for (int p = 0; p < 2; p++) {
        for (size_t i = 0; i < (size_t)W * H; i++)
            err[p] += fabs(linear(pics[p][i * 4 + 1]) - linear(native[i * 4 + 1]));
        err[p] /= W * H;
    }
    double wn = edge_width(native), wu = edge_width(up), wp = edge_width(plain);
    fprintf(stderr,
            "  scale 0.5, taa upsampling over %u frames: mean error to native %.4f (stretch "
            "%.4f); edge 10-90%% %.2f px (stretch %.2f, native %.2f)\n",
            frames, err[0], err[1], wu, wp, wn);
    CHECK(err[0] < err[1]);
    CHECK(wu < wp);
    CHECK(wu < wn + 0.5);
    /* TAA off at the same scale: the stretch again, to the byte */
    s.post.taa = OAK_TAA_OFF;
    if (!draw(r, &s, 1, up, sizeof up)) goto done;
    CHECK(memcmp(up, plain, sizeof up) == 0);
done:;
}

/* The scaled frame on vulkan or gl is the CPU's at the parity rule, with
   and without TAA. */
TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, g_light);
    s.post.render_scale = 0.5f;
    for (int taa = 0; taa < 2; taa++) {
        s.post.taa = taa ? OAK_TAA_ON : OAK_TAA_OFF;
        int frames = (int)oak_taa_frames(&s.post);
        if (oak_test_cpu_picture(&s.in, frames, W, H, a) && draw(g_full, &s, frames, b, sizeof b)) {
            char what[64];
            snprintf(what, sizeof what, "scale 0.5%s cpu vs %s", taa ? " taa" : "", g_backend);
            oak_test_parity(what, a, b, W, H);
        }
    }
}

static void make_assets(void) {
    g_dark = oak_test_emitter(0.05f), g_light = oak_test_emitter(0.8f);
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    oak_shape_desc qd = {.type = OAK_SHAPE_PLANE, .size = {10, 0, 10}};
    CHECK_OK(oak_make_shape(&g_quad, &qd));
    static uint8_t texels[256 * 256 * 4];
    uint32_t seed = 12345;
    for (size_t i = 0; i < sizeof texels; i++) {
        seed = seed * 1664525u + 1013904223u;
        texels[i] = i % 4 == 3 ? 255 : (uint8_t)(seed >> 24);
    }
    oak_texture tex = {0};
    oak_texture_desc td = {.width = 256, .height = 256, .pixels = texels};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    md.base_color_tex.texture = tex;
    CHECK_OK(oak_make_material(&g_noise, &md));
}

/* The CPU's scaled TAA frame is the same at 1 and 3 threads, byte for byte. */
TEST(sameAtAnyThreadCount) {
    static uint8_t ref[W * H * 4], px[W * H * 4];
    static const uint32_t threads[2] = {1, 3};
    for (int i = 0; i < 2; i++) {
        oak_shutdown();
        oak_engine_desc desc = {
            .log = oak_test_count_log, .log_level = OAK_LOG_WARN, .threads = threads[i]};
        CHECK_OK(oak_init(&desc));
        make_assets();
        static scene s;
        scene_init(&s, g_light);
        s.post.render_scale = 0.5f;
        s.post.taa = OAK_TAA_ON;
        oak_renderer *r = renderer(W, H);
        if (!r) return;
        draw(r, &s, 3, i ? px : ref, sizeof px);
        oak_destroy_renderer(r);
    }
    int differ = 0;
    for (size_t k = 0; k < sizeof px; k++) differ += px[k] != ref[k];
    fprintf(stderr, "  scale 0.5 with taa: %d bytes differ between 1 and 3 threads\n", differ);
    CHECK_EQ_INT(differ, 0);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    make_assets();
    g_full = renderer(W, H), g_half = renderer(HW, HH);
    if (g_full && g_half) {
        RUN(setterClampsAndRefuses);
        RUN(halfScaleIsTheStretchedHalfFrame);
        RUN(mipBiasKeepsTexturesSharp);
        RUN(taaUpsamplesAtHalfScale);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    if (g_full) oak_destroy_renderer(g_full);
    if (g_half) oak_destroy_renderer(g_half);
    if (!strcmp(g_backend, "cpu")) RUN(sameAtAnyThreadCount);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
