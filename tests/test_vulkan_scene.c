/* Scenes on the Vulkan backend checked against numbers worked out by hand:
 * coverage of an unlit card in pixels, a grey card's value under a noon sun,
 * an alpha cutout's area, a shadow's position in metres. Validation is on. */
#include "vulkan_test.h"

#define W 160
#define H 96

/* Camera straight above the origin looking down -Y, orthographic. */
static void look_down(oak_frame_input *in, float height, float ortho_height) {
    memset(in->camera_world, 0, sizeof(mat4));
    in->camera_world[0][0] = 1;  /* camera x = world x */
    in->camera_world[1][2] = -1; /* camera up = world -z */
    in->camera_world[2][1] = 1;  /* camera back = world +y */
    in->camera_world[3][1] = height;
    in->camera_world[3][3] = 1;
    in->camera.ortho_height = ortho_height;
    in->camera.znear = 0.1f;
    in->camera.zfar = 100.0f;
}

static oak_post raw_post(void) {
    return (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
}

typedef struct scene {
    vkt_frontend fe;
    void *vk;
    uint8_t px[W * H * 4];
} scene;

static scene *scene_open(void) {
    scene *s = oak_calloc(1, sizeof *s);
    oak_backend_desc d = {.width = W, .height = H, .shadow_map_size = 512};
    if (s) s->fe.shadow_size = 1024;
    if (s && oak_backend_vulkan()->create(&s->vk, &d) != OAK_OK) {
        oak_free(s);
        return NULL;
    }
    return s;
}

static void scene_close(scene *s) {
    if (!s) return;
    oak_backend_vulkan()->destroy(s->vk);
    vkt_frontend_release(&s->fe);
    oak_free(s);
}

static bool scene_draw(scene *s, const oak_frame_input *in) {
    const oak_render_view *v = vkt_view(&s->fe, W, H, in);
    if (!v) return false;
    return vkt_draw(s->vk, v, s->px) == OAK_OK;
}

/* n cards (meshes, materials, world matrices) drawn unlit-ready from 10 m
 * above, 4 m of the world across the picture's height, no post. */
static bool draw_cards(scene *s, uint32_t n, const oak_mesh *meshes, const oak_material *mats,
                       const mat4 *worlds) {
    oak_frame_input in = {0};
    look_down(&in, 10, 4);
    oak_post post = raw_post();
    in.post = &post;
    in.draw_count = n;
    in.meshes = meshes;
    in.materials = mats;
    in.transforms = worlds;
    return scene_draw(s, &in);
}

static const uint8_t *at(scene *s, int x, int y) {
    return s->px + (y * W + x) * 4;
}

TEST(vulkanUnlitCardCoversItsPixels) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    /* a 2 m x 1 m plane seen from above in a view 4 m tall (W/H wide) */
    oak_mesh plane;
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {2, 0, 1}};
    CHECK_OK(oak_make_shape(&plane, &sd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    md.base_color[0] = 1, md.base_color[1] = 0.5f, md.base_color[2] = 0;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    mat4 world = GLM_MAT4_IDENTITY_INIT;
    CHECK(draw_cards(s, 1, &plane, &mat, (const mat4 *)&world));
    /* pixel size 4/96 m: the card spans 2/(4/96) = 48 px by 24 px */
    int covered = 0, wrong = 0;
    uint8_t g = vkt_byte_round(0.5f);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            const uint8_t *p = at(s, x, y);
            if (p[0] == 255 && p[1] == g && p[2] == 0) {
                covered++;
                if (x < W / 2 - 24 || x >= W / 2 + 24 || y < H / 2 - 12 || y >= H / 2 + 12) wrong++;
            }
        }
    CHECK_EQ_INT(covered, 48 * 24);
    CHECK_EQ_INT(wrong, 0);
    oak_destroy_mesh(plane);
    oak_destroy_material(mat);
    scene_close(s);
}

/* N = V = L = up on a dielectric, roughness 1 (a = 1):
 * D = 1/pi, Vis = 0.25, F = 0.04; env BRDF at NdotV = 1, roughness 1 gives
 * AB = (0.4524, -0.0024), envF = 0.04 * 0.4524 - 0.0024. */
static float grey_card(float base, float E, float amb_sky, float zen, float hor) {
    float diffuse = base, F0 = 0.04f;
    float lo = (diffuse / OAK_PI + (1.0f / OAK_PI) * 0.25f * F0) * E;
    float envF = F0 * 0.4524f - 0.0024f;
    float amb = diffuse * amb_sky + 0.5f * (zen + hor) * envF;
    return lo + amb;
}

