/* Box-projected reflection probes (docs/SHADING.md "Reflection probes") on
 * the backend named on the command line (cpu without one): a mirror floor
 * in front of a red emissive wall under a flat blue sky. With a probe whose
 * box's back face is the wall, the floor reflects the wall where the mirror
 * geometry puts it (the box projection; without it the edge would sit some
 * 25 pixels away); without the probe, and outside the probe's box, it
 * reflects only the sky. A probe is baked when new, moved or under a new
 * sky, and not otherwise; bad probes fail in one line. On a GPU backend the
 * picture is also held to the CPU's at the parity rule. Raw light: exposure
 * 1, no tone curve, dither or FXAA. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cglm/cglm.h>
#include <oak/oak.h>

#include "backend_start.h"
#include "oak_test.h"

#define W 192
#define H 108

static const char *g_backend = "cpu";
static int g_validation;

static void count_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (strstr(msg, "vulkan validation") || strstr(msg, "gl: debug error")) g_validation++;
    if (level >= OAK_LOG_WARN && !strstr(msg, "reflection probe"))
        fprintf(stderr, "log: %s\n", msg);
}

typedef struct room {
    oak_frame_input in;
    oak_mesh mesh[2];
    oak_material mat[2];
    mat4 world[2];
    oak_environment env;
    oak_post post;
    oak_reflection_probe probe;
} room;

/* the floor (a mirror) and the wall (red light, its face on z = -4, 2 m tall) */
static void room_init(room *s) {
    memset(s, 0, sizeof *s);
    oak_shape_desc fd = {.type = OAK_SHAPE_PLANE, .size = {20, 0, 20}};
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {8, 2, 0.2f}};
    CHECK_OK(oak_make_shape(&s->mesh[0], &fd));
    CHECK_OK(oak_make_shape(&s->mesh[1], &wd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 1;
    md.roughness = 0;
    CHECK_OK(oak_make_material(&s->mat[0], &md));
    md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    md.roughness = 1;
    md.emissive[0] = 1;
    CHECK_OK(oak_make_material(&s->mat[1], &md));
    glm_mat4_identity(s->world[0]);
    glm_translate_make(s->world[1], (vec3){0, 1, -4.1f});
    s->env = oak_environment_defaults();
    const float sky[3] = {0.2f, 0.4f, 0.9f};
    for (int k = 0; k < 3; k++) {
        s->env.sky_zenith_display[k] = s->env.sky_horizon_display[k] = sky[k];
        s->env.ambient_sky[k] = s->env.ambient_ground[k] = 0;
    }
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    s->in.camera = (oak_camera){.fov_y = 1.0471976f};
    vec3 eye = {0, 1.5f, 4}, target = {0, 0.5f, -2}, up = {0, 1, 0};
    mat4 view;
    glm_lookat(eye, target, up, view);
    glm_mat4_inv(view, s->in.camera_world);
    s->in.draw_count = 2;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
    /* the box's back face is the wall's face; the floor lies inside it */
    s->probe = (oak_reflection_probe){
        .position = {0, 1, 0}, .box_min = {-2, -0.5f, -4}, .box_max = {2, 4, 5}, .margin = 0};
}

static void room_free(room *s) {
    for (int i = 0; i < 2; i++) {
        oak_destroy_mesh(s->mesh[i]);
        oak_destroy_material(s->mat[i]);
    }
}

static bool draw(oak_renderer *r, const room *s, bool with_probe, uint8_t *px) {
    oak_frame_input in = s->in;
    in.probe_count = with_probe ? 1 : 0;
    in.probes = with_probe ? &s->probe : NULL;
    oak_result res = oak_renderer_draw(r, &in);
    CHECK_OK(res);
    if (res) return false;
    CHECK_OK(oak_renderer_read_pixels(r, px, W * H * 4));
    return true;
}

/* where world point p lands in the picture (row and column) */
static void project(oak_renderer *r, const float p[3], float *col, float *row) {
    const oak_render_view *v = oak_renderer_last_view(r);
    vec4 q = {p[0], p[1], p[2], 1}, c;
    glm_mat4_mulv((vec4 *)v->view_proj, q, c);
    *col = (c[0] / c[3] * 0.5f + 0.5f) * W;
    *row = (0.5f - c[1] / c[3] * 0.5f) * H;
}

static bool red(const uint8_t *px, int x, int y) {
    const uint8_t *p = px + ((size_t)y * W + x) * 4;
    return p[0] > p[2] + 20;
}

static oak_renderer *make(void) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

TEST(boxProjectionPutsTheWallWhereTheMirrorDoes) {
    room s;
    room_init(&s);
    oak_renderer *r = make();
    uint8_t *with = oak_alloc(W * H * 4), *without = oak_alloc(W * H * 4);
    if (r && with && without && draw(r, &s, true, with) && draw(r, &s, false, without)) {
        /* the mirror image of the wall's top edge (0, 2, -4) seen from the
           eye (0, 1.5, 4) meets the floor at z = 4 - 8 * 1.5 / 3.5 */
        float col, edge, base;
        project(r, (const float[3]){0, 0, 4.0f - 8.0f * 1.5f / 3.5f}, &col, &edge);
        project(r, (const float[3]){0, 0, -4}, &col, &base);
        int x = (int)col, first = -1, red_without = 0;
        for (int y = H - 1; y > (int)base + 2; y--) {
            if (first < 0 && red(with, x, y)) first = y;
            red_without += red(without, x, y);
        }
        char path[512], file[64];
        snprintf(file, sizeof file, "probes_%s.png", g_backend);
        oak_image_write_png(oak_test_out(path, sizeof path, file), W, H, with);
        fprintf(stderr, "  %s: reflected edge at row %d, the mirror's at %.1f (wall base %.1f)\n",
                g_backend, first, edge, base);
        CHECK(first >= 0);
        CHECK(fabsf((float)first - edge) <= 5.0f);
        CHECK(red_without == 0); /* the sky alone: blue everywhere on the floor */
        /* between the edge and the wall, the floor is red all the way */
        int blue = 0;
        for (int y = first; y > (int)base + 2; y--) blue += !red(with, x, y);
        CHECK(blue <= 1);
    }
    oak_free(with);
    oak_free(without);
    oak_destroy_renderer(r);
    room_free(&s);
}

TEST(outsideTheBoxIsTheSkysReflection) {
    room s;
    room_init(&s);
    oak_renderer *r = make();
    uint8_t *with = oak_alloc(W * H * 4), *without = oak_alloc(W * H * 4);
    if (r && with && without && draw(r, &s, true, with) && draw(r, &s, false, without)) {
        /* the floor at x = 3 reflects the wall geometrically, but lies
           outside the probe's box (|x| <= 2): the sky it keeps */
        float col, row;
        project(r, (const float[3]){3, 0, -1.5f}, &col, &row);
        int x = (int)col, y = (int)row, diff = 0;
        CHECK(x > 1 && x < W - 2 && y > 1 && y < H - 2);
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++)
                for (int c = 0; c < 3; c++) {
                    size_t o = ((size_t)(y + j) * W + (size_t)(x + i)) * 4 + (size_t)c;
                    int d = abs((int)with[o] - (int)without[o]);
                    if (d > diff) diff = d;
                }
        const uint8_t *p = with + ((size_t)y * W + x) * 4;
        fprintf(stderr, "  %s: outside the box %u %u %u, off by %d from no probe\n", g_backend,
                p[0], p[1], p[2], diff);
        CHECK(diff == 0);
        CHECK(p[2] > p[0] + 20);
        /* and the same point moved inside the box is red */
        project(r, (const float[3]){1, 0, -1.5f}, &col, &row);
        CHECK(red(with, (int)col, (int)row));
    }
    oak_free(with);
    oak_free(without);
    oak_destroy_renderer(r);
    room_free(&s);
}

