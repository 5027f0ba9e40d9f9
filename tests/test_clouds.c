/* Volumetric clouds on a backend (argv[1]: cpu, vulkan or gl): coverage 0
 * leaves the picture the same to the byte (and runs no cloud pass); a thick
 * cloud lit from behind the eye returns about 0.9 of what a white card square
 * to the same sun does; the ground under the clouds darkens by the key
 * light's transmittance marched along its ray through the layer; the clouds
 * drift with the wind by wind * time; on the CPU the same bytes at 1 and 3
 * threads; on vulkan and gl the picture is the CPU's at the parity rule;
 * the weather map's type per place (oak_clouds.variation) gives places of
 * one cover different tops, in the C columns and in a side view; the
 * aerial volume hazes far clouds at dusk more than near ones. */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
#include "backend_start.h"
#include "render/clouds.h"
#include "render/renderer_internal.h"
#include "render/skylight.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_box;
static oak_material g_white;

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[1];
    oak_material mat[1];
    mat4 world[1];
    oak_render_light light;
    oak_environment env;
    oak_post post;
} scene;

/* toward_sun: where the key light comes from (any length); lux: its illuminance */
static void set_sun(scene *s, float x, float y, float z, float lux) {
    float n = sqrtf(x * x + y * y + z * z);
    s->light = (oak_render_light){.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL)};
    s->light.light.intensity = lux;
    s->light.light.cast_shadows = false; /* the clouds' shadow alone */
    s->light.direction[0] = -x / n, s->light.direction[1] = -y / n, s->light.direction[2] = -z / n;
    s->in.light_count = 1;
    s->in.lights = &s->light;
}

/* A dark world (no sky light) and a camera at `eye` pitched `pitch`
   degrees (up positive) looking along -Z; with `ground`, a 40 km white
   ground at y = 0. */
static void scene_init(scene *s, float ex, float ey, float ez, float pitch, bool ground) {
    memset(s, 0, sizeof *s);
    oak_test_dark_world(&s->env, &s->post);
    s->in.camera = (oak_camera){.fov_y = glm_rad(40), .znear = 0.1f, .zfar = 0};
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){ex, ey, ez});
    glm_rotate_x(s->in.camera_world, glm_rad(pitch), s->in.camera_world);
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
    if (ground) {
        s->mesh[0] = g_box, s->mat[0] = g_white;
        glm_mat4_identity(s->world[0]);
        s->world[0][0][0] = 40000, s->world[0][1][1] = 1, s->world[0][2][2] = 40000;
        s->world[0][3][1] = -0.5f;
        s->in.draw_count = 1;
    }
}

/* Straight down from 100 m over a 3 km tall orthographic view (33.3 m a
   pixel across, screen up = -Z), the key light from above and aside. */
#define ORTHO_H 3000.0f
static void ground_scene(scene *s, float coverage) {
    scene_init(s, 0, 100, 0, -90, true);
    s->in.camera.ortho_height = ORTHO_H;
    s->in.camera.zfar = 1000;
    set_sun(s, -0.3f, 1, -0.2f, 1);
    s->env.clouds = (oak_clouds){.coverage = coverage, .density = 0.002f};
    /* the key light alone: the clouds' own light reaches the ground as sky
       light (the capture sees them), so the sky light is scaled to all but
       nothing (a black sky scaled to 1e-9 scales their light to 0 too) */
    for (int k = 0; k < 3; k++) s->env.ambient_sky[k] = 1e-9f;
}

static void draw(const scene *s, uint8_t *px) {
    CHECK_OK(oak_renderer_draw(g_main, &s->in));
    CHECK_OK(oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4));
}

static double linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lin_at(const uint8_t *px, int x, int y) {
    return linear(px[((size_t)y * W + (size_t)x) * 4 + 1]);
}

/* whether a stage ran in the last frame: its host time (vulkan records
   only, so its cpu_ms are 0 and this is not asked there) */
static bool ran(const char *stage) {
    oak_stage_timing t[40];
    uint32_t n = oak_renderer_timings(g_main, t, 40);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, stage) && t[i].cpu_ms > 0) return true;
    return false;
}

/* The record the renderer makes for a scene (render/clouds.c), and the
   noise table baked as every backend bakes it. */
static float *g_buf;
static void record_for(const scene *s, oak_gpu_clouds *c) {
    static oak_render_view v;
    memset(&v, 0, sizeof v);
    v.env = s->env;
    v.lights = (oak_render_light *)&s->light;
    v.light_count = 1;
    v.key_light = 0;
    glm_vec3_copy((float *)s->in.camera_world[3], v.camera_pos);
    _oak_clouds_fill(c, &v, W, H);
    if (!g_buf) {
        g_buf = calloc((size_t)OAK_GPU_CLOUD_MARCH_AT * 4, sizeof(float));
        const uint32_t n = OAK_CLOUD_NOISE_SIZE * OAK_CLOUD_NOISE_SIZE * OAK_CLOUD_NOISE_SIZE;
        for (uint32_t i = 0; g_buf && i < n; i++)
            _oak_clouds_noise_texel(i, g_buf + ((size_t)OAK_GPU_CLOUD_NOISE_AT + i) * 4);
    }
}

/* Coverage 0 with every other cloud setting given is no clouds at all:
   the same bytes, and no clouds stage (cpu, gl: the stages' host times);
   with cover, the stages run and the picture changes. */
TEST(coverageZeroChangesNothing) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, 0, 2, 0, 12, true);
    s.env = oak_environment_defaults(); /* the blue sky and its light */
    s.post.no_tonemap = s.post.no_dither = false;
    set_sun(&s, 0.2f, 0.6f, -1, 3);
    draw(&s, a);
    bool ran_without = ran("clouds") || ran("cloudmix");
    s.env.clouds = (oak_clouds){.coverage = 0,
                                .type = 0.8f,
                                .density = 0.1f,
                                .base = 900,
                                .top = 2500,
                                .wind = {6, -2},
                                .time = 30};
    draw(&s, b);
    bool ran_zero = ran("clouds") || ran("cloudmix");
    size_t diff = 0;
    for (size_t i = 0; i < sizeof a; i++) diff += a[i] != b[i];
    s.env.clouds.coverage = 0.6f;
    draw(&s, b);
    bool ran_cover = ran("clouds") && ran("cloudmix");
    size_t changed = 0;
    for (size_t i = 0; i < sizeof a; i++) changed += a[i] != b[i];
    fprintf(stderr, "  coverage 0: %zu bytes differ; coverage 0.6: %zu differ\n", diff, changed);
    CHECK_EQ_INT((int)diff, 0);
    if (strcmp(g_backend, "vulkan")) CHECK(!ran_without && !ran_zero && ran_cover);
    CHECK(changed > sizeof a / 10);
}

