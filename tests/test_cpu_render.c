/* CPU backend: the frame's geometry and light in numbers — a Lambert plane's
 * value under the sun, a box's shadow edge in metres, depth across long thin
 * triangles, an alpha cutout's edge, and identical bytes for any thread
 * count. Views are built by hand and drawn through the vtable. */
#include "cpu_scene.h"

static const float UP_Y[3] = {0, 1, 0}, UP_NEG_Z[3] = {0, 0, -1};

TEST(cpuLambertPlaneUnderSun) {
    sc_scene s;
    sc_init(&s, 64, 64);
    const float eye[3] = {0, 10, 0}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_NEG_Z, 0, 4, 0.1f, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, sc_ground(10), sc_material(1, 1, 1, 0, 1, false), id);
    /* sun at 60 degrees elevation: L = (cos 60, sin 60, 0), intensity E */
    const double E = 2.0, el = 60.0 * M_PI / 180.0;
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, (float)E);
    sun->direction[0] = (float)-cos(el), sun->direction[1] = (float)-sin(el);
    s.view.key_light = 0;
    uint8_t px[64 * 64 * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* Expected: diffuse E*cos(30)/pi plus GGX specular with a = 1 (D = 1/pi,
       Vis = 0.5/(NdotL+NdotV), Schlick F0 = 0.04) at the pixel centre (32.5,
       32.5): 4 m over 64 px puts it at x = z = 1/32 m under the camera. */
    double P[3] = {4.0 / 64 * 0.5, 0, 4.0 / 64 * 0.5};
    double V[3] = {-P[0], 10, -P[2]}, vl = sqrt(V[0] * V[0] + V[1] * V[1] + V[2] * V[2]);
    for (int k = 0; k < 3; k++) V[k] /= vl;
    double N[3] = {0, 1, 0}, L[3] = {cos(el), sin(el), 0};
    double x = sc_brdf(1.0, 1.0, N, L, V, E);
    double diffuse_only = E * cos(30.0 * M_PI / 180.0) / M_PI;
    CHECK(x > diffuse_only && x < diffuse_only * 1.1); /* the specular is a few percent */
    int want = sc_byte(x, true);
    const uint8_t *c = sc_px(px, 64, 32, 32);
    for (int k = 0; k < 3; k++) CHECK_NEAR(c[k], want, 1);
    CHECK_EQ_INT(c[3], 255);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE"))
        sc_save("cpuLambertPlaneUnderSun.png", px, 64, 64);
}

