/* Morph targets and 8-influence skins posed by the backends (issue 15;
 * docs/ARCHITECTURE.md "Skinning on the GPU"): such a primitive is posed
 * by its palette and morph weights (oak_mesh_update_pose), so a new pose
 * moves pose_version and never version; its posed positions (this pose and
 * the previous one) equal a double-precision reference within 1e-5 m; bad
 * weights are refused in one line; and on each backend (argv[1]: cpu,
 * vulkan or gl) a morphed, 8-influence skinned sheet and MorphStressTest
 * follow their poses, a GPU's picture within the parity rule of the CPU's. */
#include "oak_test.h"

#include <math.h>
#include <oak/anim.h>

#include "backend_start.h"
#include "gltf_test_assets.h"

#define W 160
#define H 90
#define G 17 /* the sheet's vertices a side */
#define N (G * G)
#define T 2 /* its morph targets */
#define J 3 /* its joints */

static const char *g_backend = "cpu";

/* ---- a sheet skinned by 8 influences over 3 joints, with 2 targets ------ */

typedef struct sheet {
    float pos[3 * N], nrm[3 * N], tan[4 * N];
    uint16_t j0[4 * N], j1[4 * N];
    float w0[4 * N], w1[4 * N];
    float targets[T * N * 9];
    uint32_t idx[6 * (G - 1) * (G - 1)];
} sheet;

static void sheet_build(sheet *s) {
    static const uint16_t js[8] = {0, 1, 2, 0, 1, 2, 0, 1};
    for (int y = 0; y < G; y++)
        for (int x = 0; x < G; x++) {
            int v = y * G + x;
            float u = (float)x / (G - 1), t = (float)y / (G - 1);
            float px = 2 * u - 1, py = 2 * t;
            s->pos[3 * v] = px, s->pos[3 * v + 1] = py, s->pos[3 * v + 2] = 0;
            s->nrm[3 * v] = 0, s->nrm[3 * v + 1] = 0, s->nrm[3 * v + 2] = 1;
            s->tan[4 * v] = 1, s->tan[4 * v + 1] = s->tan[4 * v + 2] = 0, s->tan[4 * v + 3] = 1;
            /* eight weights that change along the sheet, summing to 1 */
            float raw[8] = {1 - t,          t,     0.2f * u,       0.1f, 0.3f * t,
                            0.1f * (1 - u), 0.05f, 0.25f * (1 - t)};
            float sum = 0;
            for (int k = 0; k < 8; k++) sum += raw[k];
            for (int k = 0; k < 4; k++) {
                s->j0[4 * v + k] = js[k], s->j1[4 * v + k] = js[4 + k];
                s->w0[4 * v + k] = raw[k] / sum, s->w1[4 * v + k] = raw[4 + k] / sum;
            }
            /* target 0: a bump towards +z with its normals leaning out;
               target 1: a stretch in x with the tangent following it */
            float r2 = px * px + (py - 1) * (py - 1), bump = 0.5f * expf(-3 * r2);
            float *d0 = s->targets + (size_t)v * 9, *d1 = s->targets + ((size_t)N + v) * 9;
            for (int k = 0; k < 9; k++) d0[k] = d1[k] = 0;
            d0[2] = bump, d0[3] = 3 * px * bump, d0[4] = 3 * (py - 1) * bump;
            d1[0] = 0.4f * px, d1[6] = 0, d1[7] = 0.2f * py;
        }
    uint32_t *i = s->idx;
    for (int y = 0; y + 1 < G; y++)
        for (int x = 0; x + 1 < G; x++) {
            uint32_t a = (uint32_t)(y * G + x), b = a + 1, c = a + G, d = c + 1;
            *i++ = a, *i++ = b, *i++ = d, *i++ = a, *i++ = d, *i++ = c;
        }
}

static oak_result sheet_mesh(const sheet *s, oak_mesh *out) {
    oak_mesh_desc d = {.vertex_count = N,
                       .index_count = 6 * (G - 1) * (G - 1),
                       .positions = s->pos,
                       .normals = s->nrm,
                       .tangents = s->tan,
                       .joints = s->j0,
                       .weights = s->w0,
                       .joints1 = s->j1,
                       .weights1 = s->w1,
                       .target_count = T,
                       .targets = s->targets,
                       .indices = s->idx,
                       .name = "sheet"};
    return oak_make_mesh(out, &d);
}

