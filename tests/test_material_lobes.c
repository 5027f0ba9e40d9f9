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
 * the view; a leaf lit from behind shows through); the lobes' textures
 * (specular, clear coat, sheen, anisotropy, iridescence, diffuse
 * transmission, transmission, thickness) scale their factors on the halves or all of a
 * surface as the plain and untextured materials show, glTF's lobe
 * textures become sRGB and data textures, equal refs share a slot and a
 * material holds at most OAK_LOBE_TEX_DISTINCT; on vulkan and gl each
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

/* ---- the lobes' textures ----------------------------------------------- */

/* A 1 x 2 texture, row 0 (v < 0.5: the sphere's upper half, as seen) `top`
   and row 1 `bottom`, read nearest and clamped so the halves stay whole. */
static oak_texture halves(const uint8_t top[4], const uint8_t bottom[4], bool srgb) {
    uint8_t px[8];
    memcpy(px, top, 4);
    memcpy(px + 4, bottom, 4);
    oak_texture_desc td = {.width = 1,
                           .height = 2,
                           .format = srgb ? OAK_FORMAT_RGBA8_SRGB : OAK_FORMAT_RGBA8,
                           .pixels = px,
                           .no_mips = true};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    return t;
}

static oak_texture_ref half_ref(oak_texture t) {
    return (oak_texture_ref){.texture = t,
                             .sampler = {.wrap_u = OAK_WRAP_CLAMP,
                                         .wrap_v = OAK_WRAP_CLAMP,
                                         .mag = OAK_FILTER_NEAREST,
                                         .min = OAK_FILTER_NEAREST,
                                         .mip = OAK_FILTER_NEAREST}};
}

/* Mean linear rgb over the disc's ring lo <= r < hi, upper half (half 0:
   rows above the equator) or lower (1), 3 rows either side of it left out. */
static void half_mean(const uint8_t *px, int half, double lo, double hi, double out[3]) {
    double sum[3] = {0, 0, 0}, n = 0;
    for (int y = 0; y < H; y++) {
        if (half ? y < H / 2 + 3 : y >= H / 2 - 3) continue;
        for (int x = 0; x < W; x++) {
            double r = disc_r(x, y);
            if (r < lo || r >= hi) continue;
            const uint8_t *p = px + ((size_t)y * W + x) * 4;
            for (int k = 0; k < 3; k++) sum[k] += to_linear(p[k]);
            n++;
        }
    }
    for (int k = 0; k < 3; k++) out[k] = n ? sum[k] / n : 0;
}

static double lum3(const double c[3]) {
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

static const uint8_t k_white[4] = {255, 255, 255, 255}, k_black[4] = {0, 0, 0, 0};

/* clearcoatTexture (R) on a dark rough base: black on the upper half, white
   on the lower. Under the sun (dark sky) the coat's sharp highlight, on the
   upper half, is gone: the peak is within 10% of the uncoated sphere's while
   the untextured coat's is at least 4 times it. In a flat sky (no sun) the
   lower half equals the untextured coat and the upper half the plain
   material, each within 10% of the coat-to-plain gap (itself at least 0.01).
   clearcoatRoughnessTexture (G) of 20/255 above on a roughness factor of 1:
   the sharp highlight is back (its peak within 25% of the coat of roughness
   0.08's), where the untextured rough coat's peak is under half of that. */
TEST(clearcoatTexturesMaskAndRoughenTheCoat) {
    static scene s;
    static uint8_t p[W * H * 4], c[W * H * 4], t[W * H * 4];
    oak_texture tex = halves(k_black, k_white, false);
    const uint8_t g20[4] = {0, 20, 0, 255};
    oak_texture rtex = halves(g20, k_white, false);
    oak_material_desc md = base_desc(0.1f, 0.8f);
    md.base_color[0] = 0.5f;
    oak_material plain = make(&md);
    md.lobes.clearcoat = 1, md.lobes.clearcoat_roughness = 0.08f;
    oak_material coat = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT] = half_ref(tex);
    oak_material masked = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT] = (oak_texture_ref){0};
    md.lobes.clearcoat_roughness = 1;
    oak_material rough = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS] = half_ref(rtex);
    oak_material rough_tex = make(&md);
    sphere_scene(&s, plain);
    flat_sky(&s.env, 0.02f);
    add_sun(&s, 0.5f);
    if (!draw(&s, p)) return;
    s.mat = coat;
    if (!draw(&s, c)) return;
    s.mat = masked;
    if (!draw(&s, t)) return;
    double m, pp, pc, pt, pr, prt;
    ring(p, 0, 0.95, &m, &pp);
    ring(c, 0, 0.95, &m, &pc);
    ring(t, 0, 0.95, &m, &pt);
    fprintf(stderr, "  sun: peak plain %.4f, coat %.4f, coat masked above %.4f\n", pp, pc, pt);
    CHECK(pc >= 4 * pp);
    CHECK(fabs(pt - pp) <= 0.1 * pp);
    agree(&s, t, "clearcoat texture, sun");
    s.mat = rough;
    if (!draw(&s, t)) return;
    ring(t, 0, 0.95, &m, &pr);
    s.mat = rough_tex;
    if (!draw(&s, t)) return;
    ring(t, 0, 0.95, &m, &prt);
    fprintf(stderr, "  sun: peak rough coat %.4f, its roughness texture 20/255 above %.4f\n", pr,
            prt);
    CHECK(fabs(prt - pc) <= 0.25 * pc);
    CHECK(pr < 0.5 * pc);
    agree(&s, t, "clearcoat roughness texture, sun");
    s.in.light_count = 0;
    flat_sky(&s.env, 0.5f);
    uint8_t *pic[3] = {p, c, t};
    oak_material mats[3] = {plain, coat, masked};
    double h[3][2][3];
    for (int i = 0; i < 3; i++) {
        s.mat = mats[i];
        if (!draw(&s, pic[i])) return;
        for (int k = 0; k < 2; k++) half_mean(pic[i], k, 0, 0.9, h[i][k]);
    }
    double gap[2], up = lum3(h[2][0]) - lum3(h[0][0]), low = lum3(h[2][1]) - lum3(h[1][1]);
    for (int k = 0; k < 2; k++) gap[k] = lum3(h[1][k]) - lum3(h[0][k]);
    fprintf(stderr,
            "  flat sky: coat - plain %.4f above, %.4f below; masked - plain above %.4f, "
            "masked - coat below %.4f\n",
            gap[0], gap[1], up, low);
    CHECK(gap[0] >= 0.01 && gap[1] >= 0.01);
    CHECK(fabs(up) <= 0.1 * gap[0]);
    CHECK(fabs(low) <= 0.1 * gap[1]);
    agree(&s, t, "clearcoat texture, flat sky");
    oak_destroy_material(plain);
    oak_destroy_material(coat);
    oak_destroy_material(masked);
    oak_destroy_material(rough);
    oak_destroy_material(rough_tex);
    oak_destroy_texture(tex);
    oak_destroy_texture(rtex);
}

