/* The GL backend's resource model through the renderer: textures as layers of
 * 2D arrays by size class (an array grows keeping its layers; a size class
 * past the limit is a clear error), meshes and materials uploaded again when
 * their versions move, and a resized output. Unlit materials under a camera
 * looking straight down make every expected byte a texel value. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

#define W 96
#define H 64

typedef struct setup {
    oak_renderer *r;
    oak_frame_input in;
    oak_mesh meshes[24];
    oak_material mats[24];
    mat4 xf[24];
    oak_environment env;
    oak_post post;
    uint8_t px[W * H * 4];
} setup;

static bool begin(setup *s) {
    memset(s, 0, sizeof *s);
    oak_renderer_desc rd = {.backend = "gl", .width = W, .height = H};
    if (oak_make_renderer(&s->r, &rd) != OAK_OK) {
        fprintf(stderr, "gl renderer: %s\n", oak_last_error());
        return false;
    }
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    s->in.meshes = s->meshes, s->in.materials = s->mats, s->in.transforms = (const mat4 *)s->xf;
    s->in.environment = &s->env, s->in.post = &s->post;
    /* 12 m wide view from 10 m up, straight down: image right = +x, up = -z */
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){0, 10, 0});
    glm_rotate(s->in.camera_world, -OAK_PI / 2, (vec3){1, 0, 0});
    s->in.camera.ortho_height = 8;
    return true;
}

static void put(setup *s, oak_mesh m, oak_material mat, float x, float z) {
    uint32_t i = s->in.draw_count++;
    s->meshes[i] = m, s->mats[i] = mat;
    glm_mat4_identity(s->xf[i]);
    glm_translate(s->xf[i], (vec3){x, 0, z});
}

static oak_result draw(setup *s) {
    oak_result r = oak_renderer_draw(s->r, &s->in);
    if (r == OAK_OK) r = oak_renderer_read_pixels(s->r, s->px, sizeof s->px);
    return r;
}

/* pixel over world (x, z) */
static const uint8_t *at(setup *s, float x, float z) {
    int px = (int)((x / 12.0f + 0.5f) * W), py = (int)((z / 8.0f + 0.5f) * H);
    return &s->px[(py * W + px) * 4];
}

static oak_material unlit_tex(oak_texture t, const float rgb[3]) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.unlit = true;
    d.base_color_tex.texture = t;
    if (rgb) memcpy(d.base_color, rgb, 12);
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &d));
    return m;
}

static oak_texture solid(uint32_t w, uint32_t h, uint8_t r, uint8_t g, uint8_t b) {
    uint8_t *texels = oak_alloc((size_t)w * h * 4);
    for (uint32_t i = 0; i < w * h; i++)
        texels[i * 4] = r, texels[i * 4 + 1] = g, texels[i * 4 + 2] = b, texels[i * 4 + 3] = 255;
    /* sRGB texels come out as the same bytes: decoded to linear, encoded back */
    oak_texture_desc td = {
        .width = w, .height = h, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = texels};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &td));
    oak_free(texels);
    return t;
}

static oak_mesh tile(void) {
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {1.5f, 1, 1.5f}};
    oak_mesh m = {0};
    CHECK_OK(oak_make_shape(&m, &sd));
    return m;
}

/* Six 16x16 textures share one size class; its array starts with room for
 * four layers, so the fifth upload grows it and copies the first four. */
TEST(glTextureArrayGrowsKeepingItsLayers) {
    setup *s = oak_calloc(1, sizeof *s);
    if (!s || !begin(s)) {
        CHECK(0);
        oak_free(s);
        return;
    }
    oak_mesh m = tile();
    for (int i = 0; i < 6; i++) {
        oak_texture t = solid(16, 16, (uint8_t)(40 * i), (uint8_t)(250 - 40 * i), 77);
        put(s, m, unlit_tex(t, NULL), -4.5f + 1.8f * i, 0);
    }
    CHECK_OK(draw(s));
    for (int i = 0; i < 6; i++) {
        const uint8_t *p = at(s, -4.5f + 1.8f * i, 0);
        CHECK_EQ_INT(p[0], 40 * i);
        CHECK_EQ_INT(p[1], 250 - 40 * i);
        CHECK_EQ_INT(p[2], 77);
    }
    oak_destroy_renderer(s->r);
    oak_free(s);
}