TEST(cpuBoxShadowEdge) {
    enum { W = 256 };
    sc_scene s;
    sc_init(&s, W, W);
    /* orthographic, straight down, 8 m across: 32 px per metre, column c at
       x = (c + 0.5)/32 - 4, row r at z = (r + 0.5)/32 - 4 */
    const float eye[3] = {0, 20, 0}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_NEG_Z, 0, 8, 1, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    oak_mesh ground = sc_ground(20);
    const float lo[3] = {-0.5f, 0, -0.5f}, hi[3] = {0.5f, 1, 0.5f};
    oak_mesh box = sc_box(lo, hi);
    oak_material white = sc_material(0.8f, 0.8f, 0.8f, 0, 1, false);
    sc_draw(&s, ground, white, id);
    sc_draw(&s, box, white, id);
    sc_caster(&s, ground, white, id);
    sc_caster(&s, box, white, id);
    /* sun 45 degrees up from +x: the box's top edge at x = -0.5, y = 1
       throws the shadow's far edge to x = -0.5 - 1/tan(45) = -1.5 m,
       i.e. between columns 79 (x = -1.516) and 80 (x = -1.484) */
    const float d = 0.70710678f;
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
    sun->direction[0] = -d, sun->direction[1] = -d;
    sun->light.cast_shadows = true;
    s.view.key_light = 0;
    const float dir[3] = {-d, -d, 0};
    sc_sun_shadow(&s, dir, 1024, 8);
    static uint8_t px[W * W * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    const uint32_t row = 128; /* z = 0.016 m, through the middle of the shadow */
    int lit = sc_px(px, W, 20, row)[0];
    int dark = sc_px(px, W, 100, row)[0]; /* x = -0.86 m: inside the shadow */
    CHECK(lit > 100);
    CHECK_EQ_INT(dark, 0); /* no ambient, black sky: a shadow is black */
    int edge = -1;
    for (uint32_t x = 0; x < 112; x++)
        if (sc_px(px, W, x, row)[0] < lit / 2) {
            edge = (int)x;
            break;
        }
    CHECK_NEAR(edge, 80, 1);
    /* the side edge: the shadow spans z in [-0.5, 0.5], rows 112..143 */
    int top = -1;
    for (uint32_t y = 0; y < W; y++)
        if (sc_px(px, W, 96, y)[0] < lit / 2) {
            top = (int)y;
            break;
        }
    CHECK_NEAR(top, 112, 1);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuBoxShadowEdge.png", px, W, W);
}

TEST(cpuLongThinTrianglesDepth) {
    enum { W = 256, H = 128 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 1.7f, 0}, at[3] = {0, 1.7f, -10};
    sc_camera(&s, eye, at, UP_Y, 60, 0, 0.1f, 20000);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    /* ground 20 km wide and 10 km deep as two long thin triangles seen at a
       grazing angle; a 4 x 3 m wall 5 m ahead */
    const float g[4][3] = {
        {-10000, 0, 10}, {10000, 0, 10}, {10000, 0, -10000}, {-10000, 0, -10000}};
    const float w[4][3] = {{-2, 0, -5}, {2, 0, -5}, {2, 3, -5}, {-2, 3, -5}};
    sc_draw(&s, sc_quad(g), sc_material(0, 1, 0, 0, 1, true), id);
    sc_draw(&s, sc_quad(w), sc_material(1, 0, 0, 0, 1, true), id);
    static uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* the wall's corners through view_proj give its pixel rectangle; every
       pixel whose centre lies a pixel inside it must be wall red */
    float x0 = 1e9f, x1 = -1e9f, y0 = 1e9f, y1 = -1e9f;
    for (int k = 0; k < 4; k++) {
        vec4 p = {w[k][0], w[k][1], w[k][2], 1}, c;
        glm_mat4_mulv(s.view.view_proj, p, c);
        float sx = (c[0] / c[3] * 0.5f + 0.5f) * W, sy = (0.5f - c[1] / c[3] * 0.5f) * H;
        x0 = fminf(x0, sx), x1 = fmaxf(x1, sx), y0 = fminf(y0, sy), y1 = fmaxf(y1, sy);
    }
    int wrong = 0, total = 0, ground = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            float cx = x + 0.5f, cy = y + 0.5f;
            const uint8_t *c = sc_px(px, W, x, y);
            if (cx > x0 + 1 && cx < x1 - 1 && cy > y0 + 1 && cy < y1 - 1) {
                total++;
                if (!(c[0] > 150 && c[1] == 0)) wrong++;
            } else if (c[1] > 150) {
                ground++;
            }
        }
    CHECK(total > 80 * 60);
    CHECK_EQ_INT(wrong, 0);
    CHECK(ground > W * 20); /* the ground shows below the horizon */
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE"))
        sc_save("cpuLongThinTrianglesDepth.png", px, W, H);
}

