/* Skinning on the GPU (issue 15; docs/ARCHITECTURE.md "Skinning on the
 * GPU"): a skinned glTF primitive is posed by its joint palette
 * (oak_mesh_update_palette), so a new pose moves the mesh's pose_version
 * and never its version (no backend uploads it again); the palette's bounds
 * are the skinned positions'; bad skins are refused in one line; and on
 * each backend (argv[1]: cpu, vulkan or gl) the running Fox's frames follow
 * the pose, a GPU's within the parity rule of the CPU's. */
#include "oak_test.h"

#include <math.h>
#include <oak/anim.h>

#include "backend_start.h"
#include "gltf_test_assets.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";

typedef struct fox {
    oak_gltf *g;
    oak_scene *scene;
    oak_gltf_instance *inst;
    oak_mesh mesh; /* the posed primitive's */
} fox;

static void fox_free(fox *f) {
    if (f->inst) oak_gltf_instance_free(f->inst);
    if (f->scene) oak_destroy_scene(f->scene);
    if (f->g) oak_gltf_free(f->g);
    memset(f, 0, sizeof *f);
}

/* The Fox placed, playing its Run, framed from the side with a sun. */
static bool fox_load(fox *f) {
    memset(f, 0, sizeof *f);
    char path[256];
    CHECK_OK(oak_gltf_load(&f->g, gltf_asset(path, sizeof path, "animated/Fox.glb"), NULL));
    if (!f->g) return false;
    CHECK_OK(oak_make_scene(&f->scene));
    if (f->scene) CHECK_OK(oak_gltf_instantiate(&f->inst, f->scene, f->g, (oak_entity){0}, "fox"));
    if (!f->inst) return false;
    for (uint32_t n = 0; n < f->g->node_count && !f->mesh.id; n++)
        if (f->g->nodes[n].mesh >= 0) f->mesh = oak_gltf_instance_mesh(f->inst, n, 0);
    oak_anim_player *pl = oak_gltf_instance_player(f->inst);
    oak_anim_play(pl, f->g->clip_count > 2 ? 2 : 0, true);
    pl->playing = false;
    oak_anim_update(f->scene, 0);
    CHECK_OK(oak_skin_update(f->scene));
    uint32_t n = oak_gltf_instance_points(f->inst, NULL, 0);
    float *pts = oak_alloc((size_t)n * 12 + 12);
    if (!pts) return false;
    oak_gltf_instance_points(f->inst, pts, n);
    oak_framing fr = {.yaw = 80 * OAK_PI / 180,
                      .pitch = 10 * OAK_PI / 180,
                      .share = 0.7f,
                      .fov_y = 40 * OAK_PI / 180,
                      .aspect = (float)W / H};
    oak_test_frame_and_light(f->scene, pts, n, &fr);
    oak_free(pts);
    return f->mesh.id != 0;
}

/* The Run at t seconds. */
static void fox_pose(fox *f, float t) {
    oak_anim_player *pl = oak_gltf_instance_player(f->inst);
    oak_anim_set_time(pl, f->g->clips[pl->clip].start + t);
    oak_anim_update(f->scene, 0);
    CHECK_OK(oak_skin_update(f->scene));
}

TEST(aPoseMovesThePaletteNotTheMesh) {
    static fox f;
    static float saved[24 * 12];
    if (!fox_load(&f)) goto done;
    const oak_mesh_data *md = oak_mesh_get(f.mesh);
    if (!md) goto done;
    CHECK(md->palette != NULL);
    CHECK_EQ_INT(md->joint_count, 24);
    if (!md->palette || md->joint_count != 24) goto done;
    uint32_t version = md->version, pose = md->pose_version;
    for (int k = 1; k <= 4; k++) {
        memcpy(saved, md->palette, sizeof saved);
        fox_pose(&f, 0.1f * (float)k);
        md = oak_mesh_get(f.mesh);
        CHECK_EQ_INT(md->version, version); /* nothing for a backend to upload */
        CHECK(md->pose_version > pose);
        CHECK_EQ_INT(md->prev_pose_version, pose);
        pose = md->pose_version;
        /* the previous pose is the last update's palette */
        CHECK(memcmp(md->palette + 24 * 12, saved, sizeof saved) == 0);
        CHECK(memcmp(md->palette, saved, sizeof saved) != 0);
    }
    /* the bounds are the skinned positions' */
    static float pos[3 * 4096];
    uint32_t n = oak_mesh_posed_positions(f.mesh, false, pos, 4096);
    CHECK_EQ_INT(n, md->vertex_count);
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t v = 0; v < n; v++)
        for (int a = 0; a < 3; a++)
            lo[a] = fminf(lo[a], pos[3 * v + a]), hi[a] = fmaxf(hi[a], pos[3 * v + a]);
    for (int a = 0; a < 3; a++) {
        CHECK_NEAR(md->bounds.min[a], lo[a], 1e-6);
        CHECK_NEAR(md->bounds.max[a], hi[a], 1e-6);
    }
    fprintf(stderr, "  Fox: %u vertices posed by 24 joints, version held over 4 poses\n", n);
done:
    fox_free(&f);
}

/* A two-joint strip: vertex 0 all joint 0, vertex 1 all joint 1, vertex 2
   a quarter joint 0 and three quarters joint 1. */
