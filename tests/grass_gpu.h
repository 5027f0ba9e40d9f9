/* The grass kernel (shaders/grass.comp.glsl) against world/grass.c's host
 * growth it twins, shared by test_vulkan_grass.c and test_gl_grass.c: each
 * defines gk_run(squares, n, records, count) on its device. For every live
 * square of a grown grass (the jobs _oak_grass_live_jobs makes, in their
 * slots), the device's records equal the host's within the stated
 * tolerance (GK_*), every slot holds the same count of grown records in
 * both streams (and zeros past it), the plants' hash fields (scale, phase,
 * petal colour) are the same bits, and a second run repeats to the byte.
 * Terrains: gentle hills of 2 m cells (the meadow's 16 a square) and of
 * 4 m, at plants 1 and 0.4, and high hills with rock, dirt, snow and a
 * lake in a box (the material rule's every branch), and the 2 m hills
 * strewn with rocks at 600 a hectare, whose footprints no patch centre may
 * lie in (world/rocks_internal.h: both sides keep off the same discs, and
 * the rocks take clumps: fewer grow than without them). In a frame: the grass
 * pass grows the squares on the device (none grown on the host for it),
 * its records equal the host's as above in both copies (this frame's and
 * last frame's), frames with nothing new grow no square, and a walk grows
 * only the squares that came and went. */
#ifndef OAK_TEST_GRASS_GPU_H
#define OAK_TEST_GRASS_GPU_H

#include <math.h>

#include <oak/world.h>

#include "grass_terrain.h"
#include "render/renderer_internal.h"
#include "render/stream.h"
#include "world/grass_internal.h"
#include "world/rocks_internal.h"

static oak_result gk_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                         uint32_t count);
/* the frame tests: the count of squares the backend's grass pass grew (its
   name and its last frame's records: gpu_kernel_test.h) */
static uint64_t gk_squares(void *self);

/* The tolerance between the kernel's record and the host's: the host forms
   the ground, the variation and the scene position in double, the kernel
   in float (a rounding or two of a float at the values: position within
   GK_POS metres plus GK_REL of its distance from the scene's origin), and
   sin and cos of the yaw are the device's (rotation within GK_ROT a
   component); the colour's lush-to-dry mix follows the variation (GK_COL).
   Scale, phase and the flowers' petal colours come from the integer hash
   alone: equal. A patch whose hash lies within the rounding of its density
   could grow on one side only (about 1 in 10^6 patches): none may here. */
#define GK_POS 2e-4
#define GK_REL 2e-6
#define GK_ROT 2e-5
#define GK_COL 2e-5

typedef struct gk_case {
    const char *name;
    oak_terrain_desc terrain;
    oak_grass_desc grass;
    float eye[3];
    float rocks; /* rocks a hectare the grass keeps off (0: none) */
} gk_case;

static oak_terrain_desc gk_soft(uint32_t cells) {
    return grass_terrain_soft(cells, 300);
}
static oak_terrain_desc gk_rough(void) {
    return grass_terrain_rough(16, 300);
}

typedef struct gk_worst {
    double pos_m, pos, rot, col;
    uint32_t hash_off;  /* records whose scale, phase or petal colour differ */
    uint32_t count_off; /* slots whose grown count differs */
    uint32_t zero_off;  /* records past a slot's count that are not zero */
    uint32_t records;   /* grown records compared */
} gk_worst;

static bool gk_zero(const oak_instance *r) {
    static const oak_instance z;
    return !memcmp(r, &z, sizeof z);
}

