/* Froxel volumetric fog on a backend (argv[1]: cpu, vulkan or gl): fog off
 * is the same picture to the byte as before fog was ever drawn (and runs no
 * fog pass); uniform fog attenuates a far wall by exp(-sigma d); an occluder
 * between the sun and a fog volume leaves a darker shaft behind it; a lamp
 * in fog lights the air around it and its shadow shades that haze; height
 * fog is denser low than high; the sky light scatters albedo L (1 - T)
 * into uniform fog; on the CPU the same bytes at 1 and 3
 * threads; on vulkan and gl the picture is the CPU's at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "backend/cpu/cpu_internal.h"
#include "render/fog.h"
#include "render/renderer_internal.h"
#include "scene_helpers.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_box;
static oak_material g_white, g_glass;

typedef oak_test_scene scene;

/* toward_sun: where the key light comes from (any length); lux: its illuminance */
static void add_sun(scene *s, float x, float y, float z, float lux, bool shadows) {
    float n = sqrtf(x * x + y * y + z * z);
    oak_render_light *l = &s->light[s->in.light_count++];
    *l = (oak_render_light){.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL)};
    l->light.intensity = lux;
    l->light.cast_shadows = shadows;
    l->direction[0] = -x / n, l->direction[1] = -y / n, l->direction[2] = -z / n;
}

static void add_lamp(scene *s, float x, float y, float z, float candela) {
    oak_render_light *l = &s->light[s->in.light_count++];
    *l = (oak_render_light){.light = oak_light_defaults(OAK_LIGHT_POINT)};
    l->light.intensity = candela;
    l->light.range = 40;
    l->light.cast_shadows = false;
    l->position[0] = x, l->position[1] = y, l->position[2] = z;
}

/* a box of size (sx, sy, sz) centred at (x, y, z) */
static void add_box(scene *s, oak_material m, float x, float y, float z, float sx, float sy,
                    float sz) {
    uint32_t i = s->in.draw_count;
    oak_test_scene_set(s, i, g_box, m);
    s->world[i][0][0] = sx, s->world[i][1][1] = sy, s->world[i][2][2] = sz;
    s->world[i][3][0] = x, s->world[i][3][1] = y, s->world[i][3][2] = z;
}

/* A dark world (no sky, no sky light, raw light out) and a camera at
   (0, ey, 0) looking along -Z, pitched `pitch` degrees up. */
static void scene_init(scene *s, float ey, float pitch) {
    oak_test_scene_begin(s);
    s->post.taa = OAK_TAA_OFF;
    s->in.camera = (oak_camera){.fov_y = glm_rad(40), .znear = 0.1f, .zfar = 0};
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){0, ey, 0});
    glm_rotate_x(s->in.camera_world, glm_rad(pitch), s->in.camera_world);
}

static void draw(const scene *s, uint8_t *px) {
    oak_test_scene_draw(g_main, s, px, (size_t)W * H * 4);
}

/* one frame with the fog off: the next frame with fog starts its history
   (a test that changes the scene under a still camera and compares single
   frames starts each one afresh) */
static void fog_reset(scene *s) {
    oak_fog keep = s->env.fog;
    s->env.fog = (oak_fog){0};
    static uint8_t px[W * H * 4];
    draw(s, px);
    s->env.fog = keep;
}

static double lin_at(const uint8_t *px, int x, int y) {
    return oak_test_linear(px[((size_t)y * W + (size_t)x) * 4 + 1]);
}

/* the mean linear green over a (2r+1) square around (x, y) */
static double lin_block(const uint8_t *px, int x, int y, int r) {
    double sum = 0;
    int n = 0;
    for (int j = y - r; j <= y + r; j++)
        for (int i = x - r; i <= x + r; i++) sum += lin_at(px, i, j), n++;
    return sum / n;
}

/* whether a stage ran in the last frame (its host time; not asked on vulkan) */
static bool ran(const char *stage) {
    oak_stage_timing t[40];
    uint32_t n = oak_renderer_timings(g_main, t, 40);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, stage) && t[i].cpu_ms > 0) return true;
    return false;
}

/* A lit grey wall 30 m away under the sun, the full post chain. */
static void wall_scene(scene *s) {
    scene_init(s, 2, 0);
    s->env = oak_environment_defaults();
    s->post.no_tonemap = s->post.no_dither = false;
    add_sun(s, 0.3f, 1, 0.5f, 3, true);
    add_box(s, g_white, 0, 0, -30, 60, 40, 1);
    add_box(s, g_white, 0, -0.5f, -15, 60, 1, 30);
}

/* Fog off (density 0, volumes given but counted out) is the picture drawn
   before any fog, to the byte, with no fog stage; fog on changes it and
   runs the stage; off again is the first picture once more. */
TEST(fogOffChangesNothing) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4], c[W * H * 4];
    wall_scene(&s);
    draw(&s, a);
    bool ran_off = ran("fog");
    s.env.fog.volumes[0] = (oak_fog_volume){
        .shape = OAK_FOG_SHAPE_BOX, .center = {0, 2, -10}, .half_size = {4, 4, 4}, .density = 0.2f};
    s.env.fog.anisotropy = 0.3f;
    s.env.fog.falloff = 0.1f;
    draw(&s, b);
    bool ran_zero = ran("fog");
    size_t same = oak_test_bytes_differ(a, b, sizeof a);
    s.env.fog.density = 0.03f;
    s.env.fog.volume_count = 1;
    draw(&s, b);
    bool ran_on = ran("fog");
    size_t changed = oak_test_bytes_differ(a, b, sizeof a);
    s.env.fog = (oak_fog){0};
    draw(&s, c);
    size_t back = oak_test_bytes_differ(a, c, sizeof a);
    fprintf(stderr, "  fog off: %zu bytes differ; on: %zu differ; off again: %zu differ\n", same,
            changed, back);
    CHECK_EQ_INT((int)same, 0);
    CHECK_EQ_INT((int)back, 0);
    CHECK(changed > sizeof a / 4);
    if (strcmp(g_backend, "vulkan")) CHECK(!ran_off && !ran_zero && ran_on);
}

