/* The glTF material lobes (docs/SHADING.md "Lobes") on a backend (argv[1]:
 * cpu, vulkan or gl): KHR_materials_ior / _specular, _clearcoat, _sheen,
 * _anisotropy, _iridescence and _diffuse_transmission read from glTF and
 * kept through .oakm; a white furnace per lobe (a white
 * sphere in a flat sky, no key light: what it shows is what it reflects,
 * within a stated bound of the sky and never above it past a stated
 * epsilon); the numbers each lobe must show (ior 1 reflects nothing at
 * normal incidence, 1.5 reflects 4%; a clear coat puts a sharp highlight on
 * a rough base; sheen brightens a dark cloth's rim; anisotropy stretches a
 * highlight along its direction; a film's hue moves with its thickness and
 * the view; a leaf lit from behind shows through); on vulkan and gl each
 * picture at the parity rule against the CPU's; on the CPU, every lane width
 * gives the same bytes. Raw light: exposure 1, no tone curve, dither, FXAA. */
#include "oak_test.h"

#include "backend_start.h"
#include "backend/cpu/cpu_internal.h"

#define W 128
#define H 96

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_sphere, g_plane;

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh;
    oak_material mat;
    mat4 world;
    oak_environment env;
    oak_post post;
    oak_render_light sun;
} scene;

static float to_linear(uint8_t v) {
    float c = v / 255.0f;
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* A sky of one display colour (flat) and nothing else lighting the scene. */
static void flat_sky(oak_environment *e, float grey) {
    *e = oak_environment_defaults();
    for (int k = 0; k < 3; k++) {
        e->sky_zenith_display[k] = e->sky_horizon_display[k] = grey;
        e->ambient_sky[k] = e->ambient_ground[k] = 0;
    }
}

static oak_material make(const oak_material_desc *md) {
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, md));
    return m;
}

/* A white rough dielectric: the base every furnace puts its lobe on. */
static oak_material_desc base_desc(float grey, float rough) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    for (int k = 0; k < 3; k++) md.base_color[k] = grey;
    md.metallic = 0, md.roughness = rough;
    return md;
}

/* The unit sphere at the origin seen from +Z through an orthographic camera
   2.4 m tall: the sphere's disc is 80 px across, centred. */
static void sphere_scene(scene *s, oak_material mat) {
    memset(s, 0, sizeof *s);
    s->post = (oak_post){.exposure = 1,
                         .ao = OAK_AO_OFF,
                         .no_tonemap = true,
                         .no_dither = true,
                         .no_fxaa = true,
                         .bloom = OAK_BLOOM_OFF};
    s->in.camera = (oak_camera){.ortho_height = 2.4f, .znear = 0.1f, .zfar = 100};
    glm_mat4_identity(s->in.camera_world);
    s->in.camera_world[3][2] = 5;
    s->mesh = g_sphere, s->mat = mat;
    glm_mat4_identity(s->world);
    s->in.draw_count = 1;
    s->in.meshes = &s->mesh;
    s->in.materials = &s->mat;
    s->in.transforms = (const mat4 *)&s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

/* The 40 m plane under a camera 2 m up looking straight down (90 degrees). */
static void plane_scene(scene *s, oak_material mat) {
    sphere_scene(s, mat);
    s->mesh = g_plane;
    s->in.camera = (oak_camera){.fov_y = 1.5707963f};
    vec3 eye = {0, 2, 0}, target = {0, 0, 0}, up = {0, 0, -1};
    mat4 view;
    glm_lookat(eye, target, up, view);
    glm_mat4_inv(view, s->in.camera_world);
}

/* A sun of `lux` from behind the camera's left shoulder, high. */
static void add_sun(scene *s, float lux) {
    s->sun.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->sun.light.intensity = lux;
    float d[3] = {0.35f, -0.45f, -1.0f};
    glm_vec3_normalize(d);
    memcpy(s->sun.direction, d, sizeof d);
    s->in.lights = &s->sun;
    s->in.light_count = 1;
}

static bool draw(const scene *s, uint8_t *px) {
    oak_result r = oak_renderer_draw(g_main, &s->in);
    CHECK_OK(r);
    if (r) return false;
    r = oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4);
    CHECK_OK(r);
    return r == OAK_OK;
}

