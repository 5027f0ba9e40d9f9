/* Particles (world/particles.c): the same seed gives the same records to the
 * bit at 1 and 4 job threads and on a rerun after a rewind; a burst of K
 * lives exactly its life (K alive a step before, none on it); the rate
 * births evenly and the cone holds every velocity; gravity and drag follow
 * the analytic flight within 1e-4 m (a forward Euler step would be 0.08 m
 * off after 1 s); colour and size keys by the share of life; each quad
 * turns its +y to the eye, upright; a flipbook's frame by life; bad descs
 * and times give one line. */
#include "oak_test.h"

#include <oak/world.h>

#define STEP (1.0 / 60.0)

static oak_scene *g_scene;

/* a scene with a camera at eye looking at the origin */
static oak_particles *make_set(const float eye[3]) {
    CHECK_OK(oak_make_scene(&g_scene));
    if (!g_scene) return NULL;
    oak_entity cam = oak_scene_create(g_scene, "camera");
    float target[3] = {0, 0, 0};
    oak_transform t = oak_transform_look_at(eye, target);
    oak_scene_set_transform(g_scene, cam, &t);
    oak_scene_set_camera(g_scene, cam, &(oak_camera){0});
    oak_scene_set_active_camera(g_scene, cam);
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(g_scene, &p));
    return p;
}

static void done(void) {
    oak_destroy_scene(g_scene); /* the set with it */
    g_scene = NULL;
}

/* a busy emitter: more particles than a job's chunk, every feature on */
static oak_emitter_desc busy_desc(void) {
    oak_emitter_desc d = {.capacity = 4096,
                          .seed = 77,
                          .position = {0, 0.5f, 0},
                          .direction = {0.2f, 1, 0},
                          .cone_degrees = 35,
                          .rate = 1500,
                          .speed = {2, 5},
                          .life = {0.8f, 1.6f},
                          .size = {0.05f, 0.2f},
                          .spin = {-3, 3},
                          .gravity = {0, -9.81f, 0},
                          .drag = 0.4f,
                          .color_key_count = 2,
                          .size_key_count = 2};
    d.bursts[0] = (oak_particle_burst){.at = 0.25f, .every = 0.5f, .count = 300};
    d.color_keys[0] = (oak_particle_key){0, {1, 0.8f, 0.2f, 1}};
    d.color_keys[1] = (oak_particle_key){1, {0.2f, 0.2f, 0.2f, 0}};
    d.size_keys[0] = (oak_particle_key){0, {1, 0, 0, 0}};
    d.size_keys[1] = (oak_particle_key){1, {2.5f, 0, 0, 0}};
    return d;
}

/* 2 s of world frames at 60 Hz; the records copied out (count returned) */
static uint32_t busy_run(uint32_t threads, oak_instance *out, uint32_t cap) {
    oak_shutdown();
    oak_test_init(threads);
    CHECK_EQ_INT(oak_job_threads(), threads);
    oak_particles *p = make_set((float[3]){4, 2, 6});
    uint32_t n = 0;
    if (p) {
        oak_emitter_desc d = busy_desc();
        CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
        for (int i = 0; i <= 120; i++) CHECK_OK(oak_world_update_particles(g_scene, i / 60.0f));
        const oak_stream *s = oak_particles_stream(p, 0);
        n = oak_stream_count(s);
        if (n <= cap) memcpy(out, oak_stream_records(s), sizeof *out * n);
    }
    done();
    return n;
}

TEST(sameRecordsAtAnyThreadCount) {
    static oak_instance a[4096], b[4096];
    uint32_t na = busy_run(1, a, 4096), nb = busy_run(4, b, 4096);
    fprintf(stderr, "  %u particles alive after 2 s at 1 thread, %u at 4\n", na, nb);
    CHECK(na > 2 * OAK_PARTICLE_CHUNK); /* several chunks */
    CHECK_EQ_INT(na, nb);
    CHECK(na == nb && !memcmp(a, b, sizeof *a * na));
}