/* oak_post's cloud_steps and cloud_scale over the preset's (the command
   line's coarser default on the cpu): the record marches at that size and
   those steps, the picture keeps its clouds (the coarse march's mean
   linear difference from the default's under a quarter of what the
   clouds change), and a value outside its range fails the draw. */
TEST(postSetsTheMarch) {
    static scene s;
    static uint8_t clear[W * H * 4], a[W * H * 4], b[W * H * 4];
    scene_init(&s, 0, 2, 0, 12, true);
    s.env = oak_environment_defaults();
    s.post.no_tonemap = s.post.no_dither = false;
    set_sun(&s, 0.2f, 0.6f, -1, 3);
    draw(&s, clear);
    s.env.clouds = (oak_clouds){.coverage = 0.6f, .type = 0.8f};
    draw(&s, a);
    oak_gpu_clouds c;
    static oak_render_view v;
    memset(&v, 0, sizeof v);
    v.env = s.env;
    v.post = s.post;
    _oak_clouds_fill(&c, &v, W, H);
    CHECK_EQ_INT((int)c.steps[0], (int)oak_preset_quality(OAK_PRESET_DEFAULT).cloud_scale);
    CHECK_EQ_INT((int)c.size[2], (int)oak_preset_quality(OAK_PRESET_DEFAULT).cloud_steps);
    s.post.cloud_scale = v.post.cloud_scale = 4;
    s.post.cloud_steps = v.post.cloud_steps = 32;
    _oak_clouds_fill(&c, &v, W, H);
    CHECK_EQ_INT((int)c.steps[0], 4);
    CHECK_EQ_INT((int)c.size[0], (W + 3) / 4);
    CHECK_EQ_INT((int)c.size[1], (H + 3) / 4);
    CHECK_EQ_INT((int)c.size[2], 32);
    draw(&s, b);
    double changed = 0, apart = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            changed += fabs(lin_at(a, x, y) - lin_at(clear, x, y));
            apart += fabs(lin_at(a, x, y) - lin_at(b, x, y));
        }
    changed /= W * H, apart /= W * H;
    fprintf(stderr, "  clouds change the picture by %.4f (mean linear); the coarse march by %.4f\n",
            changed, apart);
    CHECK(changed > 0.01);
    CHECK(apart < 0.25 * changed);
    int errors = g_oak_test_errors;
    s.post.cloud_steps = 4;
    CHECK(oak_renderer_draw(g_main, &s.in) == OAK_ERROR_INVALID_ARGUMENT);
    s.post.cloud_steps = 32, s.post.cloud_scale = 9;
    CHECK(oak_renderer_draw(g_main, &s.in) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(g_oak_test_errors, errors + 2);
    g_oak_test_errors = errors; /* the two lines above were asked for */
}

/* Above a deck of thick cumulus (coverage 1, 1.5 to 4 km) looking 45
   degrees down, the sun (2 lux) straight behind the eye and no sky light:
   the middle of the picture against a white Lambert card square to the
   sun (2 / pi). The seed's figure is 0.9 (204 against 225 in its bytes);
   the octaves are calibrated to 0.9 for an ideal slab, and the march, the
   light steps and the powder term take some off: held to [0.78, 0.98]. */
TEST(thickCloudReadsAsWhite) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 0, 5200, 0, -45, false);
    float f[3] = {0, -sinf(glm_rad(45)), -cosf(glm_rad(45))};
    set_sun(&s, -f[0], -f[1], -f[2], 2);
    s.env.clouds = (oak_clouds){.coverage = 1, .type = 1};
    draw(&s, px);
    double sum = 0;
    int n = 0;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++) sum += lin_at(px, x, y), n++;
    double white = 2 / OAK_PI, ratio = sum / n / white;
    fprintf(stderr, "  thick cloud %.4f, white card %.4f: %.3f of white (seed 0.9)\n", sum / n,
            white, ratio);
    CHECK(ratio >= 0.78 && ratio <= 0.98);
}

/* A cloud's base seen from below, lit by the sky light alone (no key
   light) under a deep blue zenith over a grey horizon and ground: it is lit
   by the light from low as well as from the zenith (render/clouds.c
   "_oak_clouds_ambient"), so it reads grey-blue, not the zenith's navy:
   its blue over red is 1.48 (bound 1 .. 4); lit from the zenith alone, as
   before round 27, it was 11.4, and 2.53 before the sky light saw the
   deck (overhead it now lights the base with the deck's own grey). */
TEST(baseIsLitFromBelow) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 0, 100, 0, 90, false);
    s.in.light_count = 0;
    const float zenith[3] = {0.05f, 0.15f, 0.8f}, grey[3] = {0.5f, 0.5f, 0.5f};
    memcpy(s.env.sky_zenith_display, zenith, sizeof zenith);
    memcpy(s.env.sky_horizon_display, grey, sizeof grey);
    memcpy(s.env.ambient_ground, grey, sizeof grey);
    s.env.clouds = (oak_clouds){.coverage = 1, .type = 1};
    draw(&s, px);
    double rgb[3] = {0, 0, 0};
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++)
            for (int k = 0; k < 3; k++) rgb[k] += linear(px[((size_t)y * W + x) * 4 + k]);
    double base = rgb[2] / rgb[0];
    fprintf(stderr, "  cloud base blue/red %.3f\n", base);
    CHECK(rgb[0] > 0 && base > 1 && base < 4);
}

/* The worlds' clock drives the clouds: oak_world_update sets their time,
   and the meadow gives them a wind (12 m/s along the grass's), so a world
   run over frames sees them drift (cloudsDriftWithTheWind holds the drift
   itself). */
TEST(worldsMoveTheClouds) {
    const char *names[2] = {"default", "lamps"};
    for (int k = 0; k < 2; k++) {
        oak_scene *scene = NULL;
        CHECK_OK(oak_make_scene(&scene));
        CHECK_OK(oak_world_build(scene, names[k]));
        CHECK_OK(oak_world_update(scene, names[k], 2.5f));
        CHECK(oak_scene_environment(scene)->clouds.time == 2.5f);
        oak_destroy_scene(scene);
    }
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options wo = {.plants = 0.001f, .plants_distance = 10, .forest_distance = -1};
    CHECK_OK(oak_world_build_with(scene, "meadow", &wo));
    const float *wind = oak_scene_environment(scene)->clouds.wind;
    CHECK_NEAR(sqrtf(wind[0] * wind[0] + wind[1] * wind[1]), 12.0f, 1e-4f);
    oak_destroy_scene(scene);
}

