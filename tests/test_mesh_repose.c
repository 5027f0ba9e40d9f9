/* Meshes posed in place (docs/ARCHITECTURE.md "Meshes posed in place"): a
 * positions-only oak_mesh_update_vertices moves a mesh's version but not its
 * shape_version, new normals or oak_mesh_update move both; on a GPU backend
 * (argv[1]: vulkan or gl; alone, the CPU's asset and API checks) such a
 * mesh, once its previous pose has room, is sent as its positions alone
 * (oak_renderer_upload_stats) and draws the bytes a fresh renderer draws of
 * the same pose, frame after frame, while the shape in view changes. */
#include "oak_test.h"

#include "backend_start.h"
#include "scene_helpers.h"

#define W 96
#define H 64
#define G 9 /* the sheet's vertices a side */
#define N (G * G)

static const char *g_backend = "cpu";
static oak_mesh g_sheet;
static oak_material g_glow;
static float g_pos[3 * N], g_nrm[3 * N];
static uint32_t g_idx[6 * (G - 1) * (G - 1)];

/* Pose k of the sheet: 2 m across, standing in the view, its right half
   narrowed and its top bent back by k, so each pose's outline differs. */
static void pose(int k) {
    for (int y = 0; y < G; y++)
        for (int x = 0; x < G; x++) {
            int v = y * G + x;
            float u = (float)x / (G - 1), t = (float)y / (G - 1);
            float squeeze = 1.0f - 0.12f * (float)k * u;
            g_pos[3 * v] = (2 * u - 1) * squeeze;
            g_pos[3 * v + 1] = 2 * t - 1 + 0.05f * (float)k * u * t;
            g_pos[3 * v + 2] = -0.2f * (float)k * t * t;
            g_nrm[3 * v] = 0, g_nrm[3 * v + 1] = 0, g_nrm[3 * v + 2] = 1;
        }
}

/* The sheet as a mesh desc: its current pose, normals and indices. */
static oak_mesh_desc sheet_desc(void) {
    return (oak_mesh_desc){.vertex_count = N,
                           .index_count = 6 * (G - 1) * (G - 1),
                           .positions = g_pos,
                           .normals = g_nrm,
                           .indices = g_idx,
                           .name = "repose_sheet"};
}

static void make_assets(void) {
    pose(0);
    uint32_t *i = g_idx;
    for (int y = 0; y + 1 < G; y++)
        for (int x = 0; x + 1 < G; x++) {
            uint32_t a = (uint32_t)(y * G + x), b = a + 1, c = a + G, d = c + 1;
            *i++ = a, *i++ = b, *i++ = d, *i++ = a, *i++ = d, *i++ = c;
        }
    oak_mesh_desc d = sheet_desc();
    CHECK_OK(oak_make_mesh(&g_sheet, &d));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.double_sided = true;
    md.emissive[0] = md.emissive[1] = md.emissive[2] = 0.8f;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    CHECK_OK(oak_make_material(&g_glow, &md));
}

/* The sheet 3 m in front of a camera looking down -Z. */
static void scene_init(oak_test_scene *s) {
    oak_test_scene_begin(s);
    oak_test_scene_set(s, 0, g_sheet, g_glow);
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    glm_mat4_identity(s->in.camera_world);
    s->in.camera_world[3][2] = 3;
}

static oak_renderer *renderer(void) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

TEST(shapeVersionStaysForPositionsAlone) {
    const oak_mesh_data *m = oak_mesh_get(g_sheet);
    CHECK(m && m->shape_version == m->version);
    uint32_t shape = m->shape_version, v0 = m->version;
    pose(1);
    CHECK_OK(oak_mesh_update_vertices(g_sheet, N, g_pos, NULL, NULL));
    CHECK(m->version != v0 && m->shape_version == shape);
    CHECK_OK(oak_mesh_update_vertices(g_sheet, N, NULL, NULL, NULL)); /* the same pose again */
    CHECK(m->shape_version == shape);
    CHECK_OK(oak_mesh_update_vertices(g_sheet, N, g_pos, g_nrm, NULL)); /* new normals */
    CHECK(m->shape_version == m->version && m->shape_version != shape);
    shape = m->shape_version;
    oak_mesh_desc d = sheet_desc();
    CHECK_OK(oak_mesh_update(g_sheet, &d)); /* new contents */
    m = oak_mesh_get(g_sheet);
    CHECK(m && m->shape_version == m->version && m->shape_version != shape);
}