/* Pose k: joint 0 still, joint 1 turned about z through (0, 1, 0) and
   joint 2 pushed forward; the targets' weights swing. */
static void sheet_pose(int k, float rows[J * 12], float w[T]) {
    float a = 0.25f * (float)k, c = cosf(a), s = sinf(a);
    const float r[J * 12] = {1, 0,  0, 0,
                             0, 1,  0, 0,
                             0, 0,  1, 0, /* joint 0 */
                             c, -s, 0, s,
                             s, c,  0, 1 - c,
                             0, 0,  1, 0, /* joint 1 */
                             1, 0,  0, 0.1f * (float)k,
                             0, 1,  0, 0,
                             0, 0,  1, 0.3f * (float)k};
    memcpy(rows, r, sizeof r);
    w[0] = 0.3f + 0.35f * (float)k, w[1] = k % 2 ? -0.5f : 0.75f;
}

/* Vertex v posed in double precision: morphed, then the 8 joints' rows
   weighed, then applied. */
static void sheet_reference(const sheet *s, const float *rows, const float *w, int v,
                            double out[3]) {
    double p[3];
    for (int k = 0; k < 3; k++) {
        p[k] = s->pos[3 * v + k];
        for (int t = 0; t < T; t++) p[k] += (double)w[t] * s->targets[((size_t)t * N + v) * 9 + k];
    }
    double m[12] = {0};
    for (int i = 0; i < 8; i++) {
        int j = i < 4 ? s->j0[4 * v + i] : s->j1[4 * v + i - 4];
        double wi = i < 4 ? s->w0[4 * v + i] : s->w1[4 * v + i - 4];
        for (int e = 0; e < 12; e++) m[e] += wi * rows[12 * j + e];
    }
    for (int r = 0; r < 3; r++)
        out[r] = m[4 * r] * p[0] + m[4 * r + 1] * p[1] + m[4 * r + 2] * p[2] + m[4 * r + 3];
}

static double sheet_worst(const sheet *s, oak_mesh m, bool prev, const float *rows,
                          const float *w) {
    static float got[3 * N];
    if (oak_mesh_posed_positions(m, prev, got, N) != N) return INFINITY;
    double worst = 0;
    for (int v = 0; v < N; v++) {
        double want[3];
        sheet_reference(s, rows, w, v, want);
        for (int k = 0; k < 3; k++) worst = fmax(worst, fabs(got[3 * v + k] - want[k]));
    }
    return worst;
}