TEST(cpuAlphaCutoutEdge) {
    enum { W = 128, H = 64 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    /* the quad fills the view exactly: x in [-1, 1], y in [-0.5, 0.5] */
    const float q[4][3] = {{-1, -0.5f, 0}, {1, -0.5f, 0}, {1, 0.5f, 0}, {-1, 0.5f, 0}};
    uint8_t tex[16 * 16 * 4];
    for (int i = 0; i < 16 * 16; i++) {
        tex[i * 4 + 0] = tex[i * 4 + 1] = tex[i * 4 + 2] = 255;
        tex[i * 4 + 3] = (i % 16) < 8 ? 0 : 255; /* left half transparent */
    }
    oak_texture_desc td = {16, 16, OAK_FORMAT_RGBA8_SRGB, tex, false, "halfalpha"};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.alpha_mode = OAK_ALPHA_MASK;
    md.unlit = true;
    md.base_color_tex.texture = t;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, sc_quad(q), m, id);
    s.view.sky_zenith[2] = s.view.sky_horizon[2] = 0.5f; /* blue behind */
    static uint8_t px[W * H * 4];
    CHECK_OK(sc_render(&s, px, NULL, NULL));
    /* Bilinear alpha crosses the 0.5 cutoff exactly at u = 0.5 (between
       texels 7 and 8), the boundary between columns 63 and 64. */
    int sky_b = sc_byte(0.5, true), quad_r = sc_byte(1.0, true);
    int bad_sky = 0, bad_edge = 0;
    for (uint32_t y = 0; y < H; y++) {
        int first = -1;
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *c = sc_px(px, W, x, y);
            if (first < 0 && c[0] > 0) first = (int)x;
            if (x < 63 && !(c[0] == 0 && c[1] == 0 && abs(c[2] - sky_b) <= 1)) bad_sky++;
            if (x > 64 && abs(c[0] - quad_r) > 1) bad_edge++;
        }
        if (abs(first - 64) > 1) bad_edge++;
    }
    CHECK_EQ_INT(bad_sky, 0);
    CHECK_EQ_INT(bad_edge, 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuAlphaCutoutEdge.png", px, W, H);
}

/* A busy frame: shadows, textures, MASK, BLEND, a point light, dither, FXAA. */
static void busy_frame(uint8_t *px, uint32_t w, uint32_t h) {
    sc_scene s;
    sc_init(&s, w, h);
    s.view.post.no_fxaa = false;
    s.view.post.no_dither = false;
    const float eye[3] = {6, 4, 9}, at[3] = {0, 0.5f, 0};
    sc_camera(&s, eye, at, UP_Y, 50, 0, 0.1f, 500);
    s.view.sky_zenith[0] = 0.2f, s.view.sky_zenith[1] = 0.4f, s.view.sky_zenith[2] = 1.0f;
    s.view.sky_horizon[0] = 0.6f, s.view.sky_horizon[1] = 0.7f, s.view.sky_horizon[2] = 0.9f;
    for (int k = 0; k < 3; k++) {
        s.view.env.ambient_sky[k] = 0.3f;
        s.view.env.ambient_ground[k] = 0.1f;
    }
    s.view.env.fog_density = 0.01f;
    s.view.fog_color[0] = s.view.fog_color[1] = s.view.fog_color[2] = 0.5f;
    uint8_t tex[64 * 64 * 4];
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t *t = tex + (y * 64 + x) * 4;
            bool on = ((x / 8) ^ (y / 8)) & 1;
            t[0] = on ? 230 : 40, t[1] = on ? 200 : 90, t[2] = on ? 160 : 60;
            t[3] = (x + y) % 16 < 10 ? 255 : 0;
        }
    oak_texture_desc td = {64, 64, OAK_FORMAT_RGBA8_SRGB, tex, false, "busy"};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 0.5f;
    md.base_color_tex.texture = t;
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 8;
    oak_material ground_m = {0}, mask_m = {0}, glass_m = {0};
    CHECK_OK(oak_make_material(&ground_m, &md));
    md.alpha_mode = OAK_ALPHA_MASK;
    md.double_sided = true;
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 1;
    CHECK_OK(oak_make_material(&mask_m, &md));
    oak_material_desc gd = oak_material_desc_defaults(NULL);
    gd.alpha_mode = OAK_ALPHA_BLEND;
    gd.base_color[0] = 0.2f, gd.base_color[3] = 0.4f, gd.metallic = 0, gd.roughness = 0.1f;
    CHECK_OK(oak_make_material(&glass_m, &gd));
    oak_material red = sc_material(0.8f, 0.1f, 0.1f, 0, 0.4f, false);
    oak_material metal = sc_material(0.9f, 0.8f, 0.5f, 1, 0.3f, false);
    mat4 id = GLM_MAT4_IDENTITY_INIT, m;
    oak_mesh ground = sc_ground(30);
    sc_draw(&s, ground, ground_m, id);
    sc_caster(&s, ground, ground_m, id);
    for (int i = 0; i < 5; i++) {
        const float lo[3] = {-0.5f, 0, -0.5f}, hi[3] = {0.5f, 1.0f + i * 0.3f, 0.5f};
        oak_mesh box = sc_box(lo, hi);
        glm_mat4_identity(m);
        glm_translate(m, (vec3){-3.0f + i * 1.5f, 0, (float)(i % 2) - 0.5f});
        glm_rotate_y(m, 0.3f * i, m);
        sc_draw(&s, box, i % 2 ? red : metal, m);
        sc_caster(&s, box, i % 2 ? red : metal, m);
    }
    const float fence[4][3] = {{-4, 0, 2}, {4, 0, 2}, {4, 2, 2}, {-4, 2, 2}};
    oak_mesh fm = sc_quad(fence);
    sc_draw(&s, fm, mask_m, id);
    sc_caster(&s, fm, mask_m, id);
    const float pane[4][3] = {{-2, 0, 3.5f}, {2, 0, 3.5f}, {2, 2.5f, 3.5f}, {-2, 2.5f, 3.5f}};
    sc_draw(&s, sc_quad(pane), glass_m, id);
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
    const float dir[3] = {-0.5f, -0.75f, -0.433f};
    memcpy(sun->direction, dir, sizeof dir);
    s.view.key_light = 0;
    sc_sun_shadow(&s, dir, 512, 12);
    oak_render_light *lamp = sc_light(&s, OAK_LIGHT_POINT, 10);
    lamp->position[0] = 1, lamp->position[1] = 1.5f, lamp->position[2] = 1;
    lamp->light.range = 8;
    lamp->light.color[2] = 0.5f;
    CHECK_OK(sc_render(&s, px, NULL, NULL));
}

