/* Occlusion culling (docs/ARCHITECTURE.md "Occlusion culling"): a wall
 * with a grid of boxes and a stream of boxes behind it. (a) At least 90% of
 * the hidden draws and instances are not drawn (counters), and the picture,
 * the depth and the albedo channels are those of occlusion off, exactly;
 * (b) a box hidden in frame N and shown in frame N+1 (the wall moves, then
 * the camera jumps) has its pixels in frame N+1; (c) the counters match the
 * count made here, and (argv[1] vulkan or gl) that backend's picture keeps
 * the parity rule with the CPU's. On the CPU also: the same counters and
 * picture with one job thread. On Vulkan and GL the draws and the natively
 * drawn stream go through two-pass Hi-Z: the first frame (a camera cut)
 * draws all in pass 2, the steady view draws the visible ones in pass 1 and
 * hides the grid and the stream's hidden instances; what the moved wall
 * reveals is drawn by pass 2 in that frame; a camera jump empties pass 1;
 * and the same without indirect counts (the in-place path). */
#include "oak_test.h"

#include "backend_start.h"
#include "meshlet_test.h"

#define W      320
#define H      180
#define GX     8
#define GZ     5
#define HIDDEN (GX * GZ) /* boxes behind the wall: as many draws, as many instances */
#define FRONT  4         /* boxes in front of it, beside the red one */

static const char *g_backend = "cpu";
static oak_material g_grey, g_ground_mat, g_red, g_wall_mat;
static oak_mesh g_ground, g_box, g_wall;

enum { D_GROUND, D_WALL, D_RED, D_FRONT, D_HIDDEN = D_FRONT + FRONT, D_COUNT = D_HIDDEN + HIDDEN };

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[D_COUNT];
    oak_material mat[D_COUNT];
    mat4 world[D_COUNT];
    float color[D_COUNT * 4];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_stream *stream;
    oak_instance rec[HIDDEN + FRONT];
} scene;

static void place(mat4 m, float x, float y, float z) {
    glm_mat4_identity(m);
    m[3][0] = x, m[3][1] = y, m[3][2] = z;
}