TEST(vulkanGreyCardUnderNoonSunMatchesBrdf) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    oak_mesh plane;
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {20, 0, 20}};
    CHECK_OK(oak_make_shape(&plane, &sd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.18f;
    md.metallic = 0;
    md.roughness = 1;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    mat4 world = GLM_MAT4_IDENTITY_INIT;
    oak_render_light sun = {.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL),
                            .direction = {0, -1, 0}};
    sun.light.intensity = 3;
    sun.light.cast_shadows = false;
    oak_environment env = oak_environment_defaults();
    oak_frame_input in = {0};
    look_down(&in, 10, 4);
    oak_post post = raw_post();
    in.post = &post;
    in.environment = &env;
    in.draw_count = 1;
    in.meshes = &plane;
    in.materials = &mat;
    in.transforms = (const mat4 *)&world;
    in.light_count = 1;
    in.lights = &sun;
    CHECK(scene_draw(s, &in));
    const oak_render_view *v = oak_renderer_last_view(s->fe.r);
    for (int c = 0; c < 3; c++) {
        float lin = grey_card(0.18f, 3, env.ambient_sky[c], v->sky_zenith[c], v->sky_horizon[c]);
        int want = vkt_byte_round(lin);
        fprintf(stderr, "  grey card channel %d: %d (expected %d, linear %.4f)\n", c,
                at(s, W / 2, H / 2)[c], want, lin);
        CHECK_NEAR(at(s, W / 2, H / 2)[c], want, 1);
        CHECK_NEAR(at(s, 5, 5)[c], want, 1); /* the card is uniform */
    }
    oak_destroy_mesh(plane);
    oak_destroy_material(mat);
    scene_close(s);
}

static void paint_half_alpha(uint8_t *rgba, uint32_t w, uint32_t h, void *user) {
    (void)user;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgba + (y * w + x) * 4;
            p[0] = p[1] = p[2] = 255;
            p[3] = x < w / 2 ? 0 : 255;
        }
}

TEST(vulkanAlphaCutoutRemovesHalfTheCard) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    oak_mesh plane;
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {2, 0, 2}};
    CHECK_OK(oak_make_shape(&plane, &sd));
    uint8_t texels[16 * 16 * 4];
    paint_half_alpha(texels, 16, 16, NULL);
    oak_texture tex;
    oak_texture_desc td = {
        .width = 16, .height = 16, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = texels};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    md.alpha_mode = OAK_ALPHA_MASK;
    md.base_color_tex.texture = tex;
    md.base_color_tex.sampler.mag = OAK_FILTER_NEAREST;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    mat4 world = GLM_MAT4_IDENTITY_INIT;
    CHECK(draw_cards(s, 1, &plane, &mat, (const mat4 *)&world));
    int white = 0;
    for (int i = 0; i < W * H; i++) white += s->px[i * 4] == 255 && s->px[i * 4 + 2] == 255;
    /* the card is 48 x 48 px; which half is cut depends on the plane's uv
       direction, so count, and check the two halves differ */
    CHECK_EQ_INT(white, 24 * 48);
    bool left = at(s, W / 2 - 12, H / 2)[2] == 255, right = at(s, W / 2 + 12, H / 2)[2] == 255;
    CHECK(left != right);
    oak_destroy_mesh(plane);
    oak_destroy_material(mat);
    oak_destroy_texture(tex);
    scene_close(s);
}

/* A 1 m square roof 1 m above a floor; the sun comes from 45 degrees in +x,
 * so the roof's shadow lies 1 m further along -x... i.e. at x in [-1.5, -0.5]
 * for a roof at x in [-0.5, 0.5] lit by a sun travelling toward -x. */
