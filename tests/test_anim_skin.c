/* The scene side of glTF: SimpleSkin's skinned vertices at two clip times
 * against positions worked by hand from its joints and inverse binds;
 * MorphStressTest's posed positions as base + sum(w_i * target_i); the
 * player's loop, blend and additive layer; posed bounds; and framing each
 * model at 55% of the frame's height, checked by projecting its vertices. */
#include "oak_test.h"

#include <oak/anim.h>

#include "gltf_test_assets.h"

static oak_gltf *load(const char *rel) {
    char path[256];
    oak_gltf *g = NULL;
    oak_result r = oak_gltf_load(&g, gltf_asset(path, sizeof path, rel), NULL);
    if (r) fprintf(stderr, "  %s\n", oak_last_error());
    return g;
}

/* SimpleSkin: node 0 holds the mesh, joints are nodes 1 (T(0,1,0)) and 2
 * (its child, rotated about Z by the clip); both inverse binds are
 * T(-.5,-1,0). So J0 = T(-.5,0,0) and J1 = T(0,1,0) R T(-.5,-1,0). */
typedef struct skin_case {
    float time;
    float rest_x, rest_y; /* the vertex, by its rest position (flat normals re-index) */
    float x, y;
} skin_case;

static const skin_case g_skin_cases[] = {
    /* t=1: key 2, 90 degrees, R(x,y) = (-y,x) */
    {1, 1, 2, -1.0f, 1.5f},     /* all J1: (.5,1) -> (-1,.5) -> (-1,1.5) */
    {1, 1, 1, 0.25f, 1.25f},    /* half each: J0 (.5,1), J1 (.5,0) -> (0,.5) -> (0,1.5) */
    {1, 0, 1.5f, -0.5f, 0.75f}, /* .25/.75: J0 (-.5,1.5), J1 (-.5,.5) -> (-.5,-.5) -> (-.5,.5) */
    {1, 0, 0, -0.5f, 0.0f},     /* all J0 */
    /* t=4: key 8, -90 degrees, R(x,y) = (y,-x) */
    {4, 1, 2, 1.0f, 0.5f},   /* (.5,1) -> (1,-.5) -> (1,.5) */
    {4, 1, 1, 0.25f, 0.75f}, /* J0 (.5,1), J1 (.5,0) -> (0,-.5) -> (0,.5) */
    {4, 0, 2, 1.0f, 1.5f},   /* (-.5,1) -> (1,.5) -> (1,1.5) */
};

TEST(skinSimpleSkinVerticesMatchHandComputedPose) {
    oak_gltf *g = load("SimpleSkin/SimpleSkin.gltf");
    CHECK(g != NULL);
    if (!g) return;
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "skin"));
    if (!inst) goto done;
    oak_anim_player *p = oak_gltf_instance_player(inst);
    CHECK(p != NULL);
    oak_anim_play(p, 0, false);
    for (size_t i = 0; i < sizeof g_skin_cases / sizeof g_skin_cases[0]; i++) {
        const skin_case *c = &g_skin_cases[i];
        oak_anim_set_time(p, c->time);
        oak_anim_update(scene, 0);
        CHECK_OK(oak_skin_update(scene));
        const oak_gltf_primitive *pr = &g->meshes[0].primitives[0];
        /* as every backend skins it (its palette: oak_mesh_update_palette) */
        static float pos[3 * 64];
        uint32_t n = oak_mesh_posed_positions(oak_gltf_instance_mesh(inst, 0, 0), false, pos, 64);
        CHECK_EQ_INT(n, pr->vertex_count);
        if (n != pr->vertex_count) break;
        uint32_t found = 0;
        for (uint32_t v = 0; v < pr->vertex_count; v++) {
            if (pr->positions[3 * v] != c->rest_x || pr->positions[3 * v + 1] != c->rest_y)
                continue;
            found++;
            CHECK_NEAR(pos[3 * v], c->x, 1e-5);
            CHECK_NEAR(pos[3 * v + 1], c->y, 1e-5);
            CHECK_NEAR(pos[3 * v + 2], 0, 1e-6);
        }
        CHECK(found > 0);
    }
    /* bounds follow the pose: at t=1 vertices 8 and 9 swing to x = -1 */
    oak_anim_set_time(p, 1);
    oak_anim_update(scene, 0);
    CHECK_OK(oak_skin_update(scene));
    const oak_mesh_data *md = oak_mesh_get(oak_gltf_instance_mesh(inst, 0, 0));
    if (md) {
        CHECK_NEAR(md->bounds.min[0], -1, 1e-5);
        CHECK_NEAR(md->bounds.max[1], 1.5, 1e-5); /* rest pose reaches 2 */
    }
    /* the shared mesh stays at rest */
    const oak_mesh_data *rest = oak_mesh_get(g->meshes[0].primitives[0].mesh);
    CHECK(rest && rest->bounds.max[1] == 2.0f);
    oak_gltf_instance_free(inst);