/* Uniform fog (0.02 per metre, albedo 0.9) with the sun (1 lux) straight
   behind the eye, an emissive wall 40 m ahead: two walls, 0.9 and 0.1,
   differ by 0.8 exp(-0.02 d) wherever the in-scattered light is the same
   (the difference cancels it), d the ray's length to the wall. Held to
   within 3% of that over the middle of the picture; the fog's own light
   makes the dimmer wall brighter than 0.1 exp(-0.02 d). */
TEST(uniformFogAttenuates) {
    static scene s;
    static uint8_t hi[W * H * 4], lo[W * H * 4];
    const float sigma = 0.02f, dist = 40;
    for (int pass = 0; pass < 2; pass++) {
        scene_init(&s, 0, 0);
        add_sun(&s, 0, 0, 1, 1, false);
        add_box(&s, oak_test_emitter(pass ? 0.1f : 0.9f), 0, 0, -dist - 0.5f, 200, 200, 1);
        s.env.fog.density = sigma;
        s.env.fog.albedo[0] = s.env.fog.albedo[1] = s.env.fog.albedo[2] = 0.9f;
        draw(&s, pass ? lo : hi);
    }
    double worst = 0, lo_mean = 0, T_mean = 0;
    int n = 0;
    double tanh_y = tan(glm_rad(20)), tanh_x = tanh_y * W / H;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++) {
            double u = ((x + 0.5) / W * 2 - 1) * tanh_x, v = (1 - (y + 0.5) / H * 2) * tanh_y;
            double d = dist * sqrt(1 + u * u + v * v), T = exp(-sigma * d);
            double got = (lin_at(hi, x, y) - lin_at(lo, x, y)) / 0.8;
            worst = fmax(worst, fabs(got / T - 1));
            lo_mean += lin_at(lo, x, y) - 0.1 * T, T_mean += T, n++;
        }
    fprintf(stderr,
            "  uniform fog: transmittance %.4f on average, worst relative error %.4f; the fog's "
            "light over the dim wall %.4f\n",
            T_mean / n, worst, lo_mean / n);
    CHECK(worst < 0.03);
    CHECK(lo_mean / n > 0.005);
}

/* The sky light's in-scatter: uniform fog (0.02 per metre, albedo 0.9), no
   sun and no lamp, a flat grey sky all round (radiance L, the same from
   every side, so the air takes albedo L from it whatever the phase) and a
   black wall 40 m ahead. Each pixel reads its fog-off picture times T plus
   0.9 L (1 - T), T = exp(-0.02 d), d the ray's length to the wall: held to
   within 6% of the in-scattered part over the middle of the picture. The
   same scene with the sky black reads only the wall's own light times T
   (no light in the air). */
TEST(skyLightScattersInTheFog) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    const float sigma = 0.02f, dist = 40, albedo = 0.9f;
    scene_init(&s, 0, 0);
    add_box(&s, oak_test_emitter(0), 0, 0, -dist - 0.5f, 200, 200, 1);
    for (int k = 0; k < 3; k++) s.env.sky_zenith_display[k] = s.env.sky_horizon_display[k] = 0.5f;
    s.env.fog.density = sigma;
    s.env.fog.albedo[0] = s.env.fog.albedo[1] = s.env.fog.albedo[2] = albedo;
    oak_fog keep = s.env.fog;
    s.env.fog = (oak_fog){0};
    draw(&s, off); /* the sky light captured, no fog history */
    const oak_render_view *v = oak_renderer_last_view(g_main);
    double L = v ? v->sky_zenith[1] : 0;
    s.env.fog = keep;
    draw(&s, on);
    double worst = 0, mean = 0;
    int n = 0;
    double tanh_y = tan(glm_rad(20)), tanh_x = tanh_y * W / H;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++) {
            double u = ((x + 0.5) / W * 2 - 1) * tanh_x, v2 = (1 - (y + 0.5) / H * 2) * tanh_y;
            double d = dist * sqrt(1 + u * u + v2 * v2), T = exp(-sigma * d);
            double want = albedo * L * (1 - T);
            double got = lin_at(on, x, y) - lin_at(off, x, y) * T;
            worst = fmax(worst, fabs(got / want - 1));
            mean += got / want, n++;
        }
    /* the sky black: the air has no light to scatter */
    static uint8_t dark_off[W * H * 4], dark_on[W * H * 4];
    for (int k = 0; k < 3; k++) s.env.sky_zenith_display[k] = s.env.sky_horizon_display[k] = 0;
    s.env.fog = (oak_fog){0};
    draw(&s, dark_off);
    s.env.fog = keep;
    draw(&s, dark_on);
    double dark = 0;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++) dark = fmax(dark, lin_at(dark_on, x, y));
    fprintf(stderr,
            "  sky light in the fog: L %.4f; in-scatter over 0.9 L (1 - T): mean %.4f, worst "
            "relative error %.4f; black sky: brightest %.5f\n",
            L, mean / n, worst, dark);
    CHECK(L > 0.1);
    CHECK(worst < 0.06);
    CHECK(dark < 0.002);
}

