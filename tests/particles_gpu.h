/* The particle kernel (shaders/particles.comp.glsl) against the C
 * evaluation it twins (render/particle_eval.c), shared by
 * test_vulkan_particles.c and test_gl_particles.c: each defines
 * pg_run(constants, particles, n, records, counts) on its device. Checks:
 * a busy emitter's records from the kernel match the CPU's within the
 * stated tolerance (pg_tolerance), its counts per flipbook frame equal the
 * CPU's, a second run repeats to the byte, a block written once at a
 * burst serves the frames until the deaths, and 131,072 particles of one
 * emitter (ages advanced on the device by time.x) agree too; and the
 * bitonic sort (shaders/particles_sort.comp.glsl) orders records by
 * flipbook frame and far to near within one exactly as the CPU's stable
 * sort and grouping do, ties in index order; a flipbook drawn in a frame
 * has each frame's records at its stream's place in the CPU's order. */
#ifndef OAK_TEST_PARTICLES_GPU_H
#define OAK_TEST_PARTICLES_GPU_H

#include <math.h>

#include <oak/world.h>

#include "render/particle_eval.h"
#include "render/renderer_internal.h"
#include "render/stream.h"
#include "world/internal.h"

static oak_result pg_run(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts,
                         uint32_t n, oak_instance *records, uint32_t counts[OAK_PARTICLE_FRAMES]);
static oak_result pg_sort(const float eye[3], const float fwd[3], const oak_instance *records,
                          const uint8_t *frames, uint32_t n, uint32_t *order);
/* the frame tests: the backend's name (PG_BACKEND) and its hook reading n
   records of the last frame's instance buffer from `first` */
static oak_result pg_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out);
/* and the count of emitter blocks its particles pass copied up */
static uint64_t pg_uploads(void *self);
/* and the instance counts the last frame's "over" book frames' BLEND
   commands drew, per frame */
static oak_result pg_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]);

/* The tolerance between the kernel's record and the CPU's (float rounding
   of exp, sin, cos, sqrt and division on the device): position within
   PG_POS metres plus PG_REL of its distance from the origin, scale within
   PG_REL relatively, the rotation within PG_ROT per component (either
   sign: q and -q turn alike), the colour within PG_COL, the phase's opacity
   byte equal and its share within PG_SHARE. */
#define PG_POS   1e-4
#define PG_REL   1e-5
#define PG_ROT   1e-4
#define PG_COL   1e-5
#define PG_SHARE 1e-4

typedef struct pg_worst {
    double pos, scale, rot, col, share;
    double pos_m;         /* the largest position difference, metres */
    uint32_t opacity_off; /* records whose opacity byte differs */
} pg_worst;

static void pg_compare(pg_worst *w, const oak_instance *gpu, const oak_instance *cpu, uint32_t n) {
    memset(w, 0, sizeof *w);
    for (uint32_t i = 0; i < n; i++) {
        const oak_instance *a = &gpu[i], *b = &cpu[i];
        double d = 0, len = 0, rp = 0, rm = 0;
        for (int c = 0; c < 3; c++) {
            d = fmax(d, fabs(a->position[c] - b->position[c]));
            len += (double)b->position[c] * b->position[c];
            w->col = fmax(w->col, fabs(a->color[c] - b->color[c]));
        }
        w->pos_m = fmax(w->pos_m, d);
        /* d against its bound, as metres at PG_POS */
        w->pos = fmax(w->pos, d / (PG_POS + PG_REL * sqrt(len)) * PG_POS);
        w->scale = fmax(w->scale, fabs(a->scale - b->scale) / fmax(fabs(b->scale), 1e-6));
        for (int c = 0; c < 4; c++) {
            rp = fmax(rp, fabs(a->rotation[c] - b->rotation[c]));
            rm = fmax(rm, fabs(a->rotation[c] + b->rotation[c]));
        }
        w->rot = fmax(w->rot, fmin(rp, rm));
        if (oak_instance_phase_opacity(a->phase) != oak_instance_phase_opacity(b->phase))
            w->opacity_off++;
        w->share = fmax(w->share, fabs(oak_instance_phase_share(a->phase) -
                                       oak_instance_phase_share(b->phase)));
    }
}

static void pg_check(const pg_worst *w, const char *what) {
    fprintf(stderr,
            "  %s: worst position %.2g m (%.2g of its bound), scale %.2g, rotation %.2g, "
            "colour %.2g, share %.2g, opacity bytes off %u\n",
            what, w->pos_m, w->pos / PG_POS, w->scale, w->rot, w->col, w->share, w->opacity_off);
    CHECK(w->pos <= PG_POS);
    CHECK(w->scale <= PG_REL);
    CHECK(w->rot <= PG_ROT);
    CHECK(w->col <= PG_COL);
    CHECK(w->share <= PG_SHARE);
    CHECK_EQ_INT(w->opacity_off, 0);
}