done:
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

TEST(animPlayerLoopsBlendsAndAddsLayers) {
    oak_gltf *g = load("SimpleSkin/SimpleSkin.gltf");
    if (!g) return;
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "skin"));
    if (!inst) goto done;
    oak_anim_player *p = oak_gltf_instance_player(inst);
    oak_entity joint = oak_gltf_instance_node(inst, 2);
    CHECK_EQ_INT(oak_gltf_find_clip(g, "0"), 0);
    CHECK_EQ_INT(oak_gltf_find_clip(g, "7"), -1);

    oak_anim_play(p, 0, true);
    oak_anim_update(scene, 6.0f); /* 6 s into a 5.5 s loop: 0.5 s */
    CHECK_NEAR(p->time, 0.5, 1e-5);
    oak_anim_play(p, 0, false);
    oak_anim_update(scene, 6.0f); /* holds the end */
    CHECK_NEAR(p->time, 5.5, 0);
    CHECK_NEAR(oak_scene_transform(scene, joint)->rotation[3], 1, 1e-6);

    /* 90 degrees (t=1) blended half with 0 degrees (t=0): 45 degrees */
    p->playing = false;
    p->time = 1;
    p->blend_clip = 0;
    p->blend_time = 0;
    p->blend_weight = 0.5f;
    oak_anim_update(scene, 0);
    const oak_transform *t = oak_scene_transform(scene, joint);
    CHECK_NEAR(t->rotation[2], sinf(OAK_PI / 8), 1e-5);
    CHECK_NEAR(t->rotation[3], cosf(OAK_PI / 8), 1e-5);

    /* additive: base at rest (t=0), the clip's change at t=1 (90 degrees)
     * at weight 1 gives 90; at .5, 45 */
    p->blend_weight = 0;
    p->time = 0;
    p->additive_clip = 0;
    p->additive_time = 1;
    p->additive_weight = 1;
    oak_anim_update(scene, 0);
    t = oak_scene_transform(scene, joint);
    CHECK_NEAR(t->rotation[2], sinf(OAK_PI / 4), 1e-5);
    p->additive_weight = 0.5f;
    oak_anim_update(scene, 0);
    t = oak_scene_transform(scene, joint);
    CHECK_NEAR(t->rotation[2], sinf(OAK_PI / 8), 1e-5);
    oak_gltf_instance_free(inst);
done:
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

TEST(morphStressTestWeightsMovePositionsAsTheSpecSays) {
    oak_gltf *g = load("animated/MorphStressTest.gltf");
    CHECK(g != NULL);
    if (!g) return;
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "morph"));
    if (!inst) goto done;
    uint32_t count = 0;
    float *w = oak_gltf_instance_weights(inst, 0, &count);
    CHECK_EQ_INT(count, 8);
    if (!w) goto free_inst;
    const float set[8] = {0.5f, 0, 0.25f, 1, 0, 0, 0.75f, -0.5f};
    memcpy(w, set, sizeof set);
    CHECK_OK(oak_skin_update(scene));
    const oak_gltf_mesh *m = &g->meshes[0];
    uint32_t total_moved = 0;
    for (uint32_t pi = 0; pi < m->primitive_count; pi++) {
        const oak_gltf_primitive *p = &m->primitives[pi];
        const oak_mesh_data *md = oak_mesh_get(oak_gltf_instance_mesh(inst, 0, pi));
        CHECK(md != NULL);
        if (!md) continue;
        /* posed by the backends (oak_mesh_update_pose): the positions they draw */
        float *posed = oak_alloc(sizeof(float) * 3 * (p->vertex_count + 1));
        if (!posed) continue;
        CHECK_EQ_INT(oak_mesh_posed_positions(oak_gltf_instance_mesh(inst, 0, pi), false, posed,
                                              p->vertex_count),
                     p->vertex_count);
        double worst = 0;
        uint32_t moved = 0;
        for (uint32_t v = 0; v < p->vertex_count; v++)
            for (int k = 0; k < 3; k++) {
                double want = p->positions[3 * v + k];
                for (uint32_t t = 0; t < 8; t++)
                    if (p->targets[t].positions)
                        want += (double)set[t] * p->targets[t].positions[3 * v + k];
                worst = fmax(worst, fabs(posed[3 * v + k] - want));
                moved += fabs(want - p->positions[3 * v + k]) > 1e-4;
            }
        oak_free(posed);
        CHECK(worst < 1e-5);
        fprintf(stderr, "  primitive %u: %u vertices, %u coordinates moved, worst %.3g\n", pi,
                p->vertex_count, moved, worst);
        total_moved += moved;
    }
    CHECK(total_moved > 100); /* the targets really move the base */
    /* The "Individuals" clip drives the weights through the player. */
    oak_anim_player *pl = oak_gltf_instance_player(inst);
    int32_t clip = oak_gltf_find_clip(g, "Individuals");
    CHECK(clip >= 0);
    if (clip >= 0) {
        oak_anim_play(pl, clip, false);
        oak_anim_set_time(pl, 1.3f);
        oak_anim_update(scene, 0);
        float want[8];
        const oak_gltf_clip *c = &g->clips[clip];
        oak_anim_sample(want, &c->samplers[c->channels[0].sampler], 1.3f, false);
        for (int i = 0; i < 8; i++) CHECK_NEAR(w[i], want[i], 1e-6);
    }