/* sheenColorTexture (sRGB) on the dark cloth of sheenBrightensTheRim, white
   sheen factor: red above, sRGB grey 188 (linear 0.5) below. The upper rim
   is red (its red over the plain rim at least 3 times its green's); the
   lower rim's sheen (rim less the plain rim) is 0.5 +- 0.1 of the white
   sheen's: the texture is read as colour, decoded. sheenRoughnessTexture
   (A) 0 above on a factor of 1 matches the sheen of roughness 0 there. */
TEST(sheenTexturesTintTheRim) {
    static scene s;
    static uint8_t px[W * H * 4];
    const uint8_t red[4] = {255, 0, 0, 255}, grey[4] = {188, 188, 188, 255};
    const uint8_t a0[4] = {255, 255, 255, 0};
    oak_texture ctex = halves(red, grey, true), rtex = halves(a0, k_white, false);
    oak_material_desc md = base_desc(0.03f, 1);
    oak_material m[5];
    m[0] = make(&md);
    md.lobes.sheen_color[0] = md.lobes.sheen_color[1] = md.lobes.sheen_color[2] = 1;
    md.lobes.sheen_roughness = 0.3f;
    m[1] = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_SHEEN_COLOR] = half_ref(ctex);
    m[2] = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_SHEEN_COLOR] = (oak_texture_ref){0};
    md.lobes.sheen_roughness = 0;
    m[3] = make(&md);
    md.lobes.sheen_roughness = 1;
    md.lobes.tex[OAK_LOBE_TEX_SHEEN_ROUGHNESS] = half_ref(rtex);
    m[4] = make(&md);
    double rim[5][2][3];
    for (int i = 0; i < 5; i++) {
        sphere_scene(&s, m[i]);
        flat_sky(&s.env, 0.5f);
        if (!draw(&s, px)) return;
        for (int k = 0; k < 2; k++) half_mean(px, k, 0.85, 0.95, rim[i][k]);
        if (i == 2) agree(&s, px, "sheen colour texture");
        if (i == 4) agree(&s, px, "sheen roughness texture");
    }
    double rr = rim[2][0][0] - rim[0][0][0], rg = rim[2][0][1] - rim[0][0][1];
    double lw = lum3(rim[1][1]) - lum3(rim[0][1]), lt = lum3(rim[2][1]) - lum3(rim[0][1]);
    fprintf(stderr, "  upper rim's sheen red %.4f green %.4f; lower rim's %.4f of white's %.4f\n",
            rr, rg, lt, lw);
    CHECK(rr >= 3 * rg && rr > 0.01);
    CHECK(fabs(lt / lw - 0.5) <= 0.1);
    double s0 = lum3(rim[3][0]), st = lum3(rim[4][0]), s1 = lum3(rim[4][1]), sw = lum3(rim[1][0]);
    fprintf(stderr, "  upper rim: roughness 0 %.4f, textured 0 %.4f (0.3: %.4f); lower %.4f\n", s0,
            st, sw, s1);
    CHECK(fabs(st - s0) <= 0.05 * s0);
    CHECK(fabs(s0 - sw) >= 0.1 * s0); /* the roughness shows */
    for (int i = 0; i < 5; i++) oak_destroy_material(m[i]);
    oak_destroy_texture(ctex);
    oak_destroy_texture(rtex);
}

