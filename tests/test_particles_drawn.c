/* Particles drawn (argv[1]: cpu, vulkan or gl), in a dark world with the
 * raw light shown (exposure 1, no curve): N additive quads of value 0.1 at
 * one spot read N x 0.1 in linear light (N = 1, 2, 4; "over" would read
 * 0.1), and fade by exp2 fog (unlit particles take the blend pass's unlit
 * shader on the GPUs: oak_blend_stats.unlit) and, with froxel fog on, by
 * the volume at their own depth as still water is; a red quad at alpha 0.5 in
 * front of a blue one at 0.5 reads red 0.4 and blue 0.2 (drawn in the
 * wrong order, 0.2 and 0.4), from either side; a cutout (MASK) particle
 * draws its colour opaque; a spray of opaque particles draws from the
 * device's records on vulkan and gl; a 2 x 2 flipbook shows frame 1 at a
 * quarter of a life and frame 3 at three quarters, upright (its frames
 * from the device's records too, the CPU's picture to the byte); a spray of
 * "over" particles sorted far to near on the device, and as a 2 x 2
 * flipbook (sorted and grouped by frame there); a lit particle
 * takes a key light's and a lamp's light; a soft particle fades into the
 * ground it crosses by the depth between them; the campfire glows, and
 * twice the same bytes; on vulkan and gl each picture is the CPU's at the
 * parity rule. */
#include "oak_test.h"

#include "backend_start.h"

#include <oak/world.h>

#include "render/stream.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static bool g_same_bytes; /* draw_at's picture was the CPU's to the byte */

static oak_material make(oak_alpha_mode mode, bool additive) {
    oak_material m = {0};
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true, md.double_sided = true;
    md.alpha_mode = mode;
    md.additive = additive;
    CHECK_OK(oak_make_material(&m, &md));
    return m;
}

/* an empty dark scene, the eye on the z axis at eye_z looking at the origin */
static oak_scene *make_scene(float eye_z, oak_particles **p) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return NULL;
    oak_test_dark_world(oak_scene_environment(sc), oak_scene_post(sc));
    oak_scene_post(sc)->taa = OAK_TAA_OFF;
    oak_entity cam = oak_scene_create(sc, "camera");
    float eye[3] = {0, 0, eye_z}, at[3] = {0, 0, 0};
    oak_transform t = oak_transform_look_at(eye, at);
    oak_scene_set_transform(sc, cam, &t);
    oak_camera c = {.fov_y = 40 * (float)OAK_PI / 180, .znear = 0.1f, .zfar = 100};
    oak_scene_set_camera(sc, cam, &c);
    oak_scene_set_active_camera(sc, cam);
    CHECK_OK(oak_world_particles(sc, p));
    return sc;
}

/* count still particles of colour rgba at z, one metre across */
static void add_still(oak_particles *p, oak_material m, float z, uint32_t count, float r, float g,
                      float b, float a) {
    oak_emitter_desc d = {.position = {0, 0, z}, .life = {10, 10}, .size = {1, 1}};
    d.material = m;
    d.bursts[0].count = count;
    d.color_key_count = 1;
    d.color_keys[0] = (oak_particle_key){0, {r, g, b, a}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
}

/* drawn at `seconds`; the centre pixel in linear light; parity with the CPU off it */
static void draw_at(oak_scene *sc, const char *what, double seconds, double lin[3], uint8_t *px) {
    static uint8_t ref[W * H * 4];
    CHECK_OK(oak_world_update_particles(sc, (float)seconds));
    CHECK_OK(oak_scene_draw(sc, g_main));
    CHECK_OK(oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4));
    const uint8_t *c = px + ((H / 2) * W + W / 2) * 4;
    for (int k = 0; k < 3; k++) lin[k] = oak_test_linear(c[k]);
    fprintf(stderr, "  %s on %s: centre %.4f %.4f %.4f\n", what, g_backend, lin[0], lin[1], lin[2]);
    if (strcmp(g_backend, "cpu")) {
        oak_renderer *rc = NULL;
        oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
        CHECK_OK(oak_make_renderer(&rc, &d));
        if (rc) {
            CHECK_OK(oak_scene_draw(sc, rc));
            CHECK_OK(oak_renderer_read_pixels(rc, ref, sizeof ref));
            char label[96];
            snprintf(label, sizeof label, "%s cpu vs %s", what, g_backend);
            oak_test_parity(label, ref, px, W, H);
            g_same_bytes = memcmp(ref, px, sizeof ref) == 0;
            oak_destroy_renderer(rc);
        }
    }
}

/* the last frame's blend pass on the main renderer: its draws all through
   the unlit shader (want_unlit) or none */
static void check_unlit(bool want_unlit) {
    oak_blend_stats bs = {0};
    CHECK_OK(oak_renderer_blend_stats(g_main, &bs));
    CHECK(bs.draws >= 1);
    CHECK_EQ_INT(bs.unlit, want_unlit ? bs.draws : 0);
}

static void draw(oak_scene *sc, const char *what, double lin[3]) {
    static uint8_t px[W * H * 4];
    draw_at(sc, what, 0.5, lin, px);
}

TEST(additiveQuadsSum) {
    oak_material add = make(OAK_ALPHA_BLEND, true);
    const uint32_t n[3] = {1, 2, 4};
    for (int i = 0; i < 3; i++) {
        oak_particles *p = NULL;
        oak_scene *sc = make_scene(5, &p);
        if (!sc) return;
        add_still(p, add, 0, n[i], 0.1f, 0.1f, 0.1f, 1);
        double lin[3];
        char what[64];
        snprintf(what, sizeof what, "%u additive quads of 0.1", n[i]);
        draw(sc, what, lin);
        check_unlit(true); /* blend_unlit.frag on the GPUs */
        for (int k = 0; k < 3; k++) CHECK_NEAR(lin[k], 0.1 * n[i], 0.006);
        oak_destroy_scene(sc);
    }
    oak_destroy_material(add);
}

/* An unlit additive quad of 0.4 at 5 m in exp2 fog of 0.15 per metre (the
   fog's colour black) reads 0.4 x exp(-(0.15 x 5)^2) = 0.228, through the
   unlit shader on the GPUs (0.4 without the fog). */
TEST(unlitParticlesFog) {
    oak_material add = make(OAK_ALPHA_BLEND, true);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(5, &p);
    if (!sc) return;
    oak_environment *env = oak_scene_environment(sc);
    memset(env->fog_display, 0, sizeof env->fog_display);
    env->fog_density = 0.15f;
    add_still(p, add, 0, 1, 0.4f, 0.4f, 0.4f, 1);
    double lin[3];
    draw(sc, "an unlit quad of 0.4 in fog at 5 m", lin);
    check_unlit(true);
    for (int k = 0; k < 3; k++) CHECK_NEAR(lin[k], 0.4 * exp(-0.75 * 0.75), 0.006);
    oak_destroy_scene(sc);
    oak_destroy_material(add);
}

