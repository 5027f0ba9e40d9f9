/* Cluster LOD (docs/ARCHITECTURE.md "Cluster LOD"). On the CPU (no
 * argument): the DAG's invariants on a closed rock and an open plane
 * (errors ordered, spheres nested, each level about half the one below,
 * the finest level the source's triangles); every cut of the rock is
 * watertight (each directed edge kept has its reverse) and its picture has
 * no hole; a far rock's cut draws a fraction of the triangles within a
 * stated difference of the full mesh; the dense world draws at most 2
 * triangles per covered pixel from 10^6 to 10^8 source triangles; the
 * sun's cascades draw each one's own cut of a rock by its texel (the
 * triangles the cuts computed in C keep, exactly) and its shadow on the
 * ground within 5% of the finest level's. On
 * vulkan, whose meshcull pass makes the cut in compute: five rocks at
 * several distances give the CPU's meshlet counters exactly (tested,
 * frustum, cone, lod, triangles) and its picture under the parity rule,
 * and the dense world's 4 rocks draw at most 2 triangles per covered pixel
 * with the CPU's counters. On gl (its meshcull path off by default, so
 * its finest level) and vulkan: a near rock under the parity rule against
 * the CPU's finest level; and the rock's shadow on the ground (the GPUs'
 * cascades' cuts, test_clod_shadow) within 5% of the CPU's cut's area,
 * the picture under the parity rule against the CPU's finest level. */
#include <float.h>
#include <oak/scene.h>
#include <oak/world.h>

#include "oak_test.h"

#include "backend/gpu/meshcull.h"
#include "backend_start.h"
#include "meshlet_test.h"
#include "world/internal.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_material g_mat;
static oak_mesh g_rock; /* 5 subdivisions: 20,480 triangles */

static int tri_cmp(const void *x, const void *y) {
    const uint32_t *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* triangles as rotations starting at their smallest index, sorted */
static uint32_t *canon_sorted(const uint32_t *ix, uint32_t tris) {
    uint32_t *c = oak_alloc(sizeof *c * 3 * (tris ? tris : 1));
    for (uint32_t t = 0; c && t < tris; t++) {
        const uint32_t *s = ix + 3 * (size_t)t;
        int m = s[0] <= s[1] ? (s[0] <= s[2] ? 0 : 2) : (s[1] <= s[2] ? 1 : 2);
        for (int k = 0; k < 3; k++) c[3 * (size_t)t + k] = s[(m + k) % 3];
    }
    if (c) qsort(c, tris, 12, tri_cmp);
    return c;
}

static void check_dag(const char *what, const float *pos, uint32_t vn, const uint32_t *ix,
                      uint32_t in, bool closed) {
    oak_clod c;
    uint64_t t0 = oak_time_ns();
    CHECK_OK(oak_build_clod(&c, pos, vn, ix, in));
    double ms = oak_ms_since(t0);
    fprintf(stderr, "  %s: %u triangles, %u levels, %u meshlets, %u triangles in all, %.0f ms\n",
            what, in / 3, c.level_count, c.meshlets.count, c.index_count / 3, ms);
    CHECK(c.level_count >= 3);
    CHECK(oak_meshlets_problem(&c.meshlets, vn, c.index_count) == NULL);
    uint32_t bad_err = 0, bad_sphere = 0, roots = 0;
    for (uint32_t i = 0; i < c.meshlets.count; i++) {
        const oak_meshlet *m = &c.meshlets.meshlets[i];
        bad_err += !(m->lod_error >= 0 && m->lod_error <= m->parent_error);
        roots += m->parent_error == FLT_MAX;
        float d = 0;
        for (int k = 0; k < 3; k++)
            d +=
                (m->lod_sphere[k] - m->parent_sphere[k]) * (m->lod_sphere[k] - m->parent_sphere[k]);
        bad_sphere += m->parent_error < FLT_MAX &&
                      sqrtf(d) + m->lod_sphere[3] > m->parent_sphere[3] * 1.0001f + 1e-6f;
    }
    CHECK_EQ_INT((int)bad_err, 0);
    CHECK_EQ_INT((int)bad_sphere, 0);
    for (uint32_t l = 0; l < c.level_count; l++)
        fprintf(stderr, "    level %u: %u meshlets, %u triangles\n", l,
                c.level_first[l + 1] - c.level_first[l], c.level_triangles[l]);
    /* each level halves while groups have room to (the last few, a handful
       of clusters with most of their vertices locked, shrink less) */
    for (uint32_t l = 1; l < c.level_count; l++)
        if (c.level_triangles[l - 1] >= 2000)
            CHECK(c.level_triangles[l] <= 0.6 * c.level_triangles[l - 1]);
    /* a closed mesh comes down to one small cluster (an open one keeps its
       locked outer border) */
    if (closed) CHECK(c.level_triangles[c.level_count - 1] <= OAK_CLOD_ROOT_TRIANGLES);
    fprintf(stderr, "    %u roots\n", roots);
    CHECK(roots >= 1);
    /* the finest level is the source's triangles, each once, winding kept */
    CHECK_EQ_INT((int)c.finest_index_count, (int)in);
    uint32_t *a = canon_sorted(ix, in / 3), *b = canon_sorted(c.indices, c.finest_index_count / 3);
    CHECK(a && b && !memcmp(a, b, sizeof *a * in));
    oak_free(a), oak_free(b);
    oak_clod_release(&c);
}

TEST(dagInvariants) {
    const oak_mesh_data *d = oak_mesh_get(g_rock);
    CHECK(d && d->finest_index_count == 3 * 20480);
    if (!d) return;
    check_dag("rock", d->positions, d->vertex_count, d->indices, d->finest_index_count, true);
    /* an open plane: its outer border stays locked at every level */
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {10, 1, 10}, .segments = 64};
    oak_mesh plane;
    CHECK_OK(oak_make_shape(&plane, &pd));
    const oak_mesh_data *p = oak_mesh_get(plane);
    if (p) check_dag("plane", p->positions, p->vertex_count, p->indices, p->index_count, false);
    oak_destroy_mesh(plane);
    /* under 8,192 triangles: the finest level alone */
    oak_clod c;
    CHECK_OK(oak_build_clod(&c, NULL, 0, NULL, 0));
    CHECK_EQ_INT((int)c.meshlets.count, 0);
    oak_clod_release(&c);
    /* bad input: one line, an error, nothing made */
    int errors = g_oak_test_errors;
    CHECK(oak_build_clod(&c, d->positions, d->vertex_count, d->indices, 4) != OAK_OK);
    uint32_t past[3] = {0, 1, d->vertex_count};
    CHECK(oak_build_clod(&c, d->positions, d->vertex_count, past, 3) != OAK_OK);
    g_oak_test_errors = errors;
}

