/* GL's frame does not wait for the GPU (issue 14): the timestamps are one
 * set per frame in flight and the timings read the newest finished set, so
 * a running loop (render, timings, no read_pixels) never reads a result
 * before it is available, the GPU times lag the host by at most
 * OAK_GL_QUERY_SETS - 1 frames, and once a read_pixels has waited for frame
 * N the next timings report frame N or later, with the table's stage names
 * and positive GPU times. Driven through the vtable with the real
 * frontend's views. */
#include "oak_test.h"

#include "backend/gl/gl_gpu.h"
#include "render/frontend.h"

#define W 64
#define H 48

static const oak_backend *gl(void) {
    return oak_backend_gl();
}

typedef struct scene {
    oak_frontend fe;
    void *gl;
    oak_frame_input in;
    oak_mesh meshes[2];
    oak_material mats[2];
    mat4 xf[2];
    uint32_t flags[2];
    oak_render_light light;
    oak_environment env;
    oak_post post;
    uint64_t frame;
    uint8_t px[W * H * 4];
} scene;

static oak_material grey(float g) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = d.base_color[1] = d.base_color[2] = g;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &d));
    return m;
}

/* a plane and a ball under a sun, the camera looking down at them */
static bool scene_begin(scene *s, bool occlusion) {
    memset(s, 0, sizeof *s);
    oak_backend_desc d = {.width = W, .height = H, .shadow_map_size = 512};
    if (gl()->create(&s->gl, &d) != OAK_OK) {
        fprintf(stderr, "gl create: %s\n", oak_last_error());
        return false;
    }
    s->fe.occlusion = s->fe.gpu_occlusion = occlusion;
    s->post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 1, 40}};
    oak_shape_desc bd = {.type = OAK_SHAPE_SPHERE};
    CHECK_OK(oak_make_shape(&s->meshes[0], &pd));
    CHECK_OK(oak_make_shape(&s->meshes[1], &bd));
    s->mats[0] = grey(0.5f), s->mats[1] = grey(0.8f);
    glm_mat4_identity(s->xf[0]);
    glm_translate_make(s->xf[1], (vec3){0, 0.5f, 0});
    s->light.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->light.direction[0] = 0.5f, s->light.direction[1] = -0.8f;
    s->in = (oak_frame_input){.meshes = s->meshes,
                              .materials = s->mats,
                              .transforms = (const mat4 *)s->xf,
                              .flags = s->flags,
                              .draw_count = 2,
                              .lights = &s->light,
                              .light_count = 1,
                              .environment = &s->env,
                              .post = &s->post};
    glm_mat4_identity(s->in.camera_world);
    glm_translate(s->in.camera_world, (vec3){0, 6, 0});
    glm_rotate(s->in.camera_world, -OAK_PI / 2, (vec3){1, 0, 0});
    return true;
}

static void scene_end(scene *s) {
    gl()->destroy(s->gl);
    _oak_frontend_release(&s->fe);
    for (int i = 0; i < 2; i++) oak_destroy_mesh(s->meshes[i]), oak_destroy_material(s->mats[i]);
}

/* one frame as a running loop draws it: no read_pixels */
static oak_result scene_render(scene *s) {
    oak_result r = _oak_frontend_build(&s->fe, &s->in, W, H, 512);
    s->fe.view.frame = s->frame++; /* as the renderer counts them */
    if (r == OAK_OK) r = gl()->sync(s->gl, &s->fe.view);
    if (r == OAK_OK) r = gl()->render(s->gl, &s->fe.view);
    return r;
}

static const oak_stage_timing *find(const oak_stage_timing *t, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, name)) return &t[i];
    return NULL;
}

/* The timings carry every timed row of the table in order (Hi-Z's two
   steps before raster when that frame ran it), then record and slotwait. */