TEST(cpuThreadCountDeterminism) {
    enum { W = 320, H = 200 };
    static uint8_t ref[W * H * 4], px[W * H * 4];
    const uint32_t threads[3] = {1, 2, 7};
    for (int i = 0; i < 3; i++) {
        oak_shutdown();
        oak_test_init(threads[i]);
        CHECK_EQ_INT(oak_job_threads(), threads[i]);
        busy_frame(i ? px : ref, W, H);
        if (i) {
            int diff = 0;
            for (size_t k = 0; k < sizeof px; k++) diff += px[k] != ref[k];
            CHECK_EQ_INT(diff, 0);
        }
    }
    /* the serial bin merge, kept beside the parallel one, agrees */
    setenv("OAK_CPU_SERIAL_MERGE", "1", 1);
    busy_frame(px, W, H);
    unsetenv("OAK_CPU_SERIAL_MERGE");
    CHECK(memcmp(px, ref, sizeof px) == 0);
    /* the frame is not trivially uniform */
    int distinct = 0;
    for (uint32_t x = 1; x < W; x++)
        distinct += memcmp(ref + ((H / 2) * W + x) * 4, ref + ((H / 2) * W + x - 1) * 4, 3) != 0;
    CHECK(distinct > W / 4);
    sc_save("cpuThreadCountDeterminism.png", ref, W, H);
}

/* A soup of triangles around the eye: inside the view, behind it, across
   the near plane and far past the guard band's edge, with a vertex count
   that is not a multiple of four. */
static oak_mesh soup_mesh(uint32_t seed, uint32_t tris) {
    uint32_t nv = tris * 3 + 3;
    float *pos = calloc((size_t)nv * 3, sizeof(float));
    uint32_t *idx = calloc((size_t)tris * 3, sizeof(uint32_t));
    CHECK(pos && idx);
    uint32_t r = seed;
    for (uint32_t t = 0; t < tris; t++) {
        float c[3];
        for (int k = 0; k < 3; k++) {
            r = r * 1664525u + 1013904223u;
            c[k] = ((float)(r >> 8) / 16777216.0f - 0.5f) * (t % 5 == 0 ? 60.0f : 14.0f);
        }
        c[2] -= t % 5 == 0 ? 0 : 6; /* most in front of the eye (at z 0, looking down -z) */
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++) {
                r = r * 1664525u + 1013904223u;
                float size = t % 7 == 0 ? 40.0f : 2.0f; /* a few huge ones, far */
                float far = t % 7 == 0 && k == 2 ? -70.0f : 0.0f;
                pos[(t * 3 + v) * 3 + k] =
                    c[k] + far + ((float)(r >> 8) / 16777216.0f - 0.5f) * size;
            }
        for (int v = 0; v < 3; v++) idx[t * 3 + v] = t * 3 + v;
    }
    oak_mesh_desc d = {0};
    d.vertex_count = nv;
    d.index_count = tris * 3;
    d.positions = pos;
    d.indices = idx;
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    free(pos);
    free(idx);
    return m;
}