/* The ground seen from above, lit by the key light alone, with thin clouds
   (coverage 0.55, 0.002 per metre) and without: per pixel the ratio is
   the transmittance the map holds, held to the transmittance marched along
   the key light's ray from that ground point (render/clouds.c, exact, not
   read from the map): mean difference under 0.03, 95% of pixels within
   0.06; some ground lies under cloud (ratio < 0.5), some beside (> 0.95). */
TEST(groundDarkensByTransmittance) {
    static scene s;
    static uint8_t lit[W * H * 4], shaded[W * H * 4];
    ground_scene(&s, 0);
    draw(&s, lit);
    ground_scene(&s, 0.55f);
    draw(&s, shaded);
    oak_gpu_clouds c;
    record_for(&s, &c);
    if (!g_buf) return;
    double mpp = ORTHO_H / H, sum = 0, under = 0, under_t = 0, lo = 1, hi = 0;
    int n = 0, close = 0, nu = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double l0 = lin_at(lit, x, y);
            if (l0 < 0.05) continue;
            double r = lin_at(shaded, x, y) / l0;
            float P[3] = {(float)((x + 0.5 - W / 2.0) * mpp), 0,
                          (float)((y + 0.5 - H / 2.0) * mpp)};
            double t = _oak_clouds_sun_transmittance(&c, g_buf, P);
            double d = fabs(r - t);
            sum += d, n++, close += d <= 0.06;
            lo = fmin(lo, r), hi = fmax(hi, r);
            if (t < 0.5) under += r, under_t += t, nu++;
        }
    fprintf(stderr,
            "  ground: %d pixels, |lit ratio - transmittance| mean %.4f, %.1f%% within 0.06; "
            "ratio %.3f .. %.3f; under cloud ratio %.3f against %.3f\n",
            n, n ? sum / n : 0, n ? 100.0 * close / n : 0, lo, hi, nu ? under / nu : 0,
            nu ? under_t / nu : 0);
    CHECK(n > W * H / 2);
    CHECK(n && sum / n < 0.03);
    CHECK(n && close >= 0.95 * n);
    CHECK(lo < 0.5 && hi > 0.95);
}

/* The same ground 100 s apart with a 4 m/s wind along +x: the shadows move
   400 m, 12 pixels; the best match of the later picture with the earlier
   one shifted is at 12 +- 1 pixels and far closer than unshifted. */
TEST(cloudsDriftWithTheWind) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    ground_scene(&s, 0.55f);
    s.env.clouds.wind[0] = 4;
    draw(&s, a);
    s.env.clouds.time = 100;
    draw(&s, b);
    double mpp = ORTHO_H / H, want = 400 / mpp, best = 1e9, at0 = 0;
    int best_s = 0;
    for (int sh = -20; sh <= 20; sh++) {
        double sum = 0;
        int n = 0;
        for (int y = 0; y < H; y++)
            for (int x = 20; x < W - 20; x++)
                sum += fabs(lin_at(b, x, y) - lin_at(a, x - sh, y)), n++;
        sum /= n;
        if (sh == 0) at0 = sum;
        if (sum < best) best = sum, best_s = sh;
    }
    fprintf(stderr,
            "  drift: best shift %d px (want %.1f), difference %.4f there, %.4f unshifted\n",
            best_s, want, best, at0);
    CHECK(abs(best_s - (int)lround(want)) <= 1);
    CHECK(best < 0.25 * at0);
}

/* ---- the sky light through the clouds ------------------------------------ */

/* The default blue sky and its light, a sun (3 lux) from up and ahead, the
   eye 2 m over the ground looking level; clouds of `coverage`, drifting at
   10 m/s along +x. */
static void sky_scene(scene *s, float coverage, float time) {
    scene_init(s, 0, 2, 0, 0, true);
    s->env = oak_environment_defaults();
    set_sun(s, 0.2f, 0.6f, -1, 3);
    s->env.clouds = (oak_clouds){.coverage = coverage, .wind = {10, 0}, .time = time};
}

static float *g_sky;
/* the renderer's sky maps into g_sky; its captures so far */
static uint32_t read_sky(oak_renderer *r) {
    uint32_t n = 0;
    if (!g_sky) g_sky = calloc((size_t)OAK_GPU_SKY_TEXELS * 4, sizeof(float));
    CHECK(g_sky != NULL);
    if (g_sky) CHECK_OK(oak_renderer_read_sky(r, g_sky, (size_t)OAK_GPU_SKY_TEXELS * 4, &n));
    return n;
}

/* what a white (albedo 1) card facing up shows of the sky light: E_up / pi */
static void card_up(const float *sky, double out[3]) {
    const float up[3] = {0, 1, 0};
    float e[3];
    _oak_sky_irradiance(sky, up, e);
    for (int k = 0; k < 3; k++) out[k] = e[k] / OAK_PI;
}

/* Overcast (coverage 1: the default 1.5 to 4 km deck, 0.04 per metre)
   over the blue sky: the sky light a white card facing up shows (the
   irradiance map straight up, over pi) falls to 0.43 of the clear sky's
   (held under 0.6), and greys: its blue over red goes from 1.66 to 1.41,
   0.62 of the way from 1 (held under 0.75). The deck lets almost none of
   the sky through; what lights the card is the deck's base, lit by the
   sun through it and by the clear sky's light from above and below. */
TEST(overcastGreysTheSkyLight) {
    static scene s;
    static uint8_t px[W * H * 4];
    double clear[3], over[3];
    sky_scene(&s, 0, 0);
    draw(&s, px);
    read_sky(g_main);
    if (!g_sky) return;
    card_up(g_sky, clear);
    sky_scene(&s, 1, 0);
    draw(&s, px);
    read_sky(g_main);
    card_up(g_sky, over);
    double lc = 0.2126 * clear[0] + 0.7152 * clear[1] + 0.0722 * clear[2];
    double lo = 0.2126 * over[0] + 0.7152 * over[1] + 0.0722 * over[2];
    double bc = clear[2] / clear[0], bo = over[2] / over[0];
    fprintf(stderr,
            "  white card's sky light: clear (%.4f %.4f %.4f), overcast (%.4f %.4f %.4f); "
            "luminance x %.3f, blue/red %.3f -> %.3f\n",
            clear[0], clear[1], clear[2], over[0], over[1], over[2], lc > 0 ? lo / lc : 0, bc, bo);
    CHECK(lc > 0 && lo > 0);
    CHECK(lo < 0.6 * lc);
    CHECK(bc > 1.4 && bo < 1 + 0.75 * (bc - 1));
}

