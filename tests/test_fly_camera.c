/* The fly camera (include/oak/fly.h), after ae3d's test_camera_collision
 * (DIGEST 3.8): flown by injected keys into a road, a wall and a corner at
 * 60 and 200 m/s it stays its radius from every box each frame; at 45
 * degrees into a wall it slides at the full speed its move has along it; a
 * 0.5 m wall stops it at 200 m/s (3.3 m a frame); a pane facing away stops
 * it too; movers, hidden draws and a camera without collision pass. */
#include "oak_test.h"

#define DT (1.0f / 60)

typedef struct box {
    float c[3], h[3]; /* centre, half extents */
} box;

typedef struct world {
    oak_scene *scene;
    oak_entity cam;
    oak_fly *fly;
    box boxes[4];
    int nbox;
    float room[3]; /* the flights start above and in front of these: x, y, z lows */
    bool has_room;
    oak_material mat;
} world;

static oak_entity add_box(world *w, float cx, float cy, float cz, float sx, float sy, float sz,
                          uint32_t flags) {
    oak_mesh m = {0};
    oak_shape_desc sd = {.type = OAK_SHAPE_BOX, .size = {sx, sy, sz}};
    CHECK_OK(oak_make_shape(&m, &sd));
    oak_entity e = oak_scene_create(w->scene, "box");
    oak_transform t = oak_transform_identity();
    t.position[0] = cx, t.position[1] = cy, t.position[2] = cz;
    oak_scene_set_transform(w->scene, e, &t);
    oak_scene_set_mesh_renderer(w->scene, e, &(oak_mesh_renderer){m, w->mat, flags});
    if (!flags && w->nbox < 4) w->boxes[w->nbox++] = (box){{cx, cy, cz}, {sx / 2, sy / 2, sz / 2}};
    return e;
}

static void make_world(world *w) {
    memset(w, 0, sizeof *w);
    CHECK_OK(oak_make_scene(&w->scene));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    CHECK_OK(oak_make_material(&w->mat, &md));
    w->cam = oak_scene_create(w->scene, "eye");
    oak_scene_set_camera(w->scene, w->cam, &(oak_camera){0});
}

static void place(world *w, float x, float y, float z, float yaw_deg, float pitch_deg,
                  const oak_fly_desc *d) {
    oak_transform t = oak_transform_identity();
    t.position[0] = x, t.position[1] = y, t.position[2] = z;
    float yaw = yaw_deg * OAK_PI / 180, pitch = pitch_deg * OAK_PI / 180;
    float cy = cosf(yaw / 2), sy = sinf(yaw / 2), cp = cosf(pitch / 2), sp = sinf(pitch / 2);
    float q[4] = {cy * sp, sy * cp, -sy * sp, cy * cp};
    memcpy(t.rotation, q, 16);
    oak_scene_set_transform(w->scene, w->cam, &t);
    oak_fly_destroy(w->fly);
    w->fly = NULL;
    CHECK_OK(oak_fly_create(&w->fly, w->scene, w->cam, d));
}

static void free_world(world *w) {
    oak_fly_destroy(w->fly);
    oak_destroy_scene(w->scene);
}

static const float *eye(const world *w) {
    return oak_scene_transform(w->scene, w->cam)->position;
}

/* Distance from p to the nearest box's surface (negative inside). */
static float clearance(const world *w, const float *p) {
    float best = INFINITY;
    for (int b = 0; b < w->nbox; b++) {
        float out = 0, in = -INFINITY;
        for (int k = 0; k < 3; k++) {
            float d = fabsf(p[k] - w->boxes[b].c[k]) - w->boxes[b].h[k];
            if (d > 0) out += d * d;
            if (d > in) in = d;
        }
        float dist = out > 0 ? sqrtf(out) : in;
        if (dist < best) best = dist;
    }
    return best;
}

/* Flies forward at speed for n frames; the least clearance seen. */
static float fly_forward(world *w, float speed, int n) {
    float least = INFINITY;
    for (int i = 0; i < n; i++) {
        oak_fly_input in = {.move = {0, 0, 1}, .speed = speed};
        CHECK_OK(oak_fly_update(w->fly, &in, DT, NULL));
        float c = clearance(w, eye(w));
        if (c < least) least = c;
        for (int k = 0; w->has_room && k < 3; k++)
            if (eye(w)[k] < w->room[k]) least = -1; /* through a wall or the road */
    }
    return least;
}

TEST(flyKeepsItsRadiusFromRoadWallAndCorner) {
    world w;
    make_world(&w);
    add_box(&w, 0, -0.1f, 0, 40, 0.2f, 40, 0); /* road, top at y = 0 */
    add_box(&w, 0, 2, -5, 20, 4, 0.5f, 0);     /* wall across -Z */
    add_box(&w, -5, 2, 5, 0.5f, 4, 20, 0);     /* wall across -X: a corner */
    static const struct {
        const char *what;
        float x, y, z, yaw, pitch;
    } flights[] = {
        {"road", 3, 1.5f, 3, 0, -60}, {"wall", 2, 1.5f, 0, 0, 0}, {"corner", 0, 1.5f, 0, 45, -5}};
    for (int v = 0; v < 2; v++) {
        float speed = v ? 200 : 60;
        for (int f = 0; f < 3; f++) {
            place(&w, flights[f].x, flights[f].y, flights[f].z, flights[f].yaw, flights[f].pitch,
                  NULL);
            float least = fly_forward(&w, speed, 60);
            fprintf(stderr, "  %s at %.0f m/s: nearest %.4f m, ended at (%.2f %.2f %.2f)\n",
                    flights[f].what, speed, least, eye(&w)[0], eye(&w)[1], eye(&w)[2]);
            CHECK(least >= (float)OAK_FLY_RADIUS - 1e-4f);
        }
    }
    free_world(&w);
}

