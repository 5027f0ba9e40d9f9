/* The seam every backend keeps (include/oak/backend.h): render() syncs
 * itself, so render alone, sync then render, and render after assets changed
 * without a sync all draw the view as it is; stage timings carry the pass
 * table's names; caps name its passes; passes that run on some frames only
 * leave nothing a fresh instance would draw differently. Runs on every
 * backend that starts here, Vulkan with its validation layer (synchronization
 * checks on), GL with its debug output. */
#include <dlfcn.h>

#include "cpu_scene.h"

#include "backend/gpu/gpu_records.h"
#include "render/pass_table.h"
#include "render/renderer_internal.h"

#define W 64
#define H 32

static const float UP_Y[3] = {0, 1, 0};

static int validation_messages;

static void count_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (strstr(msg, "vulkan validation") || strstr(msg, "gl: debug error")) validation_messages++;
    if (level >= OAK_LOG_WARN) fprintf(stderr, "log: %s\n", msg);
}

/* Every stage a backend reports is a row of the table, a row's part, or one
 * of the totals a GPU backend adds. */
static bool named_by_table(const char *name) {
    const oak_pass_row *rows = _oak_pass_table();
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) {
        if (!strcmp(rows[i].name, name)) return true;
        for (uint32_t k = 0; k < OAK_PASS_MAX_PARTS; k++)
            if (rows[i].parts[k] && !strcmp(rows[i].parts[k], name)) return true;
    }
    /* busy.tN: job worker N's time inside jobs (the CPU backend, after its stages) */
    if (!strncmp(name, "busy.t", 6) && name[6] >= '0' && name[6] <= '9') return true;
    /* record and slotwait: the host's recording and its wait for the GPU */
    return !strcmp(name, "record") || !strcmp(name, "slotwait") || !strcmp(name, "gpu_frame");
}

static void set_quad(oak_mesh m, bool right) {
    const float x0 = right ? 0.0f : -1.0f;
    float pos[12] = {x0, -0.5f, 0, x0 + 1, -0.5f, 0, x0 + 1, 0.5f, 0, x0, 0.5f, 0};
    float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc md = {0};
    md.vertex_count = 4, md.index_count = 6, md.positions = pos, md.uv0 = uv, md.indices = idx;
    CHECK_OK(oak_mesh_update(m, &md));
}

static void set_colour(oak_material mat, float r, float g) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = r, d.base_color[1] = g, d.base_color[2] = 0;
    d.unlit = true;
    CHECK_OK(oak_material_update(mat, &d));
}