/* 17 sizes cannot all be read by one pass (16 arrays): a one-line error
 * naming the texture and the limit, and no crash. */
TEST(glSeventeenthSizeClassIsLimitError) {
    setup *s = oak_calloc(1, sizeof *s);
    if (!s || !begin(s)) {
        CHECK(0);
        oak_free(s);
        return;
    }
    oak_mesh m = tile();
    for (int i = 0; i < 17; i++) put(s, m, unlit_tex(solid(4 + i, 4, 200, 0, 0), NULL), 0, 0);
    CHECK_EQ_INT(oak_renderer_draw(s->r, &s->in), OAK_ERROR_LIMIT);
    CHECK(strstr(oak_last_error(), "size class") != NULL);
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    oak_destroy_renderer(s->r);
    oak_free(s);
}

/* A mesh moved off centre and a material recoloured: the next frame shows
 * both changes, without a new handle. */
TEST(glMovedVersionsAreUploadedAgain) {
    setup *s = oak_calloc(1, sizeof *s);
    if (!s || !begin(s)) {
        CHECK(0);
        oak_free(s);
        return;
    }
    oak_mesh m = tile();
    oak_material mat = unlit_tex((oak_texture){0}, (float[3]){1, 0, 0});
    put(s, m, mat, 0, 0);
    CHECK_OK(draw(s));
    CHECK_EQ_INT(at(s, 0, 0)[0], 255);
    CHECK_EQ_INT(at(s, 3, 0)[0], 0);
    /* the same triangles 3 m along +x, more vertices than before */
    const oak_mesh_data *md = oak_mesh_get(m);
    uint32_t n = md->vertex_count;
    float *pos = oak_alloc((size_t)n * 2 * 12);
    uint32_t *idx = oak_alloc((size_t)md->index_count * 4);
    for (uint32_t v = 0; v < n; v++) {
        memcpy(&pos[v * 3], &md->positions[v * 3], 12);
        pos[v * 3] += 3;
        memcpy(&pos[(n + v) * 3], &pos[v * 3], 12); /* unused copies */
    }
    memcpy(idx, md->indices, (size_t)md->index_count * 4);
    oak_mesh_desc nd = {
        .vertex_count = 2 * n, .index_count = md->index_count, .positions = pos, .indices = idx};
    CHECK_OK(oak_mesh_update(m, &nd));
    oak_free(pos), oak_free(idx);
    oak_material_desc d = oak_material_get(mat)->desc;
    d.base_color[0] = 0, d.base_color[2] = 1;
    d.name = NULL;
    CHECK_OK(oak_material_update(mat, &d));
    CHECK_OK(draw(s));
    CHECK_EQ_INT(at(s, 0, 0)[2], 0);
    CHECK_EQ_INT(at(s, 3, 0)[2], 255);
    CHECK_EQ_INT(at(s, 3, 0)[0], 0);
    oak_destroy_renderer(s->r);
    oak_free(s);
}

TEST(glResizeDrawsAtTheNewSize) {
    setup *s = oak_calloc(1, sizeof *s);
    if (!s || !begin(s)) {
        CHECK(0);
        oak_free(s);
        return;
    }
    put(s, tile(), unlit_tex((oak_texture){0}, (float[3]){0, 1, 0}), 0, 0);
    CHECK_OK(oak_renderer_resize(s->r, 48, 32));
    CHECK_OK(oak_renderer_draw(s->r, &s->in));
    uint8_t small[48 * 32 * 4];
    CHECK_OK(oak_renderer_read_pixels(s->r, small, sizeof small));
    CHECK_EQ_INT(small[(16 * 48 + 24) * 4 + 1], 255); /* centre: the tile */
    CHECK_EQ_INT(oak_renderer_read_pixels(s->r, small, 100), OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_renderer(s->r);
    oak_free(s);
}

int main(void) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    RUN(glTextureArrayGrowsKeepingItsLayers);
    RUN(glSeventeenthSizeClassIsLimitError);
    RUN(glMovedVersionsAreUploadedAgain);
    RUN(glResizeDrawsAtTheNewSize);
    uint32_t errors = _oak_gl_debug_errors() - base;
    if (errors) fprintf(stderr, "FAIL: %u GL debug errors\n", errors);
    oak_shutdown();
    return errors ? 1 : TEST_SUMMARY();
}