/* A fog box (0.05 per metre, 30 m wide, 12 m high) lit by the sun straight
   above through its cascades, over black; a plate at 24 m shades its
   left half. The sky seen through the shaded air is darker than through
   the lit air, by at least 4 to 1; without the plate the left side is
   within 10% of the lit right. */
static void shaft_scene(scene *s) {
    scene_init(s, 4, 0);
    add_sun(s, 0.05f, 1, 0.02f, 3, true);
    add_box(s, g_white, -9, 24, -30, 18, 0.5f, 60);
    s->env.fog.volume_count = 1;
    s->env.fog.volumes[0] = (oak_fog_volume){.shape = OAK_FOG_SHAPE_BOX,
                                             .center = {0, 6, -30},
                                             .half_size = {15, 6, 12},
                                             .density = 0.05f,
                                             .albedo = {0.9f, 0.9f, 0.9f}};
}

TEST(occluderLeavesAShaft) {
    static scene s;
    static uint8_t px[W * H * 4];
    shaft_scene(&s);
    fog_reset(&s);
    draw(&s, px);
    /* the box's face lies 18 m ahead: x = 0 at the middle, +-15 m at
       +-(15 / 18) / tan(half fov across) of the half width */
    double left = lin_block(px, W / 2 - 25, H / 2, 3), right = lin_block(px, W / 2 + 25, H / 2, 3);
    /* without the plate both sides are lit alike: the shade is its shadow */
    s.in.draw_count = 0;
    fog_reset(&s);
    draw(&s, px);
    double open = lin_block(px, W / 2 - 25, H / 2, 3);
    fprintf(stderr, "  shaft: shaded side %.4f, lit side %.4f (ratio %.1f); no plate %.4f\n", left,
            right, right / fmax(left, 1e-6), open);
    CHECK(right > 0.02);
    CHECK(right >= 4 * left);
    CHECK(fabs(open - right) < 0.1 * right);
}

/* A 200 cd lamp in uniform fog (0.05 per metre), nothing near it, black
   behind: the air is brightest round the lamp and dims away from it,
   monotonically along a row through it: at the lamp at least 4 times
   what it is 60 pixels aside. */
TEST(lampLightsTheFog) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 0, 0);
    add_lamp(&s, 0, 0, -20, 200);
    s.env.fog.density = 0.05f;
    draw(&s, px);
    double at = lin_block(px, W / 2, H / 2, 1), mid = lin_block(px, W / 2 + 30, H / 2, 1),
           far = lin_block(px, W / 2 + 60, H / 2, 1);
    fprintf(stderr, "  lamp haze: at the lamp %.4f, 30 px aside %.4f, 60 px aside %.4f\n", at, mid,
            far);
    CHECK(far > 0.002);
    CHECK(at > mid && mid > far);
    CHECK(at >= 4 * far);
}

/* The same lamp casting shadows, a 1 x 4 x 4 m box 1 m to its right: the
   haze right of the box (the box's shadow in the air) is darker than as
   far to the lamp's left, under 0.6 of it; with the lamp casting nothing
   the two sides are within 10% of each other. */
TEST(lampShadowShadesTheHaze) {
    static scene s;
    static uint8_t px[W * H * 4];
    double side[2][2];
    for (int pass = 0; pass < 2; pass++) {
        scene_init(&s, 0, 0);
        add_lamp(&s, 0, 0, -20, 200);
        s.light[0].light.cast_shadows = pass == 0;
        add_box(&s, g_white, 1.5f, 0, -20, 1, 4, 4);
        s.env.fog.density = 0.05f;
        fog_reset(&s);
        draw(&s, px);
        side[pass][0] = lin_block(px, W / 2 - 30, H / 2, 1);
        side[pass][1] = lin_block(px, W / 2 + 30, H / 2, 1);
    }
    fprintf(stderr,
            "  lamp shadow in the haze: left %.4f, right (behind the box) %.4f; casting "
            "nothing: %.4f, %.4f\n",
            side[0][0], side[0][1], side[1][0], side[1][1]);
    CHECK(side[0][1] < 0.6 * side[0][0]);
    CHECK(fabs(side[1][1] - side[1][0]) < 0.1 * side[1][0]);
}

/* Height fog (0.05 per metre at y = 0, thinning by 1/e every 5 m), no
   light in the air, an emissive wall (0.9) 30 m ahead of an eye at 5 m:
   the wall shows 0.9 T, T = exp(-integral of the density along the ray),
   which the host integrates in closed form; at 0 m and at 10 m on the
   wall each within 0.03 of it, the low one darker by at least 1.5. */
TEST(heightFogIsDenserLow) {
    static scene s;
    static uint8_t px[W * H * 4];
    const double k = 0.2, dens = 0.05, dist = 30, eye = 5;
    scene_init(&s, (float)eye, 0);
    add_box(&s, oak_test_emitter(0.9f), 0, 0, (float)(-dist - 0.5), 200, 200, 1);
    s.env.fog = (oak_fog){.density = (float)dens, .falloff = (float)k};
    draw(&s, px);
    double tanh_y = tan(glm_rad(20)), got[2], want[2];
    const double heights[2] = {0, 10};
    for (int i = 0; i < 2; i++) {
        int y = (int)lround((1 - (heights[i] - eye) / dist / tanh_y) * H / 2 - 0.5);
        double yh =
            eye + (1 - (y + 0.5) / H * 2) * tanh_y * dist; /* the pixel's height on the wall */
        double len = sqrt(dist * dist + (yh - eye) * (yh - eye));
        /* along the ray y goes linearly from eye to yh: integral of dens exp(-k y) */
        double tau = len * dens * (exp(-k * eye) - exp(-k * yh)) / (k * (yh - eye));
        want[i] = 0.9 * exp(-tau);
        got[i] = lin_block(px, W / 2, y, 1);
    }
    fprintf(stderr, "  height fog: at 0 m %.4f (want %.4f), at 10 m %.4f (want %.4f)\n", got[0],
            want[0], got[1], want[1]);
    CHECK(fabs(got[0] - want[0]) < 0.03);
    CHECK(fabs(got[1] - want[1]) < 0.03);
    CHECK(got[1] >= 1.5 * got[0]);
}