/* On a GPU backend: the CPU's picture of the same scene at the parity rule.
   On the CPU: the scalar, SSE4.1 and AVX2 kernels (those the CPU has) give
   the same bytes as the picture drawn. */
static void agree(const scene *s, const uint8_t *px, const char *what) {
    static uint8_t ref[W * H * 4];
    if (strcmp(g_backend, "cpu")) {
        if (!oak_test_cpu_picture(&s->in, 1, W, H, ref)) return;
        char label[96];
        snprintf(label, sizeof label, "%s cpu vs %s", what, g_backend);
        oak_test_parity(label, ref, px, W, H);
        return;
    }
    static const char *const isa[3] = {"scalar", "sse4", "avx2"};
    const char *was = _oak_cpu_isa_name();
    for (int k = 0; k < 3; k++) {
        if (!_oak_cpu_isa_set(isa[k])) continue; /* not on this CPU */
        if (!draw(s, ref)) break;
        size_t diff = 0;
        for (size_t i = 0; i < sizeof ref; i++) diff += ref[i] != px[i];
        fprintf(stderr, "  %s: %s kernel, %zu bytes differ\n", what, isa[k], diff);
        CHECK_EQ_INT((int)diff, 0);
    }
    _oak_cpu_isa_set(was);
}

/* disc radius (0 centre, 1 limb) of pixel (x, y) in the sphere scene */
static double disc_r(int x, int y) {
    double px = (x + 0.5 - W / 2.0) / (H / 2.4), py = (y + 0.5 - H / 2.0) / (H / 2.4);
    return sqrt(px * px + py * py);
}

static double lumlin(const uint8_t *p) {
    return 0.2126 * to_linear(p[0]) + 0.7152 * to_linear(p[1]) + 0.0722 * to_linear(p[2]);
}

/* Mean and largest linear luminance over the disc's ring lo <= r < hi. */
static void ring(const uint8_t *px, double lo, double hi, double *mean, double *most) {
    double sum = 0, n = 0, m = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double r = disc_r(x, y);
            if (r < lo || r >= hi) continue;
            double l = lumlin(px + ((size_t)y * W + x) * 4);
            sum += l, n++, m = l > m ? l : m;
        }
    *mean = n ? sum / n : 0;
    *most = m;
}

/* White furnaces: each lobe on a white rough base in a flat sky of display
   grey 0.5, no key light. The sphere reflects at most what falls on it: over
   the disc (r < 0.9; the limb's pixels are part sky) its mean is within 8%
   below the sky and no pixel is above it by more than 2% (the split sum's
   and the 8-bit steps' error; the plain material shows the same). */