static void soup_frame(uint8_t *px, uint32_t w, uint32_t h, oak_mesh a, oak_mesh b) {
    sc_scene s;
    sc_init(&s, w, h);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 0}, at[3] = {0, 0, -1};
    sc_camera(&s, eye, at, UP_Y, 70, 0, 0.05f, 100);
    s.view.jitter[0] = 0.37f, s.view.jitter[1] = -0.21f; /* pixels */
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, a, sc_material(0.9f, 0.3f, 0.1f, 0, 1, true), id);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.1f, md.base_color[1] = 0.4f, md.base_color[2] = 0.8f;
    md.unlit = true;
    md.double_sided = true;
    oak_material two = {0};
    CHECK_OK(oak_make_material(&two, &md));
    mat4 m;
    glm_mat4_identity(m);
    glm_rotate_y(m, 0.4f, m);
    sc_draw(&s, b, two, m);
    CHECK_OK(sc_render(&s, px, NULL, NULL));
}

/* The vertex stage four vertices at a time (cpu_geometry.c) is the one
   vertex at a time stage, bit for bit: same coverage and depth. */
TEST(cpuVertexLanesAreTheScalarStage) {
    enum { W = 256, H = 160 };
    static uint8_t ref[W * H * 4], px[W * H * 4];
    oak_mesh a = soup_mesh(7, 3001), b = soup_mesh(99, 1502);
    setenv("OAK_CPU_SCALAR_VERTEX", "1", 1);
    soup_frame(ref, W, H, a, b);
    unsetenv("OAK_CPU_SCALAR_VERTEX");
    soup_frame(px, W, H, a, b);
    int diff = 0, red = 0, blue = 0;
    for (size_t k = 0; k < (size_t)W * H; k++) {
        diff += memcmp(px + k * 4, ref + k * 4, 4) != 0;
        red += ref[k * 4] > 200 && ref[k * 4 + 2] < 150;
        blue += ref[k * 4 + 2] > 200 && ref[k * 4] < 150;
    }
    CHECK_EQ_INT(diff, 0);
    /* both draws cover a good part of the frame, neither all of it */
    CHECK(red > W * H / 20 && red < W * H * 9 / 10);
    CHECK(blue > W * H / 20 && blue < W * H * 9 / 10);
    sc_save("cpuVertexLanesAreTheScalarStage.png", ref, W, H);
    oak_destroy_mesh(a);
    oak_destroy_mesh(b);
}