/* ---- the history (docs/SHADING.md "Volumetric fog": jitter and history) ---- */

static float g_hdr[2][W * H * 4];

/* the last frame's linear colour (before post) into hdr */
static void read_hdr(float *hdr) {
    CHECK_OK(g_main->backend->read_hdr(g_main->self, hdr, (size_t)W * H * 4));
}

/* A slab of fog (a box volume, 0.1 per metre, no light in it) from 10.2 m
   to 20 m ahead of the eye and 200 m wide and high, an emissive wall (0.9)
   behind it at 30 m: each pixel shows 0.9 exp(-0.1 L), L the ray's length
   in the slab, 9.8 m times its slant. Its faces lie inside slices 17 and
   24 of the default grid's 48 (at 0.39 and 0.6 of their depth), so a
   froxel sampled at its middle counts slice 17 whole (0.4 m too much) and
   slice 24 whole (0.72 m): the error a history of offsets removes. */
#define SLAB_SIGMA 0.1
static double g_slab_near = 10.2, g_slab_far = 20.0, g_slab_wall = 30.0;
/* what slab_error also counts: uniform height fog's density (per metre,
   from the eye to the wall) and the camera's yaw (radians, + turns left) */
static double g_haze = 0, g_yaw = 0;
static void slab_scene(scene *s) {
    scene_init(s, 0, 0);
    add_box(s, oak_test_emitter(0.9f), 0, 0, (float)(-g_slab_wall - 0.5), 200, 200, 1);
    s->env.fog.volume_count = 1;
    s->env.fog.volumes[0] =
        (oak_fog_volume){.shape = OAK_FOG_SHAPE_BOX,
                         .center = {0, 0, (float)(-(g_slab_near + g_slab_far) / 2)},
                         .half_size = {100, 100, (float)((g_slab_far - g_slab_near) / 2)},
                         .density = (float)SLAB_SIGMA};
}

/* mean |linear green - 0.9 exp(-sigma L - haze D)| over columns x0 .. x1
   of the middle half's rows, L the ray's length in the slab, D to the
   wall (both planes of constant world z, the camera turned by g_yaw) */
static double slab_error_in(const float *hdr, int x0, int x1) {
    double tanh_y = tan(glm_rad(20)), tanh_x = tanh_y * W / H, sum = 0;
    int n = 0;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = x0; x < x1; x++) {
            double u = ((x + 0.5) / W * 2 - 1) * tanh_x, v = (1 - (y + 0.5) / H * 2) * tanh_y;
            double len = sqrt(1 + u * u + v * v), dz = u * sin(g_yaw) + cos(g_yaw);
            double L = (fmin(g_slab_far, g_slab_wall) - g_slab_near) * len / dz;
            double D = g_slab_wall * len / dz;
            sum += fabs(hdr[((size_t)y * W + x) * 4 + 1] - 0.9 * exp(-SLAB_SIGMA * L - g_haze * D));
            n++;
        }
    return sum / n;
}

/* ... over the middle quarter */
static double slab_error(const float *hdr) {
    return slab_error_in(hdr, W / 4, 3 * W / 4);
}

/* mean |a - b| of linear green over the middle quarter */
static double hdr_change(const float *a, const float *b) {
    double sum = 0;
    int n = 0;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = W / 4; x < 3 * W / 4; x++) {
            size_t i = ((size_t)y * W + x) * 4 + 1;
            sum += fabs(a[i] - b[i]), n++;
        }
    return sum / n;
}

/* A still camera's fog converges: the slab drawn 12 frames from a reset.
   The frame-to-frame change of the picture (the volume seen through the
   integrate) over frames 9 to 11 is under a quarter of that over frames 1
   to 3 (each frame's sample weighs 1 / (n + 1)), and frame 11 is within a
   third of frame 0's error against the exact transmittance (the limit of
   infinitely many samples in each slice). */
#define CONVERGE_FRAMES 12
TEST(stillFogConverges) {
    static scene s;
    slab_scene(&s);
    fog_reset(&s);
    double change[CONVERGE_FRAMES] = {0}, first = 0, last = 0;
    for (int n = 0; n < CONVERGE_FRAMES; n++) {
        static uint8_t px[W * H * 4];
        draw(&s, px);
        read_hdr(g_hdr[n & 1]);
        if (n) change[n] = hdr_change(g_hdr[n & 1], g_hdr[(n + 1) & 1]);
        if (!n) first = slab_error(g_hdr[0]);
    }
    last = slab_error(g_hdr[(CONVERGE_FRAMES - 1) & 1]);
    double early = (change[1] + change[2] + change[3]) / 3;
    double late = (change[9] + change[10] + change[11]) / 3;
    fprintf(stderr,
            "  converging: change per frame %.5f over frames 1-3, %.5f over 9-11 (%.1fx less); "
            "error against the exact slab %.5f at frame 0, %.5f at frame %d (%.1fx less)\n",
            early, late, early / fmax(late, 1e-9), first, last, CONVERGE_FRAMES - 1,
            first / fmax(last, 1e-9));
    CHECK(early > 1e-4);
    CHECK(late < early / 4);
    CHECK(first > 0.005);
    CHECK(last < first / 3);
}