static int cmp64(const void *x, const void *y) {
    const uint64_t *a = x, *b = y;
    return *a < *b ? -1 : *a > *b;
}

/* The rock's cut at world matrix `world` seen by view v (no frustum or
   cone: the cut alone): kept triangles, and directed edges without their
   reverse among them. */
static void cut_edges(const oak_render_view *v, const mat4 world, uint32_t *kept, uint32_t *open) {
    const oak_mesh_data *d = oak_mesh_get(g_rock);
    const oak_meshlets *ml = d->meshlets;
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, W, H);
    _oak_meshcull_draw dc;
    CHECK(_oak_meshcull_draw_make(&dc, &cv, (const float *)world, true));
    uint32_t *e = oak_alloc(sizeof *e * 2 * d->index_count), n = 0, at = 0;
    *kept = 0;
    for (uint32_t i = 0; i < ml->count; i++) {
        const oak_meshlet *m = &ml->meshlets[i];
        uint32_t tris = m->triangle_count;
        if (_oak_clod_keep(&cv, &dc, m)) {
            for (uint32_t t = 0; t < tris; t++)
                for (int k = 0; k < 3; k++) {
                    e[2 * n] = d->indices[at + 3 * t + k];
                    e[2 * n + 1] = d->indices[at + 3 * t + (k + 1) % 3];
                    n++;
                }
            *kept += tris;
        }
        at += 3 * tris;
    }
    /* sorted, each (a, b) must meet a (b, a): count the unmatched */
    uint64_t *key = oak_alloc(sizeof *key * (n ? n : 1)),
             *rev = oak_alloc(sizeof *rev * (n ? n : 1));
    for (uint32_t i = 0; i < n; i++) {
        key[i] = (uint64_t)e[2 * i] << 32 | e[2 * i + 1];
        rev[i] = (uint64_t)e[2 * i + 1] << 32 | e[2 * i];
    }
    qsort(key, n, 8, cmp64);
    qsort(rev, n, 8, cmp64);
    *open = 0;
    for (uint32_t i = 0; i < n; i++) *open += key[i] != rev[i];
    oak_free(e), oak_free(key), oak_free(rev);
}

static void rock_input(oak_frame_input *in, oak_render_light *sun, oak_environment *env,
                       oak_post *post, mat4 world, float dist, oak_channel channel) {
    glm_mat4_identity(world);
    oak_test_sunlit_input(in, 1, &g_rock, &g_mat, (const mat4 *)world, sun, env, post, 50, 2000);
    post->ao = OAK_AO_OFF;
    post->channel = channel;
    mat4 view;
    glm_lookat((vec3){0, 0.3f * dist, dist}, (vec3){0, 0, 0}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, in->camera_world);
}

/* One frame on a backend: the picture or the channel (floats), and the
   counters (a GPU's are read once its frame is done: the read waited). */
