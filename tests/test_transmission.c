/* The opaque frame's copy and what reads it (docs/SHADING.md "Transmission")
 * on a backend (argv[1]: cpu, vulkan or gl): the opaquecopy pass runs only
 * for a view with a material that reads it (none: the pass is skipped, and
 * on the CPU no copy is made); on the CPU the copy is the resolved frame and
 * each mip the 2 x 2 box of the level above, to the bit.
 * KHR_materials_transmission, _volume and _dispersion from glTF and through
 * .oakm; transmission 0 is the plain material to the byte; a thin pane tints
 * what is behind by (1 - F) x base colour with no offset; a glass sphere
 * with a volume moves an edge seen through it; a slab follows Beer-Lambert
 * at two thicknesses; dispersion parts red's and blue's edges. On vulkan and
 * gl each picture at the parity rule against the CPU's; on the CPU every
 * lane width gives the same bytes, and so do one and three threads. Raw
 * light: exposure 1, no tone curve, dither, FXAA. */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
#include "backend_start.h"
#include "render/opaque_copy.h"
#include "render/pass_table.h"
#include "render/renderer_internal.h"

#define W 160
#define H 120

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_sphere, g_pane, g_ball, g_wall;

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[3];
    oak_material mat[3];
    mat4 world[3];
    oak_environment env;
    oak_post post;
} scene;

static oak_material make(const oak_material_desc *md) {
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, md));
    return m;
}

static oak_material_desc plain(float r, float g, float b, float rough) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = r, md.base_color[1] = g, md.base_color[2] = b;
    md.metallic = 0, md.roughness = rough;
    return md;
}

/* An orthographic camera 2.4 m tall at z = 5 looking down -Z over a grey
   sky; draw 0 a sphere of radius 1 at the origin, the others the caller's. */