static void look(scene *s, const float eye[3], const float at[3]) {
    mat4 view;
    glm_lookat((float *)eye, (float *)at, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

/* The wall at x = wall_x, the red box right behind its middle. */
static void scene_init(scene *s, float wall_x) {
    memset(s, 0, sizeof *s);
    s->mesh[D_GROUND] = g_ground, s->mat[D_GROUND] = g_ground_mat;
    place(s->world[D_GROUND], 0, 0, 0);
    s->mesh[D_WALL] = g_wall, s->mat[D_WALL] = g_wall_mat;
    place(s->world[D_WALL], wall_x, 2.0f, 2.0f);
    s->mesh[D_RED] = g_box, s->mat[D_RED] = g_red;
    place(s->world[D_RED], 0, 1.2f, 0.6f);
    for (uint32_t i = 0; i < FRONT; i++) {
        s->mesh[D_FRONT + i] = g_box, s->mat[D_FRONT + i] = g_grey;
        place(s->world[D_FRONT + i], -3.0f + 2.0f * (float)i, 0.4f, 4.5f);
    }
    /* the hidden grid: 8 x 5 boxes of 0.8 m from 1.6 m to 9.6 m behind the wall */
    for (uint32_t i = 0; i < HIDDEN; i++) {
        s->mesh[D_HIDDEN + i] = g_box, s->mat[D_HIDDEN + i] = g_grey;
        place(s->world[D_HIDDEN + i], -4.2f + 1.2f * (float)(i % GX), 0.4f,
              0.2f - 2.0f * (float)(i / GX));
    }
    for (uint32_t i = 0; i < D_COUNT; i++)
        for (int k = 0; k < 4; k++) s->color[i * 4 + k] = 1;
    /* the stream: the same grid shifted half a step, and FRONT in front */
    for (uint32_t i = 0; i < HIDDEN + FRONT; i++) {
        bool front = i >= HIDDEN;
        float x = front ? -2.0f + 2.0f * (float)(i - HIDDEN) : -3.6f + 1.2f * (float)(i % GX);
        float z = front ? 5.5f : 0.0f - 2.0f * (float)(i / GX);
        s->rec[i] = (oak_instance){.position = {x, 0.3f, z},
                                   .scale = 0.6f,
                                   .rotation = {0, 0, 0, 1},
                                   .color = {0.3f, 0.6f, 1.0f}};
    }
    oak_stream_desc sd = {.capacity = HIDDEN + FRONT, .lods = {{g_box, 0}}, .material = g_grey};
    CHECK_OK(oak_make_stream(&s->stream, &sd));
    if (s->stream) {
        CHECK_OK(oak_stream_write(s->stream, 0, s->rec, HIDDEN + FRONT));
        CHECK_OK(oak_stream_set_count(s->stream, HIDDEN + FRONT));
    }
    oak_test_sunlit_input(&s->in, D_COUNT, s->mesh, s->mat, (const mat4 *)s->world, &s->sun,
                          &s->env, &s->post, 60, 100);
    s->in.colors = s->color;
    s->in.stream_count = s->stream ? 1 : 0;
    s->in.streams = &s->stream;
    look(s, (float[3]){0, 2, 8}, (float[3]){0, 1.6f, 0});
}

static void scene_free(scene *s) {
    oak_destroy_stream(s->stream);
}

/* Draws the scene and reads its picture (and its depth and albedo
   channels into depth when not NULL, W x H x 4 floats each: two more
   frames, which also check that the first left nothing behind; the albedo
   tells the grey draws from the blue instances). */
static bool draw(oak_renderer *r, scene *s, uint8_t *px, float *depth) {
    s->post.channel = OAK_CHANNEL_NONE;
    bool ok = oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    const oak_channel ch[2] = {OAK_CHANNEL_DEPTH, OAK_CHANNEL_ALBEDO};
    for (int k = 0; ok && depth && k < 2; k++) {
        s->post.channel = ch[k];
        ok = oak_renderer_draw(r, &s->in) == OAK_OK &&
             oak_renderer_read_channel(r, depth + (size_t)k * W * H * 4, (size_t)W * H * 4) ==
                 OAK_OK;
    }
    s->post.channel = OAK_CHANNEL_NONE;
    CHECK(ok);
    return ok;
}

/* Pixels where red stands out: the red box's. */
static uint32_t red_pixels(const uint8_t *px) {
    uint32_t n = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        int r = px[i * 4], g = px[i * 4 + 1], b = px[i * 4 + 2];
        n += r > 60 && r > 2 * g && r > 2 * b;
    }
    return n;
}

static uint8_t g_cpu_px[W * H * 4];
static oak_occlusion_stats g_cpu_stats;

static void print_stats(const char *what, const oak_occlusion_stats *st) {
    fprintf(stderr,
            "  %s: on %d, %u occluders (%u triangles); draws %u tested, %u frustum, %u hidden; "
            "instances %u tested, %u frustum, %u hidden; drawn %u + %u draws, %u + %u "
            "instances\n",
            what, st->on, st->occluders, st->occluder_triangles, st->draws_tested,
            st->draws_frustum, st->draws_occluded, st->instances_tested, st->instances_frustum,
            st->instances_occluded, st->drawn_pass1, st->drawn_pass2, st->instances_pass1,
            st->instances_pass2);
}

static bool hiz(void) {
    return (oak_backend_caps(g_backend) & OAK_CAP_GPU_OCCLUSION) != 0;
}

/* (a) and (c): the hidden grid is culled, the picture and depth unchanged. */
static void wallHidesTheGridAndKeepsThePicture(void) {
    scene s;
    scene_init(&s, 0);
    oak_renderer *on = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON),
                 *off = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_OFF);
    static uint8_t p_on[W * H * 4], p_off[W * H * 4];
    static float d_on[W * H * 8], d_off[W * H * 8]; /* depth, then albedo */
    if (on && hiz() && draw(on, &s, p_on, NULL)) {
        /* Hi-Z's first frame is a camera cut: pass 1 draws nothing, so
           nothing is hidden and pass 2 draws every draw in view; the next
           draws again what that frame saw, and hides the grid after */
        oak_occlusion_stats first;
        CHECK_OK(oak_renderer_occlusion_stats(on, &first));
        print_stats("first frame", &first);
        CHECK_EQ_INT(first.drawn_pass1, 0);
        CHECK_EQ_INT(first.draws_occluded, 0);
        CHECK(first.drawn_pass2 >= D_COUNT - HIDDEN);
        /* the stream's instances alike: none in pass 1, the front ones in 2 */
        CHECK_EQ_INT(first.instances_tested, HIDDEN + FRONT);
        CHECK_EQ_INT(first.instances_pass1, 0);
        CHECK_EQ_INT(first.instances_occluded, 0);
        CHECK(first.instances_pass2 >= FRONT);
        CHECK(draw(on, &s, p_on, NULL));
    }
    if (on && off && draw(on, &s, p_on, d_on) && draw(off, &s, p_off, d_off)) {
        /* the colour frame's counters: draw() drew the depth frame last,
           with the same view */
        oak_occlusion_stats st, st_off;
        CHECK_OK(oak_renderer_occlusion_stats(on, &st));
        CHECK_OK(oak_renderer_occlusion_stats(off, &st_off));
        print_stats("on", &st);
        print_stats("off", &st_off);
        CHECK(st.on);
        CHECK(!st_off.on);
        CHECK_EQ_INT(st_off.draws_occluded, 0);
        CHECK_EQ_INT(st_off.instances_occluded, 0);
        /* the ground and the wall (Hi-Z builds no grid) */
        if (hiz())
            CHECK_EQ_INT(st.occluders, 0);
        else
            CHECK(st.occluders >= 2);
        CHECK_EQ_INT(st.draws_tested, D_COUNT);
        /* at least 90% of the hidden draws; never more than were hidden (the
           red box is hidden too) */
        CHECK(st.draws_occluded * 10 >= HIDDEN * 9);
        CHECK(st.draws_occluded <= HIDDEN + 1);
        if (hiz()) {
            /* the GPU's counters: every draw in view tested, the steady
               view drawn in pass 1 (nothing new for pass 2), the rest hidden */
            CHECK_EQ_INT(st.drawn_pass1 + st.drawn_pass2 + st.draws_occluded, st_off.drawn_pass1);
            CHECK_EQ_INT(st.drawn_pass2, 0);
            CHECK(st.drawn_pass1 >= D_COUNT - HIDDEN);
        } else {
            CHECK_EQ_INT(st.drawn_pass1 + st.draws_occluded + st.instances_occluded,
                         st_off.drawn_pass1);
            CHECK_EQ_INT(st.drawn_pass2, 0);
        }
        /* instances: the CPU's kernel culls them on the CPU backend (its
           counters); a GPU backend draws the stream natively and its
           instcull pass takes Hi-Z's two passes: its per-LOD counts (a
           read-back of both passes' lists) drop by the hidden ones */
        oak_stream_stats ss, ss_off;
        CHECK_OK(oak_renderer_stream_stats(on, &ss));
        CHECK_OK(oak_renderer_stream_stats(off, &ss_off));
        uint32_t hidden = ss_off.visible - ss.visible;
        fprintf(stderr, "  stream: %u in view with occlusion, %u without\n", ss.visible,
                ss_off.visible);
        CHECK(ss.visible <= ss_off.visible);
        CHECK(hidden * 10 >= HIDDEN * 9);
        CHECK(hidden <= HIDDEN);
        CHECK_EQ_INT(st.instances_tested, HIDDEN + FRONT);
        CHECK_EQ_INT(st.instances_occluded, hidden);
        if (hiz()) {
            /* the GPU's counters of the stream: what it draws is what the
               read-back lists hold, the steady view all in pass 1 */
            CHECK_EQ_INT(st.instances_pass1 + st.instances_pass2, ss.visible);
            CHECK_EQ_INT(st.instances_pass2, 0);
            CHECK_EQ_INT(st.instances_pass1 + st.instances_occluded + st.instances_frustum,
                         HIDDEN + FRONT);
            CHECK(st.instances_pass1 >= 1);
        }
        size_t dp = oak_test_bytes_differ(p_on, p_off, sizeof p_on);
        size_t dd = 0, da = 0;
        for (size_t i = 0; i < (size_t)W * H * 4; i++)
            dd += d_on[i] != d_off[i], da += d_on[W * H * 4 + i] != d_off[W * H * 4 + i];
        fprintf(stderr, "  on vs off: %zu colour bytes, %zu depth and %zu albedo values differ\n",
                dp, dd, da);
        CHECK_EQ_INT((int)dp, 0);
        CHECK_EQ_INT((int)dd, 0);
        CHECK_EQ_INT((int)da, 0);
        CHECK_EQ_INT(red_pixels(p_on), 0);
        if (!strcmp(g_backend, "cpu")) {
            memcpy(g_cpu_px, p_on, sizeof g_cpu_px);
            g_cpu_stats = st;
        } else {
            static uint8_t ref[W * H * 4];
            if (oak_test_cpu_picture(&s.in, 1, W, H, ref))
                oak_test_parity("occlusion on vs the cpu", p_on, ref, W, H);
        }
        char path[512];
        oak_image_write_png(oak_test_out(path, sizeof path, "occlusion_wall.png"), W, H, p_on);
    }
    oak_destroy_renderer(on);
    oak_destroy_renderer(off);
    scene_free(&s);
}