TEST(bakedWhenNewMovedOrUnderANewSky) {
    room s;
    room_init(&s);
    oak_renderer *r = make();
    uint8_t *px = oak_alloc(W * H * 4);
    if (r && px) {
        CHECK(oak_renderer_probe_bakes(r) == 0);
        draw(r, &s, true, px);
        CHECK(oak_renderer_probe_bakes(r) == 1);
        draw(r, &s, true, px);
        draw(r, &s, true, px);
        CHECK(oak_renderer_probe_bakes(r) == 1); /* nothing moved */
        CHECK(oak_renderer_last_view(r)->probe_count == 1);
        s.probe.position[1] = 1.5f;
        draw(r, &s, true, px);
        CHECK(oak_renderer_probe_bakes(r) == 2); /* moved */
        s.env.sky_zenith_display[0] = 0.5f;
        draw(r, &s, true, px);
        CHECK(oak_renderer_probe_bakes(r) == 3); /* a new sky */
        /* turned away from the box: no probe in the view, no bake */
        vec3 eye = {0, 1.5f, 40}, target = {0, 1.5f, 80}, up = {0, 1, 0};
        mat4 view;
        glm_lookat(eye, target, up, view);
        glm_mat4_inv(view, s.in.camera_world);
        draw(r, &s, true, px);
        CHECK(oak_renderer_probe_bakes(r) == 3);
        CHECK(oak_renderer_last_view(r)->probe_count == 0);
    }
    oak_free(px);
    oak_destroy_renderer(r);
    room_free(&s);
}