/* With a 10 m/s wind the eye's place in the field moves 10 m a second:
   the capture moves on when it crosses into another OAK_CLOUD_SKY_CELL
   (1 km) cell, the cells' edges at +-500 m, 1,500 m ... from the eye at
   the start. 0 s, 30 s and 45 s (450 m): one capture; 55 s (550 m): a
   second; 140 s (1,400 m, the same cell): none; 160 s: a third. */
TEST(skyRecapturesAsTheyDrift) {
    static scene s;
    static uint8_t px[W * H * 4];
    const float times[6] = {0, 30, 45, 55, 140, 160};
    const uint32_t want[6] = {1, 1, 1, 2, 2, 3};
    uint32_t n0 = 0, got[6];
    CHECK_OK(oak_renderer_read_sky(g_main, NULL, 0, &n0));
    bool ok = true;
    for (int i = 0; i < 6; i++) {
        sky_scene(&s, 0.5f, times[i]);
        s.env.clouds.type = 0.31f; /* a cloud setting the last test had not */
        draw(&s, px);
        CHECK_OK(oak_renderer_read_sky(g_main, NULL, 0, &got[i]));
        got[i] -= n0;
        ok = ok && got[i] == want[i];
    }
    fprintf(stderr, "  captures at 0, 30, 45, 55, 140, 160 s: %u %u %u %u %u %u\n", got[0], got[1],
            got[2], got[3], got[4], got[5]);
    CHECK(ok);
}

/* A clouded capture on this backend against the CPU's: the irradiance map
   (every texel) and the capture's level 0 above the horizon, relative to
   the brightest texel of each: mean and worst difference printed, mean
   under 0.5% and 99% of texels within 2%. */
TEST(cloudedCaptureAgrees) {
    static scene s;
    static uint8_t px[W * H * 4];
    sky_scene(&s, 0.6f, 20);
    oak_renderer *rc = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&rc, &d));
    float *cpu = calloc((size_t)OAK_GPU_SKY_TEXELS * 4, sizeof(float));
    if (!rc || !cpu) goto done;
    CHECK_OK(oak_renderer_draw(rc, &s.in));
    CHECK_OK(oak_renderer_read_sky(rc, cpu, (size_t)OAK_GPU_SKY_TEXELS * 4, NULL));
    draw(&s, px);
    read_sky(g_main);
    if (!g_sky) goto done;
    const uint32_t at[2] = {OAK_GPU_SKY_IRR_AT, OAK_GPU_SKY_CAPTURE_AT};
    const uint32_t n[2] = {OAK_SKY_IRRADIANCE_SIZE, OAK_SKY_CAPTURE_SIZE};
    const char *name[2] = {"irradiance", "capture level 0"};
    for (int m = 0; m < 2; m++) {
        double top = 0, sum = 0, worst = 0;
        size_t count = 0, close = 0;
        for (uint32_t i = 0; i < n[m] * n[m]; i++)
            for (int k = 0; k < 3; k++) top = fmax(top, cpu[((size_t)at[m] + i) * 4 + k]);
        for (uint32_t i = 0; i < n[m] * n[m]; i++) {
            float q[3];
            _oak_sky_oct_point(((float)(i % n[m]) + 0.5f) / (float)n[m],
                               ((float)(i / n[m]) + 0.5f) / (float)n[m], q);
            if (m == 1 && q[1] <= 0) continue; /* the clouds lie above the horizon */
            for (int k = 0; k < 3; k++) {
                size_t j = ((size_t)at[m] + i) * 4 + k;
                double dd = fabs((double)cpu[j] - g_sky[j]) / top;
                sum += dd, worst = fmax(worst, dd), count++, close += dd <= 0.02;
            }
        }
        fprintf(stderr, "  clouded %s cpu vs %s: mean %.2e, worst %.2e, %.2f%% within 2%%\n",
                name[m], g_backend, sum / count, worst, 100.0 * close / count);
        CHECK(top > 0 && sum / count < 0.005 && close >= 0.99 * count);
    }
done:
    free(cpu);
    if (rc) oak_destroy_renderer(rc);
}

/* The picture the parity and thread checks compare: from 40 m up looking
   20 degrees above the horizon at broken cumulus under the blue sky, the
   ground below in their shadows, the full post chain. */
static void parity_scene(scene *s) {
    scene_init(s, 0, 40, 0, 8, true);
    s->env = oak_environment_defaults();
    s->post.no_tonemap = s->post.no_dither = false;
    set_sun(s, 0.5f, 0.8f, -1, 3);
    s->env.clouds = (oak_clouds){.coverage = 0.6f, .wind = {5, 0}, .time = 20};
}

TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    parity_scene(&s);
    /* frame 0 of a fresh renderer on both: the march's offsets hash the frame */
    oak_test_parity_frame("clouds", g_backend, &s.in, W, H, a, b);
}

/* ---- the march's history (temporal reprojection) --------------------------- */

static bool g_full;       /* sequence(): every texel marched every frame (OAK_CLOUD_PARTIAL=0) */
static uint32_t *g_marks; /* sequence() on the CPU: texels marched, frame by frame */
static uint32_t g_texels; /* ... of this many */
static oak_gpu_clouds g_cloud; /* ... and the record of its last frame */
static bool g_hist[16];        /* ... and whether each frame had a history */

/* the CPU's march texels marched in its last frame (aux.z of the slot) */
static uint32_t cpu_marched(oak_renderer *r) {
    const cpu_backend *b = r->self;
    const oak_gpu_clouds *c = &b->cloud;
    uint64_t n = (uint64_t)c->size[0] * c->size[1];
    const float *aux = b->clouds + (_oak_clouds_slot(c, c->steps[2]) + n) * 4;
    uint32_t marched = 0;
    for (uint64_t i = 0; i < n; i++) marched += aux[i * 4 + 2] == 1.0f;
    g_texels = (uint32_t)n;
    g_cloud = *c;
    return marched;
}