TEST(cpuSendsNothing) {
    oak_renderer *r = renderer();
    if (!r) return;
    int errors = g_oak_test_errors;
    oak_upload_stats st = {1, 1, 1};
    CHECK(oak_renderer_upload_stats(r, &st) == OAK_ERROR_UNSUPPORTED);
    CHECK(st.meshes_whole == 0 && st.meshes_positions == 0 && st.mesh_bytes == 0);
    CHECK_EQ_INT(g_oak_test_errors, errors); /* asked every frame: no line */
    oak_destroy_renderer(r);
}

/* Poses 0..5 drawn on one renderer, each pose's picture against a fresh
   renderer's of the same pose, and what each frame sent. */
TEST(gpuSendsPositionsAloneAndDrawsTheNewPose) {
    static oak_test_scene s;
    static uint8_t px[W * H * 4], fresh[W * H * 4], before[W * H * 4];
    scene_init(&s);
    pose(0);
    oak_mesh_desc d = sheet_desc();
    CHECK_OK(oak_mesh_update(g_sheet, &d)); /* no previous pose yet */
    oak_renderer *r = renderer();
    if (!r) return;
    for (int k = 0; k < 6; k++) {
        if (k) {
            pose(k);
            CHECK_OK(oak_mesh_update_vertices(g_sheet, N, g_pos, NULL, NULL));
        }
        if (!oak_test_scene_draw(r, &s, px, sizeof px)) break;
        oak_upload_stats st;
        CHECK_OK(oak_renderer_upload_stats(r, &st));
        /* the first frame and the first pose (whose previous pose needs a
           range twice the size) send it whole; every later pose its
           positions and the previous pose's, 16 bytes each */
        bool whole = k < 2;
        CHECK_EQ_INT(st.meshes_whole, whole ? 1 : 0);
        CHECK_EQ_INT(st.meshes_positions, whole ? 0 : 1);
        if (!whole) CHECK_EQ_INT((int)st.mesh_bytes, 2 * N * 16);
        oak_renderer *rf = renderer();
        if (!rf) break;
        bool ok = oak_test_scene_draw(rf, &s, fresh, sizeof fresh);
        oak_destroy_renderer(rf);
        if (!ok) break;
        uint32_t off = 0;
        for (size_t i = 0; i < sizeof px; i++) off += px[i] != fresh[i];
        if (off) fprintf(stderr, "  pose %d: %u bytes off a fresh renderer's\n", k, off);
        CHECK_EQ_INT(off, 0);
        /* the outline moved: a mesh left at its last pose would be seen */
        if (k) CHECK(oak_test_changed_pixels(before, px, W, H, 8) > 20);
        memcpy(before, px, sizeof px);
    }
    /* new normals: the mesh goes whole again */
    CHECK_OK(oak_mesh_update_vertices(g_sheet, N, g_pos, g_nrm, NULL));
    if (oak_test_scene_draw(r, &s, px, sizeof px)) {
        oak_upload_stats st;
        CHECK_OK(oak_renderer_upload_stats(r, &st));
        CHECK_EQ_INT(st.meshes_whole, 1);
        CHECK_EQ_INT(st.meshes_positions, 0);
    }
    /* a frame with nothing moved sends nothing */
    if (oak_test_scene_draw(r, &s, px, sizeof px)) {
        oak_upload_stats st;
        CHECK_OK(oak_renderer_upload_stats(r, &st));
        CHECK_EQ_INT(st.meshes_whole + st.meshes_positions, 0);
        CHECK_EQ_INT((int)st.mesh_bytes, 0);
    }
    oak_destroy_renderer(r);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    make_assets();
    if (!strcmp(g_backend, "cpu")) {
        RUN(shapeVersionStaysForPositionsAlone);
        RUN(cpuSendsNothing);
    } else {
        RUN(gpuSendsPositionsAloneAndDrawsTheNewPose);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
