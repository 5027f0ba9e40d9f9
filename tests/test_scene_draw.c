/* The scene feeding the renderer: what oak_scene_draw hands the null
 * backend's view (culled draws, camera, lights) follows the entities, and
 * reflection probes reach the frame input as world boxes, checked. */
#include <math.h>
#include <oak/backend.h>

#include "oak_test.h"

/* Camera at (0,0,10) looking at the origin: a box at the origin is seen, one
 * behind the camera (z = 20) and one far to the side (x = 100) are not. */
TEST(sceneDrawHandsVisibleDrawsToRenderer) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_EQ_INT(oak_scene_draw(s, r), OAK_ERROR_NOT_FOUND); /* no camera */
    oak_mesh box;
    oak_material mat;
    CHECK_OK(oak_make_shape(&box, &(oak_shape_desc){.type = OAK_SHAPE_BOX}));
    CHECK_OK(oak_make_material(&mat, &(oak_material_desc){.name = "grey"}));
    const float places[3][3] = {{0, 0, 0}, {0, 0, 20}, {100, 0, 0}};
    oak_entity seen = {0};
    for (int i = 0; i < 3; i++) {
        oak_entity e = oak_scene_create(s, NULL);
        oak_transform t = oak_transform_identity();
        memcpy(t.position, places[i], sizeof t.position);
        oak_scene_set_transform(s, e, &t);
        oak_scene_set_mesh_renderer(s, e, &(oak_mesh_renderer){box, mat, 0});
        if (i == 0) seen = e;
    }
    oak_entity cam = oak_scene_create(s, "cam");
    oak_scene_set_camera(s, cam, &(oak_camera){0});
    oak_transform ct = oak_transform_look_at((float[3]){0, 0, 10}, (float[3]){0, 0, 0});
    oak_scene_set_transform(s, cam, &ct);
    oak_entity sun = oak_scene_create(s, "sun");
    oak_scene_set_light(s, sun, &(oak_light){.type = OAK_LIGHT_DIRECTIONAL, .intensity = 3});
    CHECK_OK(oak_scene_draw(s, r));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK(v != NULL);
    if (v) {
        CHECK_EQ_INT(v->draws.count, 1);
        CHECK_NEAR(v->camera_pos[2], 10, 1e-5);
        CHECK_EQ_INT(v->light_count, 1);
        if (v->draws.count == 1) CHECK_EQ_INT(v->draws.mesh[0].id, box.id);
    }
    /* Move the seen box behind the camera: nothing is drawn. */
    oak_transform t = oak_transform_identity();
    t.position[2] = 30;
    oak_scene_set_transform(s, seen, &t);
    CHECK_OK(oak_scene_draw(s, r));
    v = oak_renderer_last_view(r);
    if (v) CHECK_EQ_INT(v->draws.count, 0);
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

/* Counting hooks: a warm frame of scene + renderer makes no heap calls. */

TEST(sceneDrawWarmFramesMakeNoHeapCalls) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s = NULL;
    CHECK_OK(oak_scene_load(&s, "tests/data/scene/good.json"));
    if (!r || !s) {
        oak_destroy_scene(s);
        oak_destroy_renderer(r);
        return;
    }
    oak_entity base = oak_scene_find(s, "base");
    /* a probe on the mover: its world box is gathered every frame */
    oak_scene_set_probe(s, base, &(oak_scene_probe){{-1, -1, -1}, {1, 1, 1}, 0.1f});
    for (int f = 0; f < 3; f++) CHECK_OK(oak_scene_draw(s, r));
    size_t before = oak_test_heap_calls();
    for (int f = 0; f < 20; f++) {
        oak_transform t = *oak_scene_transform(s, base);
        t.position[0] = 0.1f * (float)f;
        oak_scene_set_transform(s, base, &t);
        CHECK_OK(oak_scene_draw(s, r));
    }
    CHECK_EQ_INT(oak_test_heap_calls() - before, 0);
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