static bool draw_on(const char *backend, uint32_t w, uint32_t h, const oak_frame_input *in,
                    const char *cull, uint8_t *px, float *ch, oak_meshlet_stats *st) {
    if (cull) setenv("OAK_MESHCULL", cull, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (cull) unsetenv("OAK_MESHCULL");
    bool ok = r && oak_renderer_draw(r, in) == OAK_OK;
    if (ok && px) ok = oak_renderer_read_pixels(r, px, (size_t)w * h * 4) == OAK_OK;
    if (ok && ch) ok = oak_renderer_read_channel(r, ch, (size_t)w * h * 4) == OAK_OK;
    if (ok && st) CHECK_OK(oak_renderer_meshlet_stats(r, st));
    CHECK(ok);
    oak_destroy_renderer(r);
    return ok;
}

static bool draw_at(uint32_t w, uint32_t h, const oak_frame_input *in, const char *cull,
                    uint8_t *px, float *ch, oak_meshlet_stats *st) {
    return draw_on(g_backend, w, h, in, cull, px, ch, st);
}

static bool draw(const oak_frame_input *in, const char *cull, uint8_t *px, float *ch,
                 oak_meshlet_stats *st) {
    return draw_at(W, H, in, cull, px, ch, st);
}

/* Empty pixels (depth 0) that the picture's border cannot reach through
   empty pixels: holes inside the silhouette. */
static uint32_t holes(const float *depth, uint32_t *covered) {
    static uint8_t seen[W * H];
    static uint32_t stack[W * H];
    memset(seen, 0, sizeof seen);
    uint32_t sp = 0, empty = 0, reached = 0;
    *covered = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        bool e = !(depth[4 * i] > 0);
        empty += e, *covered += !e;
        uint32_t x = i % W, y = i / W;
        if (e && (x == 0 || y == 0 || x == W - 1 || y == H - 1)) seen[i] = 1, stack[sp++] = i;
    }
    while (sp) {
        uint32_t i = stack[--sp], x = i % W, y = i / W;
        reached++;
        int32_t nb[4] = {x > 0 ? (int32_t)i - 1 : -1, x + 1 < W ? (int32_t)i + 1 : -1,
                         y > 0 ? (int32_t)(i - W) : -1, y + 1 < H ? (int32_t)(i + W) : -1};
        for (int k = 0; k < 4; k++)
            if (nb[k] >= 0 && !seen[nb[k]] && !(depth[4 * nb[k]] > 0))
                seen[nb[k]] = 1, stack[sp++] = (uint32_t)nb[k];
    }
    return empty - reached;
}

/* The view the renderer makes of in's camera (W x H, 50 degrees, 0.1 to
   2000 m): what the cut computed in C is made by. */
static void camera_view(oak_frame_input *in, oak_render_view *v) {
    memset(v, 0, sizeof *v);
    mat4 view;
    glm_mat4_inv(in->camera_world, view);
    glm_perspective(50 * (float)OAK_PI / 180, (float)W / H, 0.1f, 2000, v->proj);
    memcpy(v->view, view, sizeof view);
    glm_mat4_mul(v->proj, view, v->view_proj);
    v->znear = 0.1f;
}

TEST(cutIsCrackFree) {
    static float depth[W * H * 4];
    const float dists[] = {1.6f, 3, 6, 12, 25};
    uint32_t last = UINT32_MAX;
    for (size_t i = 0; i < sizeof dists / sizeof dists[0]; i++) {
        oak_frame_input in = {0};
        oak_render_light sun;
        oak_environment env;
        oak_post post;
        mat4 world;
        rock_input(&in, &sun, &env, &post, world, dists[i], OAK_CHANNEL_DEPTH);
        oak_meshlet_stats st;
        if (!draw(&in, NULL, NULL, depth, &st)) return;
        uint32_t covered, hole = holes(depth, &covered);
        /* the same cut in C over the whole rock: watertight */
        oak_render_view v;
        camera_view(&in, &v);
        uint32_t kept, open;
        cut_edges(&v, world, &kept, &open);
        fprintf(stderr,
                "  %5.1f m: cut %5u of 20480 triangles (%u drawn, %u meshlets out of the cut), "
                "%u open edges, %u covered px, %u holes\n",
                dists[i], kept, st.triangles_kept, st.culled_lod, open, covered, hole);
        CHECK_EQ_INT((int)open, 0);
        CHECK_EQ_INT((int)hole, 0);
        CHECK(covered > 20);
        CHECK(kept <= last); /* farther: never more */
        last = kept;
    }
    CHECK(last < 20480 / 20); /* and the far one a small part */
}

/* The GPUs' records of the rock (_oak_meshcull_gpu_levels): its finest
   meshlets are the first ones and hold the source's 20,480 triangles, a
   job's region; no cut keeps more, from inside the rock's sphere to far
   off (the kernel would stop at the region's end). */