/* `frames` frames of the parity scene on a fresh renderer of `backend`
   (frame numbers from 0: the march's offsets hash them), the last with the
   eye moved `move` metres along +x; the history on or off
   (OAK_CLOUD_HISTORY), the partial march on unless g_full. px: the last
   frame; diffs (when given): the mean linear green difference of each
   frame from the one before, summed. */
static bool sequence(const char *backend, bool history, int frames, float move, uint8_t *px,
                     double *diffs) {
    static scene s;
    static uint8_t last[W * H * 4];
    parity_scene(&s);
    setenv("OAK_CLOUD_HISTORY", history ? "1" : "0", 1);
    setenv("OAK_CLOUD_PARTIAL", g_full ? "0" : "1", 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    if (diffs) *diffs = 0;
    for (int f = 0; f < frames && ok; f++) {
        if (f == frames - 1) s.in.camera_world[3][0] += move;
        ok = oak_renderer_draw(r, &s.in) == OAK_OK &&
             oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
        if (ok && g_marks && f < 16 && !strcmp(backend, "cpu")) {
            g_marks[f] = cpu_marched(r);
            g_hist[f] = g_cloud.steps[1] != 0u;
        }
        if (ok && diffs && f > 0) {
            double sum = 0;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) sum += fabs(lin_at(px, x, y) - lin_at(last, x, y));
            *diffs += sum / (W * H);
        }
        memcpy(last, px, sizeof last);
    }
    CHECK(ok);
    if (r) oak_destroy_renderer(r);
    unsetenv("OAK_CLOUD_HISTORY");
    unsetenv("OAK_CLOUD_PARTIAL");
    return ok;
}

/* A still camera over 8 frames: the march's offset moves every frame, and
   the history (the new value's share 1/8) holds the layer's frame-to-frame
   change to under a third of what it is without (an EMA of weight 1/8 over
   independent noise: about a tenth, after the first frames' settling). */
TEST(historySteadiesTheLayer) {
    static uint8_t px[W * H * 4];
    double on = 0, off = 0;
    if (!sequence(g_backend, true, 9, 0, px, &on) || !sequence(g_backend, false, 9, 0, px, &off))
        return;
    fprintf(stderr, "  still, 8 frame steps: change %.6f with history, %.6f without (%.3f)\n", on,
            off, on / off);
    CHECK(off > 0);
    CHECK(on < off / 3);
}

/* A cut drops the history: three still frames, then the eye 10 m aside
   (OAK_HIZ_CUT_METRES is 4): that frame is the history-less one to the
   byte. Moved 1 m (no cut), it is not (the history is blended in). */
TEST(cutStartsAfresh) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    size_t cut = 0, kept = 0;
    if (!sequence(g_backend, true, 4, 10, a, NULL) || !sequence(g_backend, false, 4, 10, b, NULL))
        return;
    for (size_t i = 0; i < sizeof a; i++) cut += a[i] != b[i];
    if (!sequence(g_backend, true, 4, 1, a, NULL) || !sequence(g_backend, false, 4, 1, b, NULL))
        return;
    for (size_t i = 0; i < sizeof a; i++) kept += a[i] != b[i];
    fprintf(stderr, "  after a 10 m cut %zu bytes differ from no history; after 1 m %zu\n", cut,
            kept);
    CHECK_EQ_INT((int)cut, 0);
    CHECK(kept > sizeof a / 100);
}

/* With the history: frame 3 (the eye moved 1 m on it, so the reprojection
   moves texels) on this backend against the CPU's, under the parity rule. */
TEST(historyAgrees) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    if (sequence("cpu", true, 4, 1, a, NULL) && sequence(g_backend, true, 4, 1, b, NULL))
        oak_test_parity("clouds with history, cpu vs gpu", a, b, W, H);
}

/* The partial march (OAK_CLOUD_MARCH_BLOCK 2): frame 0 of a fresh
   renderer (no history; frame 1 has none either) marches every texel,
   and each still frame with a history one of each 2 x 2 block (80 x 45
   texels: 880 or 920 of 3,600), the rest carried; the count is the march's own mark in the clouds
   buffer (aux.z), so a history that failed to carry would show as more. With the eye 1 m aside on
   the last frame the reprojection still finds the history almost everywhere (at most 1/8 of the
   texels fall back). */
static uint32_t due_count(uint32_t frame) {
    /* the texels whose Bayer rank is the frame's */
    oak_gpu_clouds c = g_cloud;
    uint32_t due = 0;
    c.size[3] = frame;
    for (uint32_t y = 0; y < c.size[1]; y++)
        for (uint32_t x = 0; x < c.size[0]; x++) due += _oak_clouds_due(&c, x, y);
    return due;
}

TEST(partialMarchCutsTheWork) {
    static uint8_t px[W * H * 4];
    uint32_t marks[9] = {0};
    g_marks = marks;
    bool ok = sequence("cpu", true, 9, 0, px, NULL);
    g_marks = NULL;
    if (!ok) return;
    fprintf(stderr, "  texels marched per frame, of %u:", g_texels);
    for (int f = 0; f < 9; f++) fprintf(stderr, " %u", marks[f]);
    fprintf(stderr, "\n");
    CHECK_EQ_INT((int)g_cloud.steps[3], 2);
    int partial = 0;
    for (uint32_t f = 0; f < 9; f++) {
        if (!g_hist[f]) { /* frame 0 (and 1: the frontend keeps none yet) */
            CHECK_EQ_INT((int)marks[f], (int)g_texels);
            continue;
        }
        partial++;
        CHECK_EQ_INT((int)marks[f], (int)due_count(f));
        CHECK(marks[f] * 3.9 < g_texels);
    }
    CHECK(!g_hist[0] && partial >= 7);
    g_marks = marks;
    ok = sequence("cpu", true, 4, 1, px, NULL);
    g_marks = NULL;
    if (!ok) return;
    fprintf(stderr, "  eye 1 m aside on frame 3: %u marched, %u due\n", marks[3], due_count(3));
    CHECK(marks[3] >= due_count(3) && marks[3] < due_count(3) + g_texels / 8);
}

/* The partial march against marching every texel every frame, both with
   the history, on this backend: frame 0 (no history) the same to the
   byte; at frame 8 of a still camera (each texel marched twice since the
   history began on frame 2, against 7 times) the pictures' mean linear
   difference stays under 0.004 and under 3% of pixels differ by more
   than 4/255 in green (cpu: 0.00185, 240 of 14,400 (1.7%): the dither
   the partial history has not averaged away yet). */