/* (b) hidden in frame N, shown in frame N + 1: the wall slides away, then
   (hidden again) the camera jumps past its end. */
static void revealedObjectDrawsAtOnce(void) {
    scene s;
    scene_init(&s, 0);
    oak_renderer *on = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON),
                 *off = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_OFF);
    static uint8_t p_on[W * H * 4], p_off[W * H * 4];
    oak_occlusion_stats st;
    /* under Hi-Z, three frames: the cut, the one that finds the grid
       hidden, and one that leaves it out of pass 1 */
    bool ok = on && off;
    for (int k = 0; ok && k < (hiz() ? 3 : 1); k++) ok = draw(on, &s, p_on, NULL);
    if (ok) {
        CHECK_OK(oak_renderer_occlusion_stats(on, &st));
        CHECK(st.draws_occluded >= 1);
        CHECK_EQ_INT(red_pixels(p_on), 0);
        /* N + 1: the wall 9 m to the right */
        place(s.world[D_WALL], 9.0f, 2.0f, 2.0f);
        if (draw(on, &s, p_on, NULL) && draw(off, &s, p_off, NULL)) {
            uint32_t red = red_pixels(p_on);
            fprintf(stderr, "  wall moved: %u red pixels (off: %u)\n", red, red_pixels(p_off));
            CHECK(red >= 100);
            CHECK_EQ_INT(red, red_pixels(p_off));
            CHECK_EQ_INT((int)oak_test_bytes_differ(p_on, p_off, sizeof p_on), 0);
            if (hiz()) {
                /* what the wall hid last frame is drawn by pass 2 */
                CHECK_OK(oak_renderer_occlusion_stats(on, &st));
                print_stats("wall moved", &st);
                CHECK(st.drawn_pass2 >= 1);
                CHECK(st.drawn_pass1 >= 1);
                /* and the stream's instances it hid, in this very frame */
                CHECK(st.instances_pass2 >= GX);
                CHECK(st.instances_pass1 >= 1);
            }
        }
        /* back, hidden; then the camera jumps to the left, behind the wall's end */
        place(s.world[D_WALL], 0, 2.0f, 2.0f);
        if (draw(on, &s, p_on, NULL)) CHECK_EQ_INT(red_pixels(p_on), 0);
        look(&s, (float[3]){-10, 2.5f, 0.6f}, (float[3]){0, 1.2f, 0.6f});
        if (draw(on, &s, p_on, NULL) && draw(off, &s, p_off, NULL)) {
            uint32_t red = red_pixels(p_on);
            fprintf(stderr, "  camera jumped: %u red pixels (off: %u)\n", red, red_pixels(p_off));
            CHECK(red >= 50);
            CHECK_EQ_INT((int)oak_test_bytes_differ(p_on, p_off, sizeof p_on), 0);
            if (hiz()) {
                /* a jump is a camera cut: pass 1 draws nothing */
                CHECK_OK(oak_renderer_occlusion_stats(on, &st));
                print_stats("camera jumped", &st);
                CHECK_EQ_INT(st.drawn_pass1, 0);
                CHECK(st.drawn_pass2 >= 1);
                CHECK_EQ_INT(st.instances_pass1, 0);
                CHECK(st.instances_pass2 >= 1);
            }
        }
    }
    oak_destroy_renderer(on);
    oak_destroy_renderer(off);
    scene_free(&s);
}

