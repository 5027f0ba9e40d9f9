/* Quality presets on one backend (argv[1]: cpu, vulkan or gl; 77 when it
 * cannot run here): the table's rows pass their own range check and bad
 * values do not; a preset fills only what is left at its default; the
 * renderer takes its cascades' size from the preset; the shadow filter the
 * presets step through widens the penumbra of a wall's shadow (and changes
 * nothing away from the edge); and on vulkan and gl each filter's picture
 * is the CPU's at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"

#define W 160
#define H 90
#define S 128 /* texels across a cascade's map: coarse, so the penumbra is pixels wide */

static const char *g_backend = "cpu";
static oak_mesh g_ground, g_wall;
static oak_material g_white;

enum { GROUND, WALL, DRAWS };
typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[DRAWS];
    oak_material mat[DRAWS];
    mat4 world[DRAWS];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
} scene;

/* A ground and a 4 m wall along z at x = 0 under a sun from +x, 45 degrees
   up; the camera 8 m above the ground looking straight down at the wall's
   shadow, which lies on x < 0 with its far edge near x = -4 running along z
   (down the picture's columns: a row crosses the edge). */
static void scene_init(scene *s, uint32_t filter) {
    memset(s, 0, sizeof *s);
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    s->mesh[GROUND] = g_ground, s->mesh[WALL] = g_wall;
    s->mat[GROUND] = s->mat[WALL] = g_white;
    glm_mat4_identity(s->world[GROUND]);
    glm_mat4_identity(s->world[WALL]);
    glm_translate(s->world[WALL], (vec3){0, 2, 0});
    s->sun.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->sun.light.cast_shadows = true;
    float el = glm_rad(45);
    s->sun.direction[0] = -cosf(el), s->sun.direction[1] = -sinf(el), s->sun.direction[2] = 0;
    s->env = oak_environment_defaults();
    s->post = (oak_post){.exposure = 1,
                         .no_fxaa = true,
                         .no_dither = true,
                         .ao = OAK_AO_OFF,
                         .bloom = OAK_BLOOM_OFF,
                         .taa = OAK_TAA_OFF,
                         .shadow_filter = filter};
    s->in.draw_count = DRAWS;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.light_count = 1;
    s->in.lights = &s->sun;
    s->in.environment = &s->env;
    s->in.post = &s->post;
    mat4 view;
    glm_lookat((vec3){-4, 8, 0}, (vec3){-4, 0, 0}, (vec3){0, 0, -1}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

static oak_renderer *open_on(const char *backend, oak_preset preset, uint32_t shadow_size) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend,
                           .width = W,
                           .height = H,
                           .shadow_map_size = shadow_size,
                           .preset = preset};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

static oak_renderer *open_renderer(oak_preset preset, uint32_t shadow_size) {
    return open_on(g_backend, preset, shadow_size);
}

static bool draw(oak_renderer *r, const scene *s, uint8_t *px) {
    if (!r) return false;
    oak_result res = oak_renderer_draw(r, &s->in);
    CHECK_OK(res);
    if (res) return false;
    CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)W * H * 4));
    return true;
}

/* Every row is in range; names go both ways; bad names and values fail
   with one line. */