/* transmissionTexture (R) 0 on the upper half of a glass-like sphere (base
   0.8, rough 0.3, transmission 1) under a sun in a dark grey sky: the upper
   half equals the plain opaque material (mean within 3% of it), the lower
   the untextured transmissive one (within 3%), the two at least 30% apart.
   thicknessTexture (G) 0 above on a thickness of 0.5 with a blue attenuation
   (0.2, 0.2, 1 over 0.3): the upper half equals the thin (thickness 0)
   material's, the lower the thick one's, within 3% (their red 30% apart). */
TEST(transmissionTexturesMaskAndThin) {
    static scene s;
    static uint8_t px[W * H * 4];
    oak_texture tex = halves(k_black, k_white, false);
    oak_material_desc md = base_desc(0.8f, 0.3f);
    oak_material m[6];
    m[0] = make(&md);
    md.lobes.transmission = 1;
    m[1] = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_TRANSMISSION] = half_ref(tex);
    m[2] = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_TRANSMISSION] = (oak_texture_ref){0};
    md.lobes.thickness = 0.5f, md.lobes.attenuation_distance = 0.3f;
    md.lobes.attenuation_color[0] = md.lobes.attenuation_color[1] = 0.2f;
    md.lobes.attenuation_color[2] = 1;
    m[4] = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_THICKNESS] = half_ref(tex);
    m[5] = make(&md);
    md.lobes.thickness = 0;
    md.lobes.tex[OAK_LOBE_TEX_THICKNESS] = (oak_texture_ref){0};
    m[3] = make(&md);
    double h[6][2][3];
    for (int i = 0; i < 6; i++) {
        sphere_scene(&s, m[i]);
        flat_sky(&s.env, 0.3f);
        add_sun(&s, 1);
        if (!draw(&s, px)) return;
        for (int k = 0; k < 2; k++) half_mean(px, k, 0, 0.9, h[i][k]);
        if (i == 2) agree(&s, px, "transmission texture");
        if (i == 5) agree(&s, px, "thickness texture");
    }
    double p0 = lum3(h[0][0]), t0 = lum3(h[2][0]), f1 = lum3(h[1][1]), t1 = lum3(h[2][1]);
    double p1 = lum3(h[0][1]);
    fprintf(stderr,
            "  above: plain %.4f, masked %.4f; below: transmissive %.4f, masked %.4f "
            "(plain %.4f)\n",
            p0, t0, f1, t1, p1);
    CHECK(fabs(t0 - p0) <= 0.03 * p0);
    CHECK(fabs(t1 - f1) <= 0.03 * f1);
    CHECK(fabs(f1 - p1) >= 0.3 * p1);
    double thin0 = h[3][0][0], thick1 = h[4][1][0], tt0 = h[5][0][0], tt1 = h[5][1][0];
    double thin1 = h[3][1][0];
    fprintf(stderr,
            "  red: thin above %.4f, textured %.4f; thick below %.4f, textured %.4f "
            "(thin %.4f)\n",
            thin0, tt0, thick1, tt1, thin1);
    CHECK(fabs(tt0 - thin0) <= 0.03 * thin0);
    CHECK(fabs(tt1 - thick1) <= 0.03 * thick1);
    CHECK(fabs(thin1 - thick1) >= 0.3 * thin1);
    for (int i = 0; i < 6; i++) oak_destroy_material(m[i]);
    oak_destroy_texture(tex);
}

/* The film's textures on the black glossy plane of the test above, white
   sky, seen straight down: iridescenceThicknessTexture G 128/255 between a
   minimum of 250 and a maximum of 550 nm (401 nm) gives the centre the hue
   of the 400 nm film within 10 degrees (the 550 nm film's is more than 40
   away); iridescenceTexture R 0 leaves the plain material (within 1/255). */
TEST(iridescenceTexturesSetFactorAndThickness) {
    static scene s;
    static uint8_t px[W * H * 4], plain[W * H * 4];
    const uint8_t g128[4] = {255, 128, 0, 255}, r0[4] = {0, 255, 255, 255};
    oak_texture tg = halves(g128, g128, false), tr = halves(r0, r0, false);
    double h[3];
    oak_material m[4];
    for (int i = 0; i < 4; i++) {
        oak_material_desc md = base_desc(0, 0.1f);
        if (i < 3) md.lobes.iridescence = 1, md.lobes.iridescence_ior = 1.3f;
        md.lobes.iridescence_thickness = i == 0 ? 400 : 550;
        if (i == 1) {
            md.lobes.iridescence_thickness_min = 250;
            md.lobes.tex[OAK_LOBE_TEX_IRIDESCENCE_THICKNESS] = half_ref(tg);
        }
        if (i == 2) md.lobes.tex[OAK_LOBE_TEX_IRIDESCENCE] = half_ref(tr);
        m[i] = make(&md);
        plane_scene(&s, m[i]);
        flat_sky(&s.env, 1);
        if (!draw(&s, i == 3 ? plain : px)) return;
        if (i == 1) agree(&s, px, "iridescence thickness texture");
        if (i == 2) agree(&s, px, "iridescence texture");
        if (i < 2) {
            double c[3];
            patch(px, W / 2 - 4, H / 2 - 4, c);
            h[i] = hue(c);
        }
    }
    /* px holds the R-0 film's picture, plain the plain material's */
    int most = 0;
    for (size_t k = 0; k < sizeof px; k++) {
        int d = abs((int)px[k] - (int)plain[k]);
        most = d > most ? d : most;
    }
    oak_material_desc md = base_desc(0, 0.1f);
    md.lobes.iridescence = 1, md.lobes.iridescence_ior = 1.3f, md.lobes.iridescence_thickness = 550;
    oak_material m550 = make(&md);
    plane_scene(&s, m550);
    flat_sky(&s.env, 1);
    if (!draw(&s, px)) return;
    double c[3];
    patch(px, W / 2 - 4, H / 2 - 4, c);
    h[2] = hue(c);
    fprintf(stderr,
            "  hue: 400 nm %.1f, textured 250..550 at 128 %.1f, 550 nm %.1f; R 0 against plain: "
            "max %d/255\n",
            h[0], h[1], h[2], most);
    CHECK(hue_gap(h[0], h[1]) <= 10);
    CHECK(hue_gap(h[1], h[2]) >= 40);
    CHECK(most <= 1);
    for (int i = 0; i < 4; i++) oak_destroy_material(m[i]);
    oak_destroy_material(m550);
    oak_destroy_texture(tg);
    oak_destroy_texture(tr);
}