static oak_transform at(float x, float y, float z, float scale) {
    oak_transform t = oak_transform_identity();
    t.position[0] = x, t.position[1] = y, t.position[2] = z;
    t.scale[0] = t.scale[1] = t.scale[2] = scale;
    return t;
}

/* Is probe i of the frame input at position p with box p + lo .. p + hi? */
static bool probe_is(const oak_frame_input *in, uint32_t i, const float p[3], const float lo[3],
                     const float hi[3], float margin) {
    if (i >= in->probe_count) return false;
    const oak_reflection_probe *q = &in->probes[i];
    bool ok = fabsf(q->margin - margin) < 1e-6f;
    for (int k = 0; k < 3; k++)
        ok &= fabsf(q->position[k] - p[k]) < 1e-5f &&
              fabsf(q->box_min[k] - (p[k] + lo[k])) < 1e-5f &&
              fabsf(q->box_max[k] - (p[k] + hi[k])) < 1e-5f;
    if (!ok)
        fprintf(stderr, "  probe %u: at %g %g %g, box %g %g %g .. %g %g %g, margin %g\n", i,
                (double)q->position[0], (double)q->position[1], (double)q->position[2],
                (double)q->box_min[0], (double)q->box_min[1], (double)q->box_min[2],
                (double)q->box_max[0], (double)q->box_max[1], (double)q->box_max[2],
                (double)q->margin);
    return ok;
}

/* A probe under a scaled, turned parent: its capture point follows the
 * parent, its box keeps its world size and axes; moving the parent moves
 * the box. */
TEST(sceneProbeFollowsItsParent) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity cam = oak_scene_create(s, "cam");
    oak_scene_set_camera(s, cam, &(oak_camera){0});
    oak_entity room = oak_scene_create(s, "room"), probe = oak_scene_create(s, "probe");
    oak_transform rt = at(5, 0, 0, 2);
    glm_quatv(rt.rotation, 0.5f * (float)M_PI, (vec3){0, 0, 1}); /* local x -> world y */
    oak_scene_set_transform(s, room, &rt);
    CHECK_OK(oak_scene_set_parent(s, probe, room));
    oak_transform pt = at(1, 0, 0, 1); /* 2 m along world y once scaled and turned */
    oak_scene_set_transform(s, probe, &pt);
    const float lo[3] = {-2, -1, -3}, hi[3] = {2, 3, 0.5f};
    oak_scene_set_probe(s, probe, &(oak_scene_probe){{-2, -1, -3}, {2, 3, 0.5f}, 0.25f});
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.probe_count, 1);
    CHECK(probe_is(&in, 0, (float[3]){5, 2, 0}, lo, hi, 0.25f));
    const oak_reflection_probe *kept = in.probes;
    rt = at(-1, 0, 4, 1); /* unturned, unscaled, elsewhere */
    oak_scene_set_transform(s, room, &rt);
    CHECK_OK(oak_scene_draw(s, r));
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK(probe_is(&in, 0, (float[3]){0, 0, 4}, lo, hi, 0.25f));
    CHECK(in.probes == kept); /* the scene's array, reused */
    /* a second probe with no transform sits at the origin */
    oak_entity bare = oak_scene_create(s, "bare");
    oak_scene_remove(s, bare, OAK_COMPONENT_TRANSFORM);
    oak_scene_set_probe(s, bare, &(oak_scene_probe){{0, 0, 0}, {1, 1, 1}, 0});
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.probe_count, 2);
    CHECK(probe_is(&in, 1, (float[3]){0, 0, 0}, (float[3]){0, 0, 0}, (float[3]){1, 1, 1}, 0));
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

/* Draw fails with one line naming the entity and what is wrong. */
static void expect_refused(oak_scene *s, oak_renderer *r, oak_result code, oak_entity e,
                           const char *what) {
    oak_frame_input in;
    oak_result got = oak_scene_draw(s, r);
    const char *msg = oak_last_error();
    char who[64];
    snprintf(who, sizeof who, "entity '%s' (%#x): ", oak_scene_name(s, e), e.id);
    if (got != code || !strstr(msg, who) || !strstr(msg, what) || strchr(msg, '\n')) {
        fprintf(stderr, "  wanted %s \"%s\", got %s \"%s\"\n", oak_result_name(code), what,
                oak_result_name(got), msg);
        oak_test_failures_++;
    }
    CHECK_EQ_INT(oak_scene_frame_input(s, &in), code);
    CHECK(in.probe_count == 0 && in.probes == NULL && in.draw_count == 0);
}