TEST(partialConvergesToFull) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    g_full = false;
    bool ok = sequence(g_backend, true, 1, 0, a, NULL);
    g_full = true;
    ok = ok && sequence(g_backend, true, 1, 0, b, NULL);
    g_full = false;
    if (!ok) return;
    size_t first = 0;
    for (size_t i = 0; i < sizeof a; i++) first += a[i] != b[i];
    CHECK_EQ_INT((int)first, 0);
    ok = sequence(g_backend, true, 9, 0, a, NULL);
    g_full = true;
    ok = ok && sequence(g_backend, true, 9, 0, b, NULL);
    g_full = false;
    if (!ok) return;
    double sum = 0, worst = 0;
    int far = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double d = fabs(lin_at(a, x, y) - lin_at(b, x, y));
            int g = abs((int)a[((size_t)y * W + (size_t)x) * 4 + 1] -
                        (int)b[((size_t)y * W + (size_t)x) * 4 + 1]);
            sum += d, worst = fmax(worst, d), far += g > 4;
        }
    fprintf(stderr,
            "  frame 8, partial vs full march: mean %.5f, max %.4f (linear), %d of %d pixels "
            "over 4/255\n",
            sum / (W * H), worst, far, W * H);
    CHECK(sum / (W * H) < 0.004);
    CHECK(far < W * H * 3 / 100);
}

/* ---- the weather map's type per place ---------------------------------------- */

/* frame 0 of a fresh renderer on this backend (no TAA or cloud history
   from other pictures); *aerial: whether the frontend built the aerial
   volume for it */
static bool fresh_draw(const scene *s, uint8_t *px, bool *aerial) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r && oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    if (ok && aerial) *aerial = r->frontend.view.aerial != NULL;
    if (r) oak_destroy_renderer(r);
    CHECK(ok);
    return ok;
}

/* The column at world (x, z) of record c (drift 0): the highest sample
   (10 m apart, density before erosion) with any cloud, and the optical
   depth through the layer above altitude `from`. */
static void column(const oak_gpu_clouds *c, float x, float z, float from, float *top, float *tau) {
    const float dy = 10.0f;
    *top = c->layer[0], *tau = 0;
    for (float y = c->layer[0] + 0.5f * dy; y < c->layer[1]; y += dy) {
        float P[3] = {x, y, z};
        float d = _oak_clouds_density(c, g_buf, P, false);
        if (d > 0) *top = y;
        if (y > from) *tau += d * dy * c->shape[2];
    }
}

/* the gradient's ceiling for a type: no cloud above it (clouds.glsl) */
static float ceiling(const oak_gpu_clouds *c, float type) {
    float share = (float)OAK_CLOUD_STRATUS_TOP + (1.0f - (float)OAK_CLOUD_STRATUS_TOP) * type;
    return c->layer[0] + share * (c->layer[1] - c->layer[0]);
}

/* Two places on the line z = *z, under 6 km apart in x, with the same cover
   (within 0.01, both at least 0.7) and types as far apart as the line
   gives: *xt the taller type's, *xf the flatter's. */
static void type_pair(const oak_gpu_clouds *c, float *xt, float *xf, float *z) {
    float best = -1;
    for (int row = 0; row < 60; row++) {
        float zz = -30000.0f + 1000.0f * (float)row;
        enum { N = 400 };
        static float cov[N], typ[N];
        for (int i = 0; i < N; i++) {
            float x = -20000.0f + 100.0f * (float)i;
            cov[i] = _oak_clouds_cover(c, x, zz), typ[i] = _oak_clouds_type(c, x, zz);
        }
        for (int i = 0; i < N; i++)
            for (int j = i + 1; j < N && j < i + 60; j++) {
                if (cov[i] < 0.7f || cov[j] < 0.7f || fabsf(cov[i] - cov[j]) > 0.01f) continue;
                float dt = fabsf(typ[i] - typ[j]);
                if (dt <= best) continue;
                best = dt, *z = zz;
                bool it = typ[i] > typ[j];
                *xt = -20000.0f + 100.0f * (float)(it ? i : j);
                *xf = -20000.0f + 100.0f * (float)(it ? j : i);
            }
    }
}

static void type_record(float variation, oak_gpu_clouds *c) {
    static scene s;
    scene_init(&s, 0, 100, 0, 0, false);
    set_sun(&s, 0, 1, -1, 1);
    s.env.clouds = (oak_clouds){.coverage = 0.6f, .type = 0.5f, .variation = variation};
    record_for(&s, c);
}

/* With variation 0.8 around type 0.5, two places of the same cover
   (record_for's C, the density every backend has) differ in type, and the
   taller one's column rises above the flatter one's type ceiling (which
   the flatter column keeps under) and holds more cloud; with variation 0
   every place's type is the layer's, to the bit, and the same two places
   share one ceiling; the weather's kinds give a storm more variation than
   an overcast deck. */
TEST(typeVariesByPlace) {
    oak_gpu_clouds c;
    type_record(0.8f, &c);
    if (!g_buf) return;
    float xt = 0, xf = 0, z = 0, tt, tf, taut, tauf;
    type_pair(&c, &xt, &xf, &z);
    float typ_t = _oak_clouds_type(&c, xt, z), typ_f = _oak_clouds_type(&c, xf, z);
    column(&c, xt, z, ceiling(&c, typ_f), &tt, &taut);
    column(&c, xf, z, ceiling(&c, typ_f), &tf, &tauf);
    fprintf(stderr,
            "  same cover %.3f / %.3f: type %.3f at x %.0f (top %.0f m, tau above the other's "
            "ceiling %.1f), %.3f at x "
            "%.0f (top %.0f m, ceiling %.0f, tau above it %.1f)\n",
            _oak_clouds_cover(&c, xt, z), _oak_clouds_cover(&c, xf, z), typ_t, xt, tt, taut, typ_f,
            xf, tf, ceiling(&c, typ_f), tauf);
    CHECK(typ_t - typ_f > 0.4f);
    CHECK(tf <= ceiling(&c, typ_f));
    CHECK(tt > ceiling(&c, typ_f) + 200);
    CHECK(taut > 1 && tauf == 0);
    /* variation 0: the one type */
    oak_gpu_clouds c0;
    type_record(0, &c0);
    int off = 0;
    for (int i = 0; i < 10000; i++) {
        float x = -20000.0f + 4.0f * (float)i, zz = 3.7f * (float)i - 15000.0f;
        off += _oak_clouds_type(&c0, x, zz) != c0.shape[1];
    }
    CHECK_EQ_INT(off, 0);
    CHECK(c0.light[3] == 0.0f && c.light[3] == 0.8f);
    column(&c0, xt, z, 0, &tt, &taut);
    column(&c0, xf, z, 0, &tf, &tauf);
    CHECK(tt <= ceiling(&c0, 0.5f) && tf <= ceiling(&c0, 0.5f));
    /* the kinds' defaults */
    float vary[2];
    const char *kinds[2] = {"storm", "overcast"};
    for (int k = 0; k < 2; k++) {
        oak_scene *sc = NULL;
        CHECK_OK(oak_make_scene(&sc));
        if (!sc) return;
        oak_weather_kind kind = k ? OAK_WEATHER_OVERCAST : OAK_WEATHER_STORM;
        CHECK_OK(oak_world_set_weather(sc, kind, 1, 0));
        CHECK_OK(oak_world_update_weather(sc, 1));
        vary[k] = oak_scene_environment(sc)->clouds.variation;
        fprintf(stderr, "  %s: type %.2f, variation %.2f\n", kinds[k],
                oak_scene_environment(sc)->clouds.type, vary[k]);
        oak_destroy_scene(sc);
    }
    CHECK(vary[0] >= 0.5f && vary[1] > 0 && vary[1] <= 0.15f);
}