TEST(cpuSyncRereadsMovedMeshAndMaterial) {
    enum { W = 64, H = 32 };
    sc_scene s;
    sc_init(&s, W, H);
    s.view.post.no_tonemap = true;
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    const float left[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    oak_mesh m = sc_quad(left);
    oak_material mat = sc_material(1, 0, 0, 0, 1, true);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, m, mat, id);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {W, H, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    uint8_t px[W * H * 4];
    CHECK_OK(be->sync(self, &s.view));
    CHECK_OK(be->render(self, &s.view));
    CHECK_OK(be->read_pixels(self, px, sizeof px));
    /* red quad on the left half, black sky on the right */
    CHECK_EQ_INT(sc_px(px, W, 16, 16)[0], 255);
    CHECK_EQ_INT(sc_px(px, W, 48, 16)[0], 0);
    /* move the quad to the right half and make it green: both versions move */
    float pos[12], uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    const float right[4][3] = {{0, -0.5f, 0}, {1, -0.5f, 0}, {1, 0.5f, 0}, {0, 0.5f, 0}};
    memcpy(pos, right, sizeof pos);
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc md = {0};
    md.vertex_count = 4, md.index_count = 6, md.positions = pos, md.uv0 = uv, md.indices = idx;
    CHECK_OK(oak_mesh_update(m, &md));
    oak_material_desc gd = oak_material_desc_defaults(NULL);
    gd.base_color[0] = 0, gd.base_color[1] = 1, gd.base_color[2] = 0;
    gd.unlit = true;
    CHECK_OK(oak_material_update(mat, &gd));
    CHECK_OK(be->sync(self, &s.view));
    CHECK_OK(be->render(self, &s.view));
    CHECK_OK(be->read_pixels(self, px, sizeof px));
    CHECK_EQ_INT(sc_px(px, W, 16, 16)[1], 0);
    CHECK_EQ_INT(sc_px(px, W, 48, 16)[1], 255);
    CHECK_EQ_INT(sc_px(px, W, 48, 16)[0], 0);
    be->destroy(self);
}

TEST(cpuRejectsStaleHandlesAndShortBuffers) {
    enum { W = 32, H = 32 };
    sc_scene s;
    sc_init(&s, W, H);
    const float eye[3] = {0, 0, 5}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_Y, 0, 1, 0.1f, 100);
    const float q[4][3] = {{-1, -0.5f, 0}, {0, -0.5f, 0}, {0, 0.5f, 0}, {-1, 0.5f, 0}};
    oak_mesh m = sc_quad(q);
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    sc_draw(&s, m, sc_material(1, 1, 1, 0, 1, true), id);
    oak_destroy_mesh(m);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {W, H, NULL, 0};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    CHECK_EQ_INT(be->sync(self, &s.view), OAK_ERROR_NOT_FOUND);
    CHECK_EQ_INT(be->render(self, &s.view), OAK_ERROR_NOT_FOUND);
    CHECK(strstr(oak_last_error(), "mesh") != NULL);
    uint8_t small[16];
    CHECK_EQ_INT(be->read_pixels(self, small, sizeof small), OAK_ERROR_INVALID_ARGUMENT);
    /* an empty view still renders: all sky */
    s.view.draws.count = 0;
    s.view.sky_zenith[1] = s.view.sky_horizon[1] = 1;
    CHECK_OK(be->render(self, &s.view));
    uint8_t px[W * H * 4];
    CHECK_OK(be->read_pixels(self, px, sizeof px));
    CHECK_EQ_INT(sc_px(px, W, 5, 5)[1], sc_byte(1.0, true));
    CHECK_EQ_INT(be->resize(self, 0, 10), OAK_ERROR_INVALID_ARGUMENT);
    be->destroy(self);
}

TEST(cpuShadowMapKeptWhileCastersStandStill) {
    enum { W = 64 };
    sc_scene s;
    sc_init(&s, W, W);
    const float eye[3] = {0, 20, 0}, at[3] = {0, 0, 0};
    sc_camera(&s, eye, at, UP_NEG_Z, 0, 8, 1, 100);
    mat4 id = GLM_MAT4_IDENTITY_INIT, moved;
    oak_mesh ground = sc_ground(20);
    const float lo[3] = {-0.5f, 0, -0.5f}, hi[3] = {0.5f, 1, 0.5f};
    oak_mesh box = sc_box(lo, hi);
    oak_material white = sc_material(0.8f, 0.8f, 0.8f, 0, 1, false);
    sc_draw(&s, ground, white, id);
    sc_draw(&s, box, white, id);
    sc_caster(&s, ground, white, id);
    sc_caster(&s, box, white, id);
    const float d = 0.70710678f, dir[3] = {-d, -d, 0};
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
    memcpy(sun->direction, dir, sizeof dir);
    s.view.key_light = 0;
    sc_sun_shadow(&s, dir, 512, 8);
    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc bd = {W, W, NULL, 0};
    CHECK_OK(be->create(&self, &bd));
    if (!self) return;
    static uint8_t f1[W * W * 4], f2[W * W * 4], f3[W * W * 4], fresh[W * W * 4];
    uint8_t *frames[3] = {f1, f2, f3};
    for (int f = 0; f < 3; f++) {
        if (f == 2) { /* the box moves 2 m along +z: its shadow must follow */
            glm_translate_make(moved, (vec3){0, 0, 2});
            glm_mat4_copy(moved, s.world[1]);
            glm_mat4_copy(moved, s.cworld[1]);
        }
        CHECK_OK(be->sync(self, &s.view));
        CHECK_OK(be->render(self, &s.view));
        CHECK_OK(be->read_pixels(self, frames[f], sizeof f1));
    }
    be->destroy(self);
    CHECK(memcmp(f1, f2, sizeof f1) == 0); /* the kept map draws the same */
    CHECK(memcmp(f1, f3, sizeof f1) != 0);
    CHECK_OK(sc_render(&s, fresh, NULL, NULL)); /* a new backend draws the moved box */
    CHECK(memcmp(f3, fresh, sizeof f3) == 0);
}