TEST(tableRowsPassTheirOwnCheck) {
    for (int p = 0; p < OAK_PRESET_COUNT; p++) {
        oak_quality q = oak_preset_quality((oak_preset)p);
        CHECK_OK(oak_quality_check(&q));
        oak_preset back = OAK_PRESET_COUNT;
        CHECK_OK(oak_preset_from_name(oak_preset_name((oak_preset)p), &back));
        CHECK_EQ_INT((int)back, p);
    }
    /* the ladder climbs: more pixels, texels and plants at each rung */
    for (int p = OAK_PRESET_LOW; p < OAK_PRESET_ULTRA; p++) {
        oak_quality a = oak_preset_quality((oak_preset)p),
                    b = oak_preset_quality((oak_preset)(p + 1));
        CHECK(b.render_scale >= a.render_scale);
        CHECK(b.shadow_map_size >= a.shadow_map_size);
        CHECK(b.shadow_filter >= a.shadow_filter);
        CHECK(b.plants >= a.plants);
        /* clouds: more steps and no coarser march up the ladder */
        CHECK(b.cloud_steps >= a.cloud_steps);
        CHECK(b.cloud_scale <= a.cloud_scale);
        /* fog: no fewer froxels on any axis up the ladder */
        for (int k = 0; k < 3; k++) CHECK(b.fog_grid[k] >= a.fog_grid[k]);
    }
    oak_preset out = OAK_PRESET_COUNT;
    int before = g_oak_test_errors;
    CHECK(oak_preset_from_name("fast", &out) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "low, medium, high, ultra") != NULL);
    CHECK(oak_preset_from_name(NULL, &out) == OAK_ERROR_INVALID_ARGUMENT);
    int logged = g_oak_test_errors; /* the failures below log their line on purpose */
    CHECK(oak_preset_name((oak_preset)99) == NULL);
    oak_quality good = oak_preset_quality(OAK_PRESET_HIGH);
    oak_quality bad[] = {good, good, good, good, good, good, good, good, good, good};
    bad[0].render_scale = 0.1f;
    bad[1].render_scale = NAN;
    bad[2].shadow_map_size = 32;
    bad[3].shadow_filter = OAK_SHADOW_PCF_SIZE + 1;
    bad[4].plants = 0;
    bad[5].plant_distance = 3;
    bad[6].cloud_steps = 4;
    bad[7].cloud_scale = 0;
    bad[8].fog_grid[2] = 4;
    bad[9].fog_grid[0] = 512;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(oak_quality_check(&bad[i]) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_quality_check(NULL) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(g_oak_test_errors - logged, (int)(sizeof bad / sizeof bad[0]) + 1);
    CHECK_EQ_INT(logged - before, 2); /* the two unknown names */
    g_oak_test_errors = before;
}

/* The low preset fills AO, TAA, bloom, the filter and the render scale;
   bloom and a render scale set on their own stay; the default preset
   keeps each setting's own default. */
TEST(presetFillsOnlyDefaults) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 0);
    s.post.ao = OAK_AO_DEFAULT, s.post.taa = OAK_TAA_DEFAULT;
    s.post.bloom = OAK_BLOOM_ON;
    s.post.preset = OAK_PRESET_LOW;
    oak_renderer *r = open_renderer(OAK_PRESET_DEFAULT, S);
    if (!draw(r, &s, px)) goto done;
    const oak_render_view *v = oak_renderer_last_view(r);
    oak_quality low = oak_preset_quality(OAK_PRESET_LOW);
    CHECK_EQ_INT((int)v->post.ao, (int)low.ao);
    CHECK_EQ_INT((int)v->post.taa, (int)OAK_TAA_ON);
    CHECK_EQ_INT((int)v->post.bloom, (int)OAK_BLOOM_ON); /* its own, not the preset's off */
    CHECK_EQ_INT(v->post.shadow_filter, low.shadow_filter);
    /* the preset's render scale: half the pixels a side */
    uint32_t rw = 0, rh = 0;
    CHECK_NEAR(oak_renderer_render_scale(r, &rw, &rh), low.render_scale, 0);
    CHECK_EQ_INT(rw, W / 2);
    CHECK_EQ_INT(rh, H / 2);
    s.post.render_scale = 1; /* set on its own: it wins */
    if (!draw(r, &s, px)) goto done;
    CHECK_NEAR(oak_renderer_render_scale(r, &rw, &rh), 1, 0);
    CHECK_EQ_INT(rw, W);
    s.post.render_scale = 0;
    s.post.preset = OAK_PRESET_DEFAULT;
    s.post.bloom = OAK_BLOOM_DEFAULT;
    if (!draw(r, &s, px)) goto done;
    v = oak_renderer_last_view(r);
    CHECK_EQ_INT((int)v->post.taa, OAK_TAA_DEFAULT_ON ? (int)OAK_TAA_ON : (int)OAK_TAA_OFF);
    CHECK_EQ_INT((int)v->post.bloom, OAK_BLOOM_DEFAULT_ON ? (int)OAK_BLOOM_ON : (int)OAK_BLOOM_OFF);
    CHECK_EQ_INT(v->post.shadow_filter, (uint32_t)OAK_SHADOW_PCF_SIZE);
done:
    if (r) oak_destroy_renderer(r);
}