TEST(morphedEightInfluenceSheetPosesExactly) {
    static sheet s;
    sheet_build(&s);
    oak_mesh m = {0};
    CHECK_OK(sheet_mesh(&s, &m));
    if (!m.id) return;
    const oak_mesh_data *md = oak_mesh_get(m);
    uint32_t version = md->version, pose = 0;
    float rows[2][J * 12], w[2][T];
    double worst = 0, worst_prev = 0;
    for (int k = 0; k < 4; k++) {
        sheet_pose(k, rows[k % 2], w[k % 2]);
        CHECK_OK(oak_mesh_update_pose(m, J, rows[k % 2], T, w[k % 2]));
        md = oak_mesh_get(m);
        CHECK_EQ_INT(md->version, version); /* nothing for a backend to upload */
        CHECK(md->pose_version > pose);
        pose = md->pose_version;
        worst = fmax(worst, sheet_worst(&s, m, false, rows[k % 2], w[k % 2]));
        /* the previous pose: the last update's palette and morph weights */
        int p = k ? (k + 1) % 2 : 0;
        worst_prev = fmax(worst_prev, sheet_worst(&s, m, true, rows[p], w[p]));
        CHECK(memcmp(md->morph_weights + T, w[p], sizeof w[p]) == 0);
    }
    CHECK(worst < 1e-5);
    CHECK(worst_prev < 1e-5);
    /* one hand-worked vertex: the centre row's middle, pose 0 (joint 1 and
       2 still): rest (0, 1, 0) + 0.3 x bump 0.5 in z + 0.75 x stretch 0 */
    float rows0[J * 12], w0[T], got[3 * N];
    sheet_pose(0, rows0, w0);
    CHECK_OK(oak_mesh_update_pose(m, J, rows0, T, w0));
    CHECK_EQ_INT(oak_mesh_posed_positions(m, false, got, N), N);
    int c = (G / 2) * G + G / 2;
    CHECK_NEAR(got[3 * c], 0, 1e-6);
    CHECK_NEAR(got[3 * c + 1], 1, 1e-6);
    CHECK_NEAR(got[3 * c + 2], 0.15, 1e-6);
    /* the bounds are the posed positions' */
    md = oak_mesh_get(m);
    float lo = INFINITY, hi = -INFINITY;
    for (int v = 0; v < N; v++) lo = fminf(lo, got[3 * v + 2]), hi = fmaxf(hi, got[3 * v + 2]);
    CHECK_NEAR(md->bounds.min[2], lo, 1e-6);
    CHECK_NEAR(md->bounds.max[2], hi, 1e-6);
    /* refused in one line each: weights for the wrong target count, a NaN
       weight, and 8 weights summing to 0.5 */
    int errors = g_oak_test_errors;
    CHECK_EQ_INT(oak_mesh_update_pose(m, J, rows0, 1, w0), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "1 morph weights for 2 targets") != NULL);
    float bad[T] = {NAN, 0};
    CHECK_EQ_INT(oak_mesh_update_pose(m, J, rows0, T, bad), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "not finite") != NULL);
    oak_destroy_mesh(m);
    float sum = 0; /* vertex 5: its first set weighs 0.5, its second nothing */
    for (int k = 0; k < 4; k++) s.w1[4 * 5 + k] = 0;
    for (int k = 0; k < 4; k++) sum += s.w0[4 * 5 + k];
    for (int k = 0; k < 4; k++) s.w0[4 * 5 + k] *= 0.5f / sum;
    CHECK_OK(sheet_mesh(&s, &m));
    CHECK_EQ_INT(oak_mesh_update_pose(m, J, rows0, T, w0), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "vertex 5's weights sum to 0.5") != NULL);
    oak_destroy_mesh(m);
    CHECK_EQ_INT(g_oak_test_errors - errors, 3);
    g_oak_test_errors = errors;
    fprintf(stderr,
            "  sheet: %d vertices, 8 influences, %d targets: worst %.3g m (previous pose %.3g "
            "m) over 4 poses, version held\n",
            N, T, worst, worst_prev);
}

/* ---- MorphStressTest, morphed only ------------------------------------- */

typedef struct model {
    oak_gltf *g;
    oak_scene *scene;
    oak_gltf_instance *inst;
} model;

static void model_free(model *f) {
    if (f->inst) oak_gltf_instance_free(f->inst);
    if (f->scene) oak_destroy_scene(f->scene);
    if (f->g) oak_gltf_free(f->g);
    memset(f, 0, sizeof *f);
}

/* A camera framing pts from the front-right and a sun. */
static void frame(oak_scene *scene, const float *pts, uint32_t n, float yaw) {
    oak_framing fr = {.yaw = yaw,
                      .pitch = 15 * OAK_PI / 180,
                      .share = 0.7f,
                      .fov_y = 40 * OAK_PI / 180,
                      .aspect = (float)W / H};
    oak_test_frame_and_light(scene, pts, n, &fr);
}

static bool model_load(model *f) {
    memset(f, 0, sizeof *f);
    char path[256];
    CHECK_OK(
        oak_gltf_load(&f->g, gltf_asset(path, sizeof path, "animated/MorphStressTest.gltf"), NULL));
    if (!f->g) return false;
    CHECK_OK(oak_make_scene(&f->scene));
    if (f->scene)
        CHECK_OK(oak_gltf_instantiate(&f->inst, f->scene, f->g, (oak_entity){0}, "morph"));
    if (!f->inst) return false;
    CHECK_OK(oak_skin_update(f->scene));
    uint32_t n = oak_gltf_instance_points(f->inst, NULL, 0);
    float *pts = oak_alloc((size_t)n * 12 + 12);
    if (!pts) return false;
    oak_gltf_instance_points(f->inst, pts, n);
    frame(f->scene, pts, n, 20 * OAK_PI / 180);
    oak_free(pts);
    return true;
}

