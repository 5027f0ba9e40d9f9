/* Occlusion culling per meshlet (docs/ARCHITECTURE.md "Meshlet culling",
 * "Two-pass Hi-Z on the GPUs"). A 128 x 64 sphere (182 meshlets) stands
 * behind a wall that hides all of it but a sliver on the right. With
 * --occlusion on, the CPU tests each meshlet the frustum and cone kept
 * against its occlusion grid, Vulkan and GL against the Hi-Z pyramid of
 * their first pass. Checked on each: at least 90% of the meshlets wholly
 * behind the wall (the test's own count, from the camera's geometry) are
 * culled by occlusion, by counters; the picture is the occlusion-off
 * picture byte for byte, frame after frame; and when the wall steps aside
 * the sphere is drawn in that frame (the same bytes again; on the GPUs by
 * Hi-Z's second pass). */
#include "oak_test.h"

#include "backend/gpu/meshcull.h"
#include "backend_start.h"
#include "meshlet_test.h"

#define W       256
#define H       144
#define FOV_DEG 60.0f
#define EYE_Z   3.8f
/* the wall: a 10 m square box 0.2 m thick, centred at z WALL_Z, whose right
   edge is at x WALL_EDGE (the sphere, radius 1 at the origin, peeks out) */
#define WALL_Z    1.6f
#define WALL_EDGE 0.45f

static const char *g_backend = "cpu";

/* Vulkan and GL: two-pass Hi-Z, whose pass 1 and pass 2 the counters tell
   apart (the CPU's one pass counts no pass 1) */
static bool gpu(void) {
    return !strcmp(g_backend, "vulkan") || !strcmp(g_backend, "gl");
}
static oak_material g_mat;
static oak_mesh g_sphere, g_wall;

enum { SPHERE, WALL, DRAWS };

typedef OAK_TEST_SUNLIT_SCENE(DRAWS) scene;

static void place_wall(scene *s, float dx) {
    glm_mat4_identity(s->world[WALL]);
    glm_translate(s->world[WALL], (vec3){WALL_EDGE - 5 + dx, 0, WALL_Z});
}

static void scene_init(scene *s) {
    memset(s, 0, sizeof *s);
    s->meshes[SPHERE] = g_sphere, s->meshes[WALL] = g_wall;
    s->mats[SPHERE] = s->mats[WALL] = g_mat;
    glm_mat4_identity(s->world[SPHERE]);
    place_wall(s, 0);
    oak_test_sunlit_input(&s->in, DRAWS, s->meshes, s->mats, (const mat4 *)s->world, &s->sun,
                          &s->env, &s->post, FOV_DEG, 100);
    s->post.ao = OAK_AO_OFF;
    mat4 view;
    glm_lookat((vec3){0, 0, EYE_Z}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

static bool frame(oak_renderer *r, scene *s, uint8_t *px, oak_meshlet_stats *st) {
    bool ok = r && oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    CHECK(ok);
    if (ok && st && oak_renderer_meshlet_stats(r, st) != OAK_OK) {
        oak_clear_error();
        *st = (oak_meshlet_stats){0};
    }
    return ok;
}

/* The test's own count, from the camera's geometry (eye on +z looking at
   the origin): of the sphere's meshlets that the frustum and cone keep
   (*kept), those whose sphere's box lies wholly behind the wall's back face
   and whose screen rectangle, grown a pixel, lies left of the wall's edge
   as its back face projects (the nearer front face reaches farther). */
static uint32_t hidden_meshlets(const oak_render_view *v, uint32_t *kept) {
    const oak_meshlets *ml = NULL;
    CHECK_OK(oak_mesh_meshlets(g_sphere, &ml));
    *kept = 0;
    if (!ml || !v) return 0;
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, W, H);
    mat4 id;
    glm_mat4_identity(id);
    _oak_meshcull_draw dc;
    CHECK(_oak_meshcull_draw_make(&dc, &cv, (const float *)id, true));
    const float f = 1.0f / tanf(FOV_DEG * (float)OAK_PI / 360.0f), back = EYE_Z - (WALL_Z - 0.1f);
    const float edge = (float)W / 2 + WALL_EDGE / back * f * (float)H / 2;
    uint32_t hidden = 0;
    for (uint32_t i = 0; i < ml->count; i++) {
        const oak_meshlet *m = &ml->meshlets[i];
        if (_oak_meshcull_test(&cv, &dc, m) != OAK_MESHCULL_KEEP) continue;
        (*kept)++;
        float x1 = -1e30f, near = 1e30f;
        for (int c = 0; c < 8; c++) {
            float x = m->center[0] + ((c & 1) ? m->radius : -m->radius);
            float z = m->center[2] + ((c & 4) ? m->radius : -m->radius);
            float dist = EYE_Z - z;
            near = fminf(near, dist);
            x1 = fmaxf(x1, (float)W / 2 + x / dist * f * (float)H / 2);
        }
        hidden += near > back && x1 + 1 < edge;
    }
    return hidden;
}

/* Three frames with the wall in place, occlusion on and off: the same
   bytes each frame, and in the last (the GPU's pass 1 then holds last
   frame's visible set) at least 90% of the hidden meshlets culled. */
TEST(wallHidesMeshlets) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s);
    oak_renderer *on = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON),
                 *off = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_OFF);
    oak_meshlet_stats st = {0}, st_off = {0};
    size_t diff = 0;
    bool ok = on && off;
    for (int k = 0; ok && k < 3; k++) {
        ok = frame(on, &s, a, &st) && frame(off, &s, b, &st_off);
        if (ok) diff += oak_test_bytes_differ(a, b, sizeof a);
    }
    uint32_t kept = 0, hidden = ok ? hidden_meshlets(oak_renderer_last_view(on), &kept) : 0;
    fprintf(stderr,
            "  %s: %u meshlets tested, %u by the frustum, %u by cones, %u by occlusion (the wall "
            "hides %u of the %u kept by frustum and cone); triangles %u (pass 1: %u), off %u; "
            "%zu bytes differ over 3 frames\n",
            g_backend, st.tested, st.culled_frustum, st.culled_cone, st.culled_occluded, hidden,
            kept, st.triangles_kept, st.triangles_pass1, st_off.triangles_kept, diff);
    if (getenv("OAK_MESHCULL_DUMP")) {
        oak_image_write_png("/tmp/hizmesh_on.png", W, H, a);
        oak_image_write_png("/tmp/hizmesh_off.png", W, H, b);
    }
    CHECK(ok);
    CHECK_EQ_INT((int)diff, 0);
    CHECK(st.on);
    CHECK_EQ_INT((int)st_off.culled_occluded, 0);
    /* the scene is what it says: most of what faces the eye is behind */
    CHECK(hidden >= 10 && hidden * 2 >= kept);
    CHECK(st.culled_occluded * 10 >= hidden * 9);
    /* never more than the frustum and cone left, and the sliver is drawn */
    CHECK(st.culled_occluded + st.culled_frustum + st.culled_cone < st.tested);
    CHECK(st.triangles_kept > 0 && st.triangles_kept < st_off.triangles_kept);
    if (gpu()) /* nothing newly visible: all drawn in pass 1 */
        CHECK_EQ_INT((int)st.triangles_pass1, (int)st.triangles_kept);
    oak_destroy_renderer(on);
    oak_destroy_renderer(off);
}