/* The leaf of the test above lit from behind (sun below): a
   diffuseTransmissionTexture A of 128/255 on the factor 0.5 lets through
   0.5 +- 0.05 of what the untextured lobe adds over the plain leaf (green);
   a diffuseTransmissionColorTexture of sRGB red on a white colour passes
   red alone: the green is the plain leaf's (within 10% of what the
   untextured lobe adds), the red at least 3 times the plain's. */
TEST(diffuseTransmissionTexturesScaleAndTint) {
    static scene s;
    static uint8_t px[W * H * 4];
    const uint8_t a128[4] = {255, 255, 255, 128}, red[4] = {255, 0, 0, 255};
    oak_texture ta = halves(a128, a128, false), tc = halves(red, red, true);
    oak_material m[4];
    double c[4][3];
    for (int i = 0; i < 4; i++) {
        oak_material_desc md = base_desc(0.3f, 0.9f);
        md.base_color[0] = 0.1f, md.base_color[2] = 0.05f;
        if (i) {
            md.lobes.diffuse_transmission = 0.5f;
            md.lobes.diffuse_transmission_color[0] = md.lobes.diffuse_transmission_color[1] =
                md.lobes.diffuse_transmission_color[2] = 1;
        }
        if (i == 2) md.lobes.tex[OAK_LOBE_TEX_DIFFUSE_TRANSMISSION] = half_ref(ta);
        if (i == 3) md.lobes.tex[OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR] = half_ref(tc);
        m[i] = make(&md);
        plane_scene(&s, m[i]);
        flat_sky(&s.env, 0.02f);
        add_sun(&s, 2);
        float dir[3] = {0.3f, 1.0f, 0.2f};
        glm_vec3_normalize(dir);
        memcpy(s.sun.direction, dir, sizeof dir);
        if (!draw(&s, px)) return;
        patch(px, W / 2 - 4, H / 2 - 4, c[i]);
        if (i == 2) agree(&s, px, "diffuse transmission texture");
        if (i == 3) agree(&s, px, "diffuse transmission colour texture");
    }
    double share = (c[2][1] - c[0][1]) / (c[1][1] - c[0][1]);
    fprintf(stderr,
            "  from behind: A 128 lets %.3f of the lobe's green; red colour: green %.4f (plain "
            "%.4f), red %.4f (plain %.4f)\n",
            share, c[3][1], c[0][1], c[3][0], c[0][0]);
    CHECK(fabs(share - 0.5) <= 0.05);
    CHECK(fabs(c[3][1] - c[0][1]) <= 0.1 * (c[1][1] - c[0][1]));
    CHECK(c[3][0] >= 3 * c[0][0]);
    for (int i = 0; i < 4; i++) oak_destroy_material(m[i]);
    oak_destroy_texture(ta);
    oak_destroy_texture(tc);
}

/* KHR_materials_specular's textures on the black glossy plane of the F0
   test, white sky, seen straight down (the centre reflects F0): a
   specularTexture A of 128/255 halves the 4% (0.0201 +- 0.005), a
   specularColorTexture of sRGB (255, 188, 0) (linear 1, 0.503, 0) tints it
   (0.04, 0.0201, 0, each +- 0.005); without specular the texture is not
   read (4%). */
