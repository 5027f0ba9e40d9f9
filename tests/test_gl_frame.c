/* The OpenGL frame against numbers worked out from docs/SHADING.md by hand:
 * a grey card under a noon sun, the sky's gradient, a shadow edge in world
 * metres, alpha-mask cut-outs, and no heap use once warm. Views come from the
 * real frontend; the backend is driven through its vtable. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"
#include "render/frontend.h"

static const oak_backend *gl(void) {
    return oak_backend_gl();
}

typedef struct scene {
    oak_frontend fe;
    void *gl;
    uint32_t w, h;
    oak_frame_input in;
    oak_mesh meshes[8];
    oak_material mats[8];
    mat4 xf[8];
    uint32_t flags[8];
    oak_render_light lights[2];
    oak_environment env;
    oak_post post;
    uint8_t *px;
} scene;

static bool scene_begin(scene *s, uint32_t w, uint32_t h) {
    memset(s, 0, sizeof *s);
    s->w = w, s->h = h;
    oak_backend_desc d = {.width = w, .height = h, .shadow_map_size = 1024};
    if (gl()->create(&s->gl, &d) != OAK_OK) {
        fprintf(stderr, "gl create: %s\n", oak_last_error());
        return false;
    }
    s->env = (oak_environment){0}; /* black sky, no ambient, no fog */
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    s->in.meshes = s->meshes, s->in.materials = s->mats, s->in.transforms = (const mat4 *)s->xf;
    s->in.flags = s->flags;
    s->in.lights = s->lights;
    s->in.environment = &s->env, s->in.post = &s->post;
    s->px = oak_alloc((size_t)w * h * 4);
    return true;
}

static void scene_end(scene *s) {
    gl()->destroy(s->gl);
    _oak_frontend_release(&s->fe);
    oak_free(s->px);
}

static void add_draw(scene *s, oak_mesh m, oak_material mat, const float pos[3]) {
    uint32_t i = s->in.draw_count++;
    s->meshes[i] = m, s->mats[i] = mat;
    glm_mat4_identity(s->xf[i]);
    glm_translate(s->xf[i], (float *)pos);
}

/* camera at height y looking straight down; image right = +x, image up = -z */
static void camera_down(scene *s, float y) {
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){0, y, 0});
    glm_rotate(s->in.camera_world, -OAK_PI / 2, (vec3){1, 0, 0});
}

static oak_result scene_draw(scene *s) {
    oak_result r = _oak_frontend_build(&s->fe, &s->in, s->w, s->h, 1024);
    if (r == OAK_OK) r = gl()->sync(s->gl, &s->fe.view);
    if (r == OAK_OK) r = gl()->render(s->gl, &s->fe.view);
    if (r == OAK_OK) r = gl()->read_pixels(s->gl, s->px, (size_t)s->w * s->h * 4);
    return r;
}

static uint8_t *at(scene *s, uint32_t x, uint32_t y) {
    return &s->px[((size_t)y * s->w + x) * 4];
}

static int encode(float linear) {
    float c = linear < 0 ? 0 : linear > 1 ? 1 : linear;
    float e = c < 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1 / 2.4f) - 0.055f;
    return (int)floorf(e * 255 + 0.5f);
}

static oak_material lambert(float grey, float roughness) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = d.base_color[1] = d.base_color[2] = grey;
    d.metallic = 0, d.roughness = roughness;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &d));
    return m;
}

static oak_mesh plane(float size) {
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {size, 1, size}};
    oak_mesh m = {0};
    CHECK_OK(oak_make_shape(&m, &sd));
    return m;
}

/* Grey 0.5, rough 1, sun of 3 straight down, camera straight down: at the
 * centre N = L = V, so D = 1/pi, Vis = 1/4, F = 0.04 and
 * L = 3 * (0.5/pi + 0.04/(4 pi)) = 0.48701 (no ambient: the sky is black). */
TEST(glGreyCardUnderNoonSunMatchesBrdf) {
    scene s;
    if (!scene_begin(&s, 64, 64)) {
        CHECK(0);
        return;
    }
    add_draw(&s, plane(40), lambert(0.5f, 1.0f), (float[3]){0, 0, 0});
    s.lights[0].light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s.lights[0].light.cast_shadows = false;
    s.lights[0].direction[1] = -1;
    s.in.light_count = 1;
    camera_down(&s, 10);
    CHECK_OK(scene_draw(&s));
    float expect = 3.0f * (0.5f / OAK_PI + 0.04f / (4 * OAK_PI));
    int e = encode(expect);
    fprintf(stderr, "grey card: expected %d (linear %.5f), got %d %d %d\n", e, expect,
            at(&s, 32, 32)[0], at(&s, 32, 32)[1], at(&s, 32, 32)[2]);
    CHECK_NEAR(at(&s, 32, 32)[0], e, 1);
    CHECK_NEAR(at(&s, 32, 32)[1], e, 1);
    CHECK_EQ_INT(at(&s, 32, 32)[3], 255);
    /* the whole view is card, every pixel within 2 of the centre (V moves a little) */
    int far = 0;
    for (uint32_t y = 0; y < 64; y++)
        for (uint32_t x = 0; x < 64; x++) far += abs(at(&s, x, y)[1] - e) > 2;
    CHECK_EQ_INT(far, 0);
    scene_end(&s);
}