/* The contract on one backend: returns false when it cannot start here. */
static bool contract_on(const oak_backend *be) {
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

    void *a = NULL, *b = NULL;
    oak_backend_desc d = {W, H, NULL, 256, false};
    if (be->create(&a, &d) != OAK_OK) {
        fprintf(stderr, "skipped: %s cannot start here (%s)\n", be->name, oak_last_error());
        oak_clear_error();
        oak_destroy_mesh(m), oak_destroy_material(mat);
        return false;
    }
    bool pixels = (be->caps & OAK_CAP_PIXELS) != 0;
    static uint8_t px[W * H * 4], px2[W * H * 4];

    /* 1. render alone: the first frame, nothing synced before */
    CHECK_OK(be->render(a, &s.view));
    CHECK_OK(be->read_pixels(a, px, sizeof px));
    if (pixels) {
        CHECK_EQ_INT(sc_px(px, W, 16, 16)[0], 255); /* red quad on the left */
        CHECK_EQ_INT(sc_px(px, W, 48, 16)[0], 0);   /* black sky on the right */
    }

    /* 2. assets change (both versions move); render without a sync */
    set_quad(m, true);
    set_colour(mat, 0, 1);
    s.view.frame++;
    CHECK_OK(be->render(a, &s.view));
    CHECK_OK(be->read_pixels(a, px, sizeof px));
    if (pixels) {
        CHECK_EQ_INT(sc_px(px, W, 16, 16)[1], 0);
        CHECK_EQ_INT(sc_px(px, W, 48, 16)[1], 255);
        CHECK_EQ_INT(sc_px(px, W, 48, 16)[0], 0);
    }

    /* 3. sync then render, on a fresh instance and on the same one: the
       same bytes as render alone */
    CHECK_OK(be->create(&b, &d));
    if (b) {
        CHECK_OK(be->sync(b, &s.view));
        CHECK_OK(be->render(b, &s.view));
        CHECK_OK(be->read_pixels(b, px2, sizeof px2));
        CHECK(memcmp(px, px2, sizeof px) == 0);
        be->destroy(b);
    }
    s.view.frame++;
    CHECK_OK(be->sync(a, &s.view));
    CHECK_OK(be->render(a, &s.view));
    CHECK_OK(be->read_pixels(a, px2, sizeof px2));
    CHECK(memcmp(px, px2, sizeof px) == 0);

    /* timings: every name from the table */
    oak_stage_timing t[32];
    uint32_t n = be->timings(a, t, 32);
    for (uint32_t i = 0; i < n; i++) {
        if (!named_by_table(t[i].name))
            fprintf(stderr, "  stage '%s' is not in the table\n", t[i].name);
        CHECK(named_by_table(t[i].name));
    }
    if (be->caps & OAK_CAP_PASS(OAK_PASS_RASTER)) CHECK(n > 0);
    fprintf(stderr, "%s: render alone = sync + render, %u stages named by the table\n", be->name,
            n);
    be->destroy(a);
    oak_destroy_mesh(m), oak_destroy_material(mat);
    return true;
}

/* Passes that run on some frames and not on others (shadow with the view's
 * shadows, blend with its BLEND draws): each frame of a running backend,
 * whose targets carry state (layouts, barriers) from the frames before,
 * must equal the same view drawn by a fresh instance. Numbers: the box's
 * shadow darkens the ground when shadows are on and not when off. */