/* The CPU's records and counts for the kernel's input (ages at time.x on). */
static void pg_cpu(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts, uint32_t n,
                   oak_instance *out, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    memset(counts, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    for (uint32_t i = 0; i < n; i++)
        counts[_oak_particle_record(c, &parts[i], parts[i].spin_age[2] + c->time[0], &out[i])]++;
}

/* a busy emitter: rate, bursts, cone, drag, spin, keys, lift; every
   particle turned to a camera at (4, 2, 6) */
static oak_scene *pg_busy_scene(oak_particles **out) {
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    if (!scene) return NULL;
    oak_entity cam = oak_scene_create(scene, "camera");
    oak_transform t = oak_transform_look_at((float[3]){4, 2, 6}, (float[3]){0, 1, 0});
    oak_scene_set_transform(scene, cam, &t);
    oak_scene_set_camera(scene, cam, &(oak_camera){0});
    oak_scene_set_active_camera(scene, cam);
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(scene, &p));
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
                          .lift = 0.3f,
                          .color_key_count = 3,
                          .size_key_count = 2};
    d.bursts[0] = (oak_particle_burst){.at = 0.25f, .every = 0.5f, .count = 300};
    d.color_keys[0] = (oak_particle_key){0, {1, 0.8f, 0.2f, 1}};
    d.color_keys[1] = (oak_particle_key){0.4f, {1, 0.3f, 0.1f, 0.7f}};
    d.color_keys[2] = (oak_particle_key){1, {0.2f, 0.2f, 0.2f, 0}};
    d.size_keys[0] = (oak_particle_key){0, {1, 0, 0, 0}};
    d.size_keys[1] = (oak_particle_key){1, {2.5f, 0, 0, 0}};
    if (p) CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    *out = p;
    return scene;
}

TEST(kernelMatchesTheCpuRecords) {
    oak_particles *p = NULL;
    oak_scene *scene = pg_busy_scene(&p);
    if (!p) return;
    for (int i = 0; i <= 90; i++) CHECK_OK(oak_world_update_particles(scene, i / 60.0f));
    oak_gpu_particle_emitter c;
    const oak_gpu_particle *parts = NULL;
    const oak_instance *world = NULL;
    uint32_t n = 0;
    uint64_t version = 0;
    CHECK_OK(_oak_particles_kernel_input(p, 0, &c, &parts, &world, &n, &version));
    fprintf(stderr, "  %u particles alive at 1.5 s\n", n);
    CHECK(c.time[0] == 0); /* births on every step: the block is this step's */
    CHECK(n > 1500);
    oak_instance *cpu = malloc(sizeof *cpu * n), *gpu = malloc(sizeof *gpu * n),
                 *again = malloc(sizeof *again * n);
    uint32_t cc[OAK_PARTICLE_FRAMES], gc[OAK_PARTICLE_FRAMES], ac[OAK_PARTICLE_FRAMES];
    pg_cpu(&c, parts, n, cpu, cc);
    /* the world's records are this function's, to the bit */
    CHECK(memcmp(cpu, world, sizeof *cpu * n) == 0);
    c.shape[1] = 6; /* a flipbook's 6 frames: the counts by atomics */
    pg_cpu(&c, parts, n, cpu, cc);
    CHECK_OK(pg_run(&c, parts, n, gpu, gc));
    pg_worst w;
    pg_compare(&w, gpu, cpu, n);
    pg_check(&w, "busy emitter");
    uint32_t total = 0;
    for (int k = 0; k < OAK_PARTICLE_FRAMES; k++) {
        CHECK_EQ_INT(gc[k], cc[k]);
        total += gc[k];
    }
    fprintf(stderr, "  frames 0..5: %u %u %u %u %u %u\n", gc[0], gc[1], gc[2], gc[3], gc[4], gc[5]);
    CHECK_EQ_INT(total, n);
    CHECK(cc[0] > 0 && cc[5] > 0);
    /* the bound catches a kernel 2.5% off in its drag */
    oak_gpu_particle_emitter off = c;
    off.gravity_drag[3] *= 1.025f;
    CHECK_OK(pg_run(&off, parts, n, again, ac));
    pg_worst wo;
    pg_compare(&wo, again, cpu, n);
    fprintf(stderr, "  with the drag 2.5%% off: worst position %.2g m\n", wo.pos_m);
    CHECK(wo.pos > PG_POS);
    /* a run repeats to the byte */
    CHECK_OK(pg_run(&c, parts, n, again, ac));
    CHECK(memcmp(gpu, again, sizeof *gpu * n) == 0);
    CHECK(memcmp(gc, ac, sizeof gc) == 0);
    free(cpu), free(gpu), free(again);
    oak_destroy_scene(scene);
}