TEST(rewindRepeatsTheRun) {
    static oak_instance a[4096];
    oak_particles *p = make_set((float[3]){4, 2, 6});
    if (!p) return;
    oak_emitter_desc d = busy_desc();
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    CHECK_OK(oak_particles_update(p, 1.5));
    const oak_stream *s = oak_particles_stream(p, 0);
    uint32_t n = oak_stream_count(s);
    memcpy(a, oak_stream_records(s), sizeof *a * n);
    /* a jump straight there equals 90 single steps; back to 0.7 and on again too */
    CHECK_OK(oak_particles_update(p, 0.7));
    CHECK_OK(oak_particles_update(p, 1.5));
    CHECK_EQ_INT(oak_stream_count(s), n);
    CHECK(!memcmp(a, oak_stream_records(s), sizeof *a * n));
    done();
}

TEST(burstLivesExactlyItsLife) {
    oak_particles *p = make_set((float[3]){0, 0, 5});
    if (!p) return;
    oak_emitter_desc d = {.life = {0.5f, 0.5f}, .speed = {1, 1}, .cone_degrees = 90};
    d.bursts[0] = (oak_particle_burst){.at = 0, .count = 250};
    uint32_t e = 9;
    CHECK_OK(oak_particles_add_emitter(p, &d, &e));
    CHECK_EQ_INT(e, 0);
    oak_particle_stats st;
    CHECK_OK(oak_world_update_particles(g_scene, 0));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 0); /* born in the step [0, 1/60) */
    for (int i = 1; i < 30; i++) {
        CHECK_OK(oak_world_update_particles(g_scene, i / 60.0f));
        CHECK_OK(oak_particles_get_stats(p, 0, &st));
        CHECK_EQ_INT(st.alive, 250);
    }
    CHECK_EQ_INT(oak_stream_count(oak_particles_stream(p, 0)), 250);
    CHECK_OK(oak_world_update_particles(g_scene, 30 / 60.0f));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 0);
    CHECK_EQ_INT(st.born, 250);
    CHECK_EQ_INT(oak_stream_count(oak_particles_stream(p, 0)), 0);
    /* a burst asked for lives its life from the next step's start */
    CHECK_OK(oak_particles_burst(p, 0, 40));
    CHECK_OK(oak_particles_update(p, 31 * STEP));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 40);
    CHECK_OK(oak_particles_update(p, 59 * STEP));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 40);
    CHECK_OK(oak_particles_update(p, 60 * STEP));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 0);
    done();
}

TEST(rateBirthsEvenlyInsideTheCone) {
    oak_particles *p = make_set((float[3]){0, 0, 5});
    if (!p) return;
    oak_emitter_desc d = {.capacity = 150,
                          .seed = 3,
                          .position = {1, 2, 3},
                          .direction = {0, 0, -2},
                          .cone_degrees = 20,
                          .rate = 100,
                          .speed = {1, 2},
                          .life = {10, 10}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    CHECK_OK(oak_particles_update(p, 1.0));
    oak_particle_stats st;
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.born, 100); /* at j / 100 for j in [0, 100) */
    CHECK_EQ_INT(st.alive, 100);
    const oak_instance *r = oak_stream_records(oak_particles_stream(p, 0));
    double widest = 0;
    for (uint32_t i = 0; i < st.alive; i++) {
        double v[3] = {r[i].position[0] - 1, r[i].position[1] - 2, r[i].position[2] - 3};
        double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        widest = fmax(widest, acos(fmin(1, -v[2] / l)) * 180 / 3.14159265358979);
    }
    fprintf(stderr, "  widest flight %.3f degrees off the axis (cone 20)\n", widest);
    CHECK(widest <= 20.01 && widest > 15);
    /* past the capacity births are dropped, never reallocated */
    CHECK_OK(oak_particles_update(p, 2.0));
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK_EQ_INT(st.alive, 150);
    CHECK_EQ_INT(st.dropped, 50);
    done();
}

/* one particle thrown straight up at 10 m/s; its height against the closed form */
static void flight(float drag, double *worst) {
    oak_particles *p = make_set((float[3]){0, 0, 5});
    if (!p) return;
    oak_emitter_desc d = {.speed = {10, 10}, .life = {5, 5}, .gravity = {0, -9.81f, 0}};
    d.drag = drag;
    d.bursts[0].count = 1;
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    for (int i = 1; i <= 180; i++) {
        CHECK_OK(oak_world_update_particles(g_scene, i / 60.0f));
        double t = i / 60.0, y;
        if (drag > 0) {
            double vt = -9.81 / drag;
            y = vt * t + (10 - vt) * (1 - exp(-drag * t)) / drag;
        } else {
            y = 10 * t - 0.5 * 9.81 * t * t;
        }
        const oak_instance *r = oak_stream_records(oak_particles_stream(p, 0));
        *worst = fmax(*worst, fabs(r[0].position[1] - y));
        CHECK(r[0].position[0] == 0 && r[0].position[2] == 0);
    }
    done();
}