TEST(flySlidesAlongAWallAtTheSpeedItsMoveHasAlongIt) {
    world w;
    make_world(&w);
    add_box(&w, 0, 2, -5, 40, 4, 0.5f, 0);
    place(&w, 15, 1.5f, -3, 45, 0, NULL); /* heading (-x, -z) at 45 degrees */
    fly_forward(&w, 20, 15);              /* meet the wall and settle */
    float x0 = eye(&w)[0], z0 = eye(&w)[2];
    fly_forward(&w, 20, 30);
    float along = (x0 - eye(&w)[0]) / (30 * DT), across = (eye(&w)[2] - z0) / (30 * DT);
    fprintf(stderr,
            "  along the wall %.3f m/s (20 sin 45 = 14.142), into it %.4f m/s, clear %.5f m\n",
            along, across, clearance(&w, eye(&w)));
    CHECK_NEAR(along, 20 * sinf(OAK_PI / 4), 0.01);
    CHECK_NEAR(across, 0, 1e-3);
    CHECK(clearance(&w, eye(&w)) >= (float)OAK_FLY_RADIUS - 1e-4f);
    free_world(&w);
}

TEST(flyDoesNotPassAThinWallOrAPaneFacingAway) {
    world w;
    make_world(&w);
    add_box(&w, 0, 2, -5, 20, 4, 0.5f, 0); /* 0.5 m thick */
    place(&w, 0, 1.5f, -2, 0, 0, NULL);
    fly_forward(&w, 200, 10); /* 3.3 m a frame */
    fprintf(stderr, "  thin wall at 200 m/s: stopped at z %.4f (wall face at -4.75)\n", eye(&w)[2]);
    CHECK(eye(&w)[2] >= -4.75f + (float)OAK_FLY_RADIUS - 1e-4f);
    free_world(&w);

    /* one triangle pair whose front faces away from the camera */
    make_world(&w);
    oak_mesh m = {0};
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {6, 1, 6}};
    CHECK_OK(oak_make_shape(&m, &sd));
    oak_entity pane = oak_scene_create(w.scene, "pane");
    oak_transform t = oak_transform_identity();
    t.position[2] = -4;
    float s = sinf(-OAK_PI / 4), c = cosf(-OAK_PI / 4); /* +Y turned to -Z */
    t.rotation[0] = s, t.rotation[3] = c;
    oak_scene_set_transform(w.scene, pane, &t);
    oak_scene_set_mesh_renderer(w.scene, pane, &(oak_mesh_renderer){m, w.mat, 0});
    place(&w, 0, 0, 0, 0, 0, NULL);
    fly_forward(&w, 60, 20);
    fprintf(stderr, "  pane facing away: stopped at z %.4f (pane at -4)\n", eye(&w)[2]);
    CHECK(eye(&w)[2] >= -4 + (float)OAK_FLY_RADIUS - 1e-4f && eye(&w)[2] < -3.5f);
    free_world(&w);
}

TEST(flyPassesMoversHiddenDrawsAndWithoutCollision) {
    world w;
    make_world(&w);
    add_box(&w, 0, 0, -3, 4, 4, 0.5f, OAK_DRAW_MOVING);
    add_box(&w, 0, 0, -6, 4, 4, 0.5f, OAK_DRAW_HIDDEN);
    place(&w, 0, 0, 0, 0, 0, NULL);
    fly_forward(&w, 10, 60); /* 10 m: through both */
    CHECK_NEAR(eye(&w)[2], -10, 1e-3);
    add_box(&w, 0, 0, -14, 4, 4, 0.5f, 0);
    place(&w, 0, 0, -10, 0, 0, &(oak_fly_desc){.no_collision = true});
    fly_forward(&w, 10, 60);
    CHECK_NEAR(eye(&w)[2], -20, 1e-3);
    free_world(&w);
}

TEST(flyRefusesBadInputInOneLine) {
    world w;
    make_world(&w);
    place(&w, 0, 0, 0, 0, 0, NULL);
    oak_fly_input in = {.move = {NAN, 0, 0}};
    CHECK_EQ_INT(oak_fly_update(w.fly, &in, DT, NULL), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "non-finite") != NULL);
    in = (oak_fly_input){.speed = -1};
    CHECK_EQ_INT(oak_fly_update(w.fly, &in, DT, NULL), OAK_ERROR_INVALID_ARGUMENT);
    oak_fly *f = NULL;
    CHECK_EQ_INT(oak_fly_create(&f, w.scene, (oak_entity){12345}, NULL),
                 OAK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(oak_fly_create(&f, w.scene, w.cam, &(oak_fly_desc){.radius = NAN}),
                 OAK_ERROR_INVALID_ARGUMENT);
    free_world(&w);
}

int main(void) {
    oak_test_init(0);
    RUN(flyKeepsItsRadiusFromRoadWallAndCorner);
    RUN(flySlidesAlongAWallAtTheSpeedItsMoveHasAlongIt);
    RUN(flyDoesNotPassAThinWallOrAPaneFacingAway);
    RUN(flyPassesMoversHiddenDrawsAndWithoutCollision);
    RUN(flyRefusesBadInputInOneLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