typedef struct pg_pool_job {
    const oak_gpu_particle_emitter *c;
    const oak_gpu_particle *parts;
    oak_instance *out;
} pg_pool_job;

static void pg_pool_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const pg_pool_job *j = user;
    for (uint32_t i = begin; i < end; i++)
        _oak_particle_record(j->c, &j->parts[i], j->parts[i].spin_age[2] + j->c->time[0],
                             &j->out[i]);
}

/* OAK_PARTICLES_N (a count) runs it at that size instead: the H200 command
   in docs/PERFORMANCE.md. */
TEST(aHundredThousandInOneEmitter) {
    const char *env = getenv("OAK_PARTICLES_N");
    uint32_t n = env ? (uint32_t)strtoul(env, NULL, 10) : 131072;
    if (n < 1 || n > 16u << 20) n = 131072;
    oak_gpu_particle *parts = calloc(n, sizeof *parts);
    oak_instance *cpu = malloc(sizeof *cpu * n), *gpu = malloc(sizeof *gpu * n);
    if (!parts || !cpu || !gpu) {
        CHECK(false);
        free(parts), free(cpu), free(gpu);
        return;
    }
    /* births scattered by hash: a fountain 2 m across, lives 1 .. 3 s, the
       ages at the block's writing anywhere in the first half of a life */
    for (uint32_t i = 0; i < n; i++) {
        oak_gpu_particle *q = &parts[i];
        q->p0_life[0] = 2 * oak_test_hash01(i, 1) - 1,
        q->p0_life[2] = 2 * oak_test_hash01(i, 2) - 1;
        q->p0_life[3] = 1 + 2 * oak_test_hash01(i, 3);
        q->v0_size[0] = 2 * oak_test_hash01(i, 4) - 1,
        q->v0_size[1] = 3 + 4 * oak_test_hash01(i, 5);
        q->v0_size[2] = 2 * oak_test_hash01(i, 6) - 1, q->v0_size[3] = 0.1f;
        q->spin_age[0] = 6.28f * oak_test_hash01(i, 7),
        q->spin_age[1] = 4 * oak_test_hash01(i, 8) - 2;
        q->spin_age[2] = 0.5f * q->p0_life[3] * oak_test_hash01(i, 9);
    }
    oak_gpu_particle_emitter c = {.gravity_drag = {0, -9.81f, 0, 0.7f},
                                  .eye = {0, 3, 12, 1},
                                  .shape = {0, 16, 2, 0},
                                  .time = {0.4f, 0, 0, 0}}; /* ages advance 0.4 s */
    c.color_at[0][1] = 1;
    memcpy(c.color[0], (float[4]){1, 0.9f, 0.5f, 1}, sizeof c.color[0]);
    memcpy(c.color[1], (float[4]){0.3f, 0.1f, 0.05f, 0}, sizeof c.color[1]);
    uint32_t cc[OAK_PARTICLE_FRAMES], gc[OAK_PARTICLE_FRAMES];
    uint64_t t0 = oak_time_ns();
    pg_cpu(&c, parts, n, cpu, cc);
    uint64_t t1 = oak_time_ns();
    CHECK_OK(pg_run(&c, parts, n, gpu, gc));
    uint64_t t2 = oak_time_ns();
    /* the job pool's evaluation (as world/particles.c runs it): the same bits */
    oak_instance *pool = malloc(sizeof *pool * n);
    pg_pool_job pj = {&c, parts, pool};
    uint64_t t3 = oak_time_ns();
    if (pool) oak_parallel_for(n, OAK_PARTICLE_CHUNK, pg_pool_chunk, &pj);
    uint64_t t4 = oak_time_ns();
    CHECK(pool && memcmp(pool, cpu, sizeof *pool * n) == 0);
    free(pool);
    fprintf(stderr,
            "  %u particles: CPU one thread %.1f ms, job pool (%u threads) %.1f ms, device run "
            "(pipeline, upload, kernel, read back) %.1f ms\n",
            n, (t1 - t0) / 1e6, oak_job_threads(), (t4 - t3) / 1e6, (t2 - t1) / 1e6);
    pg_worst w;
    pg_compare(&w, gpu, cpu, n);
    pg_check(&w, "many particles");
    uint32_t total = 0, off = 0;
    for (int k = 0; k < OAK_PARTICLE_FRAMES; k++) total += gc[k], off += gc[k] != cc[k];
    CHECK_EQ_INT(total, n);
    CHECK_EQ_INT(off, 0);
    free(parts), free(cpu), free(gpu);
}

/* the CPU's order (world/particles.c far_to_near then write_streams'
   stable grouping: frame ascending, view depth descending, ties by index) */