/* A probe's faces keep no history and leave the view's alone: the still
   slab with a reflection probe in the fog that moves a millimetre a frame
   (so it bakes its six faces, each with fog, before every frame after
   the first), 8
   frames from a reset. Frame 7 is within a third of frame 0's error
   against the exact transmittance, as without the probe (the faces inject
   into the integrated grid and integrate it in place; were they to write
   the view's inject grids, the history would hold their views). */
TEST(probeBakesLeaveTheHistory) {
    static scene s;
    static uint8_t px[W * H * 4];
    slab_scene(&s);
    oak_reflection_probe probe = {
        .position = {0, 1, -12}, .box_min = {-5, -5, -20}, .box_max = {5, 5, -5}, .margin = 1};
    s.in.probes = &probe, s.in.probe_count = 1;
    fog_reset(&s);
    uint64_t bakes = oak_renderer_probe_bakes(g_main);
    double first = 0;
    for (int n = 0; n < 8; n++) {
        probe.position[0] = 0.001f * (float)n;
        draw(&s, px);
        if (!n) read_hdr(g_hdr[0]), first = slab_error(g_hdr[0]);
    }
    bakes = oak_renderer_probe_bakes(g_main) - bakes;
    read_hdr(g_hdr[0]);
    double last = slab_error(g_hdr[0]);
    fprintf(stderr,
            "  probe bakes: %llu over 8 frames; error against the exact slab %.5f at frame 0, "
            "%.5f at frame 7\n",
            (unsigned long long)bakes, first, last);
    CHECK(bakes >= 7); /* the reset frame baked position 0 */
    CHECK(last < first / 3);
}

/* Reprojection follows the eye: the wall stands inside the slab (its
   near face 10.2 m ahead, the wall at 16 m, the slab past it), so what
   the wall shows depends on where the face lies in depth. Drawn from a
   reset while the eye walks toward it 0.25 m a frame for 10 frames (the
   face crosses two slices as it comes), the last frame stays within
   0.015 of the exact transmittance: a history read without carrying it
   through last frame's view-projection and depth lags the face by the
   walk (0.054 measured when that was tried). Printed beside it: frame
   0's error and a history-less frame's at the end (the trilinear read
   blurs a moving face across a slice, so a walking history is not as
   exact as a still one). */
TEST(walkingEyeStaysTrue) {
    static scene s;
    static uint8_t px[W * H * 4];
    g_slab_near = 10.2, g_slab_far = 40.0, g_slab_wall = 16.0;
    slab_scene(&s);
    fog_reset(&s);
    double first = 0;
    for (int n = 0; n < 10; n++) {
        s.in.camera_world[3][2] = -0.25f * (float)n;
        draw(&s, px);
        if (!n) read_hdr(g_hdr[0]), first = slab_error(g_hdr[0]);
    }
    read_hdr(g_hdr[0]);
    /* the error is measured from where the eye stands now */
    double walked = 0.25 * 9;
    g_slab_near -= walked, g_slab_far -= walked, g_slab_wall -= walked;
    double held = slab_error(g_hdr[0]);
    fog_reset(&s);
    draw(&s, px);
    read_hdr(g_hdr[1]);
    double alone = slab_error(g_hdr[1]);
    g_slab_near = 10.2, g_slab_far = 20.0, g_slab_wall = 30.0;
    fprintf(stderr,
            "  walking eye: error against the exact slab %.5f at frame 0, %.5f at frame 9 "
            "with history, %.5f at frame 9's place without\n",
            first, held, alone);
    CHECK(first > 0.005);
    CHECK(held < 0.015);
}

/* Where the shaft scene's shadow edge crosses row H / 2 (5 rows' mean):
   the first column from the shaded side whose linear green passes mid,
   interpolated between columns. */
static double shaft_edge(const uint8_t *px, double mid) {
    double prev = lin_block(px, W / 2 - 30, H / 2, 2) - mid;
    for (int x = W / 2 - 29; x <= W / 2 + 30; x++) {
        double c = 0;
        for (int y = H / 2 - 2; y <= H / 2 + 2; y++) c += lin_at(px, x, y) / 5;
        c -= mid;
        if (prev < 0 && c >= 0) return x - 1 + -prev / (c - prev);
        prev = c;
    }
    return -1;
}

/* God rays stay where they were: the shaft scene drawn 8 frames by a
   still camera from a reset; the shadow edge in the fog moves at most 0.4
   pixel from frame 0's place (a froxel is 2.5 pixels across; the jitter
   across the column moves it by up to 0.32 measured, 0.15 with the depth
   jitter alone) and the shaft keeps its contrast (lit at least 4 times
   the shade). */
TEST(godRaysStayPut) {
    static scene s;
    static uint8_t px[W * H * 4];
    shaft_scene(&s);
    fog_reset(&s);
    double edge0 = -1, most = 0, left = 0, right = 0, mid = 0;
    for (int n = 0; n < 8; n++) {
        draw(&s, px);
        left = lin_block(px, W / 2 - 25, H / 2, 3), right = lin_block(px, W / 2 + 25, H / 2, 3);
        if (!n) mid = (left + right) / 2;
        double e = shaft_edge(px, mid);
        if (!n) edge0 = e;
        most = fmax(most, fabs(e - edge0));
    }
    fprintf(stderr,
            "  god rays: the edge at column %.2f on frame 0, moving at most %.3f px over 8 "
            "frames; last frame lit %.4f, shaded %.4f\n",
            edge0, most, right, left);
    CHECK(edge0 > 0);
    CHECK(most <= 0.4);
    CHECK(right >= 4 * left);
}