/* Without geometry every pixel is sky(view ray) (SHADING.md "Fog"). */
TEST(glEmptyViewShowsSkyGradient) {
    scene s;
    if (!scene_begin(&s, 48, 32)) {
        CHECK(0);
        return;
    }
    s.env.sky_zenith_display[0] = 0.2f, s.env.sky_zenith_display[1] = 0.4f;
    s.env.sky_zenith_display[2] = 0.8f;
    s.env.sky_horizon_display[0] = 0.9f, s.env.sky_horizon_display[1] = 0.8f;
    s.env.sky_horizon_display[2] = 0.7f;
    glm_mat4_identity(s.in.camera_world);
    glm_rotate(s.in.camera_world, 0.3f, (vec3){1, 0, 0}); /* look up a little */
    CHECK_OK(scene_draw(&s));
    const oak_render_view *v = &s.fe.view;
    int worst = 0;
    for (uint32_t y = 0; y < 32; y += 3)
        for (uint32_t x = 0; x < 48; x += 5) {
            vec4 a = {(x + 0.5f) / 48 * 2 - 1, 1 - (y + 0.5f) / 32 * 2, 1, 1}, b;
            glm_vec4_copy(a, b);
            b[2] = 0.5f;
            vec4 pa, pb;
            glm_mat4_mulv((vec4 *)v->inv_view_proj, a, pa);
            glm_mat4_mulv((vec4 *)v->inv_view_proj, b, pb);
            vec3 d;
            for (int k = 0; k < 3; k++) d[k] = pb[k] / pb[3] - pa[k] / pa[3];
            glm_vec3_normalize(d);
            for (int c = 0; c < 3; c++) {
                float sky = d[1] > 0 ? v->sky_horizon[c] +
                                           (v->sky_zenith[c] - v->sky_horizon[c]) * sqrtf(d[1])
                                     : v->sky_horizon[c];
                int diff = abs(at(&s, x, y)[c] - encode(sky));
                if (diff > worst) worst = diff;
            }
        }
    CHECK(worst <= 1);
    /* the top row is bluer than the bottom one */
    CHECK(at(&s, 24, 0)[2] - at(&s, 24, 0)[0] > at(&s, 24, 31)[2] - at(&s, 24, 31)[0]);
    scene_end(&s);
}

/* A 1 m box on the ground, the sun at 45 degrees travelling +x: the box's top
 * edge at x = 0.5, y = 1 throws the shadow's far edge to x = 1.5. */
TEST(glShadowEdgeLandsAtOnePointFiveMetres) {
    scene s;
    if (!scene_begin(&s, 200, 200)) {
        CHECK(0);
        return;
    }
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    oak_mesh box = {0};
    CHECK_OK(oak_make_shape(&box, &bd));
    oak_material grey = lambert(0.5f, 1.0f);
    add_draw(&s, plane(40), grey, (float[3]){0, 0, 0});
    add_draw(&s, box, grey, (float[3]){0, 0.5f, 0});
    s.lights[0].light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s.lights[0].direction[0] = 0.70710678f, s.lights[0].direction[1] = -0.70710678f;
    s.in.light_count = 1;
    camera_down(&s, 8);
    s.in.camera.zfar = 12; /* the cascade covers the view to 12 m: ~2 cm texels */
    CHECK_OK(scene_draw(&s));
    const oak_render_view *v = &s.fe.view;
    CHECK(v->shadows);
    CHECK(v->cascades[0].texel_world < 0.03f);
    /* walk the ground along z = 0 from x = 0.6 to 2.5 in 1 cm steps */
    float edge = -1;
    int shadowed = 0, lit = 0;
    for (float x = 0.6f; x < 2.5f; x += 0.01f) {
        vec4 p = {x, 0, 0, 1}, c;
        glm_mat4_mulv((vec4 *)v->view_proj, p, c);
        int px = (int)floorf((c[0] / c[3] * 0.5f + 0.5f) * 200);
        int py = (int)floorf((0.5f - c[1] / c[3] * 0.5f) * 200);
        int g = at(&s, (uint32_t)px, (uint32_t)py)[1];
        if (g < 10) shadowed++;
        if (g > 100) {
            lit++;
            if (edge < 0) edge = x;
        }
    }
    fprintf(stderr, "shadow edge at x = %.3f m (expected 1.5), %d dark and %d lit samples\n", edge,
            shadowed, lit);
    CHECK_NEAR(edge, 1.5, 0.08);
    CHECK(shadowed > 70);
    CHECK(lit > 80);
    if (oak_test_failures_) {
        char path[512];
        oak_image_write_png(oak_test_out(path, sizeof path, "gl_shadow_edge.png"), 200, 200, s.px);
        fprintf(stderr, "wrote %s\n", path);
    }
    scene_end(&s);
}