TEST(vulkanShadowFallsWhereGeometrySaysInMetres) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    oak_mesh floor_, roof;
    oak_shape_desc fd = {.type = OAK_SHAPE_PLANE, .size = {8, 0, 8}};
    oak_shape_desc rd = {.type = OAK_SHAPE_BOX, .size = {1, 0.05f, 1}};
    CHECK_OK(oak_make_shape(&floor_, &fd));
    CHECK_OK(oak_make_shape(&roof, &rd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.5f;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    mat4 worlds[2] = {GLM_MAT4_IDENTITY_INIT, GLM_MAT4_IDENTITY_INIT};
    worlds[1][3][1] = 1.0f;
    worlds[1][3][2] = 1.5f; /* roof off to +z so the camera sees its shadow beside it */
    oak_mesh meshes[2] = {floor_, roof};
    oak_material mats[2] = {mat, mat};
    oak_render_light sun = {.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL),
                            .direction = {-0.70710678f, -0.70710678f, 0}};
    sun.light.intensity = 3;
    sun.light.cast_shadows = true;
    oak_frame_input in = {0};
    look_down(&in, 10, 4); /* 4 m tall, 160/96*4 = 6.67 m wide */
    oak_post post = raw_post();
    in.post = &post;
    in.draw_count = 2;
    in.meshes = meshes;
    in.materials = mats;
    in.transforms = (const mat4 *)worlds;
    in.light_count = 1;
    in.lights = &sun;
    CHECK(scene_draw(s, &in));
    const oak_render_view *v = oak_renderer_last_view(s->fe.r);
    CHECK(v->shadows);
    /* Row through z = 1.5 (0.5 m... rows: y = H/2 + z / (4/96)); the roof
       covers x in [-0.5, 0.5], its shadow x in [-1.5 - 0.025, -0.5 + 0.025]. */
    float mpp = 4.0f / H;
    int row = H / 2 + (int)(1.5f / mpp);
    int lit = at(s, W / 2 - (int)(2.5f / mpp), row)[1];
    int dark = at(s, W / 2 - (int)(1.0f / mpp), row)[1];
    fprintf(stderr, "  shadow: lit %d, shadowed %d\n", lit, dark);
    CHECK(lit > dark + 40);
    /* the shadow's edges, found along the row, within a few cm of the maths */
    int x0 = -1, x1 = -1;
    int half = (lit + dark) / 2;
    for (int x = 0; x < W / 2; x++) {
        int g = at(s, x, row)[1];
        if (g < half && x0 < 0) x0 = x;
        if (g < half) x1 = x;
    }
    float e0 = ((float)x0 + 0.5f - W / 2) * mpp, e1 = ((float)x1 + 0.5f - W / 2) * mpp;
    fprintf(stderr, "  shadow spans x = %.3f .. %.3f m (expected -1.525 .. -0.475)\n", e0, e1);
    float tol = 2 * mpp + 2 * v->cascades[0].texel_world;
    CHECK_NEAR(e0, -1.525f, tol);
    CHECK_NEAR(e1, -0.475f, tol);
    oak_destroy_mesh(floor_);
    oak_destroy_mesh(roof);
    oak_destroy_material(mat);
    scene_close(s);
}

/* Odd sizes share one power-of-two size class (128 x 64 here), so a model's
 * many texture sizes do not run out of the 16 class bindings; an unlit card
 * nearest-sampled at its centre shows the texel there. */
TEST(vulkanOddTextureSizesShareOneClass) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    const uint32_t sizes[3][2] = {{100, 60}, {120, 50}, {65, 33}};
    static uint8_t texels[120 * 60 * 4];
    oak_mesh plane;
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {1, 0, 1}};
    CHECK_OK(oak_make_shape(&plane, &sd));
    oak_mesh meshes[3] = {plane, plane, plane};
    oak_material mats[3];
    oak_texture texs[3];
    mat4 worlds[3];
    for (int i = 0; i < 3; i++) {
        uint32_t w = sizes[i][0], h = sizes[i][1];
        for (uint32_t k = 0; k < w * h; k++) {
            texels[k * 4 + 0] = (uint8_t)(60 + 60 * i);
            texels[k * 4 + 1] = (uint8_t)(k % w < w / 2 ? 30 : 220);
            texels[k * 4 + 2] = 90;
            texels[k * 4 + 3] = 255;
        }
        oak_texture_desc td = {
            .width = w, .height = h, .pixels = texels, .format = OAK_FORMAT_RGBA8_SRGB};
        CHECK_OK(oak_make_texture(&texs[i], &td));
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.unlit = true;
        md.base_color_tex.texture = texs[i];
        md.base_color_tex.sampler.mag = md.base_color_tex.sampler.min = OAK_FILTER_NEAREST;
        CHECK_OK(oak_make_material(&mats[i], &md));
        glm_mat4_identity(worlds[i]);
        worlds[i][3][0] = -1.5f + 1.5f * (float)i;
    }
    CHECK(draw_cards(s, 3, meshes, mats, (const mat4 *)worlds));
    oak_vk_stats st;
    oak_vk_debug_stats(s->vk, &st);
    CHECK_EQ_INT(st.texture_classes, 1);
    for (int i = 0; i < 3; i++) {
        /* a quarter of the card left of its centre: the texture's left half */
        int x = W / 2 + (int)((-1.5f + 1.5f * (float)i - 0.25f) * H / 4.0f);
        const uint8_t *p = at(s, x, H / 2);
        CHECK_NEAR(p[0], 60 + 60 * i, 1);
        CHECK_NEAR(p[1], 30, 1);
        CHECK_NEAR(p[2], 90, 1);
    }
    for (int i = 0; i < 3; i++) {
        oak_destroy_material(mats[i]);
        oak_destroy_texture(texs[i]);
    }
    oak_destroy_mesh(plane);
    scene_close(s);
}

