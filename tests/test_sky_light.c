/* The sky light on every backend that starts here (docs/SHADING.md "Sky
 * light"): the irradiance map against the analytic cosine convolution of a
 * sky brighter above than below, a black glossy dielectric reflecting 4% of a
 * flat sky, a white matte surface showing the flat sky's colour (and an
 * image sky's, which is also the background), the
 * reflection's blur growing with roughness, and the sky captured again only
 * when the environment changes. Raw light: exposure 1, no tone curve, no
 * dither, no FXAA, so a byte is the sRGB of the radiance. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>
#include <oak/oak.h>

#include "oak_test.h"
#include "render/skylight.h"

#define W 96
#define H 96

static const char *g_backend;
static oak_renderer *g_r; /* one per backend, shared by the tests: pipelines build once */

typedef struct sky_scene {
    oak_frame_input in;
    oak_mesh mesh;
    oak_material mat;
    mat4 world;
    oak_environment env;
    oak_post post;
} sky_scene;

static float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

/* A sky of one display colour (flat), lighting as it looks: no ambient
   scale, no ground colour. */
static void flat_sky(oak_environment *e, float r, float g, float b) {
    *e = oak_environment_defaults();
    const float c[3] = {r, g, b};
    for (int k = 0; k < 3; k++) {
        e->sky_zenith_display[k] = e->sky_horizon_display[k] = c[k];
        e->ambient_sky[k] = e->ambient_ground[k] = 0;
    }
}

/* A 40 m plane under a camera h metres up looking straight down; nothing but
   the sky lights it. */
