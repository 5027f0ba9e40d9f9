/* Cluster LOD in the shadow maps (docs/ARCHITECTURE.md "Cluster LOD",
 * issue 16). A field of rocks on a ground plane in the sun, near and far
 * so the cascades list them at several texel sizes: on every backend the
 * maps' cuts keep exactly the triangles and drop exactly the meshlets that
 * each cascade's cut made in C (_oak_clod_keep by the cascade's texel, as
 * the CPU's _oak_cpu_meshcull_lod) sums to; on vulkan and gl (meshcull.comp's
 * shadow jobs) those counters equal the CPU's and the picture, shadows and
 * all, is the CPU's under the parity rule. The dense world's rocks cast on
 * every backend: pixels its rocks shadow where the same frame with them
 * marked OAK_DRAW_NO_SHADOW has none, and on a GPU the CPU's shadow
 * counters. Under a small OAK_MESHCULL_MAX_BYTES the shadow jobs' regions
 * (placed in the frame) give the CPU's counters from the first frame,
 * without overflow or draws sent whole. */
#include <float.h>
#include <oak/scene.h>
#include <oak/world.h>

#include "oak_test.h"

#include "backend/gpu/meshcull.h"
#include "backend_start.h"
#include "world/internal.h"

#define W     160
#define H     90
#define ROCKS 5

static const char *g_backend = "cpu";
static oak_material g_mat;
static oak_mesh g_rock, g_ground; /* the rock: 5 subdivisions, 20,480 triangles */

typedef struct field {
    oak_frame_input in;
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_mesh meshes[ROCKS + 1];
    oak_material mats[ROCKS + 1];
    mat4 world[ROCKS + 1];
} field;