static void gk_compare(gk_worst *w, const oak_instance *dev, const oak_instance *host,
                       uint32_t first, uint32_t size, bool flowers) {
    uint32_t nd = 0, nh = 0;
    while (nd < size && dev[first + nd].scale > 0) nd++;
    while (nh < size && host[first + nh].scale > 0) nh++;
    w->count_off += nd != nh;
    for (uint32_t k = 0; k < size; k++) {
        const oak_instance *a = &dev[first + k], *b = &host[first + k];
        if (k >= nh || k >= nd) {
            w->zero_off += k >= nd && !gk_zero(a);
            continue;
        }
        w->records++;
        double d = 0, len = 0, rp = 0, rm = 0;
        for (int c = 0; c < 3; c++) {
            d = fmax(d, fabs(a->position[c] - b->position[c]));
            len += (double)b->position[c] * b->position[c];
        }
        w->pos_m = fmax(w->pos_m, d);
        w->pos = fmax(w->pos, d / (GK_POS + GK_REL * sqrt(len)) * GK_POS);
        for (int c = 0; c < 4; c++) {
            rp = fmax(rp, fabs(a->rotation[c] - b->rotation[c]));
            rm = fmax(rm, fabs(a->rotation[c] + b->rotation[c]));
        }
        w->rot = fmax(w->rot, fmin(rp, rm));
        if (flowers)
            w->hash_off += memcmp(a->color, b->color, sizeof a->color) != 0;
        else
            for (int c = 0; c < 3; c++) w->col = fmax(w->col, fabs(a->color[c] - b->color[c]));
        w->hash_off += a->scale != b->scale || a->phase != b->phase;
    }
}

static void gk_one(const gk_case *c) {
    oak_scene *scene = NULL;
    oak_terrain *terrain = NULL;
    oak_grass *grass = NULL;
    gk_case k = *c;
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_make_terrain(&terrain, scene, &k.terrain));
    if (terrain && k.grass.water) {
        /* near the snow line, with a lake 25 m under the eye in the box of
           the west half (rock, dirt, snow, dry and lush grass and water) */
        float best = 1e9f;
        for (float z = -1800; z <= 1800; z += 100)
            for (float x = -1800; x <= 1800; x += 100) {
                float h;
                CHECK_OK(oak_terrain_height(terrain, x, z, &h, NULL));
                if (fabsf(h - 160) < best) best = fabsf(h - 160), k.eye[0] = x, k.eye[2] = z;
            }
        CHECK_OK(oak_terrain_height(terrain, k.eye[0], k.eye[2], &k.eye[1], NULL));
        k.grass.water_level = k.eye[1] - 25;
        const float box[4] = {k.eye[0] - 200, k.eye[2] - 200, k.eye[0], k.eye[2] + 200};
        memcpy(k.grass.water_extent, box, sizeof box);
        k.eye[1] += 2;
    }
    if (terrain) CHECK_OK(oak_make_grass(&grass, scene, terrain, &k.grass));
    oak_rocks *rocks = NULL;
    if (grass && k.rocks > 0) {
        oak_rocks_desc rd = {.seed = 3, .density = k.rocks};
        CHECK_OK(oak_make_rocks(&rocks, scene, terrain, &rd));
        CHECK_OK(_oak_grass_set_rocks(grass, rocks));
    }
    c = &k;
    oak_grass_stats st = {0};
    for (int i = 0; grass && i < 32; i++) {
        CHECK_OK(oak_terrain_update(terrain, c->eye));
        CHECK_OK(oak_grass_update(grass, c->eye));
        oak_grass_get_stats(&st, grass);
        if (!st.pending) break;
    }
    CHECK(grass && !st.pending && st.tiles > 0);
    if (grass && st.tiles) {
        oak_gpu_grass_square *jobs = oak_alloc(sizeof *jobs * st.tiles);
        const oak_stream *s[2] = {oak_grass_stream(grass, false), oak_grass_stream(grass, true)};
        uint32_t size[2] = {_oak_grass_slot_size(grass, false), _oak_grass_slot_size(grass, true)};
        uint32_t cap[2] = {oak_stream_capacity(s[0]), oak_stream_capacity(s[1])};
        uint32_t n = jobs ? _oak_grass_live_jobs(grass, jobs, st.tiles) : 0;
        CHECK_EQ_INT(n, st.tiles);
        gk_worst w = {0};
        /* both streams in one buffer: the flowers' slots after the grass's */
        uint32_t total = cap[0] + cap[1];
        for (uint32_t i = 0; i < n; i++) jobs[i].slot[1] += cap[0];
        oak_instance *dev = oak_alloc(sizeof *dev * (size_t)(total + 1));
        oak_instance *again = oak_alloc(sizeof *again * (size_t)(total + 1));
        if (dev && again && n) {
            CHECK_OK(gk_run(jobs, n, dev, total + 1));
            CHECK_OK(gk_run(jobs, n, again, total + 1));
            CHECK(!memcmp(dev, again, sizeof *dev * (size_t)(total + 1)));
            CHECK(gk_zero(&dev[total])); /* nothing past the slots */
            for (uint32_t i = 0; i < n; i++) {
                gk_compare(&w, dev, oak_stream_records(s[0]), jobs[i].slot[0], size[0], false);
                if (size[1])
                    gk_compare(&w, dev + cap[0], oak_stream_records(s[1]), jobs[i].slot[1] - cap[0],
                               size[1], true);
            }
        }
        oak_free(dev), oak_free(again);
        fprintf(stderr,
                "  %s: %u squares, %u grass and %u flowers grown on the host, %u records "
                "compared: position within %.2g m (%.2f of the tolerance), rotation %.2g, "
                "colour %.2g; hash fields off %u, counts off %u, zeros off %u\n",
                c->name, n, st.instances, st.flowers, w.records, w.pos_m, w.pos / GK_POS, w.rot,
                w.col, w.hash_off, w.count_off, w.zero_off);
        CHECK(w.records > 0 && w.records == st.instances + st.flowers);
        CHECK(w.pos <= GK_POS);
        CHECK(w.rot <= GK_ROT);
        CHECK(w.col <= GK_COL);
        CHECK_EQ_INT(w.hash_off, 0);
        CHECK_EQ_INT(w.count_off, 0);
        CHECK_EQ_INT(w.zero_off, 0);
        uint32_t with_rocks = 0;
        for (uint32_t i = 0; i < n; i++) with_rocks += jobs[i].rock[0] > 0;
        if (rocks) { /* every square meets rocks, and they take clumps */
            CHECK(with_rocks > n / 2);
            oak_grass *bare = NULL;
            CHECK_OK(oak_make_grass(&bare, scene, terrain, &k.grass));
            oak_grass_stats bs = {0};
            for (int i = 0; bare && i < 32; i++) {
                CHECK_OK(oak_grass_update(bare, c->eye));
                oak_grass_get_stats(&bs, bare);
                if (!bs.pending) break;
            }
            fprintf(stderr, "  %u of %u squares meet rocks; %u clumps grow, %u without them\n",
                    with_rocks, n, st.instances, bs.instances);
            CHECK(bs.instances > st.instances);
            oak_destroy_grass(bare);
        } else {
            CHECK_EQ_INT(with_rocks, 0);
        }
        oak_free(jobs);
    }
    oak_destroy_rocks(rocks);
    oak_destroy_grass(grass);
    oak_destroy_terrain(terrain);
    oak_destroy_scene(scene);
}