static void passes_come_and_go_on(const oak_backend *be) {
    enum { S = 64 };
    sc_scene s;
    sc_init(&s, S, S);
    const float eye[3] = {0, 20, 0}, at[3] = {0, 0, 0}, up[3] = {0, 0, -1};
    sc_camera(&s, eye, at, up, 0, 8, 1, 100); /* 8 px per metre, straight down */
    mat4 id = GLM_MAT4_IDENTITY_INIT;
    oak_mesh ground = sc_ground(20);
    const float lo[3] = {-0.5f, 0, -0.5f}, hi[3] = {0.5f, 1, 0.5f};
    oak_mesh box = sc_box(lo, hi);
    oak_material white = sc_material(0.8f, 0.8f, 0.8f, 0, 1, false);
    oak_material_desc gd = oak_material_desc_defaults(NULL);
    gd.alpha_mode = OAK_ALPHA_BLEND;
    gd.base_color[0] = 0.2f, gd.base_color[3] = 0.4f;
    oak_material glass = {0};
    CHECK_OK(oak_make_material(&glass, &gd));
    const float pane[4][3] = {{1, 0.5f, 1}, {3, 0.5f, 1}, {3, 0.5f, -1}, {1, 0.5f, -1}};
    oak_mesh pane_m = sc_quad(pane);
    sc_draw(&s, ground, white, id);
    sc_draw(&s, box, white, id);
    sc_draw(&s, pane_m, glass, id); /* BLEND: last, so dropping it is a count */
    sc_caster(&s, ground, white, id);
    sc_caster(&s, box, white, id);
    const float d = 0.70710678f, dir[3] = {-d, -d, 0};
    oak_render_light *sun = sc_light(&s, OAK_LIGHT_DIRECTIONAL, 3);
    sun->direction[0] = -d, sun->direction[1] = -d;
    sun->light.cast_shadows = true;
    s.view.key_light = 0;
    sc_sun_shadow(&s, dir, 256, 8);

    void *a = NULL;
    oak_backend_desc desc = {S, S, NULL, 256, false};
    if (be->create(&a, &desc) != OAK_OK) {
        oak_clear_error();
        oak_destroy_mesh(ground), oak_destroy_mesh(box), oak_destroy_mesh(pane_m);
        oak_destroy_material(white), oak_destroy_material(glass);
        return;
    }
    static uint8_t px[S * S * 4], fresh[S * S * 4];
    /* shadows and blend on; shadows off; both on; blend gone; shadows on */
    const bool shadows[5] = {true, false, true, true, true};
    const uint32_t draws[5] = {3, 3, 3, 2, 3};
    int shadowed[5] = {0};
    for (int k = 0; k < 5; k++) {
        s.view.frame = (uint64_t)k;
        s.view.shadows = shadows[k];
        s.view.draws.count = draws[k];
        CHECK_OK(be->sync(a, &s.view));
        CHECK_OK(be->render(a, &s.view));
        CHECK_OK(be->read_pixels(a, px, sizeof px));
        void *b = NULL;
        CHECK_OK(be->create(&b, &desc));
        if (b) {
            CHECK_OK(be->render(b, &s.view));
            CHECK_OK(be->read_pixels(b, fresh, sizeof fresh));
            be->destroy(b);
        }
        if (memcmp(px, fresh, sizeof px))
            fprintf(stderr, "  %s frame %d differs from a fresh instance\n", be->name, k);
        CHECK(memcmp(px, fresh, sizeof px) == 0);
        /* x = -1 m (column 24), z = 0 (row 32): inside the box's shadow */
        shadowed[k] = sc_px(px, S, 24, 32)[0] < sc_px(px, S, 4, 32)[0] / 2;
    }
    if (be->caps & OAK_CAP_PIXELS)
        for (int k = 0; k < 5; k++) CHECK_EQ_INT(shadowed[k], shadows[k]);
    fprintf(stderr, "%s: 5 frames with passes coming and going equal fresh instances\n", be->name);
    be->destroy(a);
    oak_destroy_mesh(ground), oak_destroy_mesh(box), oak_destroy_mesh(pane_m);
    oak_destroy_material(white), oak_destroy_material(glass);
}

TEST(passes_come_and_go) {
    for (uint32_t i = 0; i < oak_backend_count(); i++)
        passes_come_and_go_on(_oak_backend_find(oak_backend_name(i)));
    CHECK_EQ_INT(validation_messages, 0);
}

TEST(every_backend_keeps_the_contract) {
    uint32_t ran = 0;
    for (uint32_t i = 0; i < oak_backend_count(); i++)
        ran += contract_on(_oak_backend_find(oak_backend_name(i)));
    CHECK(ran >= 2); /* cpu and null always start */
    CHECK_EQ_INT(validation_messages, 0);
}

/* caps: every backend that draws runs the passes today's frame needs; the
   helper tests use says what a backend lacks. */