TEST(cpuSurvivesHostileGeometry) {
    /* 1e30 and 1e-30 coordinates, a vertex at the eye, points on the eye
       plane and behind it, degenerate and sliver triangles (the registry
       refuses non-finite ones): no crash, no sanitizer report, and the same
       bytes for 1 and 3 threads */
    enum { W = 96, H = 64, N = 300 };
    static float pos[N * 3];
    uint32_t seed = 7;
    const float special[8] = {1e30f, -1e30f, 1e20f, -3e7f, 0, 1e-30f, 3e5f, 5};
    for (int i = 0; i < N * 3; i++) {
        seed = seed * 1664525u + 1013904223u;
        float r = (float)(seed >> 8) / 16777216.0f * 20 - 10;
        pos[i] = (seed >> 4) % 23 == 0 ? special[(seed >> 12) % 8] : r;
    }
    pos[0] = 0, pos[1] = 1, pos[2] = 5; /* the eye itself */
    static uint8_t a[W * H * 4], b[W * H * 4];
    for (int run = 0; run < 2; run++) {
        oak_shutdown();
        oak_test_init(run ? 3 : 1);
        sc_scene s;
        sc_init(&s, W, H);
        s.view.post.no_fxaa = false;
        const float eye[3] = {0, 1, 5}, at[3] = {0, 0, 0};
        sc_camera(&s, eye, at, UP_Y, 70, 0, 0.05f, 1000);
        /* the soup shadows itself almost everywhere: ambient shows it */
        for (int k = 0; k < 3; k++) s.view.env.ambient_sky[k] = s.view.env.ambient_ground[k] = 0.5f;
        oak_mesh_desc d = {0};
        d.vertex_count = N;
        d.positions = pos;
        oak_mesh m = {0};
        CHECK_OK(oak_make_mesh(&m, &d));
        mat4 id = GLM_MAT4_IDENTITY_INIT;
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.double_sided = true;
        md.metallic = 0;
        oak_material mat = {0};
        CHECK_OK(oak_make_material(&mat, &md));
        sc_draw(&s, m, mat, id);
        sc_caster(&s, m, mat, id);
        oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
        const float dir[3] = {0.3f, -0.9f, 0.3f};
        memcpy(sun->direction, dir, sizeof dir);
        s.view.key_light = 0;
        sc_sun_shadow(&s, dir, 256, 15);
        CHECK_OK(sc_render(&s, run ? b : a, NULL, NULL));
    }
    CHECK(memcmp(a, b, sizeof a) == 0);
    int lit = 0; /* something of the mesh shows */
    for (int i = 0; i < W * H; i++) lit += a[i * 4] > 0;
    CHECK(lit > 0);
    if (oak_test_failures_ || getenv("OAK_TEST_SAVE")) sc_save("cpuHostile.png", a, W, H);
}

int main(void) {
    oak_test_init(0);
    RUN(cpuLambertPlaneUnderSun);
    RUN(cpuBoxShadowEdge);
    RUN(cpuLongThinTrianglesDepth);
    RUN(cpuAlphaCutoutEdge);
    RUN(cpuThreadCountDeterminism);
    RUN(cpuVertexLanesAreTheScalarStage);
    RUN(cpuSyncRereadsMovedMeshAndMaterial);
    RUN(cpuRejectsStaleHandlesAndShortBuffers);
    RUN(cpuShadowMapKeptWhileCastersStandStill);
    RUN(cpuSurvivesHostileGeometry);
    oak_shutdown();
    return TEST_SUMMARY();
}