static const float *pg_depth;
static const uint8_t *pg_frames;
static int pg_far_first(const void *a, const void *b) {
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint32_t fi = pg_frames ? pg_frames[i] : 0, fj = pg_frames ? pg_frames[j] : 0;
    if (fi != fj) return fi < fj ? -1 : 1;
    if (pg_depth[i] != pg_depth[j]) return pg_depth[i] > pg_depth[j] ? -1 : 1;
    return i < j ? -1 : 1;
}

static void pg_check_sort(const oak_instance *rec, const uint8_t *frames, uint32_t n,
                          const float eye[3], const float fwd[3]) {
    float *depth = malloc(sizeof *depth * n);
    uint32_t *cpu = malloc(sizeof *cpu * n), *gpu = malloc(sizeof *gpu * n);
    for (uint32_t i = 0; i < n; i++) {
        const float *p = rec[i].position;
        depth[i] = (p[0] - eye[0]) * fwd[0] + (p[1] - eye[1]) * fwd[1] + (p[2] - eye[2]) * fwd[2];
        cpu[i] = i;
    }
    pg_depth = depth, pg_frames = frames;
    qsort(cpu, n, sizeof *cpu, pg_far_first);
    uint64_t t0 = oak_time_ns();
    CHECK_OK(pg_sort(eye, fwd, rec, frames, n, gpu));
    uint64_t t1 = oak_time_ns();
    uint32_t off = 0;
    for (uint32_t i = 0; i < n; i++) off += gpu[i] != cpu[i];
    fprintf(stderr, "  %u records sorted%s far to near on the device in %.1f ms: %u places off\n",
            n, frames ? " by frame and" : "", (t1 - t0) / 1e6, off);
    CHECK_EQ_INT(off, 0);
    free(depth), free(cpu), free(gpu);
}

TEST(bitonicSortIsTheCpusOrder) {
    oak_particles *p = NULL;
    oak_scene *scene = pg_busy_scene(&p);
    if (!p) return;
    for (int i = 0; i <= 90; i++) CHECK_OK(oak_world_update_particles(scene, i / 60.0f));
    oak_gpu_particle_emitter c;
    const oak_gpu_particle *parts = NULL;
    const oak_instance *world = NULL;
    uint32_t n = 0;
    uint64_t version = 0;
    CHECK_OK(_oak_particles_kernel_input(p, 0, &c, &parts, &world, &n, &version));
    /* the records with every 7th a copy of the one before: equal depths,
       which only the index orders */
    oak_instance *rec = malloc(sizeof *rec * n);
    memcpy(rec, world, sizeof *rec * n);
    for (uint32_t i = 7; i < n; i += 7) rec[i] = rec[i - 1];
    const float eye[3] = {4, 2, 6};
    float fwd[3] = {-4, -1, -6}, l = sqrtf(16 + 1 + 36);
    for (int k = 0; k < 3; k++) fwd[k] /= l;
    pg_check_sort(rec, NULL, n, eye, fwd);
    pg_check_sort(rec, NULL, 1, eye, fwd);
    pg_check_sort(rec, NULL, 3, eye, fwd);
    /* grouped by the frames of a 6-frame flipbook (the particle kernel's) */
    uint8_t *frames = malloc(n);
    oak_instance one;
    c.shape[1] = 6;
    for (uint32_t i = 0; frames && i < n; i++)
        frames[i] = (uint8_t)_oak_particle_record(&c, &parts[i], parts[i].spin_age[2], &one);
    if (frames) pg_check_sort(rec, frames, n, eye, fwd);
    free(frames);
    free(rec);
    oak_destroy_scene(scene);
    /* 16,384 scattered through a 20 m box (131,072 took 5 to 8 s on the
       software devices: 153 dispatches; OAK_PARTICLES_N sets the count) */
    const char *env = getenv("OAK_PARTICLES_N");
    uint32_t big = env ? (uint32_t)strtoul(env, NULL, 10) : 16384;
    if (big < 1 || big > 16u << 20) big = 16384;
    oak_instance *many = calloc(big, sizeof *many);
    for (uint32_t i = 0; many && i < big; i++)
        for (int k = 0; k < 3; k++) many[i].position[k] = 20 * oak_test_hash01(i, 11 + k) - 10;
    if (many) pg_check_sort(many, NULL, big, eye, fwd);
    free(many);
}

/* A burst of 500 that all live 2 s: between its birth and its death the
   block is written once (its version holds) and the kernel, given only the
   time since (time.x), draws each frame's records as the CPU does. */