/* Froxel fog at each BLEND surface's own depth: a slab of fog (a box
   volume, 0.1 per metre, albedo 0 so it scatters nothing) whose faces lie
   on the default grid's slice boundaries 16 and 24 (8.83 and 18.98 m of
   view depth), still water 1 m under the eye (its light 20, so its
   scattered light reads) and three additive quads of 0.4: at 4 m (before
   the slab), at 14 m (in it) and at 25 m (beyond it). Against the same
   scene without the fog each reads T times its unfogged value within
   0.008, T = exp(-0.1 L), L the length of its pixel's ray in the slab up
   to its own depth (1, 0.60 and 0.36 on the axis); the water, its rows
   beyond, in and before the slab, the same within 0.01 + 3% of its value.
   On vulkan and gl both pictures are the CPU's at the parity rule. */
static double fog_boundary(int b) {
    return OAK_FOG_SLICE_NEAR * (pow(1 + OAK_FOG_FAR / OAK_FOG_SLICE_NEAR, b / 48.0) - 1);
}

/* T through the slab along pixel (x, y)'s ray to view depth `depth` */
static double slab_t(double x, double y, double depth) {
    double th = tan(20 * OAK_PI / 180), u = ((x + 0.5) / W * 2 - 1) * th * W / H;
    double v = (1 - (y + 0.5) / H * 2) * th, slant = sqrt(1 + u * u + v * v);
    double zn = fog_boundary(16), zf = fog_boundary(24);
    double inside = fmin(depth, zf) - zn;
    return exp(-0.1 * slant * (inside > 0 ? inside : 0));
}

TEST(blendSurfacesTakeTheFroxelFogAtTheirDepth) {
    oak_material add = make(OAK_ALPHA_BLEND, true);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(5, &p);
    if (!sc) return;
    static const float k_quad[3][4] = {
        /* x, y, view depth, size */
        {-1.2f, 0.6f, 4, 1},
        {0, 1.0f, 14, 2},
        {4, 1.5f, 25, 3},
    };
    double qx[3], qy[3];
    for (int i = 0; i < 3; i++) {
        oak_emitter_desc d = {.position = {k_quad[i][0], k_quad[i][1], 5 - k_quad[i][2]},
                              .life = {10, 10},
                              .size = {k_quad[i][3], k_quad[i][3]}};
        d.material = add;
        d.bursts[0].count = 1;
        d.color_key_count = 1;
        d.color_keys[0] = (oak_particle_key){0, {0.4f, 0.4f, 0.4f, 1}};
        CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
        double th = tan(20 * OAK_PI / 180);
        qx[i] = W / 2.0 + k_quad[i][0] / k_quad[i][2] / (th * W / H) * (W / 2.0);
        qy[i] = H / 2.0 - k_quad[i][1] / k_quad[i][2] / th * (H / 2.0);
    }
    /* a glowing floor half a metre under the water, seen through it */
    oak_mesh box = {0};
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&box, &bd));
    oak_material glow = oak_test_emitter(2.0f);
    oak_entity fl = oak_scene_create(sc, "floor");
    oak_transform ft = oak_transform_identity();
    ft.position[1] = -2, ft.position[2] = -60;
    ft.scale[0] = 200, ft.scale[2] = 200;
    oak_scene_set_transform(sc, fl, &ft);
    oak_mesh_renderer mr = {.mesh = box, .material = glow};
    oak_scene_set_mesh_renderer(sc, fl, &mr);
    oak_water_desc wd = {.level = -1, .steepness = -1, .light = {20, 20, 20}};
    oak_water *w = NULL;
    CHECK_OK(oak_make_water(&w, sc, &wd));
    if (!w) {
        oak_destroy_scene(sc);
        oak_destroy_material(add);
        oak_destroy_material(glow);
        oak_destroy_mesh(box);
        return;
    }
    const float eye[3] = {0, 0, 5};
    static uint8_t clear[W * H * 4], fogged[W * H * 4];
    double lin[3];
    CHECK_OK(oak_water_update(w, eye, 0.5));
    draw_at(sc, "quads and water without fog", 0.5, lin, clear);
    oak_fog *f = &oak_scene_environment(sc)->fog;
    f->volume_count = 1;
    double zn = fog_boundary(16), zf = fog_boundary(24);
    f->volumes[0] = (oak_fog_volume){.shape = OAK_FOG_SHAPE_BOX,
                                     .center = {0, 0, (float)(5 - (zn + zf) / 2)},
                                     .half_size = {100, 100, (float)((zf - zn) / 2)},
                                     .density = 0.1f};
    CHECK_OK(oak_water_update(w, eye, 0.5));
    draw_at(sc, "quads and water behind a slab of froxel fog", 0.5, lin, fogged);
    for (int i = 0; i < 3; i++) {
        size_t o = ((size_t)qy[i] * W + (size_t)qx[i]) * 4;
        double c = oak_test_linear(clear[o + 1]), g = oak_test_linear(fogged[o + 1]);
        double t = slab_t((int)qx[i], (int)qy[i], k_quad[i][2]);
        fprintf(stderr, "  quad at %.0f m on %s: %.4f without fog, %.4f with, T %.4f (%.4f)\n",
                k_quad[i][2], g_backend, c, g, t, c * t);
        CHECK_NEAR(c, 0.4, 0.006);
        CHECK_NEAR(g, c * t, 0.008);
    }
    /* the water: rows below the horizon at view depth 1 m / the ray's drop,
       the floor seen through it deeper (at most twice as deep: refraction
       steepens the ray) */
    int rows[3] = {0, 0, 0}, bad = 0;
    double worst = 0;
    for (int y = H / 2 + 1; y < H; y++) {
        double v = ((y + 0.5) / H * 2 - 1) * tan(20 * OAK_PI / 180), depth = 1 / v;
        int band = depth > zf + 0.5                       ? 0
                   : depth > zn + 0.3 && depth < zf - 0.5 ? 1
                   : 2 * depth < zn - 0.2                 ? 2
                                                          : -1;
        if (band < 0) continue; /* the surface or its floor across a face */
        for (int x = 4; x < W - 4; x++) {
            size_t o = ((size_t)y * W + x) * 4;
            double t = slab_t(x, y, depth), t_floor = slab_t(x, y, 2 * depth);
            for (int k = 0; k < 3; k++) {
                double c = oak_test_linear(clear[o + k]), g = oak_test_linear(fogged[o + k]);
                if (c < 0.05 || c > 0.98) continue; /* too dark to read, or clipped */
                double tol = 0.01 + 0.03 * c, lo = c * (band == 1 ? t_floor : t), hi = c * t;
                double e = g < lo ? lo - g : g > hi ? g - hi : 0;
                worst = fmax(worst, e / tol);
                bad += e > tol;
                rows[band]++;
            }
        }
    }
    fprintf(stderr,
            "  water on %s: %d, %d and %d channels read beyond, in and before the slab; %d off "
            "(worst %.2f of the tolerance)\n",
            g_backend, rows[0], rows[1], rows[2], bad, worst);
    CHECK(rows[0] > 300 && rows[1] > 300 && rows[2] > 300);
    CHECK_EQ_INT(bad, 0);
    oak_destroy_water(w);
    oak_destroy_scene(sc);
    oak_destroy_material(add);
    oak_destroy_material(glow);
    oak_destroy_mesh(box);
}