free_inst:
    oak_gltf_instance_free(inst);
done:
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

static const char *const g_frame_models[] = {
    "cube/cube.gltf",
    "sphere/sphere.gltf",
    "torus/torus.gltf",
    "CornellBox/CornellBox.glb",
    "FlightHelmet/FlightHelmet.gltf",
    "SimpleSkin/SimpleSkin.gltf",
    "cubes/Cubes.glb",
    "animated/MorphStressTest.gltf",
};

TEST(framingFillsFiftyFivePercentOfHeightWithinOnePixel) {
    const uint32_t width = 640, height = 360;
    for (size_t i = 0; i < sizeof g_frame_models / sizeof g_frame_models[0]; i++) {
        oak_gltf *g = load(g_frame_models[i]);
        CHECK(g != NULL);
        if (!g) continue;
        oak_scene *scene = NULL;
        oak_gltf_instance *inst = NULL;
        CHECK_OK(oak_make_scene(&scene));
        CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "m"));
        CHECK_OK(oak_skin_update(scene));
        uint32_t n = oak_gltf_instance_points(inst, NULL, 0);
        float *pts = oak_alloc((size_t)n * 12 + 12);
        oak_gltf_instance_points(inst, pts, n);
        oak_framing f = {.yaw = 0.6f,
                         .pitch = 0.35f,
                         .share = 0.55f,
                         .fov_y = 50 * OAK_PI / 180,
                         .aspect = (float)width / height};
        oak_transform xf;
        oak_camera cam;
        CHECK_OK(oak_frame_points(&xf, &cam, pts, n, &f));
        mat4 model, view, proj, vp;
        versor q;
        memcpy(q, xf.rotation, 16);
        glm_quat_mat4(q, model);
        memcpy(model[3], (vec4){xf.position[0], xf.position[1], xf.position[2], 1}, 16);
        glm_mat4_inv(model, view);
        oak_perspective_rz(cam.fov_y, cam.aspect, cam.znear, cam.zfar, proj);
        glm_mat4_mul(proj, view, vp);
        double ymin = 1e9, ymax = -1e9, xmin = 1e9, xmax = -1e9;
        uint32_t clipped = 0;
        for (uint32_t v = 0; v < n; v++) {
            vec4 p = {pts[3 * v], pts[3 * v + 1], pts[3 * v + 2], 1}, c;
            glm_mat4_mulv(vp, p, c);
            double py = (1 - c[1] / c[3]) * 0.5 * height, px = (c[0] / c[3] + 1) * 0.5 * width;
            ymin = fmin(ymin, py), ymax = fmax(ymax, py), xmin = fmin(xmin, px),
            xmax = fmax(xmax, px);
            clipped += c[2] / c[3] < 0 || c[2] / c[3] > 1;
        }
        double span = ymax - ymin;
        fprintf(stderr, "  %-32s %6u vertices: span %.3f px of %u (want %.1f), centre %.2f, %.2f\n",
                g_frame_models[i], n, span, height, 0.55 * height, 0.5 * (ymin + ymax),
                0.5 * (xmin + xmax));
        CHECK_NEAR(span, 0.55 * height, 1.0);
        CHECK_NEAR(0.5 * (ymin + ymax), height / 2.0, 1.0);
        CHECK_NEAR(0.5 * (xmin + xmax), width / 2.0, 1.0);
        CHECK_EQ_INT(clipped, 0); /* near and far hold every vertex */
        oak_free(pts);
        oak_gltf_instance_free(inst);
        oak_destroy_scene(scene);
        oak_gltf_free(g);
    }
}

int main(void) {
    oak_test_init(0);
    RUN(skinSimpleSkinVerticesMatchHandComputedPose);
    RUN(animPlayerLoopsBlendsAndAddsLayers);
    RUN(morphStressTestWeightsMovePositionsAsTheSpecSays);
    RUN(framingFillsFiftyFivePercentOfHeightWithinOnePixel);
    oak_shutdown();
    return TEST_SUMMARY();
}