/* A cut resets: the parity scene drawn 4 frames, then the eye jumped 6 m
   (past OAK_HIZ_CUT_METRES): that frame is the same to the byte as a
   history-less one there (after a frame without fog); 2 frames later it
   is not (the history shows); a resize is again the history-less frame.
   A change of the fog's density (1.5 times) keeps the history (the
   froxels clamp it): the frame counts on and is not the history-less
   one. */
static void parity_scene(scene *s);
TEST(cutResets) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    parity_scene(&s);
    fog_reset(&s);
    for (int n = 0; n < 4; n++) draw(&s, a);
    s.in.camera_world[3][0] += 6;
    draw(&s, a);
    fog_reset(&s);
    draw(&s, b);
    size_t cut = oak_test_bytes_differ(a, b, sizeof a);
    for (int n = 0; n < 2; n++) draw(&s, a);
    size_t held = oak_test_bytes_differ(a, b, sizeof a);
    uint32_t frames_before = g_main->frontend.view.fog_frames;
    s.env.fog.density *= 1.5f;
    draw(&s, a);
    uint32_t frames_after = g_main->frontend.view.fog_frames;
    fog_reset(&s);
    draw(&s, b);
    size_t changed = oak_test_bytes_differ(a, b, sizeof a);
    /* a resize: the half-size frame after full-size ones */
    const size_t half = (size_t)(W / 2) * (H / 2) * 4;
    for (int n = 0; n < 2; n++) draw(&s, a);
    CHECK_OK(oak_renderer_resize(g_main, W / 2, H / 2));
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    CHECK_OK(oak_renderer_read_pixels(g_main, a, half));
    fog_reset(&s);
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    CHECK_OK(oak_renderer_read_pixels(g_main, b, half));
    size_t resized = oak_test_bytes_differ(a, b, half);
    CHECK_OK(oak_renderer_resize(g_main, W, H));
    fprintf(stderr,
            "  cut: %zu bytes differ from the history-less frame; 2 frames on %zu; after a "
            "density change %zu (history frames %u then %u); after a resize %zu\n",
            cut, held, changed, frames_before, frames_after, resized);
    CHECK_EQ_INT((int)cut, 0);
    CHECK(held > 0);
    CHECK(changed > 0);
    CHECK_EQ_INT((int)frames_after, (int)frames_before + 1);
    CHECK_EQ_INT((int)resized, 0);
}

/* Weather ramps the density: the slab with uniform height fog under it
   whose density grows 8% a frame (0.01 to 0.0233 per metre over 12
   frames) from a reset. The history is kept (the frame count runs on to
   11) and frame 11 is within a third of frame 0's error against the
   exact transmittance at that frame's density, as a still medium
   converges; dropping the history at every change (as before) leaves each
   frame at frame 0's error. */
TEST(densityRampTracks) {
    static scene s;
    slab_scene(&s);
    fog_reset(&s);
    double first = 0, last = 0;
    for (int n = 0; n < CONVERGE_FRAMES; n++) {
        static uint8_t px[W * H * 4];
        s.env.fog.density = 0.01f * powf(1.08f, (float)n);
        draw(&s, px);
        read_hdr(g_hdr[0]);
        g_haze = s.env.fog.density;
        if (!n) first = slab_error(g_hdr[0]);
        last = slab_error(g_hdr[0]);
    }
    uint32_t frames = g_main->frontend.view.fog_frames;
    g_haze = 0;
    fprintf(stderr,
            "  density ramp: history frames %u at frame %d; error against the exact %.5f at "
            "frame 0, %.5f at frame %d (%.1fx less)\n",
            frames, CONVERGE_FRAMES - 1, first, last, CONVERGE_FRAMES - 1,
            first / fmax(last, 1e-9));
    CHECK_EQ_INT((int)frames, CONVERGE_FRAMES - 1);
    CHECK(first > 0.005);
    CHECK(last < first / 3);
}

/* A froxel that enters the view starts its own history: the slab drawn
   20 frames still (each froxel's weight down to 1 / 16), the camera turned
   5 degrees right in one frame, then 8 frames still. The columns the turn
   brought in (the right 10 pixels) are then within 1.5 times the error a
   reset at that pose shows after as many frames (9 samples each) and
   under half its frame 0's: they took 1, 1/2, 1/3 ..., not 1/16. */
TEST(enteringFroxelsStartAfresh) {
    static scene s;
    static uint8_t px[W * H * 4];
    slab_scene(&s);
    fog_reset(&s);
    for (int n = 0; n < 20; n++) draw(&s, px);
    glm_rotate_y(s.in.camera_world, glm_rad(-5), s.in.camera_world);
    for (int n = 0; n < 9; n++) draw(&s, px);
    read_hdr(g_hdr[0]);
    g_yaw = glm_rad(-5);
    double entered = slab_error_in(g_hdr[0], W - 10, W);
    fog_reset(&s);
    draw(&s, px);
    read_hdr(g_hdr[1]);
    double alone = slab_error_in(g_hdr[1], W - 10, W);
    for (int n = 0; n < 8; n++) draw(&s, px);
    read_hdr(g_hdr[1]);
    double reset = slab_error_in(g_hdr[1], W - 10, W);
    g_yaw = 0;
    fprintf(stderr,
            "  entering froxels: error in the right 10 columns %.5f, 8 frames after the turn; "
            "from a reset there %.5f at frame 0, %.5f at frame 8\n",
            entered, alone, reset);
    CHECK(alone > 0.005);
    CHECK(entered < 1.5 * reset);
    CHECK(entered < alone / 2);
}