TEST(specularTexturesScaleAndTintF0) {
    static scene s;
    static uint8_t px[W * H * 4];
    const uint8_t a128[4] = {255, 255, 255, 128}, tint[4] = {255, 188, 0, 255};
    oak_texture ta = halves(a128, a128, false), tc = halves(tint, tint, true);
    const struct {
        const char *name;
        bool specular;
        int kind;
        oak_texture tex;
        float want[3];
    } c[] = {
        {"specular texture 128", true, OAK_LOBE_TEX_SPECULAR, ta, {0.0201f, 0.0201f, 0.0201f}},
        {"specular colour texture", true, OAK_LOBE_TEX_SPECULAR_COLOR, tc, {0.04f, 0.0201f, 0}},
        {"no specular, its texture", false, OAK_LOBE_TEX_SPECULAR, ta, {0.04f, 0.04f, 0.04f}},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        oak_material_desc md = base_desc(0, 0.1f);
        md.lobes.specular = c[i].specular;
        md.lobes.specular_factor = 1;
        md.lobes.specular_color[0] = md.lobes.specular_color[1] = md.lobes.specular_color[2] = 1;
        md.lobes.tex[c[i].kind] = half_ref(c[i].tex);
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
        fprintf(stderr, "  %-24s centre reflects %.4f %.4f %.4f (want %.4f %.4f %.4f +- 0.005)\n",
                c[i].name, got[0], got[1], got[2], c[i].want[0], c[i].want[1], c[i].want[2]);
        for (int k = 0; k < 3; k++) CHECK(fabsf(got[k] - c[i].want[k]) <= 0.005f);
        agree(&s, px, c[i].name);
        oak_destroy_material(m);
    }
    oak_destroy_texture(ta);
    oak_destroy_texture(tc);
}

/* anisotropyTexture on the metal sphere of the test above, strength 0.8,
   rotation 0: RG (128, 255) points along the bitangent, so the highlight
   stretches as the rotation of 90 degrees makes it (aspect x/y at most
   1 / 2.5); B 0 takes the strength to 0: isotropic (aspect 1 +- 0.1). */
TEST(anisotropyTextureTurnsAndScales) {
    static scene s;
    static uint8_t px[W * H * 4];
    const uint8_t up[4] = {128, 255, 255, 255}, none[4] = {255, 128, 0, 255};
    oak_texture t[2] = {halves(up, up, false), halves(none, none, false)};
    double aspect[2];
    for (int i = 0; i < 2; i++) {
        oak_material_desc md = base_desc(0.8f, 0.3f);
        md.metallic = 1;
        md.lobes.anisotropy = 0.8f;
        md.lobes.tex[OAK_LOBE_TEX_ANISOTROPY] = half_ref(t[i]);
        oak_material m = make(&md);
        sphere_scene(&s, m);
        flat_sky(&s.env, 0.01f);
        add_sun(&s, 0.05f);
        s.sun.direction[0] = 0, s.sun.direction[1] = 0, s.sun.direction[2] = -1;
        if (!draw(&s, px)) return;
        double n;
        aspect[i] = highlight_aspect(px, &n);
        fprintf(stderr, "  anisotropy texture %s: highlight %4.0f px, aspect x/y %.3f\n",
                i ? "B 0" : "along the bitangent", n, aspect[i]);
        agree(&s, px, i ? "anisotropy texture, B 0" : "anisotropy texture, bitangent");
        oak_destroy_material(m);
    }
    CHECK(aspect[0] <= 1 / 2.5);
    CHECK(fabs(aspect[1] - 1) <= 0.1);
    oak_destroy_texture(t[0]);
    oak_destroy_texture(t[1]);
}

/* The highlight's centroid (x, y in pixels) over the upper half's pixels
   (3 rows above the equator left out) of at least half its peak; *peak its
   peak (linear luminance). */
static void upper_highlight(const uint8_t *px, double *cx, double *cy, double *peak) {
    double m = 0, sx = 0, sy = 0, n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int y = 0; y < H / 2 - 3; y++)
            for (int x = 0; x < W; x++) {
                if (disc_r(x, y) >= 0.95) continue;
                double l = lumlin(px + ((size_t)y * W + x) * 4);
                if (!pass) {
                    m = fmax(m, l);
                } else if (l >= 0.5 * m) {
                    sx += l * x, sy += l * y, n += l;
                }
            }
    *cx = n ? sx / n : -1, *cy = n ? sy / n : -1, *peak = m;
}

/* clearcoatNormalTexture on the sphere of clearcoatTexturesMaskAndRoughenTheCoat
   (a dark rough base, a sharp coat): above, a normal tilted 35 degrees
   along the tangent, texel (200, 128, 230); below, a flat one (128, 128,
   255). Under the sun the coat's highlight (on the upper half) moves at
   least 8 px from the untextured coat's and keeps a peak of at least half
   its own; the lower half's bytes are the untextured coat's within 2. The
   base is not normal-mapped by it: the plain material with the texture
   (no coat) draws the plain picture's bytes. Under a sky bright at the
   zenith, dark at the horizon (no sun), the coat's reflection turns with
   its normal: the upper half's pixels differ from the untextured coat's by
   at least 0.01 on average (linear luminance), the lower half's by under
   a tenth of that. */