/* A 1024 x 1024 texture is 5.6 MB of levels, more than the first staging
 * buffer holds, so staging it replaces the buffer on the way. Every level
 * is staged in one block, so level 0 still reads its own bytes (staged level
 * by level, the one copy read level 0 from the new buffer's other bytes:
 * whole faces of the Fox sampled garbage on Vulkan only). The card's uv is
 * scaled to 1/16 so its 48 pixels read 64 texels of level 0, from the
 * texture's bottom half, which is blue-green where the top is red. */
TEST(vulkanLargeTextureLevelZeroArrivesWhole) {
    scene *s = scene_open();
    CHECK(s != NULL);
    if (!s) return;
    enum { N = 1024 };
    uint8_t *texels = oak_alloc((size_t)N * N * 4);
    CHECK(texels != NULL);
    if (!texels) {
        scene_close(s);
        return;
    }
    for (uint32_t y = 0; y < N; y++)
        for (uint32_t x = 0; x < N; x++) {
            uint8_t *p = texels + ((size_t)y * N + x) * 4;
            bool bottom = y >= N / 2;
            p[0] = bottom ? 30 : 220, p[1] = bottom ? 170 : 40, p[2] = bottom ? 140 : 50;
            p[3] = 255;
        }
    oak_texture tex;
    oak_texture_desc td = {
        .width = N, .height = N, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = texels};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_free(texels);
    CHECK_EQ_INT(oak_texture_get(tex)->mip_count, 11);
    oak_mesh plane;
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {2, 0, 2}};
    CHECK_OK(oak_make_shape(&plane, &sd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true;
    oak_texture_ref *ref = &md.base_color_tex;
    ref->texture = tex;
    ref->sampler.mag = ref->sampler.min = ref->sampler.mip = OAK_FILTER_NEAREST;
    ref->scale[0] = ref->scale[1] = 1.0f / 16;
    ref->offset[0] = 0.5f, ref->offset[1] = 0.9f;
    oak_material mat;
    CHECK_OK(oak_make_material(&mat, &md));
    mat4 world = GLM_MAT4_IDENTITY_INIT;
    CHECK(draw_cards(s, 1, &plane, &mat, (const mat4 *)&world));
    int green = 0;
    for (int y = H / 2 - 20; y < H / 2 + 20; y++)
        for (int x = W / 2 - 20; x < W / 2 + 20; x++) {
            const uint8_t *p = at(s, x, y);
            green += abs(p[0] - 30) <= 1 && abs(p[1] - 170) <= 1 && abs(p[2] - 140) <= 1;
        }
    const uint8_t *c = at(s, W / 2, H / 2);
    if (green != 40 * 40) printf("  the card's centre reads %d %d %d\n", c[0], c[1], c[2]);
    CHECK_EQ_INT(green, 40 * 40);
    oak_destroy_mesh(plane);
    oak_destroy_material(mat);
    oak_destroy_texture(tex);
    scene_close(s);
}

int main(void) {
    vkt_init();
    RUN(vulkanUnlitCardCoversItsPixels);
    RUN(vulkanGreyCardUnderNoonSunMatchesBrdf);
    RUN(vulkanAlphaCutoutRemovesHalfTheCard);
    RUN(vulkanShadowFallsWhereGeometrySaysInMetres);
    RUN(vulkanOddTextureSizesShareOneClass);
    RUN(vulkanLargeTextureLevelZeroArrivesWhole);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