/* A side view: an orthographic camera 4 km tall looking along -Z at the
   line type_pair found, the march clipped 300 m on by a black wall (the sun
   behind it: its face unlit, no sky light), so each pixel column shows the
   clouds over its x in a 300 m slab. Over the tall-type place the picture's
   cloud (green above 0.02 linear) reaches at least 400 m higher than over
   the flat-type place, and over each it stays under the highest cloud the C
   columns of the slab hold (+ a pixel). */
#define SIDE_H 4000.0f
static float picture_top(const uint8_t *px, float x0, float xc, float yc) {
    float mpp = SIDE_H / H;
    int col = (int)floorf((x0 - xc) / mpp + W / 2.0f);
    float top = 0;
    for (int dx = -1; dx <= 1; dx++) {
        int cx = col + dx;
        if (cx < 0 || cx >= W) continue;
        for (int y = 0; y < H; y++)
            if (lin_at(px, cx, y) > 0.02) {
                top = fmaxf(top, yc + SIDE_H / 2 - ((float)y + 0.5f) * mpp);
                break;
            }
    }
    return top;
}

static float slab_top(const oak_gpu_clouds *c, float x0, float z) {
    float best = 0, t, tau;
    for (float dz = -150; dz <= 150; dz += 25)
        for (float dx = -70; dx <= 70; dx += 35) {
            column(c, x0 + dx, z + dz, 0, &t, &tau);
            best = fmaxf(best, t);
        }
    return best;
}

TEST(tallPlaceReachesHigher) {
    oak_gpu_clouds c;
    type_record(0.8f, &c);
    if (!g_buf) return;
    float xt = 0, xf = 0, z = 0;
    type_pair(&c, &xt, &xf, &z);
    static scene s;
    static uint8_t px[W * H * 4];
    float xc = 0.5f * (xt + xf), yc = 2750;
    scene_init(&s, xc, yc, z + 150, 0, true);
    s.in.camera.ortho_height = SIDE_H;
    s.in.camera.zfar = 1000;
    s.world[0][0][0] = 40000, s.world[0][1][1] = 20000, s.world[0][2][2] = 1;
    s.world[0][3][0] = xc, s.world[0][3][1] = 0, s.world[0][3][2] = z - 150;
    set_sun(&s, 0.3f, 0.5f, -1, 3);
    for (int k = 0; k < 3; k++) s.env.ambient_sky[k] = 1e-9f; /* as ground_scene */
    s.env.clouds = (oak_clouds){.coverage = 0.6f, .type = 0.5f, .variation = 0.8f};
    if (!fresh_draw(&s, px, NULL)) return;
    float pt = picture_top(px, xt, xc, yc), pf = picture_top(px, xf, xc, yc);
    float ct = slab_top(&c, xt, z), cf = slab_top(&c, xf, z), mpp = SIDE_H / H;
    fprintf(stderr,
            "  side view: tall place's cloud to %.0f m (C %.0f), flat place's %.0f (C %.0f)\n", pt,
            ct, pf, cf);
    CHECK(pt > pf + 400);
    CHECK(pt <= ct + 2 * mpp && pf <= cf + 2 * mpp);
}

/* vulkan and gl draw the varied types as the CPU does: the parity scene
   with variation 0.8, frame 0, under the parity rule. */
TEST(typesAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    parity_scene(&s);
    s.env.clouds.variation = 0.8f;
    oak_test_parity_frame("clouds with types", g_backend, &s.in, W, H, a, b);
}

/* ---- the air over the clouds (aerial perspective) --------------------------- */

/* Dusk: the key light 4 degrees up ahead (-Z), above the atmosphere
   128 klx (the aerial volume); at the clouds 300 klx, far more than a real
   dusk sun (which leaves them all but black, 0.003 linear, too dark to read
   their colour from bytes); no sky light; exposure 1/10000; the eye 100 m
   up looking 12 degrees up along -Z at coverage 0.85 (no ground). */
static void dusk_scene(scene *s, bool air) {
    scene_init(s, 0, 100, 0, 12, false);
    s->post.exposure = 1.0f / 10000.0f;
    s->post.taa = OAK_TAA_OFF;
    for (int k = 0; k < 3; k++) s->env.ambient_sky[k] = 1e-9f; /* the key light's alone */
    float el = glm_rad(4.0f);
    set_sun(s, 0, sinf(el), -cosf(el), 300000);
    if (air) {
        s->env.aerial_lux = 128000;
        s->env.aerial_dir[0] = 0, s->env.aerial_dir[1] = sinf(el), s->env.aerial_dir[2] = -cosf(el);
    }
    s->env.clouds = (oak_clouds){.coverage = 0.85f, .type = 0.7f};
}

/* rgb's distance from colour h in chromaticity (each over its sum) */
static double chroma_gap(const double rgb[3], const double h[3]) {
    double a = rgb[0] + rgb[1] + rgb[2], b = h[0] + h[1] + h[2], d = 0;
    if (!(a > 0 && b > 0)) return 0;
    for (int k = 0; k < 3; k++) d += fabs(rgb[k] / a - h[k] / b);
    return d;
}