TEST(alphaBlendsOverFarToNear) {
    oak_material over = make(OAK_ALPHA_BLEND, false);
    for (int side = 0; side < 2; side++) {
        oak_particles *p = NULL;
        oak_scene *sc = make_scene(side ? -5 : 5, &p);
        if (!sc) return;
        /* red nearer the eye; added first from one side, last from the other */
        float zr = side ? -0.5f : 0.5f, zb = -zr;
        if (side) add_still(p, over, zb, 1, 0, 0, 0.8f, 0.5f);
        add_still(p, over, zr, 1, 0.8f, 0, 0, 0.5f);
        if (!side) add_still(p, over, zb, 1, 0, 0, 0.8f, 0.5f);
        double lin[3];
        draw(sc, side ? "red over blue from -z" : "red over blue from +z", lin);
        CHECK_NEAR(lin[0], 0.4, 0.006);
        CHECK_NEAR(lin[1], 0.0, 0.002);
        CHECK_NEAR(lin[2], 0.2, 0.006);
        oak_destroy_scene(sc);
    }
    oak_destroy_material(over);
}

/* The same within one stream: two particles of one emitter thrown at 1 m/s
   along z, the first (red by its colour keys at a tenth of its life) born
   at 0, the second (blue at a twentieth) at 0.5 s; at 1 s red is 0.5 m
   beyond blue along the throw. Thrown at the eye red is nearer and reads
   0.4 over blue's 0.2, away from it blue is (0.4 blue, 0.2 red): the stream
   is drawn far to near, whichever was born first (unsorted, thrown at the
   eye, blue would read 0.4). */
TEST(alphaBlendsFarToNearWithinAStream) {
    oak_material over = make(OAK_ALPHA_BLEND, false);
    for (int side = 0; side < 2; side++) {
        oak_particles *p = NULL;
        oak_scene *sc = make_scene(5, &p);
        if (!sc) return;
        oak_emitter_desc d = {.life = {10, 10}, .size = {1, 1}, .speed = {1, 1}, .material = over};
        d.direction[2] = side ? -1.0f : 1.0f;
        d.bursts[0] = (oak_particle_burst){.at = 0, .count = 1};
        d.bursts[1] = (oak_particle_burst){.at = 0.5f, .count = 1};
        d.color_key_count = 3;
        d.color_keys[0] = (oak_particle_key){0, {0, 0, 0.8f, 0.5f}};
        d.color_keys[1] = (oak_particle_key){0.07f, {0, 0, 0.8f, 0.5f}};
        d.color_keys[2] = (oak_particle_key){0.08f, {0.8f, 0, 0, 0.5f}};
        CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
        static uint8_t px[W * H * 4];
        double lin[3];
        draw_at(sc,
                side ? "one stream thrown away: blue over red"
                     : "one stream thrown at the eye: red over blue",
                1.0, lin, px);
        CHECK_NEAR(lin[side ? 2 : 0], 0.4, 0.006);
        CHECK_NEAR(lin[1], 0.0, 0.002);
        CHECK_NEAR(lin[side ? 0 : 2], 0.2, 0.006);
        oak_destroy_scene(sc);
    }
    oak_destroy_material(over);
}

/* An additive stream sorts among the BLEND surfaces by its emitter's
   position (the stream's unit_point), not by its first instance, so that
   no backend needs its records to order it: a red additive particle of 0.4
   thrown from 4 m (z = 1) at 2 m/s away from the eye lies at 6 m after
   1 s, behind a black "over" quad at alpha 0.5 at 5 m. Keyed by the
   emitter (4 m) it is drawn after the quad and reads 0.40; keyed by the
   particle (6 m) it would be darkened under the quad to 0.20. The trade
   docs/WORLD.md "Blending" names: where a stream and another BLEND surface
   interleave, the emitter's side wins. One order on cpu, vulkan and gl. */