TEST(kernelGrowsTheHostsRecords) {
    gk_case cases[] = {
        {"2 m cells, plants 1", gk_soft(16), {.seed = 9, .distance = 100}, {30, 10, -20}},
        {"4 m cells, plants 0.4",
         gk_soft(8),
         {.seed = 2, .distance = 100, .plants = 0.4f},
         {-700, 10, 400}},
        {"high hills and a lake",
         gk_rough(),
         {.seed = 4, .distance = 150, .water = true},
         {0, 0, 0}},
        {"2 m cells, plants 1, rocks",
         gk_soft(16),
         {.seed = 9, .distance = 100},
         {30, 10, -20},
         600},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) gk_one(&cases[i]);
}

/* The device's frame records of both grass streams against the host's
   (read after: they are grown then), slot by slot. A grass stream is its
   own last frame (no copy of it is kept: prev offset 0), so this frame's
   records are all there is. */
static void gk_frame_check(oak_renderer *r, oak_grass *grass, const char *what) {
    const oak_stream *s[2] = {oak_grass_stream(grass, false), oak_grass_stream(grass, true)};
    uint32_t size[2] = {_oak_grass_slot_size(grass, false), _oak_grass_slot_size(grass, true)};
    uint32_t n[2] = {oak_stream_count(s[0]), oak_stream_count(s[1])}, total = n[0] + n[1];
    oak_instance *dev = oak_alloc(sizeof *dev * (size_t)(total + 1));
    if (!dev) return;
    CHECK_OK(gkt_frame_records(r->self, 0, total, dev));
    gk_worst w = {0};
    for (int f = 0; f < 2; f++) {
        const oak_instance *host = oak_stream_records(s[f]);
        const oak_instance *d = dev + (f ? n[0] : 0);
        for (uint32_t k = 0; size[f] && k < n[f] / size[f]; k++)
            gk_compare(&w, d, host, k * size[f], size[f], f == 1);
    }
    oak_grass_stats st;
    oak_grass_get_stats(&st, grass);
    fprintf(stderr,
            "  %s: %u grass and %u flowers, %u records compared: position within %.2g m, "
            "rotation %.2g, colour %.2g; hash fields off %u, counts off %u, zeros off %u\n",
            what, st.instances, st.flowers, w.records, w.pos_m, w.rot, w.col, w.hash_off,
            w.count_off, w.zero_off);
    CHECK(w.records == st.instances + st.flowers && st.instances > 100);
    CHECK(w.pos <= GK_POS && w.rot <= GK_ROT && w.col <= GK_COL);
    CHECK_EQ_INT(w.hash_off + w.count_off + w.zero_off, 0);
    oak_free(dev);
}