TEST(gravityAndDragFollowTheAnalyticFlight) {
    double plain = 0, dragged = 0;
    flight(0, &plain);
    flight(0.5f, &dragged);
    fprintf(stderr, "  worst height error over 3 s: %.2g m without drag, %.2g m with 0.5/s\n",
            plain, dragged);
    CHECK(plain <= 1e-4);
    CHECK(dragged <= 1e-4);
}

TEST(colourAndSizeKeysByLife) {
    const float eye[3] = {3, 4, 5};
    oak_particles *p = make_set(eye);
    if (!p) return;
    oak_emitter_desc d = {.life = {1, 1}, .size = {0.4f, 0.4f}, .spin = {2, 2}};
    d.bursts[0].count = 1;
    d.color_key_count = 3, d.size_key_count = 2;
    d.color_keys[0] = (oak_particle_key){0, {1, 0, 0, 1}};
    d.color_keys[1] = (oak_particle_key){0.5f, {0, 1, 0, 1}};
    d.color_keys[2] = (oak_particle_key){1, {0, 0, 1, 0}};
    d.size_keys[0] = (oak_particle_key){0, {1}};
    d.size_keys[1] = (oak_particle_key){1, {3}};
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    const float want[2][6] = {{0.5f, 0.5f, 0, 0.25f, 0.4f * 1.5f}, /* r g b, share, size */
                              {0, 0.5f, 0.5f, 0.75f, 0.4f * 2.5f}};
    for (int k = 0; k < 2; k++) {
        CHECK_OK(oak_particles_update(p, (k ? 45 : 15) * STEP));
        const oak_instance *r = oak_stream_records(oak_particles_stream(p, 0));
        for (int c = 0; c < 3; c++) CHECK_NEAR(r->color[c], want[k][c], 1e-5);
        CHECK_NEAR(oak_instance_phase_share(r->phase), want[k][3], 1e-4);
        CHECK_NEAR(oak_instance_phase_opacity(r->phase), k ? 0.5 : 1, 1.0 / 255);
        CHECK_NEAR(r->scale, want[k][4], 1e-5);
        /* +y turned by the record's quaternion points at the eye */
        const float *q = r->rotation;
        float y[3] = {2 * (q[0] * q[1] - q[3] * q[2]), 1 - 2 * (q[0] * q[0] + q[2] * q[2]),
                      2 * (q[1] * q[2] + q[3] * q[0])};
        float n[3] = {eye[0] - r->position[0], eye[1] - r->position[1], eye[2] - r->position[2]};
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int c = 0; c < 3; c++) CHECK_NEAR(y[c], n[c] / l, 1e-5);
    }
    done();
}

/* A 2 x 2 flipbook over a life of 1 s: the particle is in frame 1's stream
   at a quarter of its life and frame 3's at three quarters, and stands
   upright: the quad's -z (its texture's top) is world up as the eye sees it. */