static void field_init(field *s) {
    memset(s, 0, sizeof *s);
    s->meshes[0] = g_ground;
    s->mats[0] = g_mat;
    glm_mat4_identity(s->world[0]);
    glm_translate(s->world[0], (vec3){0, -0.3f, 0});
    /* near to far along the view (the far ones in the far cascades) */
    const float at[ROCKS][3] = {
        {-0.5f, 0.6f, 1}, {1.5f, 0.8f, -3}, {-2, 1, -8}, {3, 1.5f, -16}, {-4, 2, -26}};
    for (int i = 0; i < ROCKS; i++) {
        s->meshes[i + 1] = g_rock, s->mats[i + 1] = g_mat;
        glm_mat4_identity(s->world[i + 1]);
        glm_translate(s->world[i + 1], (vec3){at[i][0], at[i][1], at[i][2]});
        glm_rotate_y(s->world[i + 1], 0.5f * (float)i, s->world[i + 1]);
    }
    glm_scale(s->world[4], (vec3){1.5f, 1.5f, 1.5f});
    oak_test_sunlit_input(&s->in, ROCKS + 1, s->meshes, s->mats, (const mat4 *)s->world, &s->sun,
                          &s->env, &s->post, 50, 200);
    s->post.ao = OAK_AO_OFF;
    s->post.exposure = 0.2f; /* the white ground lit by the sun under white */
    mat4 view;
    glm_lookat((vec3){1, 2.5f, 5}, (vec3){-0.5f, 0, -6}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

/* The triangles kept and meshlets dropped by each cascade's cut of the
   cluster-LOD casters it lists, made in C by the cascade's texel (what
   every backend's shadow pass must draw); their sums in *kept, *dropped,
   and the cascades that list a rock in *cascades. */
static void cascade_cuts(const oak_render_view *v, uint32_t *kept, uint32_t *dropped,
                         uint32_t *cascades) {
    *kept = *dropped = *cascades = 0;
    for (uint32_t c = 0; c < v->cascade_count; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        uint32_t k = 0, d = 0, n = 0;
        _oak_meshcull_view cv;
        _oak_meshcull_view_shadow(&cv, (const float *)cas->view_proj,
                                  v->shadow_map_size ? v->shadow_map_size : 512, true, NULL, 0);
        for (uint32_t i = cas->first_caster; i < cas->first_caster + cas->caster_count; i++) {
            const oak_mesh_data *md = oak_mesh_get(v->casters.mesh[i]);
            if (!md || !md->finest_index_count || !md->meshlets) continue;
            if (v->casters.flags && (v->casters.flags[i] & OAK_DRAW_NO_SHADOW)) continue;
            _oak_meshcull_draw dc;
            if (!_oak_meshcull_draw_make(&dc, &cv, (const float *)v->casters.world[i], false))
                continue;
            n++;
            const oak_meshlets *ml = md->meshlets;
            for (uint32_t m = 0; m < ml->count; m++) {
                if (_oak_clod_keep(&cv, &dc, &ml->meshlets[m]))
                    k += ml->meshlets[m].triangle_count;
                else
                    d++;
            }
        }
        fprintf(stderr,
                "    cascade %u (lod_px %.2f): %u rocks, %u triangles kept, %u meshlets out\n", c,
                cv.lod_px, n, k, d);
        *kept += k, *dropped += d, *cascades += n > 0;
    }
}

/* `frames` frames of in on backend: the last picture and counters, and
   the cuts made in C for its view (kept, dropped, cascades listing a rock). */
static bool run(const char *backend, const oak_frame_input *in, int frames, uint8_t *px,
                oak_meshlet_stats *st, uint32_t cut[3]) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r != NULL;
    for (int f = 0; ok && f < frames; f++) {
        ok = oak_renderer_draw(r, in) == OAK_OK &&
             oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK &&
             oak_renderer_meshlet_stats(r, &st[f]) == OAK_OK;
    }
    if (ok && cut) cascade_cuts(oak_renderer_last_view(r), &cut[0], &cut[1], &cut[2]);
    CHECK(ok);
    if (r) oak_destroy_renderer(r);
    return ok;
}

/* Each cascade's cut, made in C, is what the backend's maps drew; on a GPU
   the CPU's counters exactly. */
TEST(shadowCutsMatch) {
    static field s;
    static uint8_t px[W * H * 4];
    field_init(&s);
    oak_meshlet_stats st[1], cpu[1];
    uint32_t cut[3];
    if (!run(g_backend, &s.in, 1, px, st, cut)) return;
    fprintf(stderr,
            "  %s: the maps kept %u triangles, %u meshlets out; in C %u, %u (%u cascades)\n",
            g_backend, st->shadow_triangles, st->shadow_culled_lod, cut[0], cut[1], cut[2]);
    /* several cascades list rocks, each at its texel: a cut, not every
       level, and fewer triangles than the listings' finest levels */
    CHECK(cut[2] >= 2);
    CHECK(cut[1] > 0);
    CHECK_EQ_INT((int)st->shadow_triangles, (int)cut[0]);
    CHECK_EQ_INT((int)st->shadow_culled_lod, (int)cut[1]);
    if (!strcmp(g_backend, "cpu") || !run("cpu", &s.in, 1, px, cpu, NULL)) return;
    CHECK_EQ_INT((int)st->shadow_triangles, (int)cpu->shadow_triangles);
    CHECK_EQ_INT((int)st->shadow_culled_lod, (int)cpu->shadow_culled_lod);
    /* the camera's counters are apart from the maps' */
    CHECK_EQ_INT((int)st->tested, (int)cpu->tested);
    CHECK_EQ_INT((int)st->triangles_kept, (int)cpu->triangles_kept);
}

/* The field's picture, its shadows drawn from the cascades' cuts, against
   the CPU's under the parity rule. */
TEST(shadowPictureMatchesCpu) {
    static field s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    field_init(&s);
    oak_test_parity_frame("rocks' shadows from the cascades' cuts", g_backend, &s.in, W, H, a, b);
}

/* The dense world (4 rocks, the ground kept): its rocks' shadows on
   g_backend, the pixels whose green falls under 0.7 of the same frame's
   with every rock marked OAK_DRAW_NO_SHADOW; on a GPU the CPU's shadow
   counters. */
TEST(denseRocksCast) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    static uint32_t flags[4096];
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options o = {.count = 4};
    if (!scene || oak_world_build_with(scene, "dense", &o) != OAK_OK) {
        CHECK(false);
        if (scene) oak_destroy_scene(scene);
        return;
    }
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(scene, &in));
    oak_meshlet_stats st[1], off[1], cpu[1];
    uint32_t cut[3];
    bool ok = in.draw_count <= 4096 && run(g_backend, &in, 1, a, st, cut);
    uint32_t rocks = 0;
    for (uint32_t i = 0; ok && i < in.draw_count; i++) {
        const oak_mesh_data *md = oak_mesh_get(in.meshes[i]);
        bool rock = md && md->finest_index_count;
        flags[i] = (in.flags ? in.flags[i] : 0) | (rock ? OAK_DRAW_NO_SHADOW : 0);
        rocks += rock;
    }
    oak_frame_input none = in;
    none.flags = flags;
    ok = ok && run(g_backend, &none, 1, b, off, NULL);
    uint32_t shadowed = 0, lit = 0;
    for (uint32_t i = 0; ok && i < W * H; i++) {
        lit += b[4 * i + 1] > 40;
        shadowed += b[4 * i + 1] > 40 && a[4 * i + 1] < 0.7 * b[4 * i + 1];
    }
    fprintf(stderr,
            "  dense, %u rocks on %s: %u px shadowed of %u lit without their shadows; the maps "
            "kept %u triangles (%u meshlets out; in C %u, %u over %u cascades); marked: %u\n",
            rocks, g_backend, shadowed, lit, st->shadow_triangles, st->shadow_culled_lod, cut[0],
            cut[1], cut[2], off->shadow_triangles);
    CHECK(ok);
    CHECK_EQ_INT((int)rocks, 4);
    CHECK(shadowed > 50);
    CHECK_EQ_INT((int)off->shadow_triangles, 0);
    CHECK_EQ_INT((int)st->shadow_triangles, (int)cut[0]);
    CHECK_EQ_INT((int)st->shadow_culled_lod, (int)cut[1]);
    /* bounded: under one map's worth of the 4 rocks' finest levels
       (327,680 triangles each), where the maps list them up to 4 times */
    CHECK(st->shadow_triangles > 0 && st->shadow_triangles < 4u * 327680u);
    if (ok && strcmp(g_backend, "cpu") && run("cpu", &in, 1, a, cpu, NULL)) {
        CHECK_EQ_INT((int)st->shadow_triangles, (int)cpu->shadow_triangles);
        CHECK_EQ_INT((int)st->shadow_culled_lod, (int)cpu->shadow_culled_lod);
    }
    oak_destroy_scene(scene);
}