/* Pose k of the 8 weights. */
static void model_pose(model *f, int k) {
    uint32_t count = 0;
    float *w = oak_gltf_instance_weights(f->inst, 0, &count);
    for (uint32_t i = 0; w && i < count; i++)
        w[i] = 0.5f + 0.5f * sinf(1.3f * (float)k + 0.9f * (float)i);
    CHECK_OK(oak_skin_update(f->scene));
}

TEST(morphStressPosesItsWeightsNotItsVertices) {
    static model f;
    if (!model_load(&f)) goto done;
    const oak_gltf_mesh *gm = &f.g->meshes[0];
    uint32_t versions[8], pose[8], prims = gm->primitive_count < 8 ? gm->primitive_count : 8;
    for (uint32_t p = 0; p < prims; p++) {
        const oak_mesh_data *md = oak_mesh_get(oak_gltf_instance_mesh(f.inst, 0, p));
        CHECK(md && md->palette && md->joint_count == 1 && md->target_count == 8);
        versions[p] = md ? md->version : 0, pose[p] = md ? md->pose_version : 0;
    }
    double worst = 0;
    float last[8] = {0};
    for (int k = 1; k <= 4; k++) {
        uint32_t count = 0;
        const float *w = oak_gltf_instance_weights(f.inst, 0, &count);
        if (w && count == 8) memcpy(last, w, sizeof last);
        model_pose(&f, k);
        w = oak_gltf_instance_weights(f.inst, 0, &count);
        for (uint32_t p = 0; p < prims; p++) {
            oak_mesh mh = oak_gltf_instance_mesh(f.inst, 0, p);
            const oak_mesh_data *md = oak_mesh_get(mh);
            const oak_gltf_primitive *pr = &gm->primitives[p];
            if (!md || !w) continue;
            CHECK_EQ_INT(md->version, versions[p]);
            CHECK(md->pose_version > pose[p]);
            pose[p] = md->pose_version;
            static float got[3 * 4096];
            uint32_t n = oak_mesh_posed_positions(mh, true, got, 4096);
            CHECK_EQ_INT(n, pr->vertex_count);
            for (int prev = 1; prev >= 0; prev--) {
                const float *ws = prev ? last : w;
                if (!prev) n = oak_mesh_posed_positions(mh, false, got, 4096);
                for (uint32_t v = 0; v < n; v++)
                    for (int c = 0; c < 3; c++) {
                        double want = pr->positions[3 * v + c];
                        for (uint32_t t = 0; t < 8; t++)
                            if (pr->targets[t].positions)
                                want += (double)ws[t] * pr->targets[t].positions[3 * v + c];
                        worst = fmax(worst, fabs(got[3 * v + c] - want));
                    }
            }
        }
    }
    CHECK(worst < 1e-5);
    fprintf(stderr,
            "  MorphStressTest: %u primitives, 8 targets, worst %.3g m over 4 poses (and each "
            "previous pose), versions held\n",
            prims, worst);
done:
    model_free(&f);
}

/* ---- pictures ---------------------------------------------------------- */

static bool draw(oak_renderer *r, oak_scene *scene, uint8_t *px) {
    return oak_test_draw_scene(r, scene, px, W, H);
}

/* Pixels whose largest channel moved by more than 8/255. */
static uint32_t changed(const uint8_t *a, const uint8_t *b) {
    return oak_test_changed_pixels(a, b, W, H, 8);
}

typedef void (*pose_fn)(void *user, int k);

/* Three poses drawn on the backend (and on the CPU for parity): the
   pixels changed between them, and the mesh's version held. */