TEST(clearcoatNormalTextureTurnsTheCoat) {
    static scene s;
    static uint8_t c[W * H * 4], t[W * H * 4], p[W * H * 4];
    const uint8_t tilt[4] = {200, 128, 230, 255}, flat[4] = {128, 128, 255, 255};
    oak_texture tex = halves(tilt, flat, false);
    oak_material_desc md = base_desc(0.1f, 0.8f);
    md.base_color[0] = 0.5f;
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL] = half_ref(tex);
    oak_material plain_tex = make(&md); /* no coat: the map does nothing */
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL] = (oak_texture_ref){0};
    oak_material plain = make(&md);
    md.lobes.clearcoat = 1, md.lobes.clearcoat_roughness = 0.08f;
    oak_material coat = make(&md);
    md.lobes.tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL] = half_ref(tex);
    oak_material mapped = make(&md);
    sphere_scene(&s, plain);
    flat_sky(&s.env, 0.02f);
    add_sun(&s, 0.5f);
    if (!draw(&s, p)) return;
    s.mat = plain_tex;
    if (!draw(&s, t)) return;
    size_t pd = 0;
    for (size_t i = 0; i < sizeof p; i++) pd += p[i] != t[i];
    fprintf(stderr, "  sun: plain with the coat's normal map, %zu bytes differ\n", pd);
    CHECK_EQ_INT((int)pd, 0);
    s.mat = coat;
    if (!draw(&s, c)) return;
    s.mat = mapped;
    if (!draw(&s, t)) return;
    double cx, cy, cp, tx, ty, tp;
    upper_highlight(c, &cx, &cy, &cp);
    upper_highlight(t, &tx, &ty, &tp);
    int most = 0;
    for (int y = H / 2 + 3; y < H; y++)
        for (int x = 0; x < W * 4; x++) {
            int d = abs((int)c[(size_t)y * W * 4 + x] - (int)t[(size_t)y * W * 4 + x]);
            if (d > most) most = d;
        }
    double moved = hypot(tx - cx, ty - cy);
    fprintf(stderr,
            "  sun: coat highlight at (%.1f, %.1f) peak %.4f; mapped at (%.1f, %.1f) peak %.4f, "
            "moved %.1f px; lower half differs by %d at most\n",
            cx, cy, cp, tx, ty, tp, moved, most);
    CHECK(cx >= 0 && tx >= 0);
    CHECK(moved >= 8);
    CHECK(tp >= 0.5 * cp);
    CHECK(most <= 2);
    agree(&s, t, "clearcoat normal texture, sun");
    s.in.light_count = 0;
    s.env = oak_environment_defaults();
    for (int k = 0; k < 3; k++) {
        s.env.sky_zenith_display[k] = 1, s.env.sky_horizon_display[k] = 0.02f;
        s.env.ambient_sky[k] = s.env.ambient_ground[k] = 0;
    }
    s.mat = coat;
    if (!draw(&s, c)) return;
    s.mat = mapped;
    if (!draw(&s, t)) return;
    double gap[2] = {0, 0}, n[2] = {0, 0};
    for (int y = 0; y < H; y++) {
        if (abs(2 * y + 1 - H) < 6) continue; /* 3 rows either side of the equator */
        for (int x = 0; x < W; x++) {
            if (disc_r(x, y) >= 0.9) continue;
            size_t i = ((size_t)y * W + x) * 4;
            gap[y >= H / 2] += fabs(lumlin(t + i) - lumlin(c + i)), n[y >= H / 2]++;
        }
    }
    for (int k = 0; k < 2; k++) gap[k] /= n[k] ? n[k] : 1;
    fprintf(stderr, "  sky: |mapped - coat| %.4f above, %.4f below\n", gap[0], gap[1]);
    CHECK(gap[0] >= 0.01);
    CHECK(gap[1] <= 0.1 * gap[0]);
    agree(&s, t, "clearcoat normal texture, sky");
    oak_destroy_material(plain);
    oak_destroy_material(plain_tex);
    oak_destroy_material(coat);
    oak_destroy_material(mapped);
    oak_destroy_texture(tex);
}

/* More distinct lobe textures than a material holds is refused. */
TEST(lobeTexturesHaveACap) {
    oak_texture t[OAK_LOBE_TEX_DISTINCT + 1];
    oak_material_desc md = base_desc(1, 1);
    md.lobes.clearcoat = 1, md.lobes.transmission = 1;
    md.lobes.sheen_color[0] = 1;
    for (int i = 0; i <= OAK_LOBE_TEX_DISTINCT; i++) {
        t[i] = halves(k_white, k_black, false);
        md.lobes.tex[i] = half_ref(t[i]);
    }
    oak_material m = {0};
    int errors = g_oak_test_errors;
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "distinct lobe textures") != NULL);
    g_oak_test_errors = errors;
    /* the same ref twice is one */
    md.lobes.tex[OAK_LOBE_TEX_DISTINCT] = md.lobes.tex[0];
    CHECK_OK(oak_make_material(&m, &md));
    int slot[OAK_LOBE_TEX_COUNT];
    CHECK_EQ_INT((int)oak_material_lobe_slots(&oak_material_get(m)->desc, slot),
                 OAK_LOBE_TEX_DISTINCT);
    CHECK_EQ_INT(slot[OAK_LOBE_TEX_DISTINCT], 0);
    CHECK_EQ_INT(slot[OAK_LOBE_TEX_COUNT - 1], -1);
    oak_destroy_material(m);
    for (int i = 0; i <= OAK_LOBE_TEX_DISTINCT; i++) oak_destroy_texture(t[i]);
}