static void make_assets(void) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.6f;
    CHECK_OK(oak_make_material(&g_grey, &md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.35f;
    md.roughness = 0.9f;
    CHECK_OK(oak_make_material(&g_ground_mat, &md));
    md.base_color[0] = 0.5f, md.base_color[1] = 0.45f, md.base_color[2] = 0.4f;
    CHECK_OK(oak_make_material(&g_wall_mat, &md));
    md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 1, md.base_color[1] = 0.02f, md.base_color[2] = 0.02f;
    CHECK_OK(oak_make_material(&g_red, &md));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {0.8f, 0.8f, 0.8f}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {12, 4, 0.4f}};
    CHECK_OK(oak_make_shape(&g_wall, &wd));
}

/* The same counters and picture with one job thread as with the pool. */
static void sameForOneThread(void) {
    oak_shutdown();
    oak_engine_desc desc = {.log = oak_test_count_log, .log_level = OAK_LOG_WARN, .threads = 1};
    if (oak_init(&desc) != OAK_OK) {
        CHECK(false);
        return;
    }
    make_assets();
    scene s;
    scene_init(&s, 0);
    oak_renderer *r = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON);
    static uint8_t px[W * H * 4];
    static float depth[W * H * 8];
    if (r && draw(r, &s, px, depth)) {
        oak_occlusion_stats st;
        CHECK_OK(oak_renderer_occlusion_stats(r, &st));
        print_stats("1 thread", &st);
        CHECK(!memcmp(&st, &g_cpu_stats, sizeof st));
        CHECK_EQ_INT((int)oak_test_bytes_differ(px, g_cpu_px, sizeof px), 0);
    }
    oak_destroy_renderer(r);
    scene_free(&s);
}