/* The clouds at dusk with aerial perspective and without: far clouds (the
   rows 2 to 6 degrees over the horizon, 15-40 km away) come closer to the
   horizon's colour (the air's own light, seen over a black wall 30 km
   away) by a larger share than near ones (the rows 24 to 30 degrees up,
   3-4 km): cpu 0.62 of the way against 0.18 (the share each cloud
   pixel's chromaticity gap to it closes; held to far > near + 0.2 and
   twice near); without the aerial volume (no time of day) none is built
   and the picture is the same bytes as before it was on (frame 0 of a
   fresh renderer each). */
static double lin_c(const uint8_t *px, int x, int y, int k) {
    return linear(px[((size_t)y * W + (size_t)x) * 4 + k]);
}

static void band(const uint8_t *on, const uint8_t *off, int y0, int y1, const double h[3],
                 double *closer, int *count) {
    double sum = 0;
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < W; x++) {
            double a[3], b[3];
            for (int k = 0; k < 3; k++) a[k] = lin_c(on, x, y, k), b[k] = lin_c(off, x, y, k);
            if (b[1] < 0.01) continue; /* cloud only */
            double gb = chroma_gap(b, h), ga = chroma_gap(a, h);
            if (!(gb > 1e-3)) continue;
            sum += (gb - ga) / gb, n++;
        }
    *closer = n ? sum / n : 0, *count = n;
}

/* the rows whose view ray is between lo and hi degrees over the horizon */
static void rows_at(float pitch, float lo, float hi, int *y0, int *y1) {
    float t = tanf(glm_rad(20.0f));
    *y0 = H, *y1 = 0;
    for (int y = 0; y < H; y++) {
        float ny = 1.0f - ((float)y + 0.5f) / H * 2.0f;
        float el = pitch + glm_deg(atanf(ny * t));
        if (el >= lo && el <= hi) *y0 = y < *y0 ? y : *y0, *y1 = y + 1 > *y1 ? y + 1 : *y1;
    }
}

TEST(farCloudsAreHazed) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4], again[W * H * 4], wall[W * H * 4];
    bool built = false, off_built = true;
    dusk_scene(&s, false);
    if (!fresh_draw(&s, off, &off_built)) return;
    dusk_scene(&s, true);
    if (!fresh_draw(&s, on, &built)) return;
    dusk_scene(&s, false);
    if (!fresh_draw(&s, again, NULL)) return;
    size_t same = oak_test_bytes_differ(off, again, sizeof off);
    /* the horizon's colour: the air over a black wall 30 km ahead */
    dusk_scene(&s, true);
    s.env.clouds.coverage = 0;
    s.mesh[0] = g_box, s.mat[0] = oak_test_emitter(0);
    glm_mat4_identity(s.world[0]);
    s.world[0][0][0] = 80000, s.world[0][1][1] = 80000, s.world[0][2][2] = 300;
    s.world[0][3][2] = -30000;
    s.in.draw_count = 1;
    s.in.camera.zfar = 60000;
    if (!fresh_draw(&s, wall, NULL)) return;
    double h[3] = {0, 0, 0};
    for (int y = H / 2 - 4; y < H / 2 + 4; y++)
        for (int x = W / 2 - 4; x < W / 2 + 4; x++)
            for (int k = 0; k < 3; k++) h[k] += lin_c(wall, x, y, k) / 64;
    int f0, f1, n0, n1, nf, nn;
    rows_at(12, 2, 6, &f0, &f1);
    rows_at(12, 24, 30, &n0, &n1);
    double far, near;
    band(on, off, f0, f1, h, &far, &nf);
    band(on, off, n0, n1, h, &near, &nn);
    fprintf(stderr,
            "  dusk: horizon colour %.4f %.4f %.4f; toward it: far rows %d-%d %.3f (%d px), "
            "near rows %d-%d %.3f (%d px); off again: %zu bytes differ\n",
            h[0], h[1], h[2], f0, f1, far, nf, n0, n1, near, nn, same);
    CHECK(built && !off_built);
    CHECK_EQ_INT((int)same, 0);
    CHECK(nf > 50 && nn > 50);
    CHECK(far > near + 0.2);
    CHECK(far > 2 * near);
}

/* vulkan and gl lay the air over the clouds as the CPU does: the dusk
   scene with the aerial volume, under the parity rule. */
TEST(hazeAgrees) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    dusk_scene(&s, true);
    oak_test_parity_frame("clouds in the air", g_backend, &s.in, W, H, a, b);
}

/* The CPU's clouds at `threads` workers (the engine started afresh). */
static bool cpu_picture_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 1;
    CHECK_OK(oak_make_shape(&g_box, &bd));
    CHECK_OK(oak_make_material(&g_white, &md));
    static scene s;
    parity_scene(&s);
    /* frame 3 after a 1 m step: the history read and blended */
    bool ok = sequence("cpu", true, 4, 1, px, NULL);
    oak_shutdown();
    return ok;
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_CLOUDS)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 1; /* the ground: white, matte */
    CHECK_OK(oak_make_material(&g_white, &md));
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(coverageZeroChangesNothing);
        RUN(thickCloudReadsAsWhite);
        RUN(postSetsTheMarch);
        RUN(groundDarkensByTransmittance);
        RUN(baseIsLitFromBelow);
        if (!strcmp(g_backend, "cpu")) RUN(worldsMoveTheClouds);
        RUN(cloudsDriftWithTheWind);
        RUN(overcastGreysTheSkyLight);
        RUN(skyRecapturesAsTheyDrift);
        RUN(historySteadiesTheLayer);
        RUN(cutStartsAfresh);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
        if (strcmp(g_backend, "cpu")) RUN(historyAgrees);
        if (!strcmp(g_backend, "cpu")) RUN(partialMarchCutsTheWork);
        RUN(partialConvergesToFull);
        if (strcmp(g_backend, "cpu")) RUN(cloudedCaptureAgrees);
        if (!strcmp(g_backend, "cpu")) RUN(typeVariesByPlace);
        RUN(tallPlaceReachesHigher);
        if (strcmp(g_backend, "cpu")) RUN(typesAgree);
        RUN(farCloudsAreHazed);
        if (strcmp(g_backend, "cpu")) RUN(hazeAgrees);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    free(g_buf);
    free(g_sky);
    if (!strcmp(g_backend, "cpu")) {
        /* the march and the shadow map split over the job pool in rows */
        static uint8_t one[W * H * 4], three[W * H * 4];
        oak_test_same_at_threads("clouds", cpu_picture_at, one, three, sizeof one);
    }
    return TEST_SUMMARY();
}