static oak_result strip(oak_mesh *out, const float *weights, const uint16_t *joints) {
    static const float p[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const uint32_t idx[3] = {0, 1, 2};
    oak_mesh_desc d = {.vertex_count = 3,
                       .index_count = 3,
                       .positions = p,
                       .joints = joints,
                       .weights = weights,
                       .indices = idx};
    return oak_make_mesh(out, &d);
}

TEST(paletteSkinsExactlyAndRefusesBadSkins) {
    static const uint16_t j[12] = {0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    static const float w[12] = {1, 0, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    /* joint 0 moves by (1, 2, 3); joint 1 scales by 2 */
    static const float rows[24] = {1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3,
                                   2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0};
    oak_mesh m = {0};
    CHECK_OK(strip(&m, w, j));
    CHECK_OK(oak_mesh_update_palette(m, 2, rows));
    float pos[9];
    CHECK_EQ_INT(oak_mesh_posed_positions(m, false, pos, 3), 3);
    const float want[9] = {1, 2, 3, 2, 0, 0, 0.25f, 0.25f * 3 + 0.75f * 2, 0.75f};
    for (int i = 0; i < 9; i++) CHECK_NEAR(pos[i], want[i], 1e-6);
    /* the first pose is its own previous one */
    CHECK_EQ_INT(oak_mesh_posed_positions(m, true, pos, 3), 3);
    for (int i = 0; i < 9; i++) CHECK_NEAR(pos[i], want[i], 1e-6);
    const oak_mesh_data *md = oak_mesh_get(m);
    CHECK_NEAR(md->bounds.min[0], 0.25, 1e-6);
    CHECK_NEAR(md->bounds.max[1], 2.25, 1e-6);
    /* refused, one line each (five logged errors), the mesh left as it was */
    int errors = g_oak_test_errors;
    float nan_rows[24];
    memcpy(nan_rows, rows, sizeof nan_rows);
    nan_rows[5] = NAN;
    CHECK_EQ_INT(oak_mesh_update_palette(m, 2, nan_rows), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "not finite") != NULL);
    CHECK_EQ_INT(oak_mesh_update_palette(m, 1, rows), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "joint 1") != NULL);
    CHECK_EQ_INT(oak_mesh_update_palette(m, 0, rows), OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_mesh(m);
    static const float half[12] = {0.5f, 0, 0, 0, 1, 0, 0, 0, 0.25f, 0.75f, 0, 0};
    CHECK_OK(strip(&m, half, j));
    CHECK_EQ_INT(oak_mesh_update_palette(m, 2, rows), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "sum to 0.5") != NULL);
    oak_destroy_mesh(m);
    CHECK_OK(strip(&m, NULL, NULL));
    CHECK_EQ_INT(oak_mesh_update_palette(m, 2, rows), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "joints and weights") != NULL);
    CHECK(oak_mesh_get(m)->palette == NULL);
    oak_destroy_mesh(m);
    CHECK_EQ_INT(g_oak_test_errors - errors, 5);
    g_oak_test_errors = errors;
    fprintf(stderr, "  two-joint strip skinned exactly; NaN rows, a joint past the palette, "
                    "weights off 1 and no skin refused\n");
}

static bool draw(oak_renderer *r, oak_scene *scene, uint8_t *px) {
    return oak_test_draw_scene(r, scene, px, W, H);
}

/* Pixels whose largest channel moved by more than 8/255. */
static uint32_t changed(const uint8_t *a, const uint8_t *b) {
    return oak_test_changed_pixels(a, b, W, H, 8);
}

TEST(runningFoxFollowsItsPoseOnTheBackend) {
    static fox f;
    static uint8_t px[3][W * H * 4], ref[W * H * 4];
    oak_renderer *r = NULL, *rc = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H};
    oak_renderer_desc dc = {.backend = "cpu", .width = W, .height = H};
    if (!fox_load(&f)) goto done;
    CHECK_OK(oak_make_renderer(&r, &d));
    CHECK_OK(oak_make_renderer(&rc, &dc));
    if (!r || !rc) goto done;
    uint32_t version = oak_mesh_get(f.mesh)->version;
    static const float t[3] = {0.0f, 0.15f, 0.3f};
    for (int k = 0; k < 3; k++) {
        fox_pose(&f, t[k]);
        if (!draw(r, f.scene, px[k])) goto done;
        if (strcmp(g_backend, "cpu")) {
            char what[64];
            snprintf(what, sizeof what, "%s against cpu, Run at %.2f s", g_backend, t[k]);
            if (draw(rc, f.scene, ref)) oak_test_parity(what, px[k], ref, W, H);
        }
    }
    CHECK_EQ_INT(oak_mesh_get(f.mesh)->version, version);
    uint32_t c01 = changed(px[0], px[1]), c12 = changed(px[1], px[2]);
    fprintf(stderr, "  %s: %u and %u pixels changed between the three poses\n", g_backend, c01,
            c12);
    CHECK(c01 > 100 && c12 > 100);
    char out[256];
    oak_image_write_png(oak_test_out(out, sizeof out, "gpu_skin_fox.png"), W, H, px[2]);
done:
    oak_destroy_renderer(r);
    oak_destroy_renderer(rc);
    fox_free(&f);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(aPoseMovesThePaletteNotTheMesh);
        RUN(paletteSkinsExactlyAndRefusesBadSkins);
    }
    RUN(runningFoxFollowsItsPoseOnTheBackend);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