/* Jitter across the column: a thin fog slab standing across the view (0.2
   m wide, 100 m high, 1 m deep at 19.5 to 20.5 m, 0.1 per metre; a froxel
   column is 0.4 m wide there) in front of an emissive wall (0.9) at 30 m,
   placed between two columns' centre rays. The light it takes away,
   summed over the middle half's rows, against the exact sum (each ray's
   length in the box): sampled at the columns' centres the slab is not
   seen at all (relative error 1); samples across the column take the
   part it covers. Frame 15's relative error is under half of frame 0's
   (0.33 measured against 1; without the jitter across the column every
   frame samples the centre rays: 1). */
static double shaft_loss(const float *hdr, double x0, double *exact) {
    double tanh_y = tan(glm_rad(20)), tanh_x = tanh_y * W / H, got = 0, want = 0;
    for (int y = H / 4; y < 3 * H / 4; y++)
        for (int x = 0; x < W; x++) {
            double u = ((x + 0.5) / W * 2 - 1) * tanh_x, v = (1 - (y + 0.5) / H * 2) * tanh_y;
            /* the ray's x is u z at depth z: inside |x - x0| <= 0.1 for z in za .. zb */
            double za = 19.5, zb = 20.5;
            if (u > 0)
                za = fmax(za, (x0 - 0.1) / u), zb = fmin(zb, (x0 + 0.1) / u);
            else
                za = zb = 0;
            double L = zb > za ? (zb - za) * sqrt(1 + u * u + v * v) : 0;
            want += 0.9 * (1 - exp(-SLAB_SIGMA * L));
            got += 0.9 - hdr[((size_t)y * W + x) * 4 + 1];
        }
    *exact = want;
    return got;
}

TEST(jitterAcrossTheColumn) {
    static scene s;
    static uint8_t px[W * H * 4];
    const double x0 = 3.23; /* between columns 39's and 40's centre rays */
    scene_init(&s, 0, 0);
    add_box(&s, oak_test_emitter(0.9f), 0, 0, -30.5f, 200, 200, 1);
    s.env.fog.volume_count = 1;
    s.env.fog.volumes[0] = (oak_fog_volume){.shape = OAK_FOG_SHAPE_BOX,
                                            .center = {(float)x0, 0, -20},
                                            .half_size = {0.1f, 100, 0.5f},
                                            .density = (float)SLAB_SIGMA};
    fog_reset(&s);
    double first = 0, last = 0, exact = 0;
    for (int n = 0; n < 16; n++) {
        draw(&s, px);
        read_hdr(g_hdr[0]);
        double got = shaft_loss(g_hdr[0], x0, &exact);
        double err = fabs(got / exact - 1);
        if (!n) first = err;
        last = err;
    }
    fprintf(stderr,
            "  jitter across the column: the thin slab's light taken, relative error %.4f at "
            "frame 0, %.4f at frame 15 (exact sum %.2f)\n",
            first, last, exact);
    CHECK(exact > 1);
    CHECK(first > 0.9);
    CHECK(last < first / 2);
}

/* The picture the parity and thread checks compare: the shaft scene with
   a lamp in the lit half, height fog under it, the blue sky's light, a
   ground and a pane of tinted glass (BLEND) in the fog. */
static void parity_scene(scene *s) {
    shaft_scene(s);
    s->env = oak_environment_defaults();
    s->env.fog.volume_count = 1;
    s->env.fog.volumes[0] = (oak_fog_volume){.shape = OAK_FOG_SHAPE_ELLIPSOID,
                                             .center = {0, 6, -30},
                                             .half_size = {15, 6, 12},
                                             .density = 0.05f,
                                             .albedo = {0.9f, 0.8f, 0.7f}};
    s->env.fog.density = 0.01f;
    s->env.fog.falloff = 0.1f;
    s->env.fog.anisotropy = 0.4f;
    s->post.no_tonemap = s->post.no_dither = false;
    add_lamp(s, 6, 3, -22, 100);
    s->light[s->in.light_count - 1].light.cast_shadows = true; /* through its shadow */
    add_box(s, g_white, 0, -0.5f, -30, 80, 1, 80);
    add_box(s, g_glass, -4, 3, -20, 6, 4, 0.2f); /* a BLEND pane fogs itself */
}

TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    parity_scene(&s);
    oak_test_parity_frame("fog", g_backend, &s.in, W, H, a, b);
}

/* ... and at frame 6 of the same still sequence, history and all (the
   main renderer after a frame without fog: its history starts there) */
#define PARITY_FRAMES 6
TEST(backendsAgreeWithHistory) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    parity_scene(&s);
    if (!oak_test_cpu_picture(&s.in, PARITY_FRAMES, W, H, a)) return;
    fog_reset(&s);
    for (int n = 0; n < PARITY_FRAMES; n++) draw(&s, b);
    oak_test_parity("fog at frame 6", a, b, W, H);
}

/* Not a test (argv[2] "measure"): the slab's error against the exact
   transmittance at 8 depths (its near face from 6 m in steps of 1.37 m,
   9.8 m deep), one frame after a reset and after 16 frames of history,
   averaged: docs/PERFORMANCE.md compares it across the grid's slice
   counts. */