/* The shadow jobs' regions placed in the frame (meshcull_scan.comp) under
   a limit their worst case (the finest levels') does not fit: from frame 1
   on every cut fits the room the limit leaves, packed one after the other:
   the CPU's counters, nothing clipped, no draw sent whole. */
TEST(smallBufferShadowStillCuts) {
    static field s;
    static uint8_t a[W * H * 4];
    field_init(&s);
    /* movers: their maps are drawn every frame (a static layer kept
       draws and counts nothing) */
    static uint32_t flags[ROCKS + 1];
    for (int i = 1; i <= ROCKS; i++) flags[i] = OAK_DRAW_MOVING;
    s.in.flags = flags;
    oak_meshlet_stats cpu[1], st[4];
    if (!run("cpu", &s.in, 1, a, cpu, NULL)) return;
    setenv("OAK_MESHCULL_MAX_BYTES", "1000000", 1);
    bool ok = run(g_backend, &s.in, 4, a, st, NULL);
    unsetenv("OAK_MESHCULL_MAX_BYTES");
    if (!ok) return;
    fprintf(stderr,
            "  1,000,000-byte limit: frame 1 %u shadow triangles, %u past the room, %u "
            "draws whole; frame 4 %u, %u, %u (cpu %u)\n",
            st[0].shadow_triangles, st[0].overflow_triangles, st[0].fallback_draws,
            st[3].shadow_triangles, st[3].overflow_triangles, st[3].fallback_draws,
            cpu->shadow_triangles);
    CHECK(cpu->shadow_triangles > 0);
    for (int k = 0; k < 4; k += 3) {
        CHECK_EQ_INT((int)st[k].fallback_draws, 0);
        CHECK_EQ_INT((int)st[k].overflow_triangles, 0);
        CHECK_EQ_INT((int)st[k].shadow_triangles, (int)cpu->shadow_triangles);
    }
    CHECK_EQ_INT((int)st[3].shadow_culled_lod, (int)cpu->shadow_culled_lod);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 0.8f, md.metallic = 0;
    CHECK_OK(oak_make_material(&g_mat, &md));
    CHECK_OK(_oak_world_dense_rock(&g_rock, 5, 3));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {60, 1, 60}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    fprintf(stderr, "  backend %s\n", g_backend);
    RUN(shadowCutsMatch);
    RUN(denseRocksCast);
    if (strcmp(g_backend, "cpu")) {
        RUN(shadowPictureMatchesCpu);
        RUN(smallBufferShadowStillCuts);
    }
    oak_destroy_mesh(g_rock);
    oak_destroy_mesh(g_ground);
    oak_shutdown();
    return g_oak_test_validation || g_oak_test_errors ? 1 : TEST_SUMMARY();
}