/* glTF with the seven extensions, built here as JSON: each factor lands in
   the material's lobes (glTF's defaults where a member is absent), a lobe
   texture oak reads keeps its texCoord and transform (the coat's normal
   map its scale too), values out of range are
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
        "\"clearcoatTexture\":{\"index\":0},"
        "\"clearcoatNormalTexture\":{\"index\":0,\"scale\":0.5,\"texCoord\":1}}}},"
        "{\"name\":\"velvet\",\"extensions\":{\"KHR_materials_sheen\":"
        "{\"sheenColorFactor\":[0.8,0.2,1.5],\"sheenRoughnessFactor\":0.4}}},"
        "{\"name\":\"brushed\",\"extensions\":{\"KHR_materials_anisotropy\":"
        "{\"anisotropyStrength\":0.6,\"anisotropyRotation\":1.25,"
        "\"anisotropyTexture\":{\"index\":0}}}},"
        "{\"name\":\"soap\",\"extensions\":{\"KHR_materials_iridescence\":"
        "{\"iridescenceFactor\":1,\"iridescenceIor\":1.4,\"iridescenceThicknessMaximum\":520,"
        "\"iridescenceThicknessTexture\":{\"index\":0}}}},"
        "{\"name\":\"leaf\",\"extensions\":{\"KHR_materials_diffuse_transmission\":"
        "{\"diffuseTransmissionFactor\":0.4,\"diffuseTransmissionColorFactor\":[0.5,1,0.2]}}},"
        "{\"name\":\"glass\",\"extensions\":{\"KHR_materials_transmission\":"
        "{\"transmissionFactor\":0.7,\"transmissionTexture\":{\"index\":0,\"texCoord\":1}},"
        "\"KHR_materials_volume\":{\"thicknessFactor\":0.2,\"thicknessTexture\":{\"index\":0,"
        "\"extensions\":{\"KHR_texture_transform\":{\"scale\":[2,3],\"offset\":[0.5,0]}}}},"
        "\"KHR_materials_sheen\":{\"sheenColorFactor\":[1,1,1],"
        "\"sheenColorTexture\":{\"index\":0},\"sheenRoughnessTexture\":{\"index\":0}}}}],"
        "\"textures\":[{}]}";
    int errors = g_oak_test_errors;
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, json, sizeof json - 1, "lobes.gltf", &d));
    if (!g) return;
    CHECK_EQ_INT((int)g->material_count, 8);
    fprintf(stderr, "  %u warnings\n", g->warning_count);
    /* the sheen's 1.5 (the coat's, the anisotropy's and the film's textures are read) */
    CHECK_EQ_INT((int)g->warning_count, 1);
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
        /* the coat's normal map: its scale and uv set (no warning) */
        CHECK(l2->clearcoat_normal_scale == 0.5f &&
              l2->tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL].uv_set == 1 &&
              l2->tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL].scale[0] == 1);
        CHECK(l3->clearcoat_normal_scale == 0);
        CHECK(l3->sheen_color[0] == 0.8f && l3->sheen_color[1] == 0.2f &&
              l3->sheen_color[2] == 1.0f && l3->sheen_roughness == 0.4f);
        CHECK(l3->clearcoat == 0 && l3->ior == 0 && l3->anisotropy == 0);
        const oak_material_lobes *l4 = &g->materials[4].desc.lobes;
        CHECK(l4->anisotropy == 0.6f && l4->anisotropy_rotation == 1.25f);
        CHECK(l4->tex[OAK_LOBE_TEX_ANISOTROPY].scale[0] == 1);
        const oak_material_lobes *l5 = &g->materials[5].desc.lobes,
                                 *l6 = &g->materials[6].desc.lobes;
        CHECK(l5->iridescence == 1 && l5->iridescence_ior == 1.4f &&
              l5->iridescence_thickness == 520 && l5->iridescence_thickness_min == 100);
        CHECK(l5->tex[OAK_LOBE_TEX_IRIDESCENCE_THICKNESS].scale[0] == 1);
        CHECK(l6->diffuse_transmission == 0.4f && l6->diffuse_transmission_color[0] == 0.5f &&
              l6->diffuse_transmission_color[1] == 1 && l6->diffuse_transmission_color[2] == 0.2f);
        CHECK(l4->iridescence == 0 && l4->diffuse_transmission == 0);
        /* the lobe textures oak reads, texCoord and transform kept */
        const oak_material_lobes *l7 = &g->materials[7].desc.lobes;
        const oak_texture_ref *tr = &l7->tex[OAK_LOBE_TEX_TRANSMISSION],
                              *th = &l7->tex[OAK_LOBE_TEX_THICKNESS];
        CHECK(l7->transmission == 0.7f && l7->thickness == 0.2f);
        CHECK(tr->uv_set == 1 && tr->scale[0] == 1 && th->uv_set == 0);
        CHECK(th->scale[0] == 2 && th->scale[1] == 3 && th->offset[0] == 0.5f);
        CHECK(l2->tex[OAK_LOBE_TEX_CLEARCOAT].scale[0] == 1 &&
              l2->tex[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS].scale[0] == 0);
        CHECK(l7->tex[OAK_LOBE_TEX_SHEEN_COLOR].scale[0] == 1 &&
              l7->tex[OAK_LOBE_TEX_SHEEN_ROUGHNESS].scale[0] == 1);
        CHECK(l2->tex[OAK_LOBE_TEX_TRANSMISSION].scale[0] == 0);
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