TEST(gpuRegionHoldsEveryCut) {
    const oak_mesh_data *d = oak_mesh_get(g_rock);
    const oak_meshlets *ml = d ? d->meshlets : NULL;
    CHECK(ml && ml->count);
    if (!ml || !ml->count) return;
    uint32_t finest = 0, region = 0, t = 0;
    _oak_meshcull_gpu_levels(ml, d, &finest, &region);
    for (uint32_t i = 0; i < finest; i++) t += ml->meshlets[i].triangle_count;
    CHECK_EQ_INT((int)region, 20480);
    CHECK_EQ_INT((int)t, 20480);
    CHECK(finest < ml->count);
    uint32_t most = 0;
    for (float dist = 0.05f; dist < 400; dist *= 1.5f) {
        oak_frame_input in = {0};
        oak_render_light sun;
        oak_environment env;
        oak_post post;
        mat4 world;
        rock_input(&in, &sun, &env, &post, world, dist, OAK_CHANNEL_NONE);
        oak_render_view v;
        camera_view(&in, &v);
        uint32_t kept, open;
        cut_edges(&v, world, &kept, &open);
        CHECK(kept <= region);
        CHECK_EQ_INT((int)open, 0);
        most = kept > most ? kept : most;
    }
    fprintf(stderr, "  %u finest meshlets of %u; the largest cut %u of a region of %u\n", finest,
            ml->count, most, region);
}

TEST(farRockMatchesFull) {
    static float da[W * H * 4], db[W * H * 4];
    static uint8_t pa[W * H * 4], pb[W * H * 4];
    oak_frame_input in = {0};
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    mat4 world;
    rock_input(&in, &sun, &env, &post, world, 8, OAK_CHANNEL_DEPTH);
    oak_meshlet_stats on;
    if (!draw(&in, "on", NULL, da, &on) || !draw(&in, "off", NULL, db, NULL)) return;
    uint32_t cov = 0, differ = 0;
    for (uint32_t i = 0; i < W * H; i++) {
        bool a = da[4 * i] > 0, b = db[4 * i] > 0;
        cov += b, differ += a != b;
    }
    rock_input(&in, &sun, &env, &post, world, 8, OAK_CHANNEL_NONE);
    if (!draw(&in, "on", pa, NULL, NULL) || !draw(&in, "off", pb, NULL, NULL)) return;
    double sum = 0;
    uint32_t big = 0;
    for (uint32_t i = 0; i < W * H * 4; i++) {
        int d = abs((int)pa[i] - (int)pb[i]);
        sum += d, big += d > 16;
    }
    fprintf(stderr,
            "  8 m: cut draws %u of 20480 triangles; silhouette %u px of %u differ (%.2f%%), "
            "picture mean %.3f/255, %u channels over 16/255\n",
            on.triangles_kept, differ, cov, 100.0 * differ / cov, sum / (W * H * 4), big);
    CHECK(on.triangles_kept < 20480 / 4);
    CHECK(differ <= cov / 50 + 2); /* the 1-px error bound: edge pixels only */
    CHECK(sum / (W * H * 4) < 1.0);
}

#define DW 640
#define DH 360
/* The dense world at each of `counts` rocks (no ground): at most 2
   triangles drawn per covered pixel on g_backend; on a GPU its counters
   the CPU's too. */
static void dense_per_pixel(const uint32_t *counts, size_t n) {
    static float depth[DW * DH * 4];
    for (size_t c = 0; c < n; c++) {
        oak_scene *scene = NULL;
        CHECK_OK(oak_make_scene(&scene));
        oak_world_options o = {.count = counts[c]};
        uint64_t t0 = oak_time_ns();
        oak_result r = oak_world_build_with(scene, "dense", &o);
        CHECK_OK(r);
        double build = oak_ms_since(t0);
        if (r) {
            oak_destroy_scene(scene);
            return;
        }
        oak_scene_destroy_entity(scene, oak_scene_find(scene, "ground"));
        oak_frame_input in;
        CHECK_OK(oak_scene_frame_input(scene, &in));
        oak_post post = in.post ? *in.post : (oak_post){.exposure = 1};
        post.channel = OAK_CHANNEL_DEPTH;
        in.post = &post;
        oak_meshlet_stats st;
        t0 = oak_time_ns();
        bool ok = draw_at(DW, DH, &in, NULL, NULL, depth, &st);
        double frame = oak_ms_since(t0);
        uint32_t covered = 0;
        for (uint32_t i = 0; ok && i < DW * DH; i++) covered += depth[4 * i] > 0;
        double source = 327680.0 * counts[c], per = (double)st.triangles_kept / covered;
        fprintf(stderr,
                "  %4u rocks, %6.1f M source triangles: %u drawn over %u covered px = %.2f a "
                "pixel (%u meshlets tested, %u out of the cut); build %.0f ms, frame %.0f ms\n",
                counts[c], source * 1e-6, st.triangles_kept, covered, per, st.tested, st.culled_lod,
                build, frame);
        CHECK(covered > DW * DH / 5);
        CHECK(per <= 2.0);
        CHECK(st.culled_lod > st.tested / 2); /* the cut did it, not the frustum */
        oak_meshlet_stats cpu;
        if (ok && strcmp(g_backend, "cpu") && draw_on("cpu", DW, DH, &in, NULL, NULL, NULL, &cpu)) {
            fprintf(stderr, "    cpu: %u tested, %u frustum, %u cone, %u lod, %u triangles\n",
                    cpu.tested, cpu.culled_frustum, cpu.culled_cone, cpu.culled_lod,
                    cpu.triangles_kept);
            CHECK_EQ_INT((int)st.tested, (int)cpu.tested);
            CHECK_EQ_INT((int)st.culled_lod, (int)cpu.culled_lod);
            CHECK_EQ_INT((int)st.culled_frustum, (int)cpu.culled_frustum);
            CHECK_EQ_INT((int)st.culled_cone, (int)cpu.culled_cone);
            CHECK_EQ_INT((int)st.triangles_kept, (int)cpu.triangles_kept);
        }
        oak_destroy_scene(scene);
    }
}