static void check_names(const oak_stage_timing *t, uint32_t n) {
    const oak_pass_row *rows = _oak_pass_table();
    uint32_t k = 0;
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) {
        if (rows[i].untimed) continue;
        if (k < n && !strncmp(t[k].name, "hiz_", 4)) k += 2;
        CHECK(k < n && !strcmp(t[k].name, rows[i].name));
        k++;
    }
    CHECK_EQ_INT(n, k + 2);
    CHECK(n >= 2 && !strcmp(t[n - 2].name, "record") && !strcmp(t[n - 1].name, "slotwait"));
}

static void run_loop(bool occlusion) {
    static scene s;
    if (!scene_begin(&s, occlusion)) {
        CHECK(0);
        return;
    }
    oak_stage_timing t[64];
    _oak_gl_overlap o, prev = {0};
    enum { LOOP = 12 };
    for (uint64_t i = 1; i <= LOOP; i++) {
        CHECK_OK(scene_render(&s));
        uint32_t n = gl()->timings(s.gl, t, 64);
        _oak_gl_frame_overlap(s.gl, &o);
        check_names(t, n);
        CHECK_EQ_INT(o.frames, i);
        CHECK_EQ_INT(o.blocking_reads, 0);
        /* never ahead of the host, never behind by more than the sets,
           never going back */
        CHECK(o.gpu_frame <= i);
        CHECK(o.gpu_frame >= prev.gpu_frame);
        CHECK(o.gpu_frame + OAK_GL_QUERY_SETS > i || o.gpu_frame == prev.gpu_frame);
        prev = o;
    }
    fprintf(stderr, "gl overlap%s: %d frames, GPU times of frame %llu, %llu of %d timings lagged\n",
            occlusion ? " (hi-z)" : "", LOOP, (unsigned long long)o.gpu_frame,
            (unsigned long long)o.lagged_reads, LOOP);
    /* read_pixels may wait: frame LOOP has finished, so the next frame's
       timings report it (or the next one, if that one finished too) */
    CHECK_OK(gl()->read_pixels(s.gl, s.px, sizeof s.px));
    CHECK_OK(scene_render(&s));
    uint32_t n = gl()->timings(s.gl, t, 64);
    _oak_gl_frame_overlap(s.gl, &o);
    check_names(t, n);
    CHECK(o.gpu_frame >= LOOP);
    CHECK_EQ_INT(o.blocking_reads, 0);
    const oak_stage_timing *raster = find(t, n, "raster"), *post = find(t, n, "post");
    CHECK(raster && raster->gpu_ms > 0 && raster->gpu_ms < 1e4);
    CHECK(post && post->gpu_ms > 0);
    double gpu = 0;
    for (uint32_t i = 0; i + 2 < n; i++) {
        CHECK(t[i].gpu_ms >= 0);
        gpu += t[i].gpu_ms;
    }
    if (occlusion) {
        const oak_stage_timing *p1 = find(t, n, "hiz_pass1"), *py = find(t, n, "hiz_pyramid");
        CHECK(p1 && p1->gpu_ms >= 0);
        CHECK(py && py->gpu_ms > 0);
    }
    const oak_stage_timing *wait = find(t, n, "slotwait");
    fprintf(stderr, "  frame %llu's GPU: %.3f ms over the stages, raster %.3f; slotwait %.3f ms\n",
            (unsigned long long)o.gpu_frame, gpu, raster ? raster->gpu_ms : -1,
            wait ? wait->cpu_ms : -1);
    scene_end(&s);
}

TEST(glFrameDoesNotWaitForTheGpu) {
    run_loop(false);
}

TEST(glHiZStampsLagWithTheFrame) {
    run_loop(true);
}

int main(void) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    RUN(glFrameDoesNotWaitForTheGpu);
    RUN(glHiZStampsLagWithTheFrame);
    uint32_t errors = _oak_gl_debug_errors() - base;
    if (errors) fprintf(stderr, "FAIL: %u GL debug errors\n", errors);
    oak_shutdown();
    return errors ? 1 : TEST_SUMMARY();
}