TEST(additiveStreamSortsByItsEmitter) {
    oak_material add = make(OAK_ALPHA_BLEND, true), over = make(OAK_ALPHA_BLEND, false);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(5, &p);
    if (!sc) return;
    add_still(p, over, 0, 1, 0, 0, 0, 0.5f);
    oak_emitter_desc d = {
        .position = {0, 0, 1}, .life = {10, 10}, .size = {1, 1}, .speed = {2, 2}, .material = add};
    d.direction[2] = -1;
    d.bursts[0].count = 1;
    d.color_key_count = 1;
    d.color_keys[0] = (oak_particle_key){0, {0.4f, 0, 0, 1}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    static uint8_t px[W * H * 4];
    double lin[3];
    draw_at(sc, "an additive stream behind a quad, keyed by its emitter", 1.0, lin, px);
    CHECK_NEAR(lin[0], 0.4, 0.006);
    CHECK_NEAR(lin[1], 0.0, 0.002);
    CHECK_NEAR(lin[2], 0.0, 0.002);
    oak_destroy_scene(sc);
    oak_destroy_material(add);
    oak_destroy_material(over);
}

TEST(cutoutDrawsOpaque) {
    oak_material cut = make(OAK_ALPHA_MASK, false);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(5, &p);
    if (!sc) return;
    add_still(p, cut, 0, 1, 0.2f, 0.5f, 0.1f, 1);
    double lin[3];
    draw(sc, "a cutout quad", lin);
    CHECK_NEAR(lin[0], 0.2, 0.006);
    CHECK_NEAR(lin[1], 0.5, 0.006);
    CHECK_NEAR(lin[2], 0.1, 0.006);
    oak_destroy_scene(sc);
    oak_destroy_material(cut);
}

/* The sprays' emitter: 400 particles in one burst, thrown up a 30-degree
   cone through drag and gravity, spinning, keyed from warm to blue (the
   second key's alpha is each test's). */
static oak_emitter_desc spray_desc(void) {
    oak_emitter_desc d = {.capacity = 400,
                          .seed = 9,
                          .position = {0, -1, 0},
                          .cone_degrees = 30,
                          .speed = {2, 4},
                          .life = {2, 2},
                          .size = {0.08f, 0.12f},
                          .spin = {-2, 2},
                          .gravity = {0, -3, 0},
                          .drag = 0.5f,
                          .lift = 0.5f,
                          .color_key_count = 2};
    d.bursts[0].count = 400;
    d.color_keys[0] = (oak_particle_key){0, {1, 0.8f, 0.3f, 1}};
    return d;
}

/* A spray of 400 opaque particles (the default unlit material: a PARTICLES
   stream drawn natively, so on vulkan and gl from the records the particles
   pass wrote) thrown up through drag and gravity, spinning, turned to the
   eye, their colour keyed over the life: on the GPUs the host evaluated
   none of the records for the frame, and the picture is the CPU's; with a
   lamp that casts the host's records are drawn everywhere, the same
   picture. */
TEST(aSprayDrawnFromTheDevicesRecords) {
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(6, &p);
    if (!sc) return;
    oak_emitter_desc d = spray_desc();
    d.color_keys[1] = (oak_particle_key){1, {0.2f, 0.4f, 1, 1}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    oak_stream *st = oak_particles_stream(p, 0);
    CHECK_OK(oak_world_update_particles(sc, 0.8f));
    CHECK_OK(oak_scene_draw(sc, g_main));
    CHECK_EQ_INT(oak_stream_count(st), 400);
    /* the CPU fills the host records for its frame; the GPUs leave them */
    CHECK(st->host_stale == (strcmp(g_backend, "cpu") != 0));
    static uint8_t px[W * H * 4];
    double lin[3];
    draw_at(sc, "a spray of 400", 0.8, lin, px);
    uint32_t lit = 0;
    for (int i = 0; i < W * H; i++) lit += px[4 * i] > 40 || px[4 * i + 2] > 40;
    fprintf(stderr, "  the spray covers %u of %d pixels\n", lit, W * H);
    CHECK(lit > 300 && lit < W * H / 2);
    /* a lamp that casts: the stream is expanded for its atlas, so every
       backend draws the host's records (filled for the frame) and the
       picture stays the same */
    oak_entity lamp = oak_scene_create(sc, "lamp");
    oak_transform t = oak_transform_identity();
    t.position[0] = 3;
    oak_scene_set_transform(sc, lamp, &t);
    oak_light l = oak_light_defaults(OAK_LIGHT_POINT);
    l.cast_shadows = true;
    oak_scene_set_light(sc, lamp, &l);
    CHECK_OK(oak_scene_draw(sc, g_main));
    CHECK(!st->host_stale);
    static uint8_t px2[W * H * 4];
    draw_at(sc, "a spray of 400 beside a casting lamp", 0.8, lin, px2);
    size_t same = 0;
    for (size_t i = 0; i < sizeof px; i++) same += abs(px[i] - px2[i]) <= 2;
    CHECK(same >= sizeof px * 995 / 1000);
    oak_destroy_scene(sc);
}

/* The spray of 400 at 0.8 s drawn twice on a GPU (once on the CPU): with
   the device's path, then with the switch `env` off (the host's records).
   Each frame: the host copy stale only on the device's path,
   host_filled 0 there (400 otherwise), 400 surfaces in one draw on a GPU
   (400 on the CPU), every draw unlit when `unlit`; px and off get the two
   pictures, which cover between 300 pixels and half the frame and meet
   the parity rule. */
static void spray_passes(oak_scene *sc, oak_stream *st, const char *env, const char *what,
                         bool unlit, uint8_t *px, uint8_t *off) {
    bool gpu = strcmp(g_backend, "cpu") != 0;
    char label[128];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !gpu) break;
        if (pass == 1) setenv(env, "off", 1);
        CHECK_OK(oak_world_update_particles(sc, 0.8f));
        CHECK_OK(oak_scene_draw(sc, g_main));
        CHECK_EQ_INT(oak_stream_count(st), 400);
        bool device = gpu && pass == 0;
        CHECK(st->host_stale == device);
        oak_stream_stats ss = {0};
        CHECK_OK(oak_renderer_stream_stats(g_main, &ss));
        oak_blend_stats bs = {0};
        CHECK_OK(oak_renderer_blend_stats(g_main, &bs));
        fprintf(stderr, "  %s on %s (%s %s): %u host records, %u surfaces in %u draws, %u unlit\n",
                what, g_backend, env, pass ? "off" : "on", ss.host_filled, bs.surfaces, bs.draws,
                bs.unlit);
        CHECK_EQ_INT(ss.host_filled, device ? 0 : 400);
        CHECK_EQ_INT(bs.surfaces, 400);
        CHECK_EQ_INT(bs.draws, gpu ? 1 : 400);
        if (unlit) CHECK_EQ_INT(bs.unlit, bs.draws);
        double lin[3];
        snprintf(label, sizeof label, "400 %s%s", what, pass ? ", switch off" : "");
        draw_at(sc, label, 0.8, lin, pass ? off : px);
        if (pass == 1) unsetenv(env);
    }
    uint32_t lit = 0;
    for (int i = 0; i < W * H; i++) lit += px[4 * i] > 40 || px[4 * i + 2] > 40;
    fprintf(stderr, "  the %s cover %u of %d pixels\n", what, lit, W * H);
    CHECK(lit > 300 && lit < W * H / 2);
    snprintf(label, sizeof label, "the %s, %s on vs off", what, env);
    if (gpu) oak_test_parity(label, px, off, W, H);
}

/* The spray above as additive sparks (a BLEND PARTICLES stream): on vulkan
   and gl the particle kernel writes its records and a second kernel turns
   each into a draw record past the lists (oak_render_stream.device_blend),
   so the host evaluates none of them for the frame (the stream's host
   copy stays stale, oak_stream_stats.host_filled 0; the CPU fills all
   400) and the blend pass draws the 400 as one command (oak_blend_stats:
   400 surfaces in 1 draw, unlit). The picture is the CPU's under the
   parity rule, and with OAK_PARTICLE_DEVICE_BLEND=off (the host's records
   expanded into 400 draws, drawn as one instanced command too) as well. */
TEST(additiveSprayDrawnFromTheDevicesRecords) {
    oak_material add = make(OAK_ALPHA_BLEND, true);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(6, &p);
    if (!sc) return;
    oak_emitter_desc d = spray_desc();
    d.material = add;
    d.color_keys[1] = (oak_particle_key){1, {0.2f, 0.4f, 1, 0.5f}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    static uint8_t px[W * H * 4], off[W * H * 4];
    spray_passes(sc, oak_particles_stream(p, 0), "OAK_PARTICLE_DEVICE_BLEND", "additive sparks",
                 true, px, off);
    oak_destroy_scene(sc);
    oak_destroy_material(add);
}

/* The scene's picture on a CPU renderer of the test's size. */
static void cpu_picture(oak_scene *sc, uint8_t *out) {
    oak_renderer *rc = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&rc, &d));
    if (!rc) return;
    CHECK_OK(oak_scene_draw(sc, rc));
    CHECK_OK(oak_renderer_read_pixels(rc, out, (size_t)W * H * 4));
    oak_destroy_renderer(rc);
}

/* Channels of a and b within 2/255 of each other (the parity rule's
   measure; the rule asks 0.995) and the largest difference. */
static double share_within(const uint8_t *a, const uint8_t *b, int *most) {
    size_t ok = 0, n = (size_t)W * H * 4;
    *most = 0;
    for (size_t i = 0; i < n; i++) {
        int d = abs((int)a[i] - (int)b[i]);
        ok += d <= 2;
        *most = d > *most ? d : *most;
    }
    return (double)ok / (double)n;
}