TEST(blockWrittenOnlyOnBirthsAndDeaths) {
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    if (!scene) return;
    oak_entity cam = oak_scene_create(scene, "camera");
    oak_transform t = oak_transform_look_at((float[3]){3, 1.5f, 5}, (float[3]){0, 1, 0});
    oak_scene_set_transform(scene, cam, &t);
    oak_scene_set_camera(scene, cam, &(oak_camera){0});
    oak_scene_set_active_camera(scene, cam);
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(scene, &p));
    oak_emitter_desc d = {.seed = 5,
                          .cone_degrees = 40,
                          .speed = {1, 3},
                          .life = {2, 2},
                          .spin = {-2, 2},
                          .gravity = {0, -3, 0},
                          .drag = 0.3f,
                          .color_key_count = 2};
    d.bursts[0] = (oak_particle_burst){.at = 0.1f, .count = 500};
    d.color_keys[0] = (oak_particle_key){0, {1, 1, 1, 1}};
    d.color_keys[1] = (oak_particle_key){1, {1, 0.2f, 0, 0}};
    if (p) CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    oak_gpu_particle_emitter c;
    const oak_gpu_particle *parts = NULL;
    const oak_instance *world = NULL;
    uint32_t n = 0, counts[OAK_PARTICLE_FRAMES];
    uint64_t v0 = 0, v = 0;
    oak_instance *gpu = malloc(sizeof *gpu * 500);
    for (int f = 30; p && gpu && f <= 150; f += 30) { /* 0.5 .. 2.5 s */
        CHECK_OK(oak_world_update_particles(scene, f / 60.0f));
        CHECK_OK(_oak_particles_kernel_input(p, 0, &c, &parts, &world, &n, &v));
        if (f == 30) v0 = v;
        if (f < 126) { /* born at 0.1 s, dead at 2.1 */
            CHECK_EQ_INT(n, 500);
            CHECK(v == v0);
            CHECK(fabsf(c.time[0] - (f - 30) / 60.0f) < 1e-6f);
            CHECK_OK(pg_run(&c, parts, n, gpu, counts));
            pg_worst w;
            pg_compare(&w, gpu, world, n);
            char what[64];
            snprintf(what, sizeof what, "block of 0.5 s at %.2f s", f / 60.0);
            pg_check(&w, what);
        } else { /* all dead: a new (empty) block */
            CHECK_EQ_INT(n, 0);
            CHECK(v != v0);
        }
    }
    free(gpu);
    oak_destroy_scene(scene);
}

/* In a frame (the particles pass): the stream of the busy emitter (opaque,
   so drawn natively from the instance buffer) at 1.5 s, drawn by a
   PG_BACKEND renderer. The host evaluated none of its records (the stream's
   host copy is still stale after the draw); the records the device wrote
   where instcull reads them are the C evaluation's (oak_stream_records,
   filled on that read) within the tolerance, last frame's copies after
   them the C evaluation 1/60 s younger; and a rewind to 1 s and back to
   1.5 s draws the same bytes. */
TEST(frameWritesTheDevicesRecords) {
    oak_particles *p = NULL;
    oak_scene *scene = pg_busy_scene(&p);
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = PG_BACKEND, .width = 64, .height = 36};
    CHECK_OK(oak_make_renderer(&r, &rd));
    oak_stream *st = p ? oak_particles_stream(p, 0) : NULL;
    if (!scene || !r || !st) {
        oak_destroy_renderer(r);
        oak_destroy_scene(scene);
        return;
    }
    oak_scene_set_camera(scene, oak_scene_active_camera(scene),
                         &(oak_camera){.fov_y = 0.8f, .znear = 0.1f, .zfar = 100});
    CHECK_OK(oak_world_update_particles(scene, 1.5f));
    CHECK_OK(oak_scene_draw(scene, r));
    uint32_t n = oak_stream_count(st);
    CHECK(n > 2000);
    CHECK(st->host_stale); /* no host evaluation for the frame */
    oak_instance *gpu = malloc(sizeof *gpu * n * 2);
    if (gpu) {
        CHECK_OK(pg_frame_records(r->self, 0, n, gpu));
        pg_worst w;
        pg_compare(&w, gpu, oak_stream_records(st), n);
        pg_check(&w, "the frame's device records at 1.5 s");
        CHECK(!st->host_stale); /* the read filled them */
        /* last frame's copies after the records (one stream: from n): the
           C evaluation a frame (the view's dt, 1/60 s) younger */
        oak_gpu_particle_emitter c;
        const oak_gpu_particle *parts = NULL;
        const oak_instance *host = NULL;
        uint32_t m = 0, counts[OAK_PARTICLE_FRAMES];
        uint64_t version = 0;
        CHECK_OK(_oak_particles_kernel_input(p, 0, &c, &parts, &host, &m, &version));
        CHECK_EQ_INT(m, n);
        c.time[0] -= 1.0f / 60.0f;
        pg_cpu(&c, parts, n, gpu + n, counts);
        oak_instance *prev = malloc(sizeof *prev * n);
        if (prev) {
            CHECK_OK(pg_frame_records(r->self, n, n, prev));
            pg_compare(&w, prev, gpu + n, n);
            pg_check(&w, "last frame's copies (1/60 s younger)");
        }
        free(prev);
        CHECK_OK(oak_world_update_particles(scene, 1.0f));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_OK(oak_world_update_particles(scene, 1.5f));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_EQ_INT(oak_stream_count(st), n);
        CHECK_OK(pg_frame_records(r->self, 0, n, gpu + n));
        CHECK(memcmp(gpu, gpu + n, sizeof *gpu * n) == 0);
    }
    free(gpu);
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
}