/* The renderer's cascades: the preset's size unless the desc gives one. */
TEST(rendererTakesPresetShadowSize) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 0);
    const struct {
        oak_preset preset;
        uint32_t asked, want;
    } cases[] = {{OAK_PRESET_LOW, 0, 1024},
                 {OAK_PRESET_ULTRA, 0, 4096},
                 {OAK_PRESET_ULTRA, 512, 512},
                 {OAK_PRESET_DEFAULT, 0, OAK_SHADOW_MAP_SIZE}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        oak_renderer *r = open_renderer(cases[i].preset, cases[i].asked);
        if (draw(r, &s, px))
            CHECK_EQ_INT(oak_renderer_last_view(r)->shadow_map_size, cases[i].want);
        if (r) oak_destroy_renderer(r);
    }
}

static double lum(const uint8_t *px, uint32_t x, uint32_t y) {
    const uint8_t *p = px + ((size_t)y * W + x) * 4;
    return (p[0] + p[1] + p[2]) / 3.0;
}

/* The shadow's far edge (x = -4 m) crosses the picture's middle column,
   the shadow to its right (x = -2 m at DARK_X), lit ground to its left
   (x = -7 m at LIT_X; 0.1 m a pixel). Pixels from 10% to 90% of the way
   between the two levels, along the middle rows, mean over them. */
#define DARK_X (W / 2 + 20)
#define LIT_X  (W / 2 - 30)
static double edge_width(const uint8_t *px, double *dark, double *lit) {
    double sum = 0;
    int rows = 0;
    *dark = lum(px, DARK_X, H / 2), *lit = lum(px, LIT_X, H / 2);
    for (uint32_t y = H / 2 - 10; y <= H / 2 + 10; y++) {
        double d = lum(px, DARK_X, y), l = lum(px, LIT_X, y);
        double lo = d + 0.1 * (l - d), hi = d + 0.9 * (l - d);
        int n = 0;
        for (uint32_t x = LIT_X; x <= DARK_X; x++) {
            double v = lum(px, x, y);
            n += v > lo && v < hi;
        }
        sum += n, rows++;
    }
    return sum / rows;
}

/* The narrowest filter draws a sharp edge, the widest a soft one (K taps
   of bilinear PCF span K + 1 texels); the shadow and the lit ground keep
   their levels. On vulkan and gl, each is the CPU's picture. */
TEST(filterWidensThePenumbra) {
    static scene s;
    static uint8_t px[2][W * H * 4], ref[W * H * 4];
    oak_renderer *r = open_renderer(OAK_PRESET_DEFAULT, S);
    /* the CPU's picture at the same cascade size, the reference */
    oak_renderer *cpu = strcmp(g_backend, "cpu") ? open_on("cpu", OAK_PRESET_DEFAULT, S) : NULL;
    const uint32_t filters[2] = {1, OAK_SHADOW_PCF_SIZE};
    double width[2] = {0}, dark[2] = {0}, lit[2] = {0};
    for (int k = 0; k < 2; k++) {
        scene_init(&s, filters[k]);
        if (!draw(r, &s, px[k])) goto done;
        width[k] = edge_width(px[k], &dark[k], &lit[k]);
        fprintf(stderr, "  filter %u: edge %.2f px, shadow %.1f, lit %.1f\n", filters[k], width[k],
                dark[k], lit[k]);
        if (cpu && draw(cpu, &s, ref))
            oak_test_parity(filters[k] == 1 ? "filter 1" : "widest filter", px[k], ref, W, H);
    }
    CHECK(lit[0] > dark[0] + 40); /* a shadow to measure */
    CHECK(width[1] >= width[0] + 2.0);
    CHECK(width[1] >= 2.0 * width[0]);
    CHECK(fabs(dark[0] - dark[1]) <= 1.0 && fabs(lit[0] - lit[1]) <= 1.0);
done:
    if (r) oak_destroy_renderer(r);
    if (cpu) oak_destroy_renderer(cpu);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_material_desc md = oak_material_desc_defaults(NULL);
    CHECK_OK(oak_make_material(&g_white, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {0.3f, 4, 30}};
    CHECK_OK(oak_make_shape(&g_wall, &wd));
    RUN(tableRowsPassTheirOwnCheck);
    RUN(presetFillsOnlyDefaults);
    RUN(rendererTakesPresetShadowSize);
    RUN(filterWidensThePenumbra);
    oak_shutdown();
    fprintf(stderr, "  %d validation or debug messages, %d other errors logged\n",
            g_oak_test_validation, g_oak_test_errors);
    if (g_oak_test_validation || g_oak_test_errors) oak_test_failed_++;
    return TEST_SUMMARY();
}