TEST(sceneRefusesBadProbes) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity cam = oak_scene_create(s, "cam");
    oak_scene_set_camera(s, cam, &(oak_camera){0});
    oak_entity hall = oak_scene_create(s, "hall");
    const oak_scene_probe good = {{-1, -1, -1}, {1, 1, 1}, 0.5f};
    oak_scene_set_probe(s, hall, &good);
    CHECK_OK(oak_scene_draw(s, r));
    static const struct {
        int field; /* 0..2 box_min, 3..5 box_max, 6 margin */
        float value;
        const char *message;
    } bad[] = {
        {1, 0.5f, "reflection probe box_min[1] = 0.5 is above 0"},
        {5, -0.25f, "reflection probe box_max[2] = -0.25 is below 0"},
        {0, -INFINITY, "reflection probe box_min[0] = -inf is not finite"},
        {4, NAN, "reflection probe box_max[1] = nan is not finite"},
        {6, -0.1f, "reflection probe margin = -0.1 is not a finite number >= 0"},
        {6, INFINITY, "reflection probe margin = inf is not a finite number >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        oak_scene_probe p = good;
        float *f = bad[i].field < 3   ? &p.box_min[bad[i].field]
                   : bad[i].field < 6 ? &p.box_max[bad[i].field - 3]
                                      : &p.margin;
        *f = bad[i].value;
        oak_scene_set_probe(s, hall, &p);
        expect_refused(s, r, OAK_ERROR_INVALID_ARGUMENT, hall, bad[i].message);
    }
    /* finite offsets from a point far out: the world box overflows */
    oak_scene_set_probe(s, hall, &(oak_scene_probe){{-1, -1, -1}, {3e38f, 1, 1}, 0});
    oak_transform far = at(3e38f, 0, 0, 1);
    oak_scene_set_transform(s, hall, &far);
    expect_refused(s, r, OAK_ERROR_INVALID_ARGUMENT, hall, "reflection probe box is not finite");
    oak_transform home = at(0, 0, 0, 1);
    oak_scene_set_transform(s, hall, &home);
    oak_scene_set_probe(s, hall, &good);
    CHECK_OK(oak_scene_draw(s, r));

    /* OAK_PROBE_MAX probes draw; one more is refused, naming it */
    oak_entity last = {0};
    for (uint32_t i = 1; i <= OAK_PROBE_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "p%u", i);
        last = oak_scene_create(s, name);
        if (i < OAK_PROBE_MAX) oak_scene_set_probe(s, last, &good);
    }
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.probe_count, OAK_PROBE_MAX);
    CHECK_OK(oak_scene_draw(s, r));
    oak_scene_set_probe(s, last, &good);
    char want[96];
    snprintf(want, sizeof want,
             "entity 'p%u' (%#x): reflection probe %u of %u, more than OAK_PROBE_MAX",
             (unsigned)OAK_PROBE_MAX, last.id, OAK_PROBE_MAX + 1u, OAK_PROBE_MAX + 1u);
    expect_refused(s, r, OAK_ERROR_LIMIT, last, want);
    oak_scene_remove(s, hall, OAK_COMPONENT_REFLECTION_PROBE);
    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.probe_count, OAK_PROBE_MAX);
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

int main(void) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_NONE;
    d.allocator = oak_test_counting_allocator();
    if (oak_init(&d)) return 2;
    RUN(sceneDrawHandsVisibleDrawsToRenderer);
    RUN(sceneDrawWarmFramesMakeNoHeapCalls);
    RUN(sceneProbeFollowsItsParent);
    RUN(sceneRefusesBadProbes);
    oak_shutdown();
    return TEST_SUMMARY();
}