TEST(whiteFurnacePerLobe) {
    static scene s;
    static uint8_t px[W * H * 4];
    struct {
        const char *name;
        oak_material_desc md;
    } c[8];
    for (int i = 0; i < 8; i++) c[i].md = base_desc(1, 0.5f);
    c[0].name = "plain";
    c[1].name = "ior 2 + specular colour";
    c[1].md.lobes = (oak_material_lobes){
        .ior = 2, .specular = true, .specular_factor = 1, .specular_color = {1, 0.5f, 0.25f}};
    c[2].name = "clearcoat 1, rough 0.05";
    c[2].md.lobes = (oak_material_lobes){.clearcoat = 1, .clearcoat_roughness = 0.05f};
    c[3].name = "sheen white, rough 0.5";
    c[3].md.lobes = (oak_material_lobes){.sheen_color = {1, 1, 1}, .sheen_roughness = 0.5f};
    c[4].name = "all three";
    c[4].md.lobes = (oak_material_lobes){.ior = 1.8f,
                                         .clearcoat = 0.7f,
                                         .clearcoat_roughness = 0.2f,
                                         .sheen_color = {0.8f, 0.9f, 1},
                                         .sheen_roughness = 0.3f};
    c[5].name = "anisotropy 1, turned 0.5";
    c[5].md.lobes = (oak_material_lobes){.anisotropy = 1, .anisotropy_rotation = 0.5f};
    c[6].name = "iridescence 1, 400 nm";
    c[6].md.lobes = (oak_material_lobes){.iridescence = 1, .iridescence_ior = 1.3f};
    c[7].name = "diffuse transmission 1";
    c[7].md.lobes =
        (oak_material_lobes){.diffuse_transmission = 1, .diffuse_transmission_color = {1, 1, 1}};
    for (int i = 0; i < 8; i++) {
        oak_material m = make(&c[i].md);
        sphere_scene(&s, m);
        flat_sky(&s.env, 0.5f);
        if (!draw(&s, px)) return;
        double sky = lumlin(px), mean, most; /* the corner is sky */
        ring(px, 0, 0.9, &mean, &most);
        fprintf(stderr, "  furnace %-24s sky %.4f: disc mean %.4f (%.3f), max %.4f (%.3f)\n",
                c[i].name, sky, mean, mean / sky, most, most / sky);
        CHECK(mean / sky >= 0.92);
        CHECK(most / sky <= 1.02);
        agree(&s, px, c[i].name);
        oak_destroy_material(m);
    }
}

/* ior and specular on a black glossy dielectric plane under a flat white
   sky, seen straight down: the centre reflects F0 of the sky. ior 1: under
   0.5%; ior 1.5 (the default): 4% +- 0.6%; ior 2: 11.1% +- 1%; specular
   factor 0.5 halves the 4%; specular colour (1, 0.5, 0.25) tints it per
   channel (red 4%, green 2%, blue 1%, each +- 0.5%). */
TEST(iorAndSpecularSetTheDielectricF0) {
    static scene s;
    static uint8_t px[W * H * 4];
    const struct {
        const char *name;
        oak_material_lobes l;
        float want[3], tol;
    } c[] = {
        {"ior 1.0", {.ior = 1}, {0, 0, 0}, 0.005f},
        {"ior 1.5", {.ior = 1.5f}, {0.04f, 0.04f, 0.04f}, 0.006f},
        {"ior 2.0", {.ior = 2}, {0.1111f, 0.1111f, 0.1111f}, 0.01f},
        {"specular 0.5",
         {.specular = true, .specular_factor = 0.5f, .specular_color = {1, 1, 1}},
         {0.02f, 0.02f, 0.02f},
         0.005f},
        {"specular colour",
         {.specular = true, .specular_factor = 1, .specular_color = {1, 0.5f, 0.25f}},
         {0.04f, 0.02f, 0.01f},
         0.005f},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        oak_material_desc md = base_desc(0, 0.1f);
        md.lobes = c[i].l;
        oak_material m = make(&md);
        plane_scene(&s, m);
        flat_sky(&s.env, 1);
        if (!draw(&s, px)) return;
        float got[3];
        for (int k = 0; k < 3; k++) {
            float sum = 0;
            for (int y = H / 2 - 4; y < H / 2 + 4; y++)
                for (int x = W / 2 - 4; x < W / 2 + 4; x++)
                    sum += to_linear(px[((size_t)y * W + x) * 4 + k]);
            got[k] = sum / 64;
        }
        fprintf(stderr, "  %-16s centre reflects %.4f %.4f %.4f (want %.4f %.4f %.4f +- %.3f)\n",
                c[i].name, got[0], got[1], got[2], c[i].want[0], c[i].want[1], c[i].want[2],
                c[i].tol);
        for (int k = 0; k < 3; k++) CHECK(fabsf(got[k] - c[i].want[k]) <= c[i].tol);
        agree(&s, px, c[i].name);
        oak_destroy_material(m);
    }
}