TEST(denseTrianglesPerPixel) {
    const uint32_t counts[] = {4, 32, 320}; /* 1.3 M, 10.5 M and 104.9 M source triangles */
    dense_per_pixel(counts, 3);
}

/* On a GPU (lavapipe: small): 4 rocks, 1.3 M source triangles. */
TEST(denseTrianglesPerPixelGpu) {
    const uint32_t counts[] = {4};
    dense_per_pixel(counts, 1);
}

/* Rocks at several distances for a GPU's cut against the CPU's: one near,
   one half off the right edge, three farther off (the farthest a handful
   of pixels). */

typedef struct rocks {
    oak_frame_input in;
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_mesh meshes[OAK_TEST_ROCKS];
    oak_material mats[OAK_TEST_ROCKS];
    mat4 world[OAK_TEST_ROCKS];
} rocks;

static void rocks_init(rocks *s) {
    memset(s, 0, sizeof *s);
    oak_test_rocks(OAK_TEST_PARTS(s), g_rock, g_mat);
}

/* The GPU's cut in compute (meshcull.comp, clod.glsl) is the CPU's: every
   counter equal, the cut and the frustum both at work. */
TEST(rocksCountersMatchCpu) {
    static rocks s;
    rocks_init(&s);
    oak_meshlet_stats cpu, gpu;
    if (!draw_on("cpu", W, H, &s.in, NULL, NULL, NULL, &cpu) ||
        !draw(&s.in, NULL, NULL, NULL, &gpu))
        return;
    fprintf(stderr,
            "  cpu: %u tested, %u frustum, %u cone, %u lod, %u triangles; %s: %u, %u, %u, %u, "
            "%u\n",
            cpu.tested, cpu.culled_frustum, cpu.culled_cone, cpu.culled_lod, cpu.triangles_kept,
            g_backend, gpu.tested, gpu.culled_frustum, gpu.culled_cone, gpu.culled_lod,
            gpu.triangles_kept);
    CHECK(gpu.on);
    CHECK_EQ_INT((int)gpu.tested, (int)cpu.tested);
    CHECK_EQ_INT((int)gpu.culled_frustum, (int)cpu.culled_frustum);
    CHECK_EQ_INT((int)gpu.culled_cone, (int)cpu.culled_cone);
    CHECK_EQ_INT((int)gpu.culled_lod, (int)cpu.culled_lod);
    CHECK_EQ_INT((int)gpu.triangles_kept, (int)cpu.triangles_kept);
    /* the cut drew a small part of the 5 x 20,480 triangles, and the rock
       half off the edge lost meshlets to the frustum */
    CHECK(cpu.culled_lod > cpu.tested / 2);
    CHECK(cpu.culled_frustum > 0);
    CHECK(cpu.triangles_kept < OAK_TEST_ROCKS * 20480 / 3);
}

/* The GPU's picture of its cut against the CPU's (which draws the cut)
   under the parity rule. */
TEST(rocksPictureMatchesCpu) {
    static rocks s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    rocks_init(&s);
    oak_test_parity_frame("rocks' cut", g_backend, &s.in, W, H, a, b);
}

TEST(nearRockMatchesCpu) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_frame_input in = {0};
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    mat4 world;
    rock_input(&in, &sun, &env, &post, world, 1.6f, OAK_CHANNEL_NONE);
    /* the CPU's finest level (no cut: what the GPUs draw until theirs is
       wired); its cut at 1.6 m (5,930 of 20,480 triangles) is 97.5%
       within 2/255 of it */
    setenv("OAK_MESHCULL", "off", 1);
    oak_test_parity_frame("near rock, finest level", g_backend, &in, W, H, a, b);
    unsetenv("OAK_MESHCULL");
}

/* A rock on a ground plane in the sun, for the shadow tests: flags[1]
   OAK_DRAW_NO_SHADOW in the picture without its shadow. */
typedef struct shadow_scene {
    oak_frame_input in;
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_mesh meshes[2];
    oak_material mats[2];
    mat4 world[2];
    uint32_t flags[2];
} shadow_scene;

static oak_mesh g_ground;