TEST(flipbookFrameByLife) {
    const float eye[3] = {3, 4, 5};
    oak_particles *p = make_set(eye);
    if (!p) return;
    oak_texture white = {0};
    CHECK_OK(oak_load_texture(&white, "oak://white", OAK_FORMAT_RGBA8_SRGB));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color_tex.texture = white;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    oak_emitter_desc d = {.life = {1, 1}, .material = m, .flipbook = {2, 2}};
    d.bursts[0].count = 1;
    CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    CHECK(oak_particles_frame_stream(p, 0, 3) && !oak_particles_frame_stream(p, 0, 4));
    CHECK(oak_particles_frame_stream(p, 0, 0) == oak_particles_stream(p, 0));
    const int want[3] = {1, 2, 3};
    const double at[3] = {0.25, 0.5, 0.75};
    for (int k = 0; k < 3; k++) {
        CHECK_OK(oak_particles_update(p, at[k]));
        for (uint32_t f = 0; f < 4; f++)
            CHECK_EQ_INT(oak_stream_count(oak_particles_frame_stream(p, 0, f)),
                         f == (uint32_t)want[k]);
    }
    const oak_instance *r = oak_stream_records(oak_particles_frame_stream(p, 0, 3));
    const float *q = r->rotation;
    /* -z turned: -(2(xz + wy), 2(yz - wx), 1 - 2(xx + yy)) */
    float top[3] = {-2 * (q[0] * q[2] + q[3] * q[1]), -2 * (q[1] * q[2] - q[3] * q[0]),
                    -(1 - 2 * (q[0] * q[0] + q[1] * q[1]))};
    float n[3] = {eye[0] - r->position[0], eye[1] - r->position[1], eye[2] - r->position[2]};
    float nl = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    float up[3] = {0, 1, 0}, dn = n[1] / nl, ul = 0;
    for (int c = 0; c < 3; c++) up[c] -= dn * n[c] / nl, ul += up[c] * up[c];
    for (int c = 0; c < 3; c++) CHECK_NEAR(top[c], up[c] / sqrtf(ul), 1e-5);
    /* lifted by half its size: the same particle half a quad higher along its up */
    oak_emitter_desc lifted = d;
    lifted.lift = 0.5f;
    CHECK_OK(oak_particles_add_emitter(p, &lifted, NULL));
    CHECK_OK(oak_particles_update(p, 0.1));
    CHECK_OK(oak_particles_update(p, 0.75)); /* a restart: both born at 0 */
    const oak_instance *r0 = oak_stream_records(oak_particles_frame_stream(p, 0, 3));
    const oak_instance *r1 = oak_stream_records(oak_particles_frame_stream(p, 1, 3));
    CHECK(r0->scale == r1->scale);
    for (int c = 0; c < 3; c++)
        CHECK_NEAR(r1->position[c] - r0->position[c], 0.5 * r0->scale * up[c] / sqrtf(ul), 1e-5);
    /* bad flipbooks: too many frames, a missing side, no atlas */
    oak_emitter_desc bad = d;
    bad.flipbook[0] = 5, bad.flipbook[1] = 4;
    CHECK(oak_particles_add_emitter(p, &bad, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    bad.flipbook[1] = 0;
    CHECK(oak_particles_add_emitter(p, &bad, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    bad.flipbook[0] = bad.flipbook[1] = 2, bad.material = (oak_material){0};
    CHECK(oak_particles_add_emitter(p, &bad, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    done();
    oak_destroy_material(m);
    oak_destroy_texture(white);
}

TEST(badInputGivesOneLine) {
    oak_particles *p = make_set((float[3]){0, 0, 5});
    if (!p) return;
    oak_emitter_desc bad[6] = {
        {.cone_degrees = 200},      {.life = {2, 1}}, {.capacity = OAK_PARTICLE_MAX + 1},
        {.direction = {NAN, 0, 0}}, {.drag = -1},     {.color_key_count = OAK_PARTICLE_KEYS + 1}};
    for (int i = 0; i < 6; i++)
        CHECK(oak_particles_add_emitter(p, &bad[i], NULL) == OAK_ERROR_INVALID_ARGUMENT);
    oak_emitter_desc d = {.color_key_count = 2};
    d.color_keys[0].t = 0.7f, d.color_keys[1].t = 0.2f; /* falling */
    CHECK(oak_particles_add_emitter(p, &d, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_particles_stream(p, 0) == NULL);
    CHECK_OK(oak_particles_add_emitter(p, NULL, NULL));
    CHECK(oak_particles_update(p, NAN) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_particles_update(p, -1) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_particles_update(p, 1e7) == OAK_ERROR_LIMIT);
    CHECK(oak_particles_burst(p, 1, 5) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_particles_set_position(p, 0, (float[3]){INFINITY, 0, 0}) ==
          OAK_ERROR_INVALID_ARGUMENT);
    oak_particle_stats st;
    CHECK_OK(oak_particles_get_stats(p, 0, &st));
    CHECK(st.time == 0);
    done();
}

int main(void) {
    oak_test_init(0);
    RUN(sameRecordsAtAnyThreadCount);
    RUN(rewindRepeatsTheRun);
    RUN(burstLivesExactlyItsLife);
    RUN(rateBirthsEvenlyInsideTheCone);
    RUN(gravityAndDragFollowTheAnalyticFlight);
    RUN(colourAndSizeKeysByLife);
    RUN(flipbookFrameByLife);
    RUN(badInputGivesOneLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