/* A clear coat on a rough dark-red base under a sun (dark sky): the coat's
   sharp highlight makes the brightest pixel at least 4 times the uncoated
   sphere's, while the disc's mean rises by less than half (the highlight is
   small, and the coat takes its Fresnel from what lies under it). */
TEST(clearcoatAddsASharpHighlight) {
    static scene s;
    static uint8_t plain[W * H * 4], coated[W * H * 4];
    oak_material_desc md = base_desc(0.1f, 0.8f);
    md.base_color[0] = 0.5f;
    oak_material a = make(&md);
    md.lobes.clearcoat = 1, md.lobes.clearcoat_roughness = 0.08f;
    oak_material b = make(&md);
    sphere_scene(&s, a);
    flat_sky(&s.env, 0.02f);
    add_sun(&s, 0.5f);
    if (!draw(&s, plain)) return;
    s.mat = b;
    if (!draw(&s, coated)) return;
    double m0, p0, m1, p1;
    ring(plain, 0, 0.95, &m0, &p0);
    ring(coated, 0, 0.95, &m1, &p1);
    fprintf(stderr, "  peak %.4f plain, %.4f coated (x%.2f); mean %.4f, %.4f\n", p0, p1, p1 / p0,
            m0, m1);
    CHECK(p1 >= 4 * p0);
    CHECK(m1 < 1.5 * m0);
    agree(&s, coated, "clearcoat");
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* Sheen on a dark cloth (base 0.03, rough 1) in a flat sky: the rim (r in
   [0.85, 0.95)) against the centre (r < 0.3). Without sheen the ratio is
   about 1; with a white sheen of roughness 0.3 it is at least 2, and at
   least 1.8 times the plain ratio. With a sun too, the sheen still agrees
   across backends and lane widths. */
TEST(sheenBrightensTheRim) {
    static scene s;
    static uint8_t px[W * H * 4];
    oak_material_desc md = base_desc(0.03f, 1);
    oak_material a = make(&md);
    md.lobes.sheen_color[0] = md.lobes.sheen_color[1] = md.lobes.sheen_color[2] = 1;
    md.lobes.sheen_roughness = 0.3f;
    oak_material b = make(&md);
    double ratio[2];
    for (int i = 0; i < 2; i++) {
        sphere_scene(&s, i ? b : a);
        flat_sky(&s.env, 0.5f);
        if (!draw(&s, px)) return;
        double c, r, most;
        ring(px, 0, 0.3, &c, &most);
        ring(px, 0.85, 0.95, &r, &most);
        ratio[i] = r / c;
        fprintf(stderr, "  %s: centre %.4f, rim %.4f, rim / centre %.3f\n", i ? "sheen" : "plain",
                c, r, ratio[i]);
    }
    CHECK(ratio[1] >= 2);
    CHECK(ratio[1] >= 1.8 * ratio[0]);
    agree(&s, px, "sheen, sky");
    add_sun(&s, 3);
    if (!draw(&s, px)) return;
    agree(&s, px, "sheen, sky and sun");
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* The highlight's shape: the spread of its pixels (those at least half the
   brightest, weighted by how far over) along x and y on screen, the square
   root of the ratio of their variances (x over y). */
static double highlight_aspect(const uint8_t *px, double *count) {
    double peak = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        double l = lumlin(px + i * 4);
        peak = l > peak ? l : peak;
    }
    double n = 0, sx = 0, sy = 0, sxx = 0, syy = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            double l = lumlin(px + ((size_t)y * W + x) * 4);
            if (l < 0.5 * peak || disc_r(x, y) > 0.95) continue;
            n++, sx += x, sy += y, sxx += (double)x * x, syy += (double)y * y;
        }
    *count = n;
    if (n < 2) return 0;
    double vx = sxx / n - (sx / n) * (sx / n), vy = syy / n - (sy / n) * (sy / n);
    return sqrt((vx + 1.0 / 12) / (vy + 1.0 / 12)); /* + a pixel's own spread */
}