/* A glTF whose lobe textures name a PNG: the sheen's colour texture is the
   image's colour (sRGB) texture and its roughness the data one; equal refs
   (the coat's and the sheen roughness's) are the same texture; a fifth
   distinct ref (in oak_lobe_tex order: the thickness's, its own transform)
   is left out, its factor alone. The same from the .oakm cache. */
TEST(gltfLobeTexturesBecomeTextures) {
    char png[512], path[512], cache[512];
    const uint8_t rgba[16] = {255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 255, 255, 255, 255, 0};
    CHECK_OK(oak_image_write_png(oak_test_out(png, sizeof png, "lobetex.png"), 2, 2, rgba));
    static const char json[] =
        "{\"asset\":{\"version\":\"2.0\"},\"images\":[{\"uri\":\"lobetex.png\"}],"
        "\"textures\":[{\"source\":0}],\"materials\":[{\"name\":\"all\",\"extensions\":{"
        "\"KHR_materials_sheen\":{\"sheenColorFactor\":[1,1,1],\"sheenColorTexture\":{\"index\":0},"
        "\"sheenRoughnessTexture\":{\"index\":0}},"
        "\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1,\"clearcoatTexture\":{\"index\":0},"
        "\"clearcoatRoughnessTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":"
        "{\"rotation\":1}}},\"clearcoatNormalTexture\":{\"index\":0,\"scale\":2}},"
        "\"KHR_materials_transmission\":{\"transmissionFactor\":1,"
        "\"transmissionTexture\":{\"index\":0,\"texCoord\":1}},"
        "\"KHR_materials_volume\":{\"thicknessFactor\":1,\"thicknessTexture\":{\"index\":0,"
        "\"extensions\":{\"KHR_texture_transform\":{\"scale\":[2,2]}}}}}}]}";
    oak_test_out(path, sizeof path, "lobetex.gltf");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(json, 1, sizeof json - 1, f);
    fclose(f);
    oak_test_out(cache, sizeof cache, "lobetex.oakm");
    for (int pass = 0; pass < 2; pass++) {
        oak_gltf *g = NULL;
        CHECK_OK(oak_gltf_load(&g, pass ? cache : path, NULL));
        if (!g) return;
        const oak_material_data *md = oak_material_get(g->material_handles[0]);
        CHECK(md != NULL);
        if (md) {
            const oak_texture_ref *t = md->desc.lobes.tex;
            const oak_texture_data *sc = oak_texture_get(t[OAK_LOBE_TEX_SHEEN_COLOR].texture),
                                   *sr = oak_texture_get(t[OAK_LOBE_TEX_SHEEN_ROUGHNESS].texture);
            CHECK(sc && sc->format == OAK_FORMAT_RGBA8_SRGB);
            CHECK(sr && sr->format == OAK_FORMAT_RGBA8);
            CHECK(t[OAK_LOBE_TEX_CLEARCOAT].texture.id ==
                  t[OAK_LOBE_TEX_SHEEN_ROUGHNESS].texture.id);
            CHECK(t[OAK_LOBE_TEX_TRANSMISSION].texture.id ==
                  t[OAK_LOBE_TEX_SHEEN_ROUGHNESS].texture.id);
            CHECK(t[OAK_LOBE_TEX_TRANSMISSION].uv_set == 1);
            CHECK(t[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS].texture.id != 0 &&
                  t[OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS].rotation == 1);
            CHECK(t[OAK_LOBE_TEX_THICKNESS].texture.id == 0); /* the fifth */
            /* the coat's normal map: data (the coat's own ref), its scale */
            CHECK(t[OAK_LOBE_TEX_CLEARCOAT_NORMAL].texture.id ==
                  t[OAK_LOBE_TEX_SHEEN_ROUGHNESS].texture.id);
            CHECK(md->desc.lobes.clearcoat_normal_scale == 2);
            int slot[OAK_LOBE_TEX_COUNT];
            CHECK_EQ_INT((int)oak_material_lobe_slots(&md->desc, slot), OAK_LOBE_TEX_DISTINCT);
        }
        if (!pass) CHECK_OK(oak_gltf_bake(g, cache));
        oak_gltf_free(g);
    }
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
        if (!strcmp(g_backend, "cpu")) RUN(gltfLobeTexturesBecomeTextures);
        RUN(whiteFurnacePerLobe);
        RUN(iorAndSpecularSetTheDielectricF0);
        RUN(clearcoatAddsASharpHighlight);
        RUN(sheenBrightensTheRim);
        RUN(anisotropyStretchesTheHighlight);
        RUN(iridescenceHueFollowsThicknessAndAngle);
        RUN(diffuseTransmissionLightsALeafFromBehind);
        if (!strcmp(g_backend, "cpu")) RUN(lobeTexturesHaveACap);
        RUN(clearcoatTexturesMaskAndRoughenTheCoat);
        RUN(sheenTexturesTintTheRim);
        RUN(transmissionTexturesMaskAndThin);
        RUN(iridescenceTexturesSetFactorAndThickness);
        RUN(diffuseTransmissionTexturesScaleAndTint);
        RUN(specularTexturesScaleAndTintF0);
        RUN(anisotropyTextureTurnsAndScales);
        RUN(clearcoatNormalTextureTurnsTheCoat);
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