static void base_scene(scene *s, uint32_t count) {
    memset(s, 0, sizeof *s);
    s->post = (oak_post){.exposure = 1,
                         .ao = OAK_AO_OFF,
                         .no_tonemap = true,
                         .no_dither = true,
                         .no_fxaa = true,
                         .bloom = OAK_BLOOM_OFF};
    s->env = oak_environment_defaults();
    for (int k = 0; k < 3; k++) {
        s->env.sky_zenith_display[k] = 0.3f + 0.1f * (float)k;
        s->env.sky_horizon_display[k] = 0.6f;
    }
    s->in.camera = (oak_camera){.ortho_height = 2.4f, .znear = 0.1f, .zfar = 100};
    glm_mat4_identity(s->in.camera_world);
    s->in.camera_world[3][2] = 5;
    for (int i = 0; i < 3; i++) glm_mat4_identity(s->world[i]);
    s->mesh[0] = g_sphere;
    s->in.draw_count = count;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static bool copy_ran(void) {
    return _oak_pass_runs(&_oak_pass_table()[OAK_PASS_OPAQUECOPY], &g_main->frontend.view,
                          g_main->backend->caps);
}

/* A sphere with a half-transparent pane in front of it runs no copy (a
   plain BLEND surface does not read the frame behind it); a water pane
   does. On the CPU the copy's level 0 is the resolved frame where no pane
   lies, and each texel of levels 1 .. 7 is the mean of its 2 x 2. */
TEST(copyOnlyWhenNeeded) {
    static scene s;
    oak_material_desc sd = plain(0.8f, 0.3f, 0.2f, 0.5f);
    oak_material_desc gd = plain(0.2f, 0.4f, 0.9f, 0.5f);
    gd.alpha_mode = OAK_ALPHA_BLEND, gd.base_color[3] = 0.5f;
    oak_material_desc wd = gd;
    wd.water = true;
    oak_material sphere = make(&sd), glass = make(&gd), water = make(&wd);
    base_scene(&s, 2);
    s.mat[0] = sphere, s.mat[1] = glass;
    s.mesh[1] = g_pane; /* a 1 m pane at z = 2 right of the sphere */
    s.world[1][3][0] = 1.2f, s.world[1][3][2] = 2;
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    bool ran = copy_ran();
    fprintf(stderr, "  sphere + plain BLEND pane: the copy runs %d\n", ran);
    CHECK(!ran);
    if (!strcmp(g_backend, "cpu")) CHECK(!((cpu_backend *)g_main->self)->opaque_valid);
    s.mat[1] = water;
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    ran = copy_ran();
    fprintf(stderr, "  sphere + water pane: the copy runs %d\n", ran);
    CHECK(ran);
    if (!strcmp(g_backend, "cpu")) {
        const cpu_backend *b = g_main->self;
        CHECK(b->opaque_valid);
        if (!b->opaque_valid) return;
        /* level 0 against the frame where the pane is not (x < 100) */
        size_t diff0 = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < 100; x++)
                for (int k = 0; k < 3; k++)
                    diff0 += b->opaque_copy[((size_t)y * W + x) * 3 + k] !=
                             b->color[((size_t)y * W + x) * 3 + k];
        size_t diff = 0, texels = 0;
        for (uint32_t l = 1; l < OAK_GPU_OPAQUE_LEVELS; l++) {
            uint32_t w, h, uw, uh;
            _oak_pyramid_size(W, H, l, &w, &h);
            _oak_pyramid_size(W, H, l - 1, &uw, &uh);
            const float *t = b->opaque_copy + 3 * _oak_opaque_offset(W, H, l);
            const float *u = b->opaque_copy + 3 * _oak_opaque_offset(W, H, l - 1);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++, texels++) {
                    uint32_t x1 = 2 * x + 1 < uw ? 2 * x + 1 : uw - 1;
                    uint32_t y1 = 2 * y + 1 < uh ? 2 * y + 1 : uh - 1;
                    for (int k = 0; k < 3; k++) {
                        float m = (u[((size_t)2 * y * uw + 2 * x) * 3 + k] +
                                   u[((size_t)2 * y * uw + x1) * 3 + k] +
                                   u[((size_t)y1 * uw + 2 * x) * 3 + k] +
                                   u[((size_t)y1 * uw + x1) * 3 + k]) *
                                  0.25f;
                        diff += t[((size_t)y * w + x) * 3 + k] != m;
                    }
                }
        }
        fprintf(stderr, "  copy: level 0 %zu floats off the frame, %zu mip texels, %zu off\n",
                diff0, texels, diff);
        CHECK_EQ_INT((int)diff0, 0);
        CHECK_EQ_INT((int)diff, 0);
        CHECK(texels > 0);
    }
    oak_destroy_material(sphere);
    oak_destroy_material(glass);
    oak_destroy_material(water);
}

/* ---- transmission, volume, dispersion ------------------------------------ */

#define TW       160
#define TH       120
#define PX_PER_M (TH / 1.5)