static void follow(const char *name, oak_scene *scene, oak_mesh mesh, pose_fn pose, void *user,
                   uint32_t *c01, uint32_t *c12) {
    static uint8_t px[3][W * H * 4], ref[W * H * 4];
    oak_renderer *r = NULL, *rc = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H};
    oak_renderer_desc dc = {.backend = "cpu", .width = W, .height = H};
    *c01 = *c12 = 0;
    CHECK_OK(oak_make_renderer(&r, &d));
    CHECK_OK(oak_make_renderer(&rc, &dc));
    if (!r || !rc) goto done;
    uint32_t version = oak_mesh_get(mesh)->version;
    for (int k = 0; k < 3; k++) {
        pose(user, k);
        if (!draw(r, scene, px[k])) goto done;
        if (strcmp(g_backend, "cpu")) {
            char what[64];
            snprintf(what, sizeof what, "%s: %s against cpu, pose %d", name, g_backend, k);
            if (draw(rc, scene, ref)) oak_test_parity(what, px[k], ref, W, H);
        }
    }
    CHECK_EQ_INT(oak_mesh_get(mesh)->version, version);
    *c01 = changed(px[0], px[1]), *c12 = changed(px[1], px[2]);
    fprintf(stderr, "  %s on %s: %u and %u pixels changed between the three poses\n", name,
            g_backend, *c01, *c12);
    char out[256], file[64];
    snprintf(file, sizeof file, "gpu_morph_%s.png", name);
    oak_image_write_png(oak_test_out(out, sizeof out, file), W, H, px[2]);
done:
    oak_destroy_renderer(r);
    oak_destroy_renderer(rc);
}

typedef struct sheet_scene {
    oak_mesh mesh;
} sheet_scene;

static void sheet_pose_user(void *user, int k) {
    sheet_scene *s = user;
    float rows[J * 12], w[T];
    sheet_pose(k + 1, rows, w);
    CHECK_OK(oak_mesh_update_pose(s->mesh, J, rows, T, w));
}

TEST(morphedSheetFollowsItsPoseOnTheBackend) {
    static sheet s;
    sheet_build(&s);
    sheet_scene ss = {0};
    oak_scene *scene = NULL;
    oak_material mat = {0};
    CHECK_OK(sheet_mesh(&s, &ss.mesh));
    CHECK_OK(oak_make_scene(&scene));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 0.6f, md.double_sided = true;
    md.base_color[0] = 0.8f, md.base_color[1] = 0.5f, md.base_color[2] = 0.3f;
    CHECK_OK(oak_make_material(&mat, &md));
    if (!ss.mesh.id || !scene || !mat.id) goto done;
    oak_entity e = oak_scene_create(scene, "sheet");
    oak_scene_set_mesh_renderer(scene, e, &(oak_mesh_renderer){ss.mesh, mat, 0});
    float box[6] = {-1.2f, 0, -0.2f, 1.2f, 2.1f, 0.6f};
    float pts[24];
    for (int i = 0; i < 8; i++)
        for (int a = 0; a < 3; a++) pts[3 * i + a] = box[(i >> a & 1) * 3 + a];
    frame(scene, pts, 8, 25 * OAK_PI / 180);
    uint32_t c01, c12;
    follow("sheet", scene, ss.mesh, sheet_pose_user, &ss, &c01, &c12);
    CHECK(c01 > 100 && c12 > 100);
done:
    if (scene) oak_destroy_scene(scene);
    if (ss.mesh.id) oak_destroy_mesh(ss.mesh);
    if (mat.id) oak_destroy_material(mat);
}

static void model_pose_user(void *user, int k) {
    model_pose(user, k);
}

TEST(morphStressFollowsItsPoseOnTheBackend) {
    static model f;
    if (!model_load(&f)) goto done;
    uint32_t c01, c12;
    follow("morphstress", f.scene, oak_gltf_instance_mesh(f.inst, 0, 0), model_pose_user, &f, &c01,
           &c12);
    CHECK(c01 > 100 && c12 > 100);
done:
    model_free(&f);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(morphedEightInfluenceSheetPosesExactly);
        RUN(morphStressPosesItsWeightsNotItsVertices);
    }
    RUN(morphedSheetFollowsItsPoseOnTheBackend);
    RUN(morphStressFollowsItsPoseOnTheBackend);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