/* A HOST stream with src's desc and blend key (unit_point) holding the
   records recs[0..n), added to sc: the CPU's records drawn as they are. */
static void add_host_copy(oak_scene *sc, const oak_stream *src, const oak_instance *recs,
                          uint32_t n) {
    oak_stream_desc sd = src->desc;
    sd.source = OAK_STREAM_SOURCE_HOST;
    oak_stream *hs = NULL;
    CHECK_OK(oak_make_stream(&hs, &sd));
    if (!hs) return;
    memcpy(hs->unit_point, src->unit_point, sizeof hs->unit_point);
    CHECK_OK(oak_stream_write(hs, 0, recs, n));
    CHECK_OK(oak_stream_set_count(hs, n));
    CHECK_OK(oak_scene_add_stream(sc, hs));
}

/* The spray as "over" particles (alpha 0.6, their colour from warm to
   blue over lives of 1.5 to 3 s, so overlapping ones differ and their
   order shows): on vulkan and gl the particle kernel writes the records,
   the sort kernel orders them far to near by the update's view depth (the
   CPU's key and tie rule) and the draw kernel writes slot i from the i-th
   farthest (oak_render_stream.device_sort), so the host evaluates none of
   them for the frame (host_filled 0; the CPU 400) and the blend pass draws
   the 400 as one command. The picture is the CPU's under the parity rule,
   and the host's order with OAK_PARTICLE_DEVICE_SORT=off too, and beside
   a lamp that casts (the host's records, sorted on the host, everywhere). The order
   matters: the CPU's records (far to near) drawn as a HOST stream in
   another scene give the CPU's picture to the byte, and in reverse they
   break the parity rule by far (under 0.98 of the channels within 2/255,
   some more than 40/255 off). */
TEST(overSprayDrawnFarToNearOnTheDevice) {
    oak_material over = make(OAK_ALPHA_BLEND, false);
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(6, &p);
    if (!sc) return;
    oak_emitter_desc d = spray_desc();
    d.material = over;
    d.life[0] = 1.5f, d.life[1] = 3;
    d.size[0] = 0.2f, d.size[1] = 0.35f;
    d.color_keys[0] = (oak_particle_key){0, {1, 0.8f, 0.3f, 0.6f}};
    d.color_keys[1] = (oak_particle_key){0.5f, {0.2f, 0.4f, 1, 0.6f}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    oak_stream *st = oak_particles_stream(p, 0);
    static uint8_t px[W * H * 4], off[W * H * 4], ref[W * H * 4], copy[W * H * 4];
    spray_passes(sc, st, "OAK_PARTICLE_DEVICE_SORT", "\"over\" particles", false, px, off);
    /* a lamp that casts: every backend draws the host's records, filled
       and sorted far to near on the host for the frame, the same picture */
    oak_entity lamp = oak_scene_create(sc, "lamp");
    oak_transform lt = oak_transform_identity();
    lt.position[0] = 3;
    oak_scene_set_transform(sc, lamp, &lt);
    oak_light l = oak_light_defaults(OAK_LIGHT_POINT);
    l.cast_shadows = true;
    oak_scene_set_light(sc, lamp, &l);
    CHECK_OK(oak_world_update_particles(sc, 0.8f)); /* the host copy stale again */
    CHECK_OK(oak_scene_draw(sc, g_main));
    oak_stream_stats ls = {0};
    CHECK_OK(oak_renderer_stream_stats(g_main, &ls));
    CHECK_EQ_INT(ls.host_filled, 400);
    double llin[3];
    draw_at(sc, "400 \"over\" particles beside a casting lamp", 0.8, llin, off);
    oak_test_parity("the \"over\" spray, without and with a casting lamp", px, off, W, H);
    oak_scene_destroy_entity(sc, lamp);

    /* the CPU's records (far to near) as a HOST stream, as they are and reversed */
    cpu_picture(sc, ref);
    static oak_instance rec[400], rev[400];
    const oak_instance *host = oak_stream_records(st);
    CHECK(host != NULL);
    if (!host) {
        oak_destroy_scene(sc);
        oak_destroy_material(over);
        return;
    }
    memcpy(rec, host, sizeof rec);
    for (int i = 0; i < 400; i++) rev[i] = rec[399 - i];
    for (int k = 0; k < 2; k++) {
        oak_particles *none = NULL;
        oak_scene *two = make_scene(6, &none);
        if (!two) break;
        add_host_copy(two, st, k ? rev : rec, 400);
        cpu_picture(two, copy);
        int most;
        double within = share_within(ref, copy, &most);
        fprintf(stderr, "  the CPU's records %s on cpu: %.4f within 2/255, max %d\n",
                k ? "reversed" : "as they are", within, most);
        if (k)
            CHECK(within < 0.98 && most > 40);
        else
            CHECK(memcmp(ref, copy, sizeof ref) == 0);
        oak_destroy_scene(two);
    }
    oak_destroy_scene(sc);
    oak_destroy_material(over);
}

/* A 2 x 2 atlas of 16 x 16 cells of one colour each (red, green, blue,
   yellow), opaque, for the "over" flipbook below. */
static oak_texture book_atlas(void) {
    static uint8_t atlas[32 * 32 * 4];
    const uint8_t cell[4][3] = {{255, 40, 40}, {40, 255, 40}, {40, 40, 255}, {255, 255, 40}};
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            int k = (y / 16) * 2 + x / 16;
            for (int c = 0; c < 3; c++) atlas[(y * 32 + x) * 4 + c] = cell[k][c];
            atlas[(y * 32 + x) * 4 + 3] = 255;
        }
    oak_texture_desc td = {
        .width = 32, .height = 32, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = atlas};
    oak_texture tex = {0};
    CHECK_OK(oak_make_texture(&tex, &td));
    return tex;
}

/* The "over" spray as a 2 x 2 flipbook (lives of 1 to 3 s, so at 0.8 s
   its particles are in frames 1, 2 and 3, each frame's cell its own
   colour, alpha 0.6): on vulkan and gl the particle kernel writes each
   particle at its place in its own frame's place (each frame stream counts
   all 400: the host counts no frame), the sort kernel orders the book's
   1600 entries (frame, far to near, particle) and the draw kernel fills
   each frame's 400 slots from its own entries, the rest collapsed: the
   host evaluates none of them (host_filled 0; the CPU 400), 4 draws of
   400 slots (1600 surfaces). Frames 1 to 3 hold every particle and frame
   0 none (the CPU's records). The picture is the CPU's under the parity
   rule, with OAK_PARTICLE_DEVICE_SORT=off too (the host's records, sorted
   and grouped on the host). The order matters: the CPU's records of each
   frame drawn as HOST streams (keyed as the book's frames) in another
   scene give the CPU's picture to the byte, and each frame reversed breaks
   the parity rule. */