/* 100,000 particles of one emitter drawn on the device path: records
   within the tolerance of the C evaluation, none evaluated on the host
   for the frame, the spray covers part of the picture, and 8 frames
   without a birth or a death upload no block past each slot's first. */
TEST(aHundredThousandDrawnOnTheDevice) {
    enum { N = 100000, PW = 64, PH = 36 };
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    if (!scene) return;
    oak_entity cam = oak_scene_create(scene, "camera");
    oak_transform t = oak_transform_look_at((float[3]){0, 1, 6}, (float[3]){0, 1, 0});
    oak_scene_set_transform(scene, cam, &t);
    oak_scene_set_camera(scene, cam, &(oak_camera){.fov_y = 0.8f, .znear = 0.1f, .zfar = 100});
    oak_scene_set_active_camera(scene, cam);
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(scene, &p));
    oak_emitter_desc d = {.capacity = N,
                          .seed = 3,
                          .cone_degrees = 30,
                          .speed = {1, 4},
                          .life = {3, 4},
                          .size = {0.01f, 0.03f},
                          .spin = {-1, 1},
                          .gravity = {0, -2, 0},
                          .drag = 0.5f,
                          .lift = 0.5f,
                          .color_key_count = 2};
    d.bursts[0] = (oak_particle_burst){.count = N};
    d.color_keys[0] = (oak_particle_key){0, {1, 0.9f, 0.5f, 1}};
    d.color_keys[1] = (oak_particle_key){1, {0.5f, 0.2f, 0.1f, 1}};
    if (p) CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = PG_BACKEND, .width = PW, .height = PH};
    CHECK_OK(oak_make_renderer(&r, &rd));
    oak_stream *st = p ? oak_particles_stream(p, 0) : NULL;
    oak_instance *gpu = malloc(sizeof *gpu * N);
    uint8_t *px = malloc((size_t)PW * PH * 4 * 2);
    if (r && st && gpu && px) {
        /* the picture with none yet (the burst is born in the first step) */
        CHECK_OK(oak_world_update_particles(scene, 0));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_OK(oak_renderer_read_pixels(r, px + PW * PH * 4, (size_t)PW * PH * 4));
        CHECK_OK(oak_world_update_particles(scene, 0.75f));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_EQ_INT(oak_stream_count(st), N);
        CHECK(st->host_stale);
        CHECK_OK(pg_frame_records(r->self, 0, N, gpu));
        pg_worst w;
        pg_compare(&w, gpu, oak_stream_records(st), N);
        pg_check(&w, "100,000 in a frame at 0.75 s");
        CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)PW * PH * 4));
        uint32_t lit = 0; /* pixels that changed from the empty picture */
        for (uint32_t i = 0; i < PW * PH; i++)
            for (int c = 0; c < 3; c++)
                if (abs(px[4 * i + c] - px[PW * PH * 4 + 4 * i + c]) > 8) {
                    lit++;
                    break;
                }
        fprintf(stderr, "  100,000 particles cover %u of %u pixels\n", lit, PW * PH);
        CHECK(lit > PW * PH / 50 && lit < PW * PH / 2);
        /* no birth nor death from 0.75 to 1.55 s: the block goes up once
           more at most (vulkan's other frame slot), not once a frame */
        uint64_t before = pg_uploads(r->self);
        for (int f = 1; f <= 8; f++) {
            CHECK_OK(oak_world_update_particles(scene, 0.75f + (float)f / 10.0f));
            CHECK_OK(oak_scene_draw(scene, r));
        }
        uint64_t after = pg_uploads(r->self);
        fprintf(stderr, "  blocks uploaded: %llu by the first frame, %llu after 8 more\n",
                (unsigned long long)before, (unsigned long long)after);
        CHECK(before >= 1 && after >= before && after - before <= 1);
        CHECK_EQ_INT(oak_stream_count(st), N);
    }
    free(gpu);
    free(px);
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
}

/* A flipbook drawn on the device (docs/WORLD.md "Particles", "In the
   frame"): the busy emitter with a 3 x 2 book of an opaque textured
   material, six PARTICLES streams sharing one block, beside the busy
   emitter itself. At 1.5 s no frame's host copy is evaluated for the
   frame; each frame stream's records in the instance buffer (the frames
   one after another after the busy one's) are the CPU's grouping (its frame's particles in particle
   order) within the kernel's tolerance, which a scatter out of order or
   into the wrong frame fails by metres; last frame's copies after them
   the same particles 1/60 s younger; a rewind and back the same bytes. */