/* The wall steps aside in frame 3 and back in frame 5: each frame is the
   occlusion-off frame byte for byte, so the sphere is drawn the frame it is
   revealed (on the GPUs its meshlets hidden last frame come in pass 2). */
TEST(revealedIsDrawn) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s);
    oak_renderer *on = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_ON),
                 *off = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_OFF);
    bool ok = on && off;
    for (int k = 0; ok && k < 6; k++) {
        place_wall(&s, k == 3 || k == 4 ? -20.0f : 0.0f);
        oak_meshlet_stats st = {0};
        ok = frame(on, &s, a, &st) && frame(off, &s, b, NULL);
        if (!ok) break;
        size_t n = oak_test_bytes_differ(a, b, sizeof a);
        fprintf(stderr,
                "  frame %d (wall %s): %u by occlusion, triangles %u (pass 1: %u); %zu bytes "
                "differ\n",
                k, k == 3 || k == 4 ? "aside" : "in place", st.culled_occluded, st.triangles_kept,
                st.triangles_pass1, n);
        CHECK_EQ_INT((int)n, 0);
        /* both steps' regions placed in the frame: nothing clipped */
        CHECK_EQ_INT((int)st.overflow_triangles, 0);
        if (k == 3 && gpu()) {
            /* last frame hid most of it: pass 2 drew what the wall left */
            CHECK(st.triangles_kept > st.triangles_pass1);
            CHECK_EQ_INT((int)st.culled_occluded, 0);
        }
    }
    CHECK(ok);
    oak_destroy_renderer(on);
    oak_destroy_renderer(off);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    oak_test_rough_sphere(&g_mat, &g_sphere, 128, 64);
    oak_shape_desc wd = {.type = OAK_SHAPE_BOX, .size = {10, 10, 0.2f}};
    CHECK_OK(oak_make_shape(&g_wall, &wd));
    fprintf(stderr, "  backend %s\n", g_backend);
    RUN(wallHidesMeshlets);
    RUN(revealedIsDrawn);
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_wall);
    oak_shutdown();
    return g_oak_test_validation || g_oak_test_errors ? 1 : TEST_SUMMARY();
}