/* Brushed metal (KHR_materials_anisotropy): a grey metal sphere, roughness
   0.3, lit by a sun straight from the camera in a dark sky, so the
   highlight sits at the disc's centre where the sphere's tangent runs
   across the screen (x) and its bitangent up it (y). Isotropic, the
   highlight is round: x / y aspect within 10% of 1. Strength 0.8 along the
   tangent (rotation 0) stretches it across: aspect at least 2.5; turned a
   quarter (rotation pi/2) it lies along the bitangent: aspect at most 1 /
   2.5. The brightest pixel (under 8-bit white) drops to under half the
   isotropic one's: the same light spread wider. */
TEST(anisotropyStretchesTheHighlight) {
    static scene s;
    static uint8_t px[W * H * 4];
    const struct {
        const char *name;
        float strength, rotation;
    } c[] = {{"isotropic", 0, 0},
             {"along the tangent", 0.8f, 0},
             {"along the bitangent", 0.8f, 1.5707963f}};
    double aspect[3], peak[3];
    for (int i = 0; i < 3; i++) {
        oak_material_desc md = base_desc(0.8f, 0.3f);
        md.metallic = 1;
        md.lobes.anisotropy = c[i].strength, md.lobes.anisotropy_rotation = c[i].rotation;
        oak_material m = make(&md);
        sphere_scene(&s, m);
        flat_sky(&s.env, 0.01f);
        add_sun(&s, 0.05f);
        s.sun.direction[0] = 0, s.sun.direction[1] = 0, s.sun.direction[2] = -1;
        if (!draw(&s, px)) return;
        double n, mean, most;
        aspect[i] = highlight_aspect(px, &n);
        ring(px, 0, 0.95, &mean, &most);
        peak[i] = most;
        fprintf(stderr, "  %-20s highlight %4.0f px, aspect x/y %.3f, peak %.4f\n", c[i].name, n,
                aspect[i], most);
        agree(&s, px, c[i].name);
        oak_destroy_material(m);
    }
    CHECK(fabs(aspect[0] - 1) <= 0.1);
    CHECK(aspect[1] >= 2.5);
    CHECK(aspect[2] <= 1 / 2.5);
    CHECK(peak[0] < 1 && peak[1] < 0.5 * peak[0] && peak[2] < 0.5 * peak[0]);
}

/* Hue in degrees (HSV's) of a linear colour. */
static double hue(const double c[3]) {
    double mx = fmax(c[0], fmax(c[1], c[2])), mn = fmin(c[0], fmin(c[1], c[2])), d = mx - mn;
    if (d <= 0) return 0;
    double h = mx == c[0]   ? fmod((c[1] - c[2]) / d, 6)
               : mx == c[1] ? (c[2] - c[0]) / d + 2
                            : (c[0] - c[1]) / d + 4;
    h *= 60;
    return h < 0 ? h + 360 : h;
}

/* the smaller angle between two hues */
static double hue_gap(double a, double b) {
    double d = fabs(a - b);
    return d > 180 ? 360 - d : d;
}

/* mean linear colour of the 8 x 8 pixels from (x0, y0) */
static void patch(const uint8_t *px, int x0, int y0, double out[3]) {
    for (int k = 0; k < 3; k++) {
        double sum = 0;
        for (int y = y0; y < y0 + 8; y++)
            for (int x = x0; x < x0 + 8; x++) sum += to_linear(px[((size_t)y * W + x) * 4 + k]);
        out[k] = sum / 64;
    }
}

/* KHR_materials_iridescence on a black glossy dielectric plane under a flat
   white sky, seen straight down (the 90-degree camera of the F0 test): the
   film colours the reflection. At normal incidence (the centre) 250, 400 and
   550 nm films give hues at least 40 degrees apart from one another; at 400
   nm the patch at the image's left edge (about 52 degrees off the normal)
   differs from the centre's hue by at least 40 degrees. Factor 0 with the
   film's other values set is the plain material to the byte. */