TEST(overFlipbookDrawnFarToNearOnTheDevice) {
    oak_texture tex = book_atlas();
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true, md.double_sided = true;
    md.alpha_mode = OAK_ALPHA_BLEND;
    md.base_color_tex.texture = tex;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    oak_material over = {0};
    CHECK_OK(oak_make_material(&over, &md));
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(6, &p);
    if (!sc) return;
    oak_emitter_desc d = spray_desc();
    d.material = over;
    d.flipbook[0] = d.flipbook[1] = 2;
    d.life[0] = 1, d.life[1] = 3;
    d.size[0] = 0.2f, d.size[1] = 0.35f;
    d.color_keys[0] = (oak_particle_key){0, {1, 0.9f, 0.8f, 0.6f}};
    d.color_keys[1] = (oak_particle_key){1, {0.5f, 0.6f, 1, 0.6f}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    bool gpu = strcmp(g_backend, "cpu") != 0;
    static uint8_t px[W * H * 4], off[W * H * 4], ref[W * H * 4], copy[W * H * 4];
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && !gpu) break;
        if (pass == 1) setenv("OAK_PARTICLE_DEVICE_SORT", "off", 1);
        CHECK_OK(oak_world_update_particles(sc, 0.8f));
        CHECK_OK(oak_scene_draw(sc, g_main));
        bool device = gpu && pass == 0;
        for (uint32_t k = 0; k < 4; k++) {
            oak_stream *fs = oak_particles_frame_stream(p, 0, k);
            CHECK(fs && fs->host_stale == device);
            CHECK_EQ_INT(oak_stream_count(fs), 400);
        }
        oak_stream_stats ss = {0};
        CHECK_OK(oak_renderer_stream_stats(g_main, &ss));
        oak_blend_stats bs = {0};
        CHECK_OK(oak_renderer_blend_stats(g_main, &bs));
        fprintf(stderr,
                "  the \"over\" book on %s (switch %s): %u host records, %u surfaces in %u draws\n",
                g_backend, pass ? "off" : "on", ss.host_filled, bs.surfaces, bs.draws);
        CHECK_EQ_INT(ss.host_filled, device ? 0 : 400);
        CHECK_EQ_INT(bs.surfaces, device ? 1600 : 400);
        if (device) CHECK_EQ_INT(bs.draws, 4);
        if (!gpu) CHECK_EQ_INT(bs.draws, 400);
        double lin[3];
        g_same_bytes = false;
        draw_at(sc, pass ? "the \"over\" book, switch off" : "the \"over\" book", 0.8, lin,
                pass ? off : px);
        if (gpu)
            fprintf(stderr, "  the \"over\" book on %s: the CPU's picture to the byte: %s\n",
                    g_backend, g_same_bytes ? "yes" : "no");
        if (pass == 1) unsetenv("OAK_PARTICLE_DEVICE_SORT");
    }
    uint32_t lit = 0;
    for (int i = 0; i < W * H; i++)
        lit += px[4 * i] > 40 || px[4 * i + 1] > 40 || px[4 * i + 2] > 40;
    fprintf(stderr, "  the \"over\" book covers %u of %d pixels\n", lit, W * H);
    CHECK(lit > 300 && lit < W * H / 2);
    if (gpu) oak_test_parity("the \"over\" book, on vs off", px, off, W, H);

    /* the CPU's records of each frame (far to near, then records of no
       scale to the count) as HOST streams keyed as the frames are */
    cpu_picture(sc, ref);
    static oak_instance rec[4][400], rev[4][400];
    uint32_t real[4] = {0}, sum = 0;
    for (uint32_t k = 0; k < 4; k++) {
        const oak_instance *host = oak_stream_records(oak_particles_frame_stream(p, 0, k));
        CHECK(host != NULL);
        if (!host) break;
        memcpy(rec[k], host, sizeof rec[k]);
        while (real[k] < 400 && rec[k][real[k]].scale > 0) real[k]++;
        for (uint32_t i = real[k]; i < 400; i++) CHECK(rec[k][i].scale == 0);
        for (uint32_t i = 0; i < real[k]; i++) rev[k][i] = rec[k][real[k] - 1 - i];
        sum += real[k];
    }
    fprintf(stderr, "  the book's frames hold %u %u %u %u\n", real[0], real[1], real[2], real[3]);
    CHECK_EQ_INT(sum, 400);
    CHECK(real[0] == 0 && real[1] > 200 && real[2] > 50 && real[3] > 5);
    for (int r = 0; r < 2; r++) {
        oak_particles *none = NULL;
        oak_scene *two = make_scene(6, &none);
        if (!two) break;
        for (uint32_t k = 0; k < 4; k++)
            add_host_copy(two, oak_particles_frame_stream(p, 0, k), r ? rev[k] : rec[k], real[k]);
        cpu_picture(two, copy);
        int most;
        double within = share_within(ref, copy, &most);
        fprintf(stderr, "  the book's CPU records %s on cpu: %.4f within 2/255, max %d\n",
                r ? "each frame reversed" : "as they are", within, most);
        if (r)
            CHECK(within < 0.99 && most > 30);
        else
            CHECK(memcmp(ref, copy, sizeof ref) == 0);
        oak_destroy_scene(two);
    }
    /* an "over" book's frame places each hold every particle: at most
       OAK_PARTICLE_MAX / frames of them (one error, logged, and no emitter) */
    int errors = g_oak_test_errors;
    oak_emitter_desc big = d;
    big.capacity = OAK_PARTICLE_MAX / 4 + 1;
    CHECK(oak_particles_add_emitter(p, &big, NULL) == OAK_ERROR_LIMIT);
    CHECK_EQ_INT(g_oak_test_errors - errors, 1);
    g_oak_test_errors = errors;
    CHECK(oak_particles_stream(p, 1) == NULL);
    oak_destroy_scene(sc);
    oak_destroy_material(over);
    oak_destroy_texture(tex);
}

/* A 2 x 2 atlas of 16 x 16 cells, each a top half and a darker bottom
   half of its own colour: at a quarter of its life the particle shows
   frame 1 (green, top right), at three quarters frame 3 (yellow), the top
   half above the centre (the quad stands upright). On vulkan and gl the
   book's frames are drawn from the kernel's records (no frame stream's
   host copy evaluated for the frame), the CPU's picture to the byte. */