static void shadow_init(shadow_scene *s, bool cast) {
    memset(s, 0, sizeof *s);
    s->meshes[0] = g_ground, s->meshes[1] = g_rock;
    s->mats[0] = s->mats[1] = g_mat;
    glm_mat4_identity(s->world[0]);
    glm_translate(s->world[0], (vec3){0, -0.3f, 0});
    glm_mat4_identity(s->world[1]);
    glm_translate(s->world[1], (vec3){0, 0.8f, 0}); /* off the ground: its whole shadow shows */
    glm_rotate_y(s->world[1], 0.4f, s->world[1]);
    s->flags[1] = cast ? 0 : OAK_DRAW_NO_SHADOW;
    oak_test_sunlit_input(&s->in, 2, s->meshes, s->mats, (const mat4 *)s->world, &s->sun, &s->env,
                          &s->post, 50, 200);
    s->in.flags = s->flags;
    s->post.ao = OAK_AO_OFF;
    s->post.exposure = 0.2f; /* the white ground lit by the sun under white */
    mat4 view;
    /* the sun shines toward -x -z: its shadow lies there, seen across the light */
    glm_lookat((vec3){-3, 3.5f, 1.5f}, (vec3){-0.5f, -0.3f, -0.5f}, (vec3){0, 1, 0}, view);
    glm_mat4_inv(view, s->in.camera_world);
}

/* The triangles the rock's cuts keep over the cascades of `v` that list
   it, each cut made in C by the cascade's texel (what the CPU's shadow
   pass must draw). */
static uint32_t cascade_cuts(const oak_render_view *v, uint32_t *listing) {
    const oak_meshlets *ml = NULL;
    uint32_t sum = 0;
    *listing = 0;
    if (oak_mesh_meshlets(g_rock, &ml) != OAK_OK) return 0;
    for (uint32_t c = 0; c < v->cascade_count; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        for (uint32_t i = cas->first_caster; i < cas->first_caster + cas->caster_count; i++) {
            if (v->casters.mesh[i].id != g_rock.id) continue;
            if (v->casters.flags && (v->casters.flags[i] & OAK_DRAW_NO_SHADOW)) continue;
            _oak_meshcull_view cv;
            _oak_meshcull_view_shadow(&cv, (const float *)cas->view_proj,
                                      v->shadow_map_size ? v->shadow_map_size : 512, true, NULL, 0);
            _oak_meshcull_draw dc;
            if (!_oak_meshcull_draw_make(&dc, &cv, (const float *)v->casters.world[i], false))
                continue;
            (*listing)++;
            for (uint32_t k = 0; k < ml->count; k++)
                if (_oak_clod_keep(&cv, &dc, &ml->meshlets[k]))
                    sum += ml->meshlets[k].triangle_count;
        }
    }
    return sum;
}

/* Pixels of the ground the rock's shadow darkens on `backend`: green under
   0.7 of the picture without its shadow (where that one is lit); *expect,
   the triangles the cascades' cuts of the rock keep (cascade_cuts). */
static bool shadow_area(const char *backend, uint32_t *area, oak_meshlet_stats *st,
                        uint32_t *expect, uint32_t *listing) {
    static shadow_scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    shadow_init(&s, true);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    bool ok = r && oak_renderer_draw(r, &s.in) == OAK_OK &&
              oak_renderer_read_pixels(r, a, sizeof a) == OAK_OK &&
              oak_renderer_meshlet_stats(r, st) == OAK_OK;
    if (ok && expect) *expect = cascade_cuts(oak_renderer_last_view(r), listing);
    CHECK(ok);
    if (r) oak_destroy_renderer(r);
    shadow_init(&s, false);
    if (!ok || !draw_on(backend, W, H, &s.in, NULL, b, NULL, NULL)) return false;
    *area = 0;
    for (uint32_t i = 0; i < W * H; i++)
        *area += b[4 * i + 1] > 40 && a[4 * i + 1] < 0.7 * b[4 * i + 1];
    return true;
}

/* The CPU's cascades draw the rock's cut by each one's texel, not every
   level over each other: the maps' cuts together keep fewer triangles than
   the finest level (a 512-texel cascade's texel is centimetres), and the
   rock's shadow is on the ground. */