static void scene_init(sky_scene *s, float base, float metallic, float rough, float h) {
    memset(s, 0, sizeof *s);
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&s->mesh, &pd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = base;
    md.metallic = metallic;
    md.roughness = rough;
    CHECK_OK(oak_make_material(&s->mat, &md));
    glm_mat4_identity(s->world);
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    s->in.camera = (oak_camera){.fov_y = 1.5707963f};
    vec3 eye = {0, h, 0}, target = {0, 0, 0}, up = {0, 0, -1};
    mat4 view;
    glm_lookat(eye, target, up, view);
    glm_mat4_inv(view, s->in.camera_world);
    s->in.draw_count = 1;
    s->in.meshes = &s->mesh;
    s->in.materials = &s->mat;
    s->in.transforms = (const mat4 *)&s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static void scene_free(sky_scene *s) {
    oak_destroy_material(s->mat);
    oak_destroy_mesh(s->mesh);
}

static bool draw(oak_renderer *r, const sky_scene *s, uint8_t *px) {
    oak_result res = oak_renderer_draw(r, &s->in);
    CHECK_OK(res);
    if (res) return false;
    CHECK_OK(oak_renderer_read_pixels(r, px, W * H * 4));
    return true;
}

static oak_renderer *make(void) {
    return g_r;
}

/* The linear radiance of the centre 8 x 8 pixels, channel k. */
static float centre(const uint8_t *px, int k) {
    float sum = 0;
    for (int y = H / 2 - 4; y < H / 2 + 4; y++)
        for (int x = W / 2 - 4; x < W / 2 + 4; x++)
            sum += srgb_to_linear(px[(y * W + x) * 4 + k] / 255.0f);
    return sum / 64.0f;
}

/* The sky's radiance the view was given, as the shading contract defines it. */
static void sky_radiance(const oak_render_view *v, const float d[3], float out[3]) {
    for (int k = 0; k < 3; k++)
        out[k] = d[1] > 0 ? v->sky_horizon[k] + (v->sky_zenith[k] - v->sky_horizon[k]) * sqrtf(d[1])
                          : v->sky_horizon[k];
}

TEST(irradianceMatchesTheCosineConvolution) {
    sky_scene s;
    scene_init(&s, 0.5f, 0, 1, 2);
    s.env = oak_environment_defaults();
    const float zen[3] = {0.9f, 0.9f, 1.0f}, hor[3] = {0.15f, 0.2f, 0.3f};
    for (int k = 0; k < 3; k++) {
        s.env.sky_zenith_display[k] = zen[k], s.env.sky_horizon_display[k] = hor[k];
        s.env.ambient_sky[k] = s.env.ambient_ground[k] = 0;
    }
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    float *sky = oak_alloc(sizeof(float) * 4 * OAK_GPU_SKY_TEXELS);
    if (r && px && sky && draw(r, &s, px)) {
        CHECK_OK(oak_renderer_read_sky(r, sky, (size_t)OAK_GPU_SKY_TEXELS * 4, NULL));
        const oak_render_view *v = oak_renderer_last_view(r);
        /* five normals: up, down, level, 45 degrees up and down */
        const float n[5][3] = {
            {0, 1, 0}, {0, -1, 0}, {1, 0, 0}, {0, 0.7071f, 0.7071f}, {-0.7071f, -0.7071f, 0}};
        double worst = 0;
        for (int i = 0; i < 5; i++) {
            /* E(n) = integral of L(d) max(0, n.d) over the sphere, by a
               400 x 800 midpoint rule in (theta, phi) */
            double e[3] = {0, 0, 0};
            const int T = 400, P = 800;
            for (int a = 0; a < T; a++) {
                double th = (a + 0.5) * OAK_PI / T;
                for (int b = 0; b < P; b++) {
                    double ph = (b + 0.5) * 2 * OAK_PI / P;
                    float d[3] = {(float)(sin(th) * cos(ph)), (float)cos(th),
                                  (float)(sin(th) * sin(ph))};
                    double c = n[i][0] * d[0] + n[i][1] * d[1] + n[i][2] * d[2];
                    if (c <= 0) continue;
                    float L[3];
                    sky_radiance(v, d, L);
                    double dw = sin(th) * (OAK_PI / T) * (2 * OAK_PI / P);
                    for (int k = 0; k < 3; k++) e[k] += L[k] * c * dw;
                }
            }
            float m[3];
            _oak_sky_irradiance(sky, n[i], m);
            /* the stated error: 2% of the exact value for normals level or
               above; 6% below, where the octahedral map folds and a bilinear
               read straddling a fold takes texels up to half a texel higher */
            double allowed = n[i][1] >= 0 ? 0.02 : 0.06;
            for (int k = 0; k < 3; k++) {
                double rel = fabs(m[k] - e[k]) / e[k];
                if (rel / allowed > worst) worst = rel / allowed;
                CHECK(rel < allowed);
            }
            fprintf(stderr,
                    "  %s irradiance at (%.2f %.2f %.2f): map %.4f %.4f %.4f, exact %.4f "
                    "%.4f %.4f\n",
                    g_backend, n[i][0], n[i][1], n[i][2], m[0], m[1], m[2], e[0], e[1], e[2]);
        }
        fprintf(stderr, "  %s irradiance: worst error %.2f of its allowance\n", g_backend, worst);
    }
    oak_free(sky);
    oak_free(px);
    scene_free(&s);
}

TEST(blackGlossyReflectsFourPercentOfAFlatSky) {
    sky_scene s;
    scene_init(&s, 0, 0, 0.05f, 2);
    flat_sky(&s.env, 1, 1, 1);
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    if (r && px && draw(r, &s, px)) {
        float L = oak_renderer_last_view(r)->sky_zenith[0], got = centre(px, 1) / L;
        fprintf(stderr, "  %s black glossy: reflects %.4f of the sky (want 0.04 +- 0.004)\n",
                g_backend, got);
        CHECK(fabsf(got - 0.04f) < 0.004f);
    }
    oak_free(px);
    scene_free(&s);
}

TEST(whiteMatteShowsTheSkyColour) {
    sky_scene s;
    scene_init(&s, 1, 0, 1, 2);
    flat_sky(&s.env, 0.55f, 0.7f, 0.9f);
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    if (r && px && draw(r, &s, px)) {
        const float *L = oak_renderer_last_view(r)->sky_zenith;
        for (int k = 0; k < 3; k++) {
            float got = centre(px, k);
            fprintf(stderr, "  %s white matte channel %d: %.4f, sky %.4f\n", g_backend, k, got,
                    L[k]);
            CHECK(fabsf(got - L[k]) < 0.02f * L[k]);
        }
    }
    oak_free(px);
    scene_free(&s);
}

/* A black sky with one bright patch 11-17 degrees from the zenith, as an
   equirectangular image (row 0 is straight up). */
static oak_texture patch_sky(void) {
    enum { IW = 64, IH = 32 };
    static float texels[IW * IH * 4];
    for (int i = 0; i < IW * IH; i++) {
        int x = i % IW, y = i / IW;
        float v = y == 2 && x >= 8 && x < 12 ? 8.0f : 0.0f;
        texels[i * 4] = texels[i * 4 + 1] = texels[i * 4 + 2] = v;
        texels[i * 4 + 3] = 1;
    }
    oak_texture_desc d = {
        .width = IW, .height = IH, .format = OAK_FORMAT_RGBA32F, .pixels = texels};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &d));
    return t;
}