TEST(frameGrowsOnlyNewSquaresOnTheDevice) {
    oak_scene *scene = NULL;
    oak_terrain *terrain = NULL;
    oak_grass *grass = NULL;
    oak_renderer *r = NULL;
    oak_terrain_desc td = gk_soft(16);
    oak_grass_desc gd = {.seed = 9, .distance = 60};
    float eye[3] = {30, 10, -20};
    CHECK_OK(oak_make_scene(&scene));
    if (scene) CHECK_OK(oak_make_terrain(&terrain, scene, &td));
    if (terrain) CHECK_OK(oak_make_grass(&grass, scene, terrain, &gd));
    oak_renderer_desc rd = {.backend = GKT_BACKEND, .width = 64, .height = 36};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!grass || !r) {
        oak_destroy_renderer(r);
        oak_destroy_grass(grass);
        oak_destroy_terrain(terrain);
        oak_destroy_scene(scene);
        return;
    }
    oak_entity cam = oak_scene_create(scene, "camera");
    oak_scene_set_camera(scene, cam, &(oak_camera){.fov_y = 0.9f, .znear = 0.1f, .zfar = 500});
    oak_scene_set_active_camera(scene, cam);
    oak_grass_stats st = {0};
    for (int step = 0; step < 2; step++) {
        float at[3] = {eye[0], eye[1] - 8, eye[2] - 30};
        oak_transform t = oak_transform_look_at(eye, at);
        oak_scene_set_transform(scene, cam, &t);
        for (int i = 0; i < 32; i++) {
            CHECK_OK(oak_terrain_update(terrain, eye));
            CHECK_OK(oak_grass_update(grass, eye));
            oak_grass_get_stats(&st, grass);
            if (!st.pending) break;
        }
        /* the stats grew the host's copy: a square's step more brings
           squares the frames must grow on the device alone */
        eye[0] += 32;
        CHECK_OK(oak_terrain_update(terrain, eye));
        CHECK_OK(oak_grass_update(grass, eye));
        CHECK(oak_grass_stream(grass, false)->host_stale);
        uint64_t before = gk_squares(r->self);
        for (int k = 0; k < 4; k++) CHECK_OK(oak_scene_draw(scene, r));
        CHECK(oak_grass_stream(grass, false)->host_stale); /* none grown on the host for them */
        uint64_t grown = gk_squares(r->self) - before;
        /* four frames with nothing new: none grown at all */
        for (int k = 0; k < 4; k++) CHECK_OK(oak_scene_draw(scene, r));
        CHECK_EQ_INT(gk_squares(r->self) - before, grown);
        fprintf(stderr, "  %s: %u squares live, %llu square jobs in 4 frames, none after\n",
                step ? "after a 100 m walk" : "first frames", st.tiles, (unsigned long long)grown);
        CHECK(grown > 0);
        gk_frame_check(r, grass, step ? "after a 100 m walk" : "first frames");
        eye[0] += 100;
    }
    oak_destroy_renderer(r);
    oak_destroy_grass(grass);
    oak_destroy_terrain(terrain);
    oak_destroy_scene(scene);
}

/* The kernel on the opened device, then the frames on a renderer of their own. */
int main(void) {
    if (!gkt_open()) return OAK_TEST_SKIP;
    RUN(kernelGrowsTheHostsRecords);
    gkt_close();
    RUN(frameGrowsOnlyNewSquaresOnTheDevice);
    return gkt_end();
}

#endif