TEST(caps_name_the_passes) {
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) {
        CHECK(oak_pass_name((oak_pass_id)i) != NULL);
        CHECK(!strcmp(oak_cap_name(i), oak_pass_name((oak_pass_id)i)));
        CHECK_EQ_INT(_oak_pass_table()[i].id, i);
    }
    CHECK(!strcmp(oak_cap_name(32), "pixels"));
    CHECK(oak_cap_name(OAK_CAP_BIT_COUNT) == NULL);
    CHECK(oak_test_backend_has("cpu", OAK_PASS_SHADOW));
    CHECK(!oak_test_backend_has("null", OAK_PASS_SHADOW)); /* prints skipped: null lacks shadow */
    CHECK_EQ_INT(oak_backend_caps("no-such-backend"), 0);
    for (uint32_t i = 0; i < oak_backend_count(); i++) {
        uint64_t caps = oak_backend_caps(oak_backend_name(i));
        if (!(caps & OAK_CAP_PIXELS)) continue;
        /* instcull is the streams' kernel in compute: the CPU runs it in the
           frontend instead; skin is the GPUs' posing of palette meshes: the
           CPU skins in its vertex stage; particles is the particle kernel
           writing device records: the CPU evaluates them on the job pool;
           grass is the grass kernel growing squares into device records:
           the CPU grows them on the job pool; meshcull is the GPUs' meshlet
           test in compute: the CPU tests meshlets in its raster's set-up */
        uint64_t need = OAK_CAP_ALL_PASSES & ~OAK_CAP_PASS(OAK_PASS_INSTCULL) &
                        ~OAK_CAP_PASS(OAK_PASS_SKIN) & ~OAK_CAP_PASS(OAK_PASS_PARTICLES) &
                        ~OAK_CAP_PASS(OAK_PASS_GRASS) & ~OAK_CAP_PASS(OAK_PASS_MESHCULL);
        CHECK_EQ_INT(caps & need, need);
        CHECK(caps & OAK_CAP_PROBES); /* every backend that draws bakes probes */
        CHECK(caps & OAK_CAP_AERIAL); /* and applies the aerial perspective */
    }
    CHECK(!strcmp(oak_cap_name(35), "probes"));
    CHECK(!(oak_backend_caps("null") & OAK_CAP_PROBES));
    CHECK(!strcmp(oak_cap_name(38), "aerial"));
    CHECK(oak_backend_caps("cpu") & OAK_CAP_AERIAL); /* the reference applies it */
    CHECK(!(oak_backend_caps("null") & OAK_CAP_AERIAL));
}

/* Cascades are an array in the seam: the GPU view block carries every one
   the view has (up to OAK_MAX_CASCADES) and their count; the CPU backend
   refuses, in one line, a cascade whose casters are not in the list. */
TEST(cascades_are_an_array) {
    sc_scene s;
    sc_init(&s, 16, 16);
    const float dir[3] = {0, -1, 0};
    sc_sun_shadow(&s, dir, 64, 4);
    s.view.cascades[1] = s.view.cascades[0];
    s.view.cascades[1].view_proj[3][0] = 0.25f; /* tell them apart */
    s.view.cascade_count = 2;
    oak_gpu_view g;
    _oak_gpu_view_fill(&g, &s.view, 16, 16, 0, 64);
    CHECK_EQ_INT(g.flags[0], 2);
    CHECK(memcmp(g.shadow_view_proj[0], s.view.cascades[0].view_proj, 64) == 0);
    CHECK(memcmp(g.shadow_view_proj[1], s.view.cascades[1].view_proj, 64) == 0);
    s.view.shadows = false;
    _oak_gpu_view_fill(&g, &s.view, 16, 16, 0, 64);
    CHECK_EQ_INT(g.flags[0], 0);
    s.view.shadows = true;

    const oak_backend *be = oak_backend_cpu();
    void *self = NULL;
    oak_backend_desc d = {16, 16, NULL, 64, false};
    CHECK_OK(be->create(&self, &d));
    if (!self) return;
    CHECK_OK(be->render(self, &s.view)); /* two cascades, no casters: fine */
    s.view.cascades[1].caster_count = 5; /* past the empty caster list */
    CHECK_EQ_INT(be->render(self, &s.view), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "cascade 1") != NULL);
    s.view.cascades[1].caster_count = 0;
    s.view.cascade_count = OAK_MAX_CASCADES + 1;
    CHECK_EQ_INT(be->render(self, &s.view), OAK_ERROR_INVALID_ARGUMENT);
    oak_clear_error();
    be->destroy(self);
}

int main(void) {
    setenv("OAK_VK_VALIDATION", "1", 0);
    /* keeps the driver's and layer's frames symbolized for LSan (vulkan_test.h) */
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    oak_engine_desc d = {0};
    d.log = count_log;
    d.log_level = OAK_LOG_WARN;
    if (oak_init(&d) != OAK_OK) return 2;
    RUN(every_backend_keeps_the_contract);
    RUN(passes_come_and_go);
    RUN(caps_name_the_passes);
    RUN(cascades_are_an_array);
    oak_shutdown();
    return TEST_SUMMARY();
}