TEST(badProbesFailInOneLine) {
    room s;
    room_init(&s);
    oak_renderer *r = make();
    if (r) {
        oak_reflection_probe bad[3] = {s.probe, s.probe, s.probe};
        bad[0].position[0] = 9; /* outside its box */
        bad[1].box_min[2] = 6;  /* min above max */
        bad[2].margin = NAN;    /* not a number */
        for (int i = 0; i < 3; i++) {
            oak_frame_input in = s.in;
            in.probe_count = 1;
            in.probes = &bad[i];
            CHECK(oak_renderer_draw(r, &in) == OAK_ERROR_INVALID_ARGUMENT);
            const char *why = oak_last_error();
            CHECK(strstr(why, "reflection probe") != NULL && !strchr(why, '\n'));
        }
        oak_frame_input in = s.in;
        in.probe_count = OAK_PROBE_MAX + 1;
        in.probes = bad;
        CHECK(oak_renderer_draw(r, &in) == OAK_ERROR_LIMIT);
        CHECK(oak_renderer_probe_bakes(r) == 0);
    }
    oak_destroy_renderer(r);
    room_free(&s);
}

/* the backend's picture against the CPU's, at the parity rule */
TEST(matchesTheCpu) {
    room s;
    room_init(&s);
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H};
    oak_renderer *cpu = NULL, *r = make();
    CHECK_OK(oak_make_renderer(&cpu, &d));
    uint8_t *a = oak_alloc(W * H * 4), *b = oak_alloc(W * H * 4);
    if (cpu && r && a && b && draw(cpu, &s, true, a) && draw(r, &s, true, b)) {
        size_t n = (size_t)W * H * 4, ok = 0;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            int e = abs((int)a[i] - (int)b[i]);
            ok += e <= 2;
            sum += e;
        }
        double within = (double)ok / (double)n, mean = sum / (double)n;
        fprintf(stderr, "  parity probes cpu vs %s: %.4f%% within 2/255, mean %.4f/255\n",
                g_backend, 100 * within, mean);
        CHECK(within >= 0.995 && mean < 0.5);
        if (within < 0.995 || mean >= 0.5) {
            char path[512];
            oak_image_write_png(oak_test_out(path, sizeof path, "probes_cpu.png"), W, H, a);
            oak_image_write_png(oak_test_out(path, sizeof path, "probes_backend.png"), W, H, b);
        }
    }
    oak_free(a);
    oak_free(b);
    oak_destroy_renderer(cpu);
    oak_destroy_renderer(r);
    room_free(&s);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    RUN(boxProjectionPutsTheWallWhereTheMirrorDoes);
    RUN(outsideTheBoxIsTheSkysReflection);
    RUN(bakedWhenNewMovedOrUnderANewSky);
    if (!strcmp(g_backend, "cpu")) {
        RUN(badProbesFailInOneLine);
    } else {
        RUN(matchesTheCpu);
    }
    if (g_validation) fprintf(stderr, "FAIL: %d validation or GL debug messages\n", g_validation);
    oak_shutdown();
    return g_validation ? 1 : TEST_SUMMARY();
}