TEST(flipbookShowsTheFrameOfItsLife) {
    static uint8_t atlas[32 * 32 * 4];
    const uint8_t cell[4][3] = {{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {255, 255, 0}};
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            int k = (y / 16) * 2 + x / 16;
            bool bottom = y % 16 >= 8;
            for (int c = 0; c < 3; c++)
                atlas[(y * 32 + x) * 4 + c] = bottom ? cell[k][c] / 4 : cell[k][c];
            atlas[(y * 32 + x) * 4 + 3] = 255;
        }
    oak_texture_desc td = {
        .width = 32, .height = 32, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = atlas};
    oak_texture tex = {0};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true, md.double_sided = true;
    md.base_color_tex.texture = tex;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    oak_particles *p = NULL;
    oak_scene *sc = make_scene(5, &p);
    if (!sc) return;
    oak_emitter_desc d = {.life = {1, 1}, .size = {1, 1}, .material = m, .flipbook = {2, 2}};
    d.bursts[0].count = 1;
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    static uint8_t px[W * H * 4];
    const double when[2] = {0.25, 0.75};
    const int frame[2] = {1, 3};
    for (int i = 0; i < 2; i++) {
        double lin[3];
        char what[64];
        snprintf(what, sizeof what, "the flipbook at %.2f of its life", when[i]);
        CHECK_OK(oak_world_update_particles(sc, (float)when[i]));
        CHECK_OK(oak_scene_draw(sc, g_main));
        for (uint32_t k = 0; k < 4; k++) { /* the GPUs leave every frame's host copy */
            oak_stream *st = oak_particles_frame_stream(p, 0, k);
            CHECK(st && st->host_stale == (strcmp(g_backend, "cpu") != 0));
            CHECK_EQ_INT(oak_stream_count(st), k == (uint32_t)frame[i]);
        }
        g_same_bytes = false;
        draw_at(sc, what, when[i], lin, px);
        if (strcmp(g_backend, "cpu")) CHECK(g_same_bytes);
        const uint8_t *c = cell[frame[i]];
        for (int k = 0; k < 3; k++) CHECK(c[k] ? lin[k] > 0.1 : lin[k] == 0); /* the frame's hue */
        /* 5 rows above the centre: the top half; 5 below: the darker bottom half */
        const uint8_t *above = px + ((H / 2 - 5) * W + W / 2) * 4,
                      *below = px + ((H / 2 + 5) * W + W / 2) * 4;
        for (int k = 0; k < 3; k++) {
            CHECK_NEAR(above[k], c[k], 2);
            CHECK_NEAR(oak_test_linear(below[k]), oak_test_linear(c[k] / 4), 0.006);
        }
    }
    oak_destroy_scene(sc);
    oak_destroy_material(m);
    oak_destroy_texture(tex);
}

/* A lit (not unlit) white alpha particle: dark without light; under a key
   light of 1 lux shining along the view it reads about its albedo / pi
   (0.8 / pi = 0.255 before the specular's small share), times its alpha;
   a lamp beside it lights it too. */
TEST(litParticlesTakeTheLight) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.8f;
    md.metallic = 0, md.roughness = 1, md.double_sided = true, md.alpha_mode = OAK_ALPHA_BLEND;
    oak_material lit = {0};
    CHECK_OK(oak_make_material(&lit, &md));
    double got[3];
    for (int k = 0; k < 3; k++) { /* dark, the key light, a lamp */
        oak_particles *p = NULL;
        oak_scene *sc = make_scene(5, &p);
        if (!sc) return;
        add_still(p, lit, 0, 1, 1, 1, 1, k == 1 ? 0.5f : 1);
        oak_entity e = oak_scene_create(sc, "light");
        oak_light l = oak_light_defaults(k == 2 ? OAK_LIGHT_POINT : OAK_LIGHT_DIRECTIONAL);
        l.intensity = k == 0 ? 0 : 1;
        float from[3] = {0, 0, 10}, lamp[3] = {0, 0, 1}, at[3] = {0, 0, 0};
        oak_transform t = oak_transform_look_at(k == 2 ? lamp : from, at);
        oak_scene_set_transform(sc, e, &t);
        oak_scene_set_light(sc, e, &l);
        double lin[3];
        const char *what[3] = {"a lit particle in the dark",
                               "a lit particle at alpha 0.5 under 1 lux",
                               "a lit particle 1 m from a 1 cd lamp"};
        draw(sc, what[k], lin);
        check_unlit(false); /* the lit forward shader */
        got[k] = lin[1];
        oak_destroy_scene(sc);
    }
    CHECK(got[0] < 0.003);
    CHECK(got[1] > 0.5 * 0.8 / OAK_PI && got[1] < 0.5 * 1.15 * 0.8 / OAK_PI);
    CHECK(got[2] > 0.8 * 0.8 / OAK_PI && got[2] < 1.15 * 0.8 / OAK_PI);
    oak_destroy_material(lit);
}

/* Soft particles: a 2 m white quad (0.5, alpha 1) stands on black ground,
   crossing it, seen from 1.5 m up and 5 m away. Down the centre column each
   pixel's ray meets the quad at view depth tq and the ground at tg; with a
   softness of 1 m the pixel reads 0.5 x saturate(tg - tq), without it 0.5
   (the hard line); where the quad is under the ground, black. */