TEST(iridescenceHueFollowsThicknessAndAngle) {
    static scene s;
    static uint8_t px[W * H * 4], plain[W * H * 4];
    const float d[3] = {250, 400, 550};
    double h[3], edge = 0;
    for (int i = 0; i < 3; i++) {
        oak_material_desc md = base_desc(0, 0.1f);
        md.lobes.iridescence = 1, md.lobes.iridescence_ior = 1.3f;
        md.lobes.iridescence_thickness = d[i];
        oak_material m = make(&md);
        plane_scene(&s, m);
        flat_sky(&s.env, 1);
        if (!draw(&s, px)) return;
        double c[3], e[3];
        patch(px, W / 2 - 4, H / 2 - 4, c);
        patch(px, 2, H / 2 - 4, e);
        h[i] = hue(c);
        fprintf(stderr,
                "  %3.0f nm: centre %.4f %.4f %.4f hue %5.1f; edge %.4f %.4f %.4f hue %5.1f\n",
                d[i], c[0], c[1], c[2], h[i], e[0], e[1], e[2], hue(e));
        if (i == 1) {
            edge = hue(e);
            char label[64];
            snprintf(label, sizeof label, "iridescence %.0f nm", d[i]);
            agree(&s, px, label);
        }
        oak_destroy_material(m);
    }
    fprintf(stderr,
            "  hue gaps: 250-400 %.1f, 400-550 %.1f, 250-550 %.1f; 400 nm centre-edge %.1f\n",
            hue_gap(h[0], h[1]), hue_gap(h[1], h[2]), hue_gap(h[0], h[2]), hue_gap(h[1], edge));
    CHECK(hue_gap(h[0], h[1]) >= 40 && hue_gap(h[1], h[2]) >= 40 && hue_gap(h[0], h[2]) >= 40);
    CHECK(hue_gap(h[1], edge) >= 40);
    oak_material_desc md = base_desc(0, 0.1f);
    oak_material a = make(&md);
    md.lobes.iridescence_ior = 1.8f, md.lobes.iridescence_thickness = 300;
    oak_material b = make(&md);
    plane_scene(&s, a);
    flat_sky(&s.env, 1);
    if (!draw(&s, plain)) return;
    s.mat = b;
    if (!draw(&s, px)) return;
    size_t diff = 0;
    for (size_t i = 0; i < sizeof px; i++) diff += px[i] != plain[i];
    fprintf(stderr, "  factor 0: %zu bytes differ from the plain material\n", diff);
    CHECK_EQ_INT((int)diff, 0);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* KHR_materials_diffuse_transmission: a green leaf (the plane, rough
   dielectric) seen from above, the sun below it in a dark sky. Without
   the lobe the leaf shows only the dim sky on its face; with half its
   diffuse light passing through (white) the centre is at least 5 times as
   bright, and green (the base colour goes with the light). With the sun
   above instead, the lobe takes half of the lit face's diffuse light: the
   centre is 0.5 +- 0.05 of the plain leaf's (less the sky's small part). */