/* A MASK material on a plane, its texture's alpha 0 on the left half: the
 * left half shows the grey card below, the right half the masked one. */
TEST(glAlphaMaskCutsOutBelowCutoff) {
    scene s;
    if (!scene_begin(&s, 64, 64)) {
        CHECK(0);
        return;
    }
    uint8_t texels[8 * 8 * 4];
    for (int i = 0; i < 64; i++) {
        texels[i * 4 + 0] = texels[i * 4 + 1] = texels[i * 4 + 2] = 255;
        texels[i * 4 + 3] = (i % 8) < 4 ? 0 : 255;
    }
    oak_texture_desc td = {
        .width = 8, .height = 8, .format = OAK_FORMAT_RGBA8, .pixels = texels, .no_mips = true};
    oak_texture tex = {0};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 1;
    md.unlit = true;
    md.alpha_mode = OAK_ALPHA_MASK;
    md.base_color_tex.texture = tex;
    md.base_color_tex.sampler.mag = OAK_FILTER_NEAREST;
    oak_material masked = {0};
    CHECK_OK(oak_make_material(&masked, &md));
    oak_material_desc ud = oak_material_desc_defaults(NULL);
    ud.unlit = true;
    ud.base_color[0] = 0, ud.base_color[1] = 0, ud.base_color[2] = 1;
    oak_material blue = {0};
    CHECK_OK(oak_make_material(&blue, &ud));
    add_draw(&s, plane(2), masked, (float[3]){0, 1, 0});
    add_draw(&s, plane(40), blue, (float[3]){0, 0, 0});
    camera_down(&s, 3);
    CHECK_OK(scene_draw(&s));
    /* the plane's u runs along +x, so the left half (u < 0.5) is cut out */
    uint8_t *left = at(&s, 26, 32), *right = at(&s, 38, 32);
    CHECK_EQ_INT(left[0], 0);
    CHECK_EQ_INT(left[2], 255);
    CHECK_EQ_INT(right[0], 255);
    CHECK_EQ_INT(right[2], 255);
    scene_end(&s);
}

TEST(glWarmFrameMakesNoHeapCalls) {
    oak_shutdown();
    oak_engine_desc d = {.log_level = OAK_LOG_WARN, .allocator = oak_test_counting_allocator()};
    CHECK_OK(oak_init(&d));
    scene s;
    if (!scene_begin(&s, 64, 48)) {
        CHECK(0);
        return;
    }
    oak_shape_desc bd = {.type = OAK_SHAPE_SPHERE};
    oak_mesh ball = {0};
    CHECK_OK(oak_make_shape(&ball, &bd));
    add_draw(&s, plane(40), lambert(0.5f, 0.5f), (float[3]){0, 0, 0});
    add_draw(&s, ball, lambert(0.8f, 0.3f), (float[3]){0, 0.5f, 0});
    s.lights[0].light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s.lights[0].direction[0] = 0.5f, s.lights[0].direction[1] = -0.8f;
    s.in.light_count = 1;
    camera_down(&s, 6);
    for (int i = 0; i < 3; i++) CHECK_OK(scene_draw(&s));
    uint64_t before = oak_test_heap_calls();
    for (int i = 0; i < 3; i++) {
        CHECK_OK(gl()->sync(s.gl, &s.fe.view));
        CHECK_OK(gl()->render(s.gl, &s.fe.view));
        CHECK_OK(gl()->read_pixels(s.gl, s.px, (size_t)s.w * s.h * 4));
    }
    CHECK_EQ_INT(oak_test_heap_calls() - before, 0);
    scene_end(&s);
    oak_shutdown();
    oak_test_init(0);
}

TEST(glEveryPassCompiles) {
    _oak_gl_context c;
    CHECK_OK(_oak_gl_context_create(&c, true));
    GLuint p[OAK_GL_FRAME_PROGRAMS] = {0};
    CHECK_OK(_oak_gl_frame_programs(p));
    for (int i = 0; i < OAK_GL_FRAME_PROGRAMS; i++) {
        CHECK(p[i] != 0);
        if (p[i]) glDeleteProgram(p[i]);
    }
    _oak_gl_context_destroy(&c);
}

int main(void) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    RUN(glEveryPassCompiles);
    RUN(glGreyCardUnderNoonSunMatchesBrdf);
    RUN(glEmptyViewShowsSkyGradient);
    RUN(glShadowEdgeLandsAtOnePointFiveMetres);
    RUN(glAlphaMaskCutsOutBelowCutoff);
    RUN(glWarmFrameMakesNoHeapCalls);
    uint32_t errors = _oak_gl_debug_errors() - base;
    if (errors) fprintf(stderr, "FAIL: %u GL debug errors\n", errors);
    oak_shutdown();
    return errors ? 1 : TEST_SUMMARY();
}