TEST(flipbookScatteredOnTheDevice) {
    enum { FRAMES = 6 };
    static const uint8_t texel[4 * 4] = {255, 255, 255, 255, 200, 200, 200, 255,
                                         150, 150, 150, 255, 100, 100, 100, 255};
    oak_texture tex = {0};
    oak_texture_desc td = {
        .width = 2, .height = 2, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = texel};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true, md.double_sided = true;
    md.base_color_tex.texture = tex;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    oak_particles *p = NULL;
    oak_scene *scene = pg_busy_scene(&p);
    /* the busy emitter again (another seed) as a flipbook, after the
       first, whose stream comes first in the instance buffer */
    oak_emitter_desc d = {.capacity = 4096,
                          .seed = 78,
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
                          .lift = 0.3f,
                          .material = m,
                          .flipbook = {3, 2}};
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = PG_BACKEND, .width = 64, .height = 36};
    CHECK_OK(oak_make_renderer(&r, &rd));
    uint32_t fi = 0;
    if (p) CHECK_OK(oak_particles_add_emitter(p, &d, &fi));
    oak_instance *gpu = malloc(sizeof *gpu * 4096 * 4), *cpu = gpu ? gpu + 4096 * 2 : NULL;
    if (scene && r && p && gpu && fi == 1) {
        oak_scene_set_camera(scene, oak_scene_active_camera(scene),
                             &(oak_camera){.fov_y = 0.8f, .znear = 0.1f, .zfar = 100});
        CHECK_OK(oak_world_update_particles(scene, 1.5f));
        CHECK_OK(oak_scene_draw(scene, r));
        /* the busy emitter's own stream first, then the book's frames */
        uint32_t busy = oak_stream_count(oak_particles_stream(p, 0)), n = 0, used = 0;
        uint32_t count[FRAMES], first[FRAMES];
        for (uint32_t k = 0; k < FRAMES; k++) {
            oak_stream *st = oak_particles_frame_stream(p, fi, k);
            CHECK(st && st->host_stale); /* no host evaluation for the frame */
            first[k] = busy + n;
            count[k] = oak_stream_count(st);
            n += count[k];
            used += count[k] > 0;
        }
        oak_particle_stats ps;
        CHECK_OK(oak_particles_get_stats(p, fi, &ps));
        fprintf(stderr, "  the flipbook's %u at 1.5 s in %u frames:", n, used);
        for (uint32_t k = 0; k < FRAMES; k++) fprintf(stderr, " %u", count[k]);
        fprintf(stderr, "\n");
        CHECK_EQ_INT(n, ps.alive);
        CHECK(n > 1500 && used >= 5);
        CHECK_OK(pg_frame_records(r->self, 0, busy + n, gpu));
        uint64_t total = busy + n;
        for (uint32_t k = 0; k < FRAMES; k++) {
            pg_worst w;
            char what[80];
            pg_compare(&w, gpu + first[k], oak_stream_records(oak_particles_frame_stream(p, fi, k)),
                       count[k]);
            snprintf(what, sizeof what, "frame %u's %u device records", k, count[k]);
            pg_check(&w, what);
        }
        /* last frame's copies: the C evaluation 1/60 s younger, grouped by
           this frame's frames */
        oak_gpu_particle_emitter c;
        const oak_gpu_particle *parts = NULL;
        const oak_instance *host = NULL;
        uint32_t m2 = 0, counts[OAK_PARTICLE_FRAMES], at[FRAMES];
        uint64_t version = 0;
        CHECK_OK(_oak_particles_kernel_input(p, fi, &c, &parts, &host, &m2, &version));
        CHECK_EQ_INT(m2, n);
        float now = c.time[0];
        c.time[0] -= 1.0f / 60.0f;
        pg_cpu(&c, parts, n, cpu, counts);
        oak_instance *want = cpu + 4096;
        memcpy(at, first, sizeof at);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t fr =
                _oak_particle_frame(FRAMES, parts[i].spin_age[2] + now, parts[i].p0_life[3]);
            want[at[fr]++ - busy] = cpu[i];
        }
        oak_instance *prev = malloc(sizeof *prev * n);
        if (prev) {
            CHECK_OK(pg_frame_records(r->self, total + busy, n, prev));
            pg_worst w;
            pg_compare(&w, prev, want, n);
            pg_check(&w, "the flipbook's last-frame copies (1/60 s younger)");
        }
        free(prev);
        CHECK_OK(oak_world_update_particles(scene, 1.0f));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_OK(oak_world_update_particles(scene, 1.5f));
        CHECK_OK(oak_scene_draw(scene, r));
        CHECK_OK(pg_frame_records(r->self, 0, busy + n, gpu + total));
        CHECK(memcmp(gpu + busy, gpu + total + busy, sizeof *gpu * n) == 0);
    }
    free(gpu);
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
    oak_destroy_material(m);
    oak_destroy_texture(tex);
}