TEST(diffuseTransmissionLightsALeafFromBehind) {
    static scene s;
    static uint8_t px[W * H * 4];
    oak_material_desc md = base_desc(0.3f, 0.9f);
    md.base_color[0] = 0.1f, md.base_color[2] = 0.05f;
    oak_material a = make(&md);
    md.lobes.diffuse_transmission = 0.5f;
    md.lobes.diffuse_transmission_color[0] = md.lobes.diffuse_transmission_color[1] =
        md.lobes.diffuse_transmission_color[2] = 1;
    oak_material b = make(&md);
    double c[2][2][3];
    for (int above = 0; above < 2; above++)
        for (int i = 0; i < 2; i++) {
            plane_scene(&s, i ? b : a);
            flat_sky(&s.env, 0.02f);
            add_sun(&s, 2);
            float dir[3] = {0.3f, above ? -1.0f : 1.0f, 0.2f};
            glm_vec3_normalize(dir);
            memcpy(s.sun.direction, dir, sizeof dir);
            if (!draw(&s, px)) return;
            patch(px, W / 2 - 4, H / 2 - 4, c[above][i]);
            fprintf(stderr, "  sun %s, %s: centre %.4f %.4f %.4f\n", above ? "above" : "below",
                    i ? "diffuse transmission 0.5" : "plain", c[above][i][0], c[above][i][1],
                    c[above][i][2]);
            if (i) agree(&s, px, above ? "leaf, sun above" : "leaf, sun below");
        }
    double behind = c[0][1][1] / c[0][0][1], front = c[1][1][1] / c[1][0][1];
    fprintf(stderr, "  green: from behind x%.2f, from the front x%.3f\n", behind, front);
    CHECK(behind >= 5);
    CHECK(c[0][1][1] > 2 * c[0][1][0] && c[0][1][1] > 2 * c[0][1][2]);
    CHECK(fabs(front - 0.5) <= 0.05);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* glTF with the seven extensions, built here as JSON: each factor lands in
   the material's lobes (glTF's defaults where a member is absent), a lobe
   texture is one warning (its factor alone), values out of range are
   clamped with a warning, and the lobes come back from an .oakm cache. A
   factor of the wrong type is the one-line error; so is a bad desc. */