static float to_linear(uint8_t v) {
    float c = v / 255.0f;
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

#define g_tr g_main

/* A black sky and no light: what a transmissive surface shows is what
   passes through it. Behind, at z = -2, two unlit walls meet at x = edge:
   `dark` linear to the left, `bright` to the right. The camera is
   orthographic, 1.5 m tall, at z = 5 looking down -Z (80 px a metre). */
typedef struct glass_scene {
    oak_frame_input in;
    oak_mesh mesh[3];
    oak_material mat[3];
    mat4 world[3];
    oak_environment env;
    oak_post post;
} glass_scene;

static void glass_setup(glass_scene *s, oak_material left, oak_material right, float edge,
                        oak_mesh glass_mesh, oak_material glass) {
    memset(s, 0, sizeof *s);
    s->post = (oak_post){.exposure = 1,
                         .ao = OAK_AO_OFF,
                         .no_tonemap = true,
                         .no_dither = true,
                         .no_fxaa = true,
                         .bloom = OAK_BLOOM_OFF};
    s->env = oak_environment_defaults();
    for (int k = 0; k < 3; k++) {
        s->env.sky_zenith_display[k] = s->env.sky_horizon_display[k] = 0;
        s->env.ambient_sky[k] = s->env.ambient_ground[k] = 0;
    }
    s->in.camera = (oak_camera){.ortho_height = 1.5f, .znear = 0.1f, .zfar = 100};
    glm_mat4_identity(s->in.camera_world);
    s->in.camera_world[3][2] = 5;
    for (int i = 0; i < 3; i++) glm_mat4_identity(s->world[i]);
    /* walls 4 m wide and tall, 0.1 m deep, meeting at x = edge */
    s->mesh[0] = s->mesh[1] = g_wall;
    s->mat[0] = left, s->mat[1] = right;
    s->world[0][3][0] = edge - 2, s->world[1][3][0] = edge + 2;
    s->world[0][3][2] = s->world[1][3][2] = -2;
    s->mesh[2] = glass_mesh, s->mat[2] = glass;
    s->in.draw_count = glass.id ? 3 : 2;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static bool tr_draw(const glass_scene *s, uint8_t *px) {
    oak_result r = oak_renderer_draw(g_tr, &s->in);
    CHECK_OK(r);
    if (r) return false;
    r = oak_renderer_read_pixels(g_tr, px, (size_t)TW * TH * 4);
    CHECK_OK(r);
    return r == OAK_OK;
}

/* On a GPU backend the CPU's picture at the parity rule; on the CPU every
   lane width's kernel gives the same bytes. */
static void tr_agree(const glass_scene *s, const uint8_t *px, const char *what) {
    static uint8_t ref[TW * TH * 4];
    if (strcmp(g_backend, "cpu")) {
        if (!oak_test_cpu_picture(&s->in, 1, TW, TH, ref)) return;
        char label[96];
        snprintf(label, sizeof label, "%s cpu vs %s", what, g_backend);
        oak_test_parity(label, ref, px, TW, TH);
        return;
    }
    static const char *const isa[3] = {"scalar", "sse4", "avx2"};
    const char *was = _oak_cpu_isa_name();
    for (int k = 0; k < 3; k++) {
        if (!_oak_cpu_isa_set(isa[k])) continue; /* not on this CPU */
        if (!tr_draw(s, ref)) break;
        size_t diff = 0;
        for (size_t i = 0; i < sizeof ref; i++) diff += ref[i] != px[i];
        fprintf(stderr, "  %s: %s kernel, %zu bytes differ\n", what, isa[k], diff);
        CHECK_EQ_INT((int)diff, 0);
    }
    _oak_cpu_isa_set(was);
}

/* Where channel c of row y crosses halfway between its least and most over
   columns [x0, x1): the column, to a fraction (rising from left to right). */
static double edge_at(const uint8_t *px, int y, int c, int x0, int x1) {
    double lo = 1e9, hi = -1e9;
    for (int x = x0; x < x1; x++) {
        double v = to_linear(px[((size_t)y * TW + x) * 4 + c]);
        lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    double mid = 0.5 * (lo + hi);
    for (int x = x0; x + 1 < x1; x++) {
        double a = to_linear(px[((size_t)y * TW + x) * 4 + c]);
        double b = to_linear(px[((size_t)y * TW + x + 1) * 4 + c]);
        if (a < mid && b >= mid) return x + 0.5 + (mid - a) / (b - a);
    }
    return -1;
}

static double lin_at(const uint8_t *px, int x, int y, int c) {
    return to_linear(px[((size_t)y * TW + x) * 4 + c]);
}

static int col_of(float xm) {
    return (int)floorf(TW / 2.0f + xm * (float)PX_PER_M);
}
static int row_of(float ym) {
    return (int)floorf(TH / 2.0f - ym * (float)PX_PER_M);
}

static oak_material unlit(float v) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = v;
    return make(&md);
}

static oak_material_desc glass_desc(float r, float g, float b) {
    oak_material_desc md = plain(r, g, b, 0);
    md.lobes.transmission = 1;
    md.lobes.ior = 1.5f;
    return md;
}

/* Transmission 0 is the plain material to the byte, and stays opaque; any
   transmission makes a BLEND material. */
TEST(transmissionZeroIsPlain) {
    static glass_scene s;
    static uint8_t a[TW * TH * 4], b[TW * TH * 4];
    oak_material dark = unlit(0.1f), bright = unlit(0.8f);
    oak_material_desc pd = plain(0.7f, 0.5f, 0.3f, 0.4f);
    oak_material_desc zd = pd;
    zd.lobes.thickness = 0.5f, zd.lobes.attenuation_distance = 1, zd.lobes.dispersion = 1;
    oak_material p = make(&pd), z = make(&zd);
    CHECK(oak_material_get(z)->desc.alpha_mode == OAK_ALPHA_OPAQUE);
    oak_material_desc td = pd;
    td.lobes.transmission = 0.5f;
    oak_material t = make(&td);
    CHECK(oak_material_get(t)->desc.alpha_mode == OAK_ALPHA_BLEND);
    glass_setup(&s, dark, bright, 0, g_sphere, p);
    s.env.sky_zenith_display[1] = s.env.sky_horizon_display[1] = 0.5f; /* something to reflect */
    bool ok = tr_draw(&s, a);
    s.mat[2] = z;
    ok = ok && tr_draw(&s, b);
    size_t diff = 0;
    for (size_t i = 0; ok && i < sizeof a; i++) diff += a[i] != b[i];
    fprintf(stderr, "  transmission 0 against the plain material: %zu bytes differ\n", diff);
    CHECK(ok);
    CHECK_EQ_INT((int)diff, 0);
    oak_destroy_material(p);
    oak_destroy_material(z);
    oak_destroy_material(t);
    oak_destroy_material(dark);
    oak_destroy_material(bright);
}

/* A thin pane (no volume) of transmission 1, roughness 0, ior 1.5 and base
   colour (1, 0.6, 0.3) over the two walls: seen straight through, no
   offset (the edge within 0.5 px of where it is beside the pane), each
   channel the wall's times 0.96 (1 - F at normal incidence) times the base
   colour, within 0.02 of the wall's value. */
TEST(thinGlassTintsWhatIsBehind) {
    static glass_scene s;
    static uint8_t px[TW * TH * 4];
    oak_material dark = unlit(0.1f), bright = unlit(0.8f);
    oak_material_desc gd = glass_desc(1, 0.6f, 0.3f);
    oak_material glass = make(&gd);
    glass_setup(&s, dark, bright, 0.1f, g_pane, glass);
    /* the pane (1 m a side, 2 cm thick) at z = 1, its centre 0.3 m up */
    s.world[2][3][1] = 0.3f, s.world[2][3][2] = 1;
    if (!tr_draw(&s, px)) return;
    int yg = row_of(0.4f), yd = row_of(-0.5f);
    int x0 = col_of(-0.3f), x1 = col_of(0.45f);
    double eg = edge_at(px, yg, 0, x0, x1), ed = edge_at(px, yd, 0, x0, x1);
    fprintf(stderr, "  thin pane: the edge at column %.2f through it, %.2f beside it\n", eg, ed);
    CHECK(fabs(eg - ed) < 0.5);
    const float base[3] = {1, 0.6f, 0.3f};
    int xb = col_of(0.35f);
    for (int c = 0; c < 3; c++) {
        double want = 0.8 * 0.96 * base[c], got = lin_at(px, xb, yg, c);
        fprintf(stderr, "  thin pane: channel %d %.4f through it, %.4f wanted\n", c, got, want);
        CHECK(fabs(got - want) < 0.02);
    }
    tr_agree(&s, px, "thin pane");
    oak_destroy_material(glass);
    oak_destroy_material(dark);
    oak_destroy_material(bright);
}

/* A glass sphere (radius 0.5 m at (0, 0.25), transmission 1, roughness 0,
   ior 1.5, a volume 0.5 m thick) over the walls meeting at x = 0.1 m: seen
   through the sphere's middle row the edge lies to the right of where it is
   below the sphere by more than 2 px (Snell's law through the front face
   and 0.5 m of glass: about 4 px), and the bright wall through it is
   0.96 x 0.8 within 0.03. Dispersion 20 spreads the channels: blue (the
   highest ior) bends most, so its edge lies right of red's by more than
   0.3 px; without dispersion red's and blue's edges are one. */
TEST(glassSphereRefractsTheEdge) {
    static glass_scene s;
    static uint8_t px[TW * TH * 4];
    oak_material dark = unlit(0.1f), bright = unlit(0.8f);
    oak_material_desc gd = glass_desc(1, 1, 1);
    gd.lobes.thickness = 0.5f;
    oak_material glass = make(&gd);
    glass_setup(&s, dark, bright, 0.1f, g_ball, glass);
    s.world[2][3][1] = 0.25f;
    if (!tr_draw(&s, px)) return;
    int yg = row_of(0.25f), yd = row_of(-0.5f);
    int x0 = col_of(-0.3f), x1 = col_of(0.4f);
    double eg = edge_at(px, yg, 0, x0, x1), ed = edge_at(px, yd, 0, x0, x1);
    double egb = edge_at(px, yg, 2, x0, x1);
    fprintf(stderr, "  sphere: the edge at column %.2f through it (blue %.2f), %.2f beside it\n",
            eg, egb, ed);
    CHECK(eg - ed > 2.0);
    CHECK(fabs(egb - eg) < 0.01);
    double got = lin_at(px, col_of(0.3f), yg, 1);
    fprintf(stderr, "  sphere: the bright wall through it %.4f, %.4f wanted\n", got, 0.96 * 0.8);
    CHECK(fabs(got - 0.96 * 0.8) < 0.03);
    tr_agree(&s, px, "glass sphere");
    gd.lobes.dispersion = 20;
    CHECK_OK(oak_material_update(glass, &gd));
    if (!tr_draw(&s, px)) return;
    double er = edge_at(px, yg, 0, x0, x1), eb = edge_at(px, yg, 2, x0, x1);
    fprintf(stderr, "  sphere, dispersion 20: red's edge at %.2f, blue's at %.2f\n", er, eb);
    CHECK(eb - er > 0.3);
    tr_agree(&s, px, "dispersive sphere");
    oak_destroy_material(glass);
    oak_destroy_material(dark);
    oak_destroy_material(bright);
}

/* A slab of glass (transmission 1, white, attenuation colour (0.5, 0.8, 1)
   over 1 m) in front of a wall of 0.8, looked at square on: each channel
   is 0.8 x 0.96 x colour^(d / 1 m) for thicknesses 0.5 m and 1 m, within
   0.012 (8-bit steps and the sRGB decode). */
TEST(volumeFollowsBeerLambert) {
    static glass_scene s;
    static uint8_t px[TW * TH * 4];
    oak_material bright = unlit(0.8f);
    oak_material_desc gd = glass_desc(1, 1, 1);
    const float ac[3] = {0.5f, 0.8f, 1};
    memcpy(gd.lobes.attenuation_color, ac, sizeof ac);
    gd.lobes.attenuation_distance = 1;
    oak_material glass = make(&gd);
    glass_setup(&s, bright, bright, 0, g_pane, glass);
    s.world[2][3][2] = 1;
    const float thick[2] = {0.5f, 1};
    for (int i = 0; i < 2; i++) {
        gd.lobes.thickness = thick[i];
        CHECK_OK(oak_material_update(glass, &gd));
        if (!tr_draw(&s, px)) break;
        for (int c = 0; c < 3; c++) {
            double want = 0.8 * 0.96 * pow(ac[c], thick[i]);
            double got = lin_at(px, TW / 2, TH / 2, c);
            fprintf(stderr, "  slab %.1f m: channel %d %.4f, %.4f wanted\n", (double)thick[i], c,
                    got, want);
            CHECK(fabs(got - want) < 0.012);
        }
        tr_agree(&s, px, i ? "slab 1 m" : "slab 0.5 m");
    }
    oak_destroy_material(glass);
    oak_destroy_material(bright);
}

/* The three extensions from glTF, and back from the .oakm cache. */
TEST(gltfTransmissionLoadAndCache) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"materials\":["
        "{\"name\":\"glass\",\"extensions\":{\"KHR_materials_transmission\":"
        "{\"transmissionFactor\":0.9},\"KHR_materials_volume\":{\"thicknessFactor\":0.25,"
        "\"attenuationColor\":[0.5,0.75,1],\"attenuationDistance\":2},"
        "\"KHR_materials_dispersion\":{\"dispersion\":0.5}}},"
        "{\"name\":\"thin\",\"extensions\":{\"KHR_materials_transmission\":{}}}]}";
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, json, sizeof json - 1, "glass.gltf", &d));
    if (!g) return;
    CHECK_EQ_INT((int)g->material_count, 2);
    for (int pass = 0; pass < 2; pass++) {
        const oak_material_desc *m0 = &g->materials[0].desc, *m1 = &g->materials[1].desc;
        const oak_material_lobes *l0 = &m0->lobes, *l1 = &m1->lobes;
        CHECK(l0->transmission == 0.9f && l0->thickness == 0.25f);
        CHECK(l0->attenuation_color[0] == 0.5f && l0->attenuation_color[1] == 0.75f &&
              l0->attenuation_color[2] == 1);
        CHECK(l0->attenuation_distance == 2 && l0->dispersion == 0.5f);
        /* resolved, a transmissive material draws in the forward pass */
        CHECK(oak_material_desc_defaults(m0).alpha_mode == OAK_ALPHA_BLEND);
        CHECK(l1->transmission == 0 && l1->thickness == 0 && l1->dispersion == 0);
        CHECK(oak_material_desc_defaults(m1).alpha_mode == OAK_ALPHA_OPAQUE);
        if (pass) break;
        char path[512];
        oak_test_out(path, sizeof path, "glass.oakm");
        CHECK_OK(oak_gltf_bake(g, path));
        oak_gltf_free(g);
        g = NULL;
        CHECK_OK(oak_gltf_load(&g, path, &d));
        if (!g) return;
        fprintf(stderr, "  transmission, volume and dispersion came back from %s\n", path);
    }
    oak_gltf_free(g);
    int errors = g_oak_test_errors;
    oak_material_desc md = plain(1, 1, 1, 0);
    md.lobes.transmission = 1.5f;
    oak_material m = {0};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "lobes.transmission") != NULL);
    md.lobes = (oak_material_lobes){.transmission = 1, .attenuation_distance = -1};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(m.id == 0);
    g_oak_test_errors = errors; /* the refusals' lines are meant */
}