TEST(softParticlesFadeIntoTheGround) {
    oak_mesh ground = {0};
    CHECK_OK(
        oak_make_shape(&ground, &(oak_shape_desc){.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}}));
    oak_material black = oak_test_emitter(0);
    const float eye[3] = {0, 1.5f, 5}, fov = 40 * (float)OAK_PI / 180, soft_m = 1;
    /* the camera's frame (oak_transform_look_at's: no roll) */
    float fw[3] = {-eye[0], -eye[1], -eye[2]},
          len = sqrtf(fw[0] * fw[0] + fw[1] * fw[1] + fw[2] * fw[2]);
    for (int k = 0; k < 3; k++) fw[k] /= len;
    const float right[3] = {1, 0, 0};
    const float upv[3] = {0, -fw[2], fw[1]}; /* right x forward */
    double ty = tan(fov / 2), tx = ty * W / H;
    double n[3] = {eye[0], eye[1], eye[2]}, nl = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++) n[k] /= nl; /* the quad faces the eye from the origin */
    int faded = 0, hard = 0;
    for (int pass = 0; pass < 2; pass++) {
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.unlit = true, md.double_sided = true, md.alpha_mode = OAK_ALPHA_BLEND;
        md.softness = pass == 0 ? soft_m : 0;
        oak_material m = {0};
        CHECK_OK(oak_make_material(&m, &md));
        oak_scene *sc = NULL;
        CHECK_OK(oak_make_scene(&sc));
        if (!sc) return;
        oak_test_dark_world(oak_scene_environment(sc), oak_scene_post(sc));
        oak_scene_post(sc)->taa = OAK_TAA_OFF;
        oak_entity cam = oak_scene_create(sc, "camera");
        float at[3] = {0, 0, 0};
        oak_transform t = oak_transform_look_at(eye, at);
        oak_scene_set_transform(sc, cam, &t);
        oak_camera c = {.fov_y = fov, .znear = 0.1f, .zfar = 100};
        oak_scene_set_camera(sc, cam, &c);
        oak_scene_set_active_camera(sc, cam);
        oak_entity g = oak_scene_create(sc, "ground");
        oak_scene_set_mesh_renderer(sc, g, &(oak_mesh_renderer){ground, black, 0});
        oak_particles *p = NULL;
        CHECK_OK(oak_world_particles(sc, &p));
        oak_emitter_desc d = {.life = {10, 10}, .size = {2, 2}, .material = m};
        d.bursts[0].count = 1;
        d.color_key_count = 1;
        d.color_keys[0] = (oak_particle_key){0, {0.5f, 0.5f, 0.5f, 1}};
        CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
        static uint8_t px[W * H * 4];
        double lin[3];
        draw_at(sc,
                pass == 0 ? "a soft quad crossing the ground" : "a hard quad crossing the ground",
                0.5, lin, px);
        check_unlit(true); /* the soft fade in blend_unlit.frag too */
        double ndx = (W / 2 + 0.5) / W * 2 - 1;
        for (int y = 0; y < H; y++) {
            double ndy = 1 - (y + 0.5) / H * 2, dir[3], cq = 0, nd = 0;
            for (int k = 0; k < 3; k++) {
                dir[k] = fw[k] + ndx * tx * right[k] + ndy * ty * upv[k];
                cq += n[k] * (0 - eye[k]), nd += n[k] * dir[k];
            }
            double tq = cq / nd, tg = dir[1] < 0 ? -eye[1] / dir[1] : 100;
            double q[3], r2 = 0;
            for (int k = 0; k < 3; k++) q[k] = eye[k] + tq * dir[k], r2 += q[k] * q[k];
            if (r2 > 0.9 * 0.9) continue; /* off the quad (or at its edge) */
            double fade = tq > tg ? 0 : fmin(1.0, (tg - tq) / soft_m);
            double want = pass == 0 || tq > tg ? 0.5 * fade : 0.5;
            double got = oak_test_linear(px[(y * W + W / 2) * 4]);
            if (fade > 0.05 && fade < 0.95) {
                fprintf(stderr, "    row %d: ground %.3f m behind the quad, want %.4f got %.4f\n",
                        y, tg - tq, want, got);
                if (pass == 0)
                    faded++;
                else
                    hard++;
            }
            CHECK_NEAR(got, want, 0.006);
        }
        oak_destroy_scene(sc);
        oak_destroy_material(m);
    }
    CHECK(faded >= 4 &&
          hard == faded); /* the fade spans rows, and the same rows are hard without */
    oak_destroy_material(black);
    oak_destroy_mesh(ground);
}

/* The campfire world at 1 s (flames, smoke, sparks, the flickering lamp)
   on this backend against the CPU under the parity rule, and the fire
   brighter than the night round it. */
TEST(campfireAgrees) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return;
    CHECK_OK(oak_world_build(sc, "campfire"));
    CHECK_OK(oak_world_update(sc, "campfire", 1.0f));
    static uint8_t px[W * H * 4];
    double lin[3];
    draw_at(sc, "the campfire at 1 s", 1.0, lin, px);
    (void)lin;
    double hottest = 0, sky = oak_test_linear(px[0]);
    for (int i = 0; i < W * H; i++) hottest = fmax(hottest, oak_test_linear(px[i * 4]));
    fprintf(stderr, "  the fire's brightest red %.3f, the sky's %.4f\n", hottest, sky);
    CHECK(hottest > 0.5 && sky < 0.05);
    /* the blend pass: a draw per stream (and flipbook frame: 16 + smoke +
       sparks at most) on the GPUs; the CPU draws each particle by itself */
    oak_blend_stats bs;
    CHECK_OK(oak_renderer_blend_stats(g_main, &bs));
    fprintf(stderr, "  the blend pass on %s: %u surfaces in %u draws\n", g_backend, bs.surfaces,
            bs.draws);
    CHECK(bs.surfaces >= 30);
    /* the flames', sparks' and smoke's records the device's on vulkan and
       gl (the smoke, "over", sorted there too) */
    oak_stream_stats ss = {0};
    CHECK_OK(oak_renderer_stream_stats(g_main, &ss));
    fprintf(stderr, "  %u PARTICLES records filled on the host\n", ss.host_filled);
    if (strcmp(g_backend, "cpu"))
        CHECK_EQ_INT(ss.host_filled, 0);
    else
        CHECK(ss.host_filled > 0);
    /* flames and sparks unlit (blend_unlit.frag on the GPUs), the smoke lit:
       one draw on the GPUs, a draw a puff on the CPU */
    fprintf(stderr, "  %u of the draws unlit\n", bs.unlit);
    CHECK(bs.unlit >= 2 && bs.unlit < bs.draws);
    if (strcmp(g_backend, "cpu")) CHECK_EQ_INT(bs.unlit, bs.draws - 1);
    if (strcmp(g_backend, "cpu"))
        CHECK(bs.draws >= 3 && bs.draws <= 18 && 2 * bs.draws < bs.surfaces); /* 13 of 37 */
    else
        CHECK(bs.draws == bs.surfaces);
    oak_destroy_scene(sc);
}

/* The campfire at 1 s drawn twice on this backend, TAA off (its history
   is the one input that differs): the same bytes, the blend pass's two
   shaders and the CPU's order included. */
TEST(campfireRepeats) {
    static uint8_t first[W * H * 4], again[W * H * 4];
    uint8_t *out[2] = {first, again};
    for (int k = 0; k < 2; k++) {
        oak_scene *sc = NULL;
        CHECK_OK(oak_make_scene(&sc));
        if (!sc) return;
        CHECK_OK(oak_world_build(sc, "campfire"));
        oak_scene_post(sc)->taa = OAK_TAA_OFF;
        CHECK_OK(oak_world_update(sc, "campfire", 1.0f));
        CHECK_OK(oak_world_update_particles(sc, 1.0f));
        CHECK_OK(oak_scene_draw(sc, g_main));
        CHECK_OK(oak_renderer_read_pixels(g_main, out[k], sizeof first));
        oak_destroy_scene(sc);
    }
    size_t differ = 0;
    for (size_t i = 0; i < sizeof first; i++) differ += first[i] != again[i];
    fprintf(stderr, "  the campfire twice on %s: %zu bytes differ\n", g_backend, differ);
    CHECK(differ == 0);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(additiveQuadsSum);
        RUN(additiveStreamSortsByItsEmitter);
        RUN(unlitParticlesFog);
        RUN(blendSurfacesTakeTheFroxelFogAtTheirDepth);
        RUN(alphaBlendsOverFarToNear);
        RUN(alphaBlendsFarToNearWithinAStream);
        RUN(cutoutDrawsOpaque);
        RUN(aSprayDrawnFromTheDevicesRecords);
        RUN(additiveSprayDrawnFromTheDevicesRecords);
        RUN(overSprayDrawnFarToNearOnTheDevice);
        RUN(overFlipbookDrawnFarToNearOnTheDevice);
        RUN(flipbookShowsTheFrameOfItsLife);
        RUN(litParticlesTakeTheLight);
        RUN(softParticlesFadeIntoTheGround);
        RUN(campfireAgrees);
        RUN(campfireRepeats);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