TEST(gltfLobesLoadAndCache) {
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"materials\":["
        "{\"name\":\"air\",\"extensions\":{\"KHR_materials_ior\":{\"ior\":1.0}}},"
        "{\"name\":\"tinted\",\"extensions\":{\"KHR_materials_specular\":"
        "{\"specularFactor\":0.5,\"specularColorFactor\":[1,0.5,0.25]},"
        "\"KHR_materials_ior\":{}}},"
        "{\"name\":\"paint\",\"extensions\":{\"KHR_materials_clearcoat\":"
        "{\"clearcoatFactor\":0.9,\"clearcoatRoughnessFactor\":0.1,"
        "\"clearcoatTexture\":{\"index\":0}}}},"
        "{\"name\":\"velvet\",\"extensions\":{\"KHR_materials_sheen\":"
        "{\"sheenColorFactor\":[0.8,0.2,1.5],\"sheenRoughnessFactor\":0.4}}},"
        "{\"name\":\"brushed\",\"extensions\":{\"KHR_materials_anisotropy\":"
        "{\"anisotropyStrength\":0.6,\"anisotropyRotation\":1.25,"
        "\"anisotropyTexture\":{\"index\":0}}}},"
        "{\"name\":\"soap\",\"extensions\":{\"KHR_materials_iridescence\":"
        "{\"iridescenceFactor\":1,\"iridescenceIor\":1.4,\"iridescenceThicknessMaximum\":520,"
        "\"iridescenceThicknessTexture\":{\"index\":0}}}},"
        "{\"name\":\"leaf\",\"extensions\":{\"KHR_materials_diffuse_transmission\":"
        "{\"diffuseTransmissionFactor\":0.4,\"diffuseTransmissionColorFactor\":[0.5,1,0.2]}}}],"
        "\"textures\":[{}]}";
    int errors = g_oak_test_errors;
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, json, sizeof json - 1, "lobes.gltf", &d));
    if (!g) return;
    CHECK_EQ_INT((int)g->material_count, 7);
    fprintf(stderr, "  %u warnings\n", g->warning_count);
    /* the coat's texture, the sheen's 1.5, the anisotropy's and the film's textures */
    CHECK_EQ_INT((int)g->warning_count, 4);
    for (int pass = 0; pass < 2; pass++) {
        const oak_material_lobes *l0 = &g->materials[0].desc.lobes,
                                 *l1 = &g->materials[1].desc.lobes,
                                 *l2 = &g->materials[2].desc.lobes,
                                 *l3 = &g->materials[3].desc.lobes;
        CHECK(l0->ior == 1.0f && !l0->specular);
        CHECK(l1->ior == 1.5f && l1->specular && l1->specular_factor == 0.5f);
        CHECK(l1->specular_color[0] == 1 && l1->specular_color[1] == 0.5f &&
              l1->specular_color[2] == 0.25f);
        CHECK(l2->clearcoat == 0.9f && l2->clearcoat_roughness == 0.1f);
        CHECK(l3->sheen_color[0] == 0.8f && l3->sheen_color[1] == 0.2f &&
              l3->sheen_color[2] == 1.0f && l3->sheen_roughness == 0.4f);
        CHECK(l3->clearcoat == 0 && l3->ior == 0 && l3->anisotropy == 0);
        const oak_material_lobes *l4 = &g->materials[4].desc.lobes;
        CHECK(l4->anisotropy == 0.6f && l4->anisotropy_rotation == 1.25f);
        const oak_material_lobes *l5 = &g->materials[5].desc.lobes,
                                 *l6 = &g->materials[6].desc.lobes;
        CHECK(l5->iridescence == 1 && l5->iridescence_ior == 1.4f &&
              l5->iridescence_thickness == 520);
        CHECK(l6->diffuse_transmission == 0.4f && l6->diffuse_transmission_color[0] == 0.5f &&
              l6->diffuse_transmission_color[1] == 1 && l6->diffuse_transmission_color[2] == 0.2f);
        CHECK(l4->iridescence == 0 && l4->diffuse_transmission == 0);
        float f0[3];
        float f90 = oak_material_dielectric_f0(&g->materials[1].desc, f0);
        CHECK(fabsf(f0[0] - 0.02f) < 1e-6f && fabsf(f0[2] - 0.005f) < 1e-6f && f90 == 0.5f);
        CHECK(oak_material_dielectric_f0(&g->materials[0].desc, f0) == 1 && f0[1] == 0);
        if (pass) break;
        char path[512];
        oak_test_out(path, sizeof path, "lobes.oakm");
        CHECK_OK(oak_gltf_bake(g, path));
        oak_gltf_free(g);
        g = NULL;
        CHECK_OK(oak_gltf_load(&g, path, &d));
        if (!g) return;
        fprintf(stderr, "  the lobes came back from %s\n", path);
    }
    oak_gltf_free(g);
    static const char bad[] = "{\"asset\":{\"version\":\"2.0\"},\"materials\":[{\"extensions\":"
                              "{\"KHR_materials_sheen\":{\"sheenRoughnessFactor\":\"x\"}}}]}";
    g = NULL;
    CHECK(oak_gltf_load_memory(&g, bad, sizeof bad - 1, "bad.gltf", &d) == OAK_ERROR_PARSE);
    fprintf(stderr, "  %s\n", oak_last_error());
    CHECK(strstr(oak_last_error(), "KHR_materials_sheen") != NULL);
    CHECK(g == NULL);
    oak_material_desc md = base_desc(1, 1);
    md.lobes.clearcoat = 2;
    oak_material m = {0};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "lobes.clearcoat") != NULL);
    md.lobes = (oak_material_lobes){.ior = 0.5f};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    md.lobes = (oak_material_lobes){.anisotropy = 1.5f};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "lobes.anisotropy") != NULL);
    CHECK(m.id == 0);
    g_oak_test_errors = errors; /* the refusals' lines are meant */
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 96, .rings = 48};
    CHECK_OK(oak_make_shape(&g_sphere, &sd));
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_plane, &pd));
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        if (!strcmp(g_backend, "cpu")) RUN(gltfLobesLoadAndCache);
        RUN(whiteFurnacePerLobe);
        RUN(iorAndSpecularSetTheDielectricF0);
        RUN(clearcoatAddsASharpHighlight);
        RUN(sheenBrightensTheRim);
        RUN(anisotropyStretchesTheHighlight);
        RUN(iridescenceHueFollowsThicknessAndAngle);
        RUN(diffuseTransmissionLightsALeafFromBehind);
    }
    oak_destroy_renderer(g_main);
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_plane);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    int rc = TEST_SUMMARY();
    return rc ? rc : oak_test_failures_ ? 1 : 0;
}