TEST(shadowDrawsTheCut) {
    /* the cascade's view: texels a metre from the matrix alone */
    mat4 proj, view, vp;
    glm_ortho(-8, 8, -8, 8, 0.5f, 100, proj);
    glm_lookat((vec3){3, 20, 4}, (vec3){0, 0, 0}, (vec3){0, 0, -1}, view);
    glm_mat4_mul(proj, view, vp);
    _oak_meshcull_view cv;
    _oak_meshcull_view_shadow(&cv, (const float *)vp, 512, true, NULL, 0);
    fprintf(stderr, "  a 16 m cascade of 512 texels: lod_px %.4f (32 a metre)\n", cv.lod_px);
    CHECK(fabsf(cv.lod_px - 32.0f) < 1e-3f);
    uint32_t area = 0, off_area = 0, expect = 0, listing = 0;
    oak_meshlet_stats on, off;
    if (!shadow_area("cpu", &area, &on, &expect, &listing)) return;
    setenv("OAK_MESHCULL", "off", 1);
    bool ok = shadow_area("cpu", &off_area, &off, NULL, NULL);
    unsetenv("OAK_MESHCULL");
    if (!ok) return;
    fprintf(stderr,
            "  rock's shadow: %u px (finest level: %u px); the maps' cuts keep %u triangles, "
            "%u meshlets out (off: %u, %u); %u cascades list the rock, their cuts in C %u\n",
            area, off_area, on.shadow_triangles, on.shadow_culled_lod, off.shadow_triangles,
            off.shadow_culled_lod, listing, expect);
    CHECK(area > 300);
    /* each cascade's own cut, not the levels' sum (40,000 odd a cascade) */
    CHECK(listing > 0);
    CHECK_EQ_INT((int)on.shadow_triangles, (int)expect);
    CHECK(on.shadow_triangles > 0 && on.shadow_triangles < listing * 20480);
    CHECK(on.shadow_culled_lod > 0);
    CHECK_EQ_INT((int)off.shadow_triangles, 0);
    /* the cut's shadow is the finest level's within a texel's rim */
    CHECK(abs((int)area - (int)off_area) <= (int)off_area / 20 + 4);
}

/* The rock's shadow on a GPU (its cascades' cuts, test_clod_shadow)
   against the CPU's cut: the shadowed area within 5%; the picture under
   the parity rule against the CPU's finest level. */
TEST(shadowMatchesCpu) {
    uint32_t cpu = 0, gpu = 0;
    oak_meshlet_stats st;
    if (!shadow_area("cpu", &cpu, &st, NULL, NULL) ||
        !shadow_area(g_backend, &gpu, &st, NULL, NULL))
        return;
    fprintf(stderr, "  rock's shadow: cpu %u px, %s %u px\n", cpu, g_backend, gpu);
    CHECK(cpu > 300);
    CHECK(abs((int)cpu - (int)gpu) <= (int)cpu / 20 + 4);
    /* the picture against the CPU's finest level in the shadow too, both
       uncut (test_clod_shadow holds the cuts to each other) */
    static shadow_scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    shadow_init(&s, true);
    setenv("OAK_MESHCULL", "off", 1);
    oak_test_parity_frame("rock's shadow, finest level", g_backend, &s.in, W, H, a, b);
    unsetenv("OAK_MESHCULL");
}

/* The regions placed in the frame (meshcull_scan.comp) under a limit
   (OAK_MESHCULL_MAX_BYTES) the worst case (5 x 20,480 triangles, 1.6 MB)
   does not fit: the rocks are still cut, and the first frame already
   gives the CPU's counters and picture, the regions packed one after the
   other in what the limit leaves (at 200,000 bytes about 12,000
   triangles for the 4,564 kept). Under 50,000 bytes the room (about
   1,500 triangles after the meshlet words) is less than the cuts: the
   scan clamps and counts what did not fit (the cascades' shadow jobs
   come first, so the camera's lose the most), no draw is sent whole. The mesh
   path (a device with task and mesh shaders) gives the view's jobs no
   regions: turned off here. */
TEST(smallBufferStillCuts) {
    static rocks s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    rocks_init(&s);
    oak_meshlet_stats cpu, st = {0}, tight = {0};
    if (!draw_on("cpu", W, H, &s.in, NULL, a, NULL, &cpu)) return;
    setenv("OAK_MESH_SHADERS", "off", 1);
    setenv("OAK_MESHCULL_MAX_BYTES", "200000", 1);
    bool ok = draw(&s.in, NULL, b, NULL, &st);
    setenv("OAK_MESHCULL_MAX_BYTES", "50000", 1);
    ok = ok && draw(&s.in, NULL, NULL, NULL, &tight);
    unsetenv("OAK_MESHCULL_MAX_BYTES");
    unsetenv("OAK_MESH_SHADERS");
    if (!ok) return;
    fprintf(stderr,
            "  200,000-byte limit, frame 1: %u triangles, %u past the room, %u draws whole "
            "(cpu %u); 50,000 bytes: %u, %u past the room, %u whole\n",
            st.triangles_kept, st.overflow_triangles, st.fallback_draws, cpu.triangles_kept,
            tight.triangles_kept, tight.overflow_triangles, tight.fallback_draws);
    CHECK(st.on);
    CHECK_EQ_INT((int)st.fallback_draws, 0);
    CHECK_EQ_INT((int)st.overflow_triangles, 0);
    CHECK_EQ_INT((int)st.triangles_kept, (int)cpu.triangles_kept);
    CHECK_EQ_INT((int)st.culled_lod, (int)cpu.culled_lod);
    oak_test_parity("rocks' cut in a small buffer", a, b, W, H);
    /* the tight limit: counted before the clamp, clipped past the room */
    CHECK_EQ_INT((int)tight.fallback_draws, 0);
    CHECK_EQ_INT((int)tight.triangles_kept, (int)cpu.triangles_kept);
    CHECK(tight.overflow_triangles > 0 &&
          tight.overflow_triangles <= cpu.triangles_kept + cpu.shadow_triangles);
}