/* An "over" flipbook drawn on the device (docs/WORLD.md "Particles", *An
   "over" flipbook on the device*): each frame stream counts every
   particle of the book (the slots it holds), and the draw kernel writes
   each frame's own count into its BLEND command's instance count. The
   busy emitter's flight as a 2 x 2 "over" book at 1.2 s and 1.5 s: each
   frame's drawn count is the CPU's (its frame stream's host records of
   scale above 0: fill_host finds each particle's frame at the kernel's
   age), every frame's below the book's and the frames' sum the alive
   count. */
TEST(overBookDrawsEachFramesOwnCount) {
    enum { FRAMES = 4 };
    static const uint8_t texel[4 * 4] = {255, 255, 255, 200, 200, 200, 200, 200,
                                         150, 150, 150, 200, 100, 100, 100, 200};
    oak_texture tex = {0};
    oak_texture_desc td = {
        .width = 2, .height = 2, .format = OAK_FORMAT_RGBA8_SRGB, .pixels = texel};
    CHECK_OK(oak_make_texture(&tex, &td));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.unlit = true, md.double_sided = true;
    md.alpha_mode = OAK_ALPHA_BLEND;
    md.base_color_tex.texture = tex;
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, &md));
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_particles *p = NULL;
    if (scene) {
        oak_entity cam = oak_scene_create(scene, "camera");
        oak_transform t = oak_transform_look_at((float[3]){4, 2, 6}, (float[3]){0, 1, 0});
        oak_scene_set_transform(scene, cam, &t);
        oak_scene_set_camera(scene, cam, &(oak_camera){.fov_y = 0.8f, .znear = 0.1f, .zfar = 100});
        oak_scene_set_active_camera(scene, cam);
        CHECK_OK(oak_world_particles(scene, &p));
    }
    oak_emitter_desc d = {.capacity = 2048,
                          .seed = 79,
                          .position = {0, 0.5f, 0},
                          .direction = {0.2f, 1, 0},
                          .cone_degrees = 35,
                          .rate = 800,
                          .speed = {2, 5},
                          .life = {0.8f, 1.6f},
                          .size = {0.05f, 0.2f},
                          .gravity = {0, -9.81f, 0},
                          .drag = 0.4f,
                          .material = m,
                          .flipbook = {2, 2}};
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.backend = PG_BACKEND, .width = 64, .height = 36};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (p) CHECK_OK(oak_particles_add_emitter(p, &d, NULL));
    const float when[2] = {1.2f, 1.5f};
    for (int w = 0; w < 2 && scene && r && p; w++) {
        CHECK_OK(oak_world_update_particles(scene, when[w]));
        CHECK_OK(oak_scene_draw(scene, r));
        uint32_t drawn[OAK_PARTICLE_FRAMES], cpu[FRAMES] = {0}, sum = 0, used = 0;
        CHECK_OK(pg_book_counts(r->self, drawn));
        oak_particle_stats ps;
        CHECK_OK(oak_particles_get_stats(p, 0, &ps));
        for (uint32_t k = 0; k < FRAMES; k++) {
            oak_stream *st = oak_particles_frame_stream(p, 0, k);
            CHECK(st && st->host_stale);                  /* drawn from the device's records */
            CHECK_EQ_INT(oak_stream_count(st), ps.alive); /* the book's slots */
        }
        /* the CPU's (one read fills every frame: its own, then no scale) */
        for (uint32_t k = 0; k < FRAMES; k++) {
            const oak_instance *host = oak_stream_records(oak_particles_frame_stream(p, 0, k));
            for (uint32_t i = 0; host && i < ps.alive; i++) cpu[k] += host[i].scale > 0;
        }
        fprintf(stderr, "  the \"over\" book's %u at %.1f s: drawn per frame", ps.alive,
                (double)when[w]);
        for (uint32_t k = 0; k < FRAMES; k++) fprintf(stderr, " %u (CPU %u)", drawn[k], cpu[k]);
        fprintf(stderr, "\n");
        for (uint32_t k = 0; k < FRAMES; k++) {
            CHECK_EQ_INT(drawn[k], cpu[k]);
            CHECK(drawn[k] < ps.alive);
            sum += drawn[k];
            used += drawn[k] > 0;
        }
        CHECK_EQ_INT(sum, ps.alive);
        CHECK(ps.alive > 500 && used == FRAMES);
    }
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
    oak_destroy_material(m);
    oak_destroy_texture(tex);
}

#endif