/* The reflection of the patch in a metal plane seen from above: its spread
   (root mean square distance in pixels from the luminance-weighted centre)
   grows with roughness. */
TEST(reflectionBlurGrowsWithRoughness) {
    const float rough[4] = {0.05f, 0.3f, 0.55f, 0.8f};
    float spread[4] = {0};
    oak_texture sky = patch_sky();
    uint8_t *px = oak_alloc(W * H * 4);
    for (int i = 0; i < 4 && px; i++) {
        sky_scene s;
        scene_init(&s, 1, 1, rough[i], 2);
        flat_sky(&s.env, 0, 0, 0);
        s.env.sky_image = sky;
        oak_renderer *r = make();
        if (r && draw(r, &s, px)) {
            double sw = 0, sx = 0, sy = 0, sxx = 0;
            for (int p = 0; p < W * H; p++) {
                double w = srgb_to_linear(px[p * 4 + 1] / 255.0f);
                sw += w, sx += w * (p % W), sy += w * (p / W);
            }
            double cx = sx / sw, cy = sy / sw;
            for (int p = 0; p < W * H; p++) {
                double w = srgb_to_linear(px[p * 4 + 1] / 255.0f);
                double dx = p % W - cx, dy = p / W - cy;
                sxx += w * (dx * dx + dy * dy);
            }
            spread[i] = (float)sqrt(sxx / sw);
            fprintf(stderr, "  %s roughness %.2f: reflection spread %.2f px\n", g_backend, rough[i],
                    spread[i]);
        }
        scene_free(&s);
        if (i) CHECK(spread[i] > spread[i - 1] * 1.1f);
    }
    oak_free(px);
    oak_destroy_texture(sky);
}

/* A sky image of one colour c lighting at `level` times its own values
   (ambient_sky = level * c; level 0: no scale) seen at exposure 1/level
   (1 for level 0): the empty view and a white matte plane under it both
   show c. */
static void image_sky_shows(float level) {
    enum { IW = 16, IH = 8 };
    static float texels[IW * IH * 4];
    const float c[3] = {0.3f, 0.5f, 0.7f};
    for (int i = 0; i < IW * IH; i++) {
        for (int k = 0; k < 3; k++) texels[i * 4 + k] = c[k];
        texels[i * 4 + 3] = 1;
    }
    oak_texture_desc d = {
        .width = IW, .height = IH, .format = OAK_FORMAT_RGBA32F, .pixels = texels};
    oak_texture sky = {0};
    CHECK_OK(oak_make_texture(&sky, &d));
    sky_scene s;
    scene_init(&s, 1, 0, 1, 2);
    flat_sky(&s.env, 0, 0, 0);
    s.env.sky_image = sky;
    if (level > 0) {
        for (int k = 0; k < 3; k++) s.env.ambient_sky[k] = level * c[k];
        s.post.exposure = 1 / level;
    }
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    for (int pass = 0; pass < 2 && r && px; pass++) {
        s.in.draw_count = pass == 0 ? 0 : 1; /* the empty sky, then the plane */
        if (!draw(r, &s, px)) break;
        for (int k = 0; k < 3; k++) {
            float got = centre(px, k);
            fprintf(stderr, "  %s image sky lighting x%g, %s, channel %d: %.4f, image %.4f\n",
                    g_backend, level > 0 ? level : 1, pass == 0 ? "background" : "white matte", k,
                    got, c[k]);
            CHECK(fabsf(got - c[k]) < 0.02f * c[k]);
        }
    }
    oak_free(px);
    scene_free(&s);
    oak_destroy_texture(sky);
}

