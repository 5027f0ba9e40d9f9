/* CPU backend: the shading contract at chosen pixels — mip level of a
 * minified checker, point and spot falloff and cone, exp2 fog, near-plane
 * clipping, "over" blending, the dither pattern and FXAA's integer output. */
#include "cpu_scene.h"

#include "backend/cpu/cpu_internal.h"
#include "render/skylight.h"

static const float UP_Y[3] = {0, 1, 0}, UP_NEG_Z[3] = {0, 0, -1};

TEST(cpuMipLevelOfMinifiedChecker) {
    enum { W = 128, H = 64 };
    sc_scene s;
    sc_init(&s, W, H);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    /* 1-texel black/white checker, 256 x 256 */
    static uint8_t tex[256 * 256 * 4];
    for (int y = 0; y < 256; y++)
        for (int x = 0; x < 256; x++) {
            uint8_t v = ((x ^ y) & 1) ? 255 : 0;
            uint8_t *t = tex + (y * 256 + x) * 4;
            t[0] = t[1] = t[2] = v, t[3] = 255;
        }
    oak_texture_desc td = {256, 256, OAK_FORMAT_RGBA8_SRGB, tex, false, "checker1"};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    md.base_color_tex.texture = t;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    /* left: a 1 m quad over 64 px, 4 texels per pixel, lambda = 2 exactly;
       right: 0.25 m of texture (uv 0..0.25 via scale) over 64 px: 1 texel a
       pixel, lambda = 0, the checker itself */
    const float a[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    const float b[4][3] = {{0, -0.5f, 0}, {1, -0.5f, 0}, {1, 0.5f, 0}, {0, 0.5f, 0}};
    sc_draw(&s, sc_quad(a), m, id);
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 0.25f;
    oak_material m2 = {0};
    CHECK_OK(oak_make_material(&m2, &md));
    sc_draw(&s, sc_quad(b), m2, id);
    static uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* level 2 of the registry's chain is uniform: its byte, decoded to
       linear and encoded back, is what every left pixel shows */
    const oak_texture_data *data = oak_texture_get(t);
    CHECK(data && data->mip_count >= 3);
    if (!data || data->mip_count < 3) return;
    int want = ((const uint8_t *)data->mips[2])[0];
    CHECK(want > 60 && want < 200); /* an average, not a checker texel */
    int bad = 0;
    for (uint32_t y = 2; y < H - 2; y++)
        for (uint32_t x = 2; x < 62; x++) bad += abs(sc_px(px, W, x, y)[0] - want) > 1;
    CHECK_EQ_INT(bad, 0);
    /* right: alternating 0 / 255 */
    int checker = 0;
    for (uint32_t y = 2; y < H - 2; y++)
        for (uint32_t x = 66; x < 126; x++) {
            int v = sc_px(px, W, x, y)[0];
            checker += (v == 0 || v == 255);
        }
    CHECK_EQ_INT(checker, (H - 4) * 60);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuMipLevel.png", px, W, H);
}

/* Plane at y = 0 seen from 20 m straight above, 8 m over 128 px. */
static void lamp_scene(sc_scene *s) {
    sc_init(s, 128, 128);
    const float eye[3] = {0, 20, 0}, at[3] = {0, 0, 0};
    sc_camera(s, eye, at, UP_NEG_Z, 0, 8, 1, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(s, sc_ground(10), sc_material(1, 1, 1, 0, 1, false), id);
}

/* World point under pixel (c, r) of lamp_scene: x = (c + 0.5)/16 - 4,
   z = (r + 0.5)/16 - 4. */
static void lamp_pixel_world(uint32_t c, uint32_t r, double P[3]) {
    P[0] = (c + 0.5) / 16.0 - 4, P[1] = 0, P[2] = (r + 0.5) / 16.0 - 4;
}

static double lamp_expected(const double P[3], const double lp[3], double I, double range,
                            double spot_inner, double spot_outer) {
    double dv[3] = {lp[0] - P[0], lp[1] - P[1], lp[2] - P[2]};
    double d = sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
    double L[3] = {dv[0] / d, dv[1] / d, dv[2] / d};
    double Wt = 1;
    if (range > 0) {
        double c = 1 - pow(d / range, 4);
        c = c < 0 ? 0 : c > 1 ? 1 : c;
        Wt = c * c;
    }
    double E = I / (d * d) * Wt;
    if (spot_outer > 0) { /* the spot points straight down */
        double cd = L[1];
        double t = (cd - cos(spot_outer)) / (cos(spot_inner) - cos(spot_outer));
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        E *= t * t;
    }
    double V[3] = {-P[0], 20, -P[2]}, vl = sqrt(V[0] * V[0] + V[1] * V[1] + V[2] * V[2]);
    for (int k = 0; k < 3; k++) V[k] /= vl;
    const double N[3] = {0, 1, 0};
    return sc_brdf(1, 1, N, L, V, E);
}

TEST(cpuPointLightFalloff) {
    sc_scene s;
    lamp_scene(&s);
    oak_render_light *l = sc_light(&s, OAK_LIGHT_POINT, 6);
    l->position[1] = 2;
    l->light.range = 3.5f;
    static uint8_t px[128 * 128 * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    const double lp[3] = {0, 2, 0};
    /* under the lamp, 1 m, 2 m and 2.75 m out (windowed), 3.5+ m out (zero) */
    const uint32_t cols[5] = {64, 80, 96, 108, 124};
    for (int i = 0; i < 5; i++) {
        double P[3];
        lamp_pixel_world(cols[i], 64, P);
        int want = sc_byte(lamp_expected(P, lp, 6, 3.5, 0, 0), true);
        CHECK_NEAR(sc_px(px, 128, cols[i], 64)[1], want, 1);
    }
    CHECK_EQ_INT(sc_px(px, 128, 124, 64)[1], 0); /* past the range: d > 3.5 m */
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuPointLight.png", px, 128, 128);
}

TEST(cpuSpotLightCone) {
    sc_scene s;
    lamp_scene(&s);
    oak_render_light *l = sc_light(&s, OAK_LIGHT_SPOT, 6);
    l->position[1] = 2;
    l->direction[1] = -1;
    const double inner = 20 * M_PI / 180, outer = 40 * M_PI / 180;
    l->light.inner_cone = (float)inner;
    l->light.outer_cone = (float)outer;
    static uint8_t px[128 * 128 * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    const double lp[3] = {0, 2, 0};
    /* inside the inner cone (x = 0.03 m), in the penumbra (30 degrees off
       the axis is x = 2 tan 30 = 1.155 m, column 82), outside (45 degrees) */
    const uint32_t cols[4] = {64, 76, 82, 88};
    for (int i = 0; i < 4; i++) {
        double P[3];
        lamp_pixel_world(cols[i], 64, P);
        int want = sc_byte(lamp_expected(P, lp, 6, 0, inner, outer), true);
        CHECK_NEAR(sc_px(px, 128, cols[i], 64)[1], want, 1);
    }
    double P[3];
    lamp_pixel_world(82, 64, P);
    double ang = atan2(sqrt(P[0] * P[0] + P[2] * P[2]), 2.0);
    CHECK(ang > inner && ang < outer);           /* the penumbra pixel really is one */
    CHECK_EQ_INT(sc_px(px, 128, 100, 64)[1], 0); /* x = 2.28 m: 48.8 degrees */
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuSpotLight.png", px, 128, 128);
}

TEST(cpuExp2FogAtKnownDistance) {
    enum { W = 64, H = 64 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 0, 10}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 40, 0, 0.1f, 100);
    const float fog[3] = {0.2f, 0.3f, 0.4f};
    memcpy(s.view.fog_color, fog, sizeof fog);
    s.view.env.fog_density = 0.05f;
    for (int k = 0; k < 3; k++) s.view.sky_zenith[k] = s.view.sky_horizon[k] = 0.1f;
    const float q[4][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, sc_quad(q), sc_material(1, 1, 1, 0, 1, true), id);
    uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* centre pixel: 10 m away (the half-pixel offset changes it by 1e-5),
       f = exp(-(0.05 * 10)^2) = exp(-0.25) */
    double f = exp(-0.25);
    for (int k = 0; k < 3; k++) {
        int want = sc_byte(fog[k] + (1.0 - fog[k]) * f, true);
        CHECK_NEAR(sc_px(px, W, 32, 32)[k], want, 1);
        /* the sky is not fogged */
        CHECK_NEAR(sc_px(px, W, 1, 1)[k], sc_byte(0.1, true), 1);
    }
}

TEST(cpuNearPlaneClipping) {
    enum { W = 160, H = 120 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 1, 0}, at[3] = {0, 1, -10};
    sc_camera(&s, eye, at, UP_Y, 60, 0, 0.1f, 100);
    for (int k = 0; k < 3; k++) s.view.sky_zenith[k] = s.view.sky_horizon[k] = 0.05f;
    /* one floor triangle with a vertex 5 m behind the camera */
    const float A[3] = {0, 0, 5}, B[3] = {5, 0, -20}, C[3] = {-5, 0, -20};
    float pos[9];
    memcpy(pos, A, 12), memcpy(pos + 3, B, 12), memcpy(pos + 6, C, 12);
    oak_mesh_desc d = {0};
    d.vertex_count = 3;
    d.positions = pos;
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, m, sc_material(1, 1, 1, 0, 1, true), id);
    static uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* Each pixel's ray from the eye meets y = 0 at a point inside or outside
       the triangle; pixels whose answer differs from a neighbour's sit on an
       edge and are not judged. */
    static int8_t inside[W * H];
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            vec4 n = {(x + 0.5f) / W * 2 - 1, 1 - (y + 0.5f) / H * 2, 0.5f, 1}, p;
            glm_mat4_mulv(s.view.inv_view_proj, n, p);
            double dir[3] = {p[0] / p[3] - eye[0], p[1] / p[3] - eye[1], p[2] / p[3] - eye[2]};
            int8_t in = 0;
            if (dir[1] < 0) {
                double t = -eye[1] / dir[1], hx = eye[0] + t * dir[0], hz = eye[2] + t * dir[2];
                /* inside: between the two slanted edges and before z = -20 */
                double half = 5.0 * (5.0 - hz) / 25.0;
                in = hz > -20 && hz < 5 && fabs(hx) < half;
            }
            inside[y * W + x] = in;
        }
    int judged = 0, wrong = 0, drawn = 0;
    for (uint32_t y = 1; y < H - 1; y++)
        for (uint32_t x = 1; x < W - 1; x++) {
            int8_t in = inside[y * W + x];
            if (inside[y * W + x - 1] != in || inside[y * W + x + 1] != in ||
                inside[(y - 1) * W + x] != in || inside[(y + 1) * W + x] != in)
                continue;
            judged++;
            bool lit = sc_px(px, W, x, y)[0] > 150;
            wrong += lit != (bool)in;
            drawn += in;
        }
    CHECK(judged > W * H * 8 / 10);
    CHECK(drawn > 1000);
    CHECK_EQ_INT(wrong, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuNearClip.png", px, W, H);
}

TEST(cpuBlendOverInLinearLight) {
    enum { W = 64, H = 32 };
    sc_scene s;
    sc_init(&s, W, H);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    /* opaque red on the left half at z = 0; white glass (alpha 0.25) over
       the whole view at z = 1, and a green glass behind the red at z = -1 */
    const float red[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    const float front[4][3] = {{-1, -0.5f, 1}, {1, -0.5f, 1}, {1, 0.5f, 1}, {-1, 0.5f, 1}};
    const float back[4][3] = {{-1, -0.5f, -1}, {1, -0.5f, -1}, {1, 0.5f, -1}, {-1, 0.5f, -1}};
    sc_draw(&s, sc_quad(red), sc_material(1, 0, 0, 0, 1, true), id);
    oak_material_desc gd = oak_material_desc_defaults(NULL);
    gd.unlit = true;
    gd.alpha_mode = OAK_ALPHA_BLEND;
    gd.base_color[3] = 0.25f;
    oak_material glass = {0}, green = {0};
    CHECK_OK(oak_make_material(&glass, &gd));
    gd.base_color[0] = gd.base_color[2] = 0;
    gd.base_color[3] = 0.5f;
    CHECK_OK(oak_make_material(&green, &gd));
    sc_draw(&s, sc_quad(front), glass, id);
    sc_draw(&s, sc_quad(back), green, id);
    uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* left: white over red: (0.25 + 0.75, 0.25, 0.25); the green glass is
       hidden behind the red. right: sky 0, then green 0.5 -> (0, 0.5, 0),
       then white 0.25 over it -> (0.25, 0.625, 0.25) */
    const uint8_t *l = sc_px(px, W, 16, 16), *r = sc_px(px, W, 48, 16);
    CHECK_NEAR(l[0], sc_byte(1.0, false), 1);
    CHECK_NEAR(l[1], sc_byte(0.25, false), 1);
    CHECK_NEAR(l[2], sc_byte(0.25, false), 1);
    CHECK_NEAR(r[0], sc_byte(0.25, false), 1);
    CHECK_NEAR(r[1], sc_byte(0.625, false), 1);
    CHECK_NEAR(r[2], sc_byte(0.25, false), 1);
}

static oak_texture solid_texture(uint8_t r, uint8_t g, uint8_t b, oak_format f) {
    uint8_t px[4 * 4 * 4];
    for (int i = 0; i < 16; i++)
        px[i * 4] = r, px[i * 4 + 1] = g, px[i * 4 + 2] = b, px[i * 4 + 3] = 255;
    oak_texture_desc td = {4, 4, f, px, false, NULL};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    return t;
}

TEST(cpuNormalMapTiltsLambert) {
    sc_scene s;
    lamp_scene(&s);
    /* a normal map of (204, 128, 230): n = (0.6, 0.0039, 0.8039) in tangent
       space; the ground's tangent is +x (u grows along x), so N leans 37
       degrees toward +x and a sun straight above gives NdotL = N.y */
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    md.normal_tex.texture = solid_texture(204, 128, 230, OAK_FORMAT_RGBA8);
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    s.mat[0] = m;
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 1);
    sun->direction[1] = -1;
    s.view.post.no_tonemap = true;
    static uint8_t px[128 * 128 * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    double n[3] = {204 / 255.0 * 2 - 1, 128 / 255.0 * 2 - 1, 230 / 255.0 * 2 - 1};
    /* B = cross(Nv, T) * w = cross(+y, +x) = -z */
    double N[3] = {n[0], n[2], -n[1]}, l = sqrt(N[0] * N[0] + N[1] * N[1] + N[2] * N[2]);
    for (int k = 0; k < 3; k++) N[k] /= l;
    double P[3];
    lamp_pixel_world(64, 64, P);
    double V[3] = {-P[0], 20, -P[2]}, vl = sqrt(V[0] * V[0] + V[1] * V[1] + V[2] * V[2]);
    for (int k = 0; k < 3; k++) V[k] /= vl;
    const double L[3] = {0, 1, 0};
    int want = sc_byte(sc_brdf(1, 1, N, L, V, 1), false);
    CHECK_NEAR(sc_px(px, 128, 64, 64)[0], want, 1);
    const double flat[3] = {0, 1, 0};
    CHECK(abs(want - sc_byte(sc_brdf(1, 1, flat, L, V, 1), false)) > 10); /* the map matters */
}

TEST(cpuEmissiveAndOcclusionTextures) {
    sc_scene s;
    lamp_scene(&s);
    for (int k = 0; k < 3; k++) s.view.env.ambient_sky[k] = s.view.env.ambient_ground[k] = 0.5f;
    /* no lights, black sky: colour = ao * diffuse / pi * E * (1 - envF) +
       emissive, with E = pi * 0.5 (a black sky lights flat with ambient_sky
       above, the ground's 0.5 below: docs/SHADING.md "Sky and sky light"),
       ao = 1 + 1 * (occ.r - 1) = 0.4 for occ.r = 102/255, base 0.5 grey so
       diffuse = 0.5, envF = 0.04 A + B from the split-sum table at this
       pixel's NdotV and roughness 1 (the specular lobe's share, which the
       diffuse loses); emissive = (0.1, 0, 0) * strength 2 * tex (sRGB 255,
       128 -> 0.2158, 0). The old hemisphere ambient gave the same without
       the (1 - envF). */
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.5f;
    md.emissive[0] = 0.1f, md.emissive[1] = 0.1f;
    md.emissive_strength = 2;
    md.emissive_tex.texture = solid_texture(255, 128, 0, OAK_FORMAT_RGBA8_SRGB);
    md.occlusion_tex.texture = solid_texture(102, 0, 0, OAK_FORMAT_RGBA8);
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    s.mat[0] = m;
    static uint8_t px[128 * 128 * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* the specular ambient term: R is near straight up into the black sky, so 0 */
    float *table = oak_calloc((size_t)OAK_GPU_SKY_TEXELS * 4, sizeof(float));
    float A = 0, B = 0;
    if (table) {
        for (uint32_t i = 0; i < OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE; i++)
            _oak_sky_brdf_texel(table, i);
        double P[3];
        lamp_pixel_world(64, 64, P);
        double V[3] = {-P[0], 20, -P[2]};
        _oak_sky_brdf(table, (float)(20 / sqrt(V[0] * V[0] + V[1] * V[1] + V[2] * V[2])), 1, &A,
                      &B);
        oak_free(table);
    }
    double envF = 0.04 * A + B;
    double ao = 102 / 255.0, base = 0.5 * 0.5 * ao * (1 - envF);
    double e0 = 0.1 * 2 * 1.0, e1 = 0.1 * 2 * sc_srgb_to_linear(128 / 255.0);
    const uint8_t *c = sc_px(px, 128, 64, 64);
    CHECK_NEAR(c[0], sc_byte(base + e0, true), 1);
    CHECK_NEAR(c[1], sc_byte(base + e1, true), 1);
    CHECK_NEAR(c[2], sc_byte(base, true), 1);
}

/* Texel index the contract gives for uv under a wrap mode, nearest filter. */
static int wrap_index(double u, int n, oak_wrap mode) {
    int i = (int)floor(u * n);
    if (mode == OAK_WRAP_CLAMP) return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (mode == OAK_WRAP_MIRROR) {
        int m = ((i % (2 * n)) + 2 * n) % (2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    return ((i % n) + n) % n;
}

TEST(cpuTextureWrapModesAndTransform) {
    enum { W = 48, H = 16 };
    /* a 4 x 4 texture whose columns are 0, 80, 160, 240 in red and rows the
       same in green; unlit, nearest, no tone curve: bytes come back as is */
    uint8_t tex[4 * 4 * 4];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            uint8_t *t = tex + (y * 4 + x) * 4;
            t[0] = (uint8_t)(x * 80), t[1] = (uint8_t)(y * 80), t[2] = 0, t[3] = 255;
        }
    oak_texture_desc td = {4, 4, OAK_FORMAT_RGBA8_SRGB, tex, true, "wrap4"};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    const oak_wrap modes[3] = {OAK_WRAP_REPEAT, OAK_WRAP_CLAMP, OAK_WRAP_MIRROR};
    for (int mi = 0; mi < 3; mi++)
        for (int rot = 0; rot < 2; rot++) {
            sc_scene s;
            sc_init(&s, W, H);
            s.view.post.no_tonemap = true;
            const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
            sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
            /* the quad fills the view: u = 0..1 across x, v = 0..1 up y;
               scale 3 and offset -1 make it -1..2 */
            const float q[4][3] = {
                {-1.5f, -0.5f, 0}, {1.5f, -0.5f, 0}, {1.5f, 0.5f, 0}, {-1.5f, 0.5f, 0}};
            oak_material_desc md = oak_material_desc_defaults(NULL);
            md.unlit = true;
            oak_texture_ref *r = &md.base_color_tex;
            r->texture = t;
            r->sampler.wrap_u = r->sampler.wrap_v = modes[mi];
            r->sampler.mag = r->sampler.min = OAK_FILTER_NEAREST;
            r->scale[0] = r->scale[1] = 3;
            r->offset[0] = r->offset[1] = -1;
            r->rotation = rot ? (float)(M_PI / 2) : 0;
            oak_material m = {0};
            CHECK_OK(oak_make_material(&m, &md));
            mat4 id = GLM_MAT4_IDENTITY_INIT;
            sc_draw(&s, sc_quad(q), m, id);
            uint8_t px[W * H * 4];
            CHECK_OK(sc_render(&s, px, NULL, NULL));
            int bad = 0;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    double u = (x + 0.5) / W, v = 1 - (y + 0.5) / H;
                    double su = 3 * u, sv = 3 * v, tu = su, tv = sv;
                    if (rot) tu = -sv, tv = su; /* cos 90 = 0, sin 90 = 1 */
                    tu -= 1, tv -= 1;
                    /* skip pixels within 1e-3 of a texel boundary */
                    if (fabs(tu * 4 - floor(tu * 4 + 0.5)) < 1e-3 ||
                        fabs(tv * 4 - floor(tv * 4 + 0.5)) < 1e-3)
                        continue;
                    int want_r = wrap_index(tu, 4, modes[mi]) * 80;
                    int want_g = wrap_index(tv, 4, modes[mi]) * 80;
                    const uint8_t *c = sc_px(px, W, (uint32_t)x, (uint32_t)y);
                    bad += abs(c[0] - want_r) > 1 || abs(c[1] - want_g) > 1;
                }
            CHECK_EQ_INT(bad, 0);
            if (bad) fprintf(stderr, "  wrap mode %d rotation %d\n", mi, rot);
        }
}

TEST(cpuDitherPattern) {
    enum { W = 32, H = 16 };
    sc_scene s;
    sc_init(&s, W, H);
    s.view.post.no_dither = false;
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    for (int k = 0; k < 3; k++) s.view.sky_zenith[k] = s.view.sky_horizon[k] = 0.2f;
    uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* byte = floor(srgb(0.2) * 255 + n), n the interleaved gradient noise in
       float32: 0.2 encodes to 123.55 / 255, so bytes are 123 or 124 */
    float sv = (float)sc_srgb(0.2);
    int wrong = 0, high = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            float f = 0.06711056f * (float)x + 0.00583715f * (float)y;
            f -= floorf(f);
            float n = 52.9829189f * f;
            n -= floorf(n);
            int want = (int)floorf(sv * 255.0f + n);
            const uint8_t *c = sc_px(px, W, x, y);
            wrong += c[0] != want || c[1] != want || c[2] != want || c[3] != 255;
            high += want == 124;
        }
    CHECK_EQ_INT(wrong, 0);
    CHECK(high > W * H / 4 && high < W * H * 3 / 4); /* both levels occur */
}

TEST(cpuFxaaStraightEdge) {
    enum { W = 16, H = 8 };
    uint8_t in[W * H * 4], out[W * H * 4];
    for (int i = 0; i < W * H; i++) {
        uint8_t v = (i % W) < 8 ? 0 : 255;
        in[i * 4] = in[i * 4 + 1] = in[i * 4 + 2] = v, in[i * 4 + 3] = 255;
    }
    _oak_cpu_fxaa(out, in, NULL, W, H, 0, H);
    /* Worked by hand from docs/SHADING.md for pixel 7 (black, M = 0, E = 255):
       range 255, vertical edge (H = 0 < V = 1020), other side east, the
       search never ends (dist 8 and 8, end 0) so q_edge = 32 - 1040/32 = 0;
       subpixel: num = 1020, den = 3060, s1 = 85, s2 = 598*85*85 >> 16 = 65,
       q_sub = (48*65*65 + 32768) >> 16 = 3; out = (255*3 + 32) >> 6 = 12.
       Pixel 8 mirrors it: (255*61 + 32) >> 6 = 243. Others unchanged. */
    for (int y = 0; y < H; y++) {
        CHECK_EQ_INT(out[(y * W + 7) * 4], 12);
        CHECK_EQ_INT(out[(y * W + 8) * 4], 243);
        CHECK_EQ_INT(out[(y * W + 3) * 4], 0);
        CHECK_EQ_INT(out[(y * W + 12) * 4], 255);
        CHECK_EQ_INT(out[(y * W + 7) * 4 + 3], 255);
    }
}

TEST(cpuFxaaStaircase) {
    enum { W = 16, H = 8 };
    /* a horizontal edge one row lower right of x = 8: rows < 4 (< 5 on the
       right) are white, below black */
    uint8_t in[W * H * 4], out[W * H * 4];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            uint8_t v = y < (x < 8 ? 4 : 5) ? 255 : 0;
            uint8_t *p = in + (y * W + x) * 4;
            p[0] = p[1] = p[2] = v, p[3] = 255;
        }
    _oak_cpu_fxaa(out, in, NULL, W, H, 0, H);
    /* Pixel (6, 3): white, S black. N=W=E=255, S=0, corners NW=NE=255,
       SW=SE=0: H = 0 + 2*255 + 0... = |255-510+0| + 2|255-510+0| + |255-510+0|
       = 1020, V = 0 + 0 + |0-0+0| = 0: horizontal edge, other side south
       (g2 = 255), ref = 255, grad = 255. Search along x: leftwards the pairs
       stay (255 + 0) - 255 = 0 to the image edge (dist 8, end 0); rightwards
       at k = 2 (x = 8) the pair is (255 + 255) - 255 = 255, 2*255 >= 255:
       dist 2, end 255. end >= 0 and M < Lo is false: equal, so
       q_edge = 32 - (128*2 + 10)/20 = 32 - 13 = 19. Subpixel: num =
       |2*(255+0+255+255) + 255+255+0+0 - 12*255| = |1530+510-3060| = 1020,
       q_sub = 3 as before; q = 19: (255*45 + 0*19 + 32) >> 6 = 179. */
    CHECK_EQ_INT(out[(3 * W + 6) * 4], 179);
    /* pixel (1, 3): the step is found at k = 7 rightwards (dist 8 and 7),
       q_edge = 32 - (128*7 + 15)/30 = 2 < q_sub = 3, so (255*61 + 32) >> 6 */
    CHECK_EQ_INT(out[(3 * W + 1) * 4], 243);
    /* the backend's path with a precomputed luma plane gives the same bytes */
    uint8_t lumas[W * H], out2[W * H * 4];
    _oak_cpu_fxaa_luma(lumas, in, W, 0, H);
    _oak_cpu_fxaa(out2, in, lumas, W, H, 0, H);
    CHECK(memcmp(out, out2, sizeof out) == 0);
}

TEST(cpuFxaaFastPathsMatchTheSpec) {
    /* the backend's early-outs and unclamped searches against the plain
       per-pixel path (no luma plane) on a busy image: same bytes */
    enum { W = 96, H = 64 };
    static uint8_t in[W * H * 4], a[W * H * 4], b[W * H * 4], lumas[W * H];
    uint32_t seed = 12345;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1664525u + 1013904223u;
            uint8_t *p = in + (y * W + x) * 4;
            bool on = (x * 3 + y * 5) % 37 < 18 || (x / 9 + y / 7) % 3 == 0;
            p[0] = (uint8_t)(on ? 200 + (seed >> 28) : 30 + (seed >> 29));
            p[1] = (uint8_t)(on ? 180 : 60), p[2] = (uint8_t)(seed >> 24), p[3] = 255;
        }
    _oak_cpu_fxaa(a, in, NULL, W, H, 0, H);
    _oak_cpu_fxaa_luma(lumas, in, W, 0, H);
    _oak_cpu_fxaa(b, in, lumas, W, H, 0, H);
    CHECK(memcmp(a, b, sizeof a) == 0);
    int changed = 0;
    for (int i = 0; i < W * H; i++) changed += memcmp(a + i * 4, in + i * 4, 3) != 0;
    CHECK(changed > W * H / 10); /* FXAA did act on it */
}

int main(void) {
    oak_test_init(0);
    RUN(cpuMipLevelOfMinifiedChecker);
    RUN(cpuPointLightFalloff);
    RUN(cpuSpotLightCone);
    RUN(cpuExp2FogAtKnownDistance);
    RUN(cpuNearPlaneClipping);
    RUN(cpuBlendOverInLinearLight);
    RUN(cpuNormalMapTiltsLambert);
    RUN(cpuEmissiveAndOcclusionTextures);
    RUN(cpuTextureWrapModesAndTransform);
    RUN(cpuDitherPattern);
    RUN(cpuFxaaStraightEdge);
    RUN(cpuFxaaStaircase);
    RUN(cpuFxaaFastPathsMatchTheSpec);
    oak_shutdown();
    return TEST_SUMMARY();
}