/* A rough (0.3: the copy's mips are read) dispersive sphere, for the CPU's
   pictures at one and three threads. */
static bool glass_picture_at(uint32_t threads, uint8_t *px) {
    oak_test_init(threads);
    oak_shape_desc bd = {.type = OAK_SHAPE_SPHERE, .radius = 0.5f, .segments = 64, .rings = 32};
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {4, 4, 0.1f}};
    bool ok = oak_make_shape(&g_ball, &bd) == OAK_OK && oak_make_shape(&g_wall, &wd) == OAK_OK;
    static glass_scene s;
    oak_material dark = unlit(0.1f), bright = unlit(0.8f);
    oak_material_desc gd = glass_desc(1, 0.8f, 0.6f);
    gd.roughness = 0.3f, gd.lobes.thickness = 0.5f, gd.lobes.dispersion = 5;
    oak_material glass = make(&gd);
    glass_setup(&s, dark, bright, 0.1f, g_ball, glass);
    s.world[2][3][1] = 0.25f;
    ok = ok && oak_test_cpu_picture(&s.in, 1, TW, TH, px);
    oak_shutdown();
    return ok;
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&g_sphere, &sd));
    oak_shape_desc qd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 0.02f}};
    CHECK_OK(oak_make_shape(&g_pane, &qd));
    oak_shape_desc bd = {.type = OAK_SHAPE_SPHERE, .radius = 0.5f, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&g_ball, &bd));
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {4, 4, 0.1f}};
    CHECK_OK(oak_make_shape(&g_wall, &wd));
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        if (!strcmp(g_backend, "cpu")) RUN(gltfTransmissionLoadAndCache);
        RUN(copyOnlyWhenNeeded);
        RUN(transmissionZeroIsPlain);
        RUN(thinGlassTintsWhatIsBehind);
        RUN(glassSphereRefractsTheEdge);
        RUN(volumeFollowsBeerLambert);
    }
    oak_destroy_renderer(g_main);
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_pane);
    oak_destroy_mesh(g_ball);
    oak_destroy_mesh(g_wall);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    if (!strcmp(g_backend, "cpu")) { /* the copy's mips and the rays at 1 and 3 threads */
        static uint8_t one[TW * TH * 4], three[TW * TH * 4];
        oak_test_same_at_threads("rough dispersive sphere", glass_picture_at, one, three,
                                 sizeof one);
    }
    int rc = TEST_SUMMARY();
    return rc ? rc : oak_test_failures_ ? 1 : 0;
}