/* An image sky is both what shows where nothing is drawn and what lights. */
TEST(imageSkyIsBackgroundAndLight) {
    image_sky_shows(0);
}

/* An image taken at another exposure under a physically lit sky: lighting
   at a thousand times its level under exposure 1/1000, it shows its own
   colour, as its light says (not a thousandth of it: black). */
TEST(imageSkyShowsAtItsLightsBrightness) {
    image_sky_shows(1000);
}

TEST(recapturesOnlyWhenTheEnvironmentChanges) {
    sky_scene s;
    scene_init(&s, 0.5f, 0, 0.5f, 2);
    s.env = oak_environment_defaults();
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    oak_texture sky = patch_sky();
    uint32_t n = 0;
    uint32_t n0 = 0;
    if (r && px) {
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n0));
        for (int f = 0; f < 3; f++) draw(r, &s, px);
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n));
        CHECK_EQ_INT(n - n0, 1);   /* three frames, one capture */
        s.env.fog_density = 0.01f; /* not something the sky light depends on */
        s.post.exposure = 1;
        draw(r, &s, px);
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n));
        CHECK_EQ_INT(n - n0, 1);
        s.env.sky_zenith_display[0] = 0.5f;
        draw(r, &s, px);
        draw(r, &s, px);
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n));
        CHECK_EQ_INT(n - n0, 2);
        s.env.ambient_ground[1] = 0.2f;
        draw(r, &s, px);
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n));
        CHECK_EQ_INT(n - n0, 3);
        s.env.sky_image = sky;
        draw(r, &s, px);
        draw(r, &s, px);
        CHECK_OK(oak_renderer_read_sky(r, NULL, 0, &n));
        CHECK_EQ_INT(n - n0, 4);
        fprintf(stderr, "  %s: 9 frames, 4 environments, %u captures\n", g_backend, n - n0);
    }
    oak_free(px);
    oak_destroy_texture(sky);
    scene_free(&s);
}

int main(void) {
    oak_test_init(0);
    const char *backends[] = {"cpu", "vulkan", "gl"};
    int ran = 0;
    for (int b = 0; b < 3; b++) {
        char why[512];
        if (!oak_backend_caps(backends[b]) || oak_backend_probe(backends[b], why, sizeof why)) {
            fprintf(stderr, "skipped: %s does not start here\n", backends[b]);
            continue;
        }
        if (!oak_test_backend_has(backends[b], OAK_PASS_SKYCAPTURE)) continue;
        g_backend = backends[b];
        oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H};
        g_r = NULL;
        CHECK_OK(oak_make_renderer(&g_r, &d));
        if (!g_r) continue;
        ran++;
        fprintf(stderr, "-- %s\n", g_backend);
        RUN(irradianceMatchesTheCosineConvolution);
        RUN(blackGlossyReflectsFourPercentOfAFlatSky);
        RUN(whiteMatteShowsTheSkyColour);
        RUN(reflectionBlurGrowsWithRoughness);
        RUN(imageSkyIsBackgroundAndLight);
        RUN(imageSkyShowsAtItsLightsBrightness);
        RUN(recapturesOnlyWhenTheEnvironmentChanges);
        oak_destroy_renderer(g_r);
        g_r = NULL;
    }
    int status = TEST_SUMMARY();
    oak_shutdown();
    return ran ? status : OAK_TEST_SKIP;
}