/* Without indirect counts (forced: Vulkan reads its switch when the device
   is made, GL each frame): the commands stay in place with instance counts
   of 0 or 1; the same picture and counters. */
static void inPlaceCommandsKeepThePicture(void) {
    setenv("OAK_VK_NO_DRAW_COUNT", "1", 1);
    setenv("OAK_GL_NO_DRAW_COUNT", "1", 1);
    scene s;
    scene_init(&s, 0);
    oak_renderer *on = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON),
                 *off = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_OFF);
    static uint8_t p_on[W * H * 4], p_off[W * H * 4];
    bool ok = on && off;
    for (int k = 0; ok && k < 3; k++) ok = draw(on, &s, p_on, NULL);
    if (ok && draw(off, &s, p_off, NULL)) {
        oak_occlusion_stats st, st_off;
        CHECK_OK(oak_renderer_occlusion_stats(on, &st));
        CHECK_OK(oak_renderer_occlusion_stats(off, &st_off));
        print_stats("in place", &st);
        CHECK(st.draws_occluded * 10 >= HIDDEN * 9);
        CHECK(st.draws_occluded <= HIDDEN + 1);
        CHECK_EQ_INT(st.drawn_pass1 + st.drawn_pass2 + st.draws_occluded, st_off.drawn_pass1);
        CHECK(st.instances_occluded * 10 >= HIDDEN * 9);
        CHECK_EQ_INT((int)oak_test_bytes_differ(p_on, p_off, sizeof p_on), 0);
    }
    unsetenv("OAK_VK_NO_DRAW_COUNT");
    unsetenv("OAK_GL_NO_DRAW_COUNT");
    oak_destroy_renderer(on);
    oak_destroy_renderer(off);
    scene_free(&s);
}

static void badModeFails(void) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .occlusion = 7};
    CHECK(oak_make_renderer(&r, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(r == NULL);
    oak_clear_error();
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    /* On Vulkan a draw culled by meshlets is no Hi-Z candidate (its
       meshlets take the two passes one by one: test_meshcull_hiz), so the
       draw counts below, which add up every draw, hold with it off (read
       when the backend starts) */
    if (strcmp(g_backend, "cpu")) setenv("OAK_MESHCULL", "off", 1);
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    make_assets();
    RUN(wallHidesTheGridAndKeepsThePicture);
    RUN(revealedObjectDrawsAtOnce);
    if (hiz()) RUN(inPlaceCommandsKeepThePicture);
    int errors = g_oak_test_errors;
    RUN(badModeFails);
    g_oak_test_errors = errors; /* the bad mode logs its error on purpose */
    if (!strcmp(g_backend, "cpu")) RUN(sameForOneThread);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    if (g_oak_test_validation)
        fprintf(stderr, "FAIL: %d validation or GL debug messages\n", g_oak_test_validation);
    oak_shutdown();
    return g_oak_test_validation ? 1 : TEST_SUMMARY();
}