/* A cut that grows from few to many triangles in one frame: the rock at
   25 m for three frames (each read back, as the code before sized its
   regions by such counts: 2 x 78 + 256 triangles), then snapped to 1.6 m.
   Its region is placed in that frame from that frame's count, so the
   frame draws every kept triangle: none past the room, the CPU's counters
   and its picture under the parity rule. On vulkan and gl again under
   two-pass Hi-Z (the LATE step places the regions anew): nothing past the room and
   the same picture (occlusion hides part of the rock's own meshlets, so
   the counters differ). The mesh path gives the view's jobs no regions:
   turned off here. */
TEST(snappedCutDrawsEveryTriangle) {
    static uint8_t a[W * H * 4], b[W * H * 4];
    oak_frame_input far = {0}, near = {0};
    oak_render_light sun[2];
    oak_environment env[2];
    oak_post post[2];
    mat4 world[2];
    rock_input(&far, &sun[0], &env[0], &post[0], world[0], 25.0f, OAK_CHANNEL_NONE);
    rock_input(&near, &sun[1], &env[1], &post[1], world[1], 1.6f, OAK_CHANNEL_NONE);
    oak_meshlet_stats cpu;
    if (!draw_on("cpu", W, H, &near, NULL, a, NULL, &cpu)) return;
    for (int hiz = 0; hiz < 2; hiz++) { /* without occlusion, then under two-pass Hi-Z */
        oak_meshlet_stats before = {0}, st = {0};
        setenv("OAK_MESH_SHADERS", "off", 1);
        oak_renderer *r =
            oak_test_open_renderer(g_backend, W, H, hiz ? OAK_OCCLUSION_ON : OAK_OCCLUSION_OFF);
        for (int k = 0; r && k < 4; k++) {
            CHECK_OK(oak_renderer_draw(r, k < 3 ? &far : &near));
            CHECK_OK(oak_renderer_read_pixels(r, b, sizeof b));
            CHECK_OK(oak_renderer_meshlet_stats(r, k < 3 ? &before : &st));
        }
        if (r) oak_destroy_renderer(r);
        unsetenv("OAK_MESH_SHADERS");
        fprintf(stderr,
                "  %s: rock at 25 m: %u triangles; snapped to 1.6 m: %u (pass 1: %u; cpu %u), %u "
                "past the room, %u draws whole\n",
                hiz ? "two-pass Hi-Z" : "no occlusion", before.triangles_kept, st.triangles_kept,
                st.triangles_pass1, cpu.triangles_kept, st.overflow_triangles, st.fallback_draws);
        CHECK(st.on);
        CHECK(before.triangles_kept > 0);
        CHECK_EQ_INT((int)before.overflow_triangles, 0);
        CHECK_EQ_INT((int)st.overflow_triangles, 0);
        CHECK_EQ_INT((int)st.fallback_draws, 0);
        if (!hiz) {
            /* few to many: more than 2 x + 256 of the far cut */
            CHECK(cpu.triangles_kept > 2 * before.triangles_kept + 256);
            CHECK_EQ_INT((int)st.triangles_kept, (int)cpu.triangles_kept);
            CHECK_EQ_INT((int)st.culled_lod, (int)cpu.culled_lod);
        } else {
            CHECK(st.triangles_kept > 2 * before.triangles_kept + 256);
        }
        oak_test_parity(hiz ? "rock snapped from 25 m to 1.6 m, Hi-Z"
                            : "rock snapped from 25 m to 1.6 m",
                        a, b, W, H);
    }
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 0.8f, md.metallic = 0;
    CHECK_OK(oak_make_material(&g_mat, &md));
    CHECK_OK(_oak_world_dense_rock(&g_rock, 5, 3));
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .size = {30, 1, 30}};
    CHECK_OK(oak_make_shape(&g_ground, &gd));
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(dagInvariants);
        RUN(cutIsCrackFree);
        RUN(gpuRegionHoldsEveryCut);
        RUN(farRockMatchesFull);
        RUN(denseTrianglesPerPixel);
        RUN(shadowDrawsTheCut);
    } else {
        RUN(shadowMatchesCpu);
        RUN(nearRockMatchesCpu);
        RUN(rocksCountersMatchCpu);
        RUN(rocksPictureMatchesCpu);
        RUN(denseTrianglesPerPixelGpu);
        RUN(smallBufferStillCuts);
        RUN(snappedCutDrawsEveryTriangle);
    }
    oak_destroy_mesh(g_rock);
    oak_destroy_mesh(g_ground);
    oak_shutdown();
    return g_oak_test_validation || g_oak_test_errors ? 1 : TEST_SUMMARY();
}