static void measure_slab(void) {
    static scene s;
    double one = 0, held = 0;
    for (int i = 0; i < 8; i++) {
        g_slab_near = 6 + 1.37 * i, g_slab_far = g_slab_near + 9.8;
        slab_scene(&s);
        fog_reset(&s);
        for (int n = 0; n < 16; n++) {
            static uint8_t px[W * H * 4];
            draw(&s, px);
            read_hdr(g_hdr[0]);
            if (!n) one += slab_error(g_hdr[0]) / 8;
        }
        held += slab_error(g_hdr[0]) / 8;
    }
    fprintf(stderr, "  slab error, 8 depths: %.5f one frame, %.5f after 16 frames\n", one, held);
}

/* The CPU's fog at `threads` workers (the engine started afresh). */
static void make_assets(void) {
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 1; /* white, matte */
    CHECK_OK(oak_make_material(&g_white, &md));
    md.base_color[0] = 0.3f, md.base_color[1] = 0.6f, md.base_color[3] = 0.4f;
    md.roughness = 0.2f, md.alpha_mode = OAK_ALPHA_BLEND;
    CHECK_OK(oak_make_material(&g_glass, &md));
}

static bool cpu_picture_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    make_assets();
    static scene s;
    parity_scene(&s);
    bool ok = oak_test_cpu_picture(&s.in, PARITY_FRAMES, W, H, px); /* history and all */
    oak_shutdown();
    return ok;
}

/* The CPU's fog buffer after PARITY_FRAMES frames of the parity scene at
   `threads` workers (the engine started afresh), whole: both inject grids,
   the integrated grid and the frames held. *bytes its size; held: the
   froxels of the frame's inject grid holding a history (their cells'
   bounds were found); lit: those with extinction. NULL when not drawn. */
static uint8_t *cpu_volume_at(uint32_t threads, size_t *bytes, uint32_t *held, uint32_t *lit) {
    oak_test_init(threads);
    make_assets();
    static scene s;
    parity_scene(&s);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    for (int n = 0; n < PARITY_FRAMES && ok; n++) ok = oak_renderer_draw(r, &s.in) == OAK_OK;
    uint8_t *out = NULL;
    *held = *lit = 0;
    if (ok) {
        const cpu_backend *b = r->self;
        const oak_gpu_fog *f = &b->fog;
        size_t count = (size_t)f->grid[0] * f->grid[1] * f->grid[2];
        *bytes = (size_t)_oak_fog_texels(f) * 16;
        out = f->grid[3] && f->grids[0] != count ? malloc(*bytes) : NULL;
        if (out) {
            memcpy(out, b->fog_buf, *bytes);
            const float *g = b->fog_buf + (size_t)f->grids[0] * 4;
            const float *h = b->fog_buf + (size_t)_oak_fog_held_texel(f, f->grids[0]) * 4;
            for (size_t i = 0; i < count; i++) *held += h[i] > 0.0f, *lit += g[i * 4 + 3] > 0.0f;
        }
    }
    CHECK(out != NULL);
    if (r) oak_destroy_renderer(r);
    oak_shutdown();
    return out;
}

/* The CPU's fog volume is the same to the byte at 1 and 2 threads (its
   column rays found once a frame and its cells' corners once a row, on
   the job pool), history and cell bounds in use. */
static void volumeSameAtThreads(void) {
    size_t n1 = 0, n2 = 0;
    uint32_t held1, lit1, held2, lit2;
    uint8_t *one = cpu_volume_at(1, &n1, &held1, &lit1);
    uint8_t *two = cpu_volume_at(2, &n2, &held2, &lit2);
    if (one && two) {
        size_t diff = 0;
        for (size_t i = 0; i < n1 && n1 == n2; i++) diff += one[i] != two[i];
        fprintf(stderr,
                "  fog volume at 1 and 2 threads: %zu of %zu bytes differ; froxels held %u, "
                "with extinction %u\n",
                diff, n1, held1, lit1);
        CHECK_EQ_INT((int)(n1 == n2), 1);
        CHECK_EQ_INT((int)diff, 0);
        CHECK(held1 > 1000); /* the history and the cells' bounds ran */
        CHECK(lit1 > 1000);
    }
    free(one);
    free(two);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_FOG)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    make_assets();
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main && argc > 2 && !strcmp(argv[2], "measure")) {
        measure_slab();
    } else if (g_main) {
        RUN(fogOffChangesNothing);
        RUN(uniformFogAttenuates);
        RUN(skyLightScattersInTheFog);
        RUN(occluderLeavesAShaft);
        RUN(lampLightsTheFog);
        RUN(lampShadowShadesTheHaze);
        RUN(heightFogIsDenserLow);
        RUN(stillFogConverges);
        RUN(walkingEyeStaysTrue);
        RUN(densityRampTracks);
        RUN(enteringFroxelsStartAfresh);
        RUN(jitterAcrossTheColumn);
        if (oak_renderer_backend(g_main) && (g_main->backend->caps & OAK_CAP_PROBES))
            RUN(probeBakesLeaveTheHistory);
        RUN(godRaysStayPut);
        RUN(cutResets);
        if (strcmp(g_backend, "cpu")) {
            RUN(backendsAgree);
            RUN(backendsAgreeWithHistory);
        }
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    if (!strcmp(g_backend, "cpu") && argc <= 2) {
        static uint8_t one[W * H * 4], three[W * H * 4];
        oak_test_same_at_threads("fog", cpu_picture_at, one, three, sizeof one);
        volumeSameAtThreads();
    }
    return TEST_SUMMARY();
}
