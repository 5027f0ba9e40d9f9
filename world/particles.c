/* Particles (docs/WORLD.md "Particles"): emitters stepped on a fixed clock,
 * every random draw a hash of (seed, birth number) and every record the
 * closed form of dv/dt = g - k v from the particle's birth (one function,
 * render/particle_eval.c, the particle kernel's twin), on the job pool in
 * fixed chunks, so a run repeats to the bit at any thread count; each
 * emitter drawn as one instance stream of camera-facing quads. */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "render/particle_eval.h"
#include "render/stream.h"
#include "world/internal.h"

#define TAU 6.2831853071795864
/* seconds within which a birth or a death on a step boundary counts as on
   it (the clock is steps * OAK_PARTICLE_STEP in doubles, not exact) */
#define EDGE 1e-9

typedef struct emitter {
    oak_emitter_desc d;
    float axis[3];
    uint32_t frames; /* the flipbook's (1: none); a stream and material per frame */
    oak_stream *stream[OAK_PARTICLE_FRAMES];
    oak_material own_material;                        /* made here when the desc had none */
    oak_material frame_material[OAK_PARTICLE_FRAMES]; /* the flipbook's, made here */
    /* each particle's birth state (the kernel's layout) and its birth,
       seconds of the clock: all its record needs besides the constants */
    oak_gpu_particle *parts;
    double *birth;
    oak_gpu_particle_emitter c; /* the constants the last records were written with */
    /* the kernel's block (docs/WORLD.md "Particles"): parts with their ages
       at block_time in spin_age.z, rewritten and its version moved only
       when a birth or a death changed the alive set (seen_*: the set the
       block holds), so a device copy is uploaded only then */
    uint64_t block_version, seen_born;
    uint32_t seen_alive;
    double block_time;
    oak_instance *records, *by_frame; /* by_frame: the records grouped by frame */
    /* an "over" (BLEND, not additive) emitter's records far to near: the
       view depth of each and the order (two halves: the merge's) */
    bool sort;
    float fwd[3]; /* the direction they were sorted along (the eye is c's) */
    /* PARTICLES streams (oak_stream_source), one per frame, whose records
       the device writes where the backend draws them natively (a
       flipbook's scattered to each frame's place); the host evaluates them
       only when read (fill_host). A flipbook's frame of each particle
       (frame[]) is counted on the host each update with the kernel's own
       float age, so each frame stream's count is the device's; an "over"
       one's (sort) is not: each of its frame streams counts every alive
       particle, the device sorts and groups them by frame, and the host
       sorts and groups its own only when it fills them (since: the
       kernel's time.x at the update, for the frames there) */
    float since;
    oak_instance *sorted;
    float *depth;
    uint32_t *order;
    uint8_t *dead, *frame;
    uint32_t alive;
    /* the earliest birth + life of the alive (seconds of the clock): a
       step ending well before it marks no death, so it scans nobody */
    double next_death;
    uint32_t pending; /* oak_particles_burst's, born at the next step's start */
    uint64_t born, dropped;
    uint64_t rate_born;                        /* rate births so far (the j of t = j / rate) */
    uint64_t bursts_done[OAK_PARTICLE_BURSTS]; /* repeats of each burst fired */
} emitter;

struct oak_particles {
    oak_scene *scene;
    oak_mesh quad;
    emitter *em;
    uint32_t count, cap;
    uint64_t steps; /* the clock: steps * OAK_PARTICLE_STEP seconds */
    /* the scene's own set (oak_world_particles): its emitters and clock are
       kept in the scene's list (scene.h), which scene files save; adding
       from that list (oak_world_apply_particles) does not add to it again */
    bool kept, applying;
};

/* ---- descs ---------------------------------------------------------------- */

static bool finite_n(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* ---- the set -------------------------------------------------------------- */

static void free_emitter(oak_particles *s, emitter *e) {
    for (uint32_t k = 0; k < OAK_PARTICLE_FRAMES; k++) {
        if (e->stream[k]) oak_scene_remove_stream(s->scene, e->stream[k]);
        if (e->frame_material[k].id) oak_destroy_material(e->frame_material[k]);
    }
    if (e->own_material.id) oak_destroy_material(e->own_material);
    oak_free(e->parts);
    oak_free(e->birth);
    oak_free(e->records);
    oak_free(e->by_frame);
    oak_free(e->sorted);
    oak_free(e->depth);
    oak_free(e->order);
    oak_free(e->dead);
    oak_free(e->frame);
}

/* Frame k's material: the emitter's with its base colour and emissive
   textures narrowed to cell k of columns x rows (KHR_texture_transform:
   uv' = offset + scale uv), row by row from the top left. */
static oak_result make_frame_material(oak_material *out, const oak_material_desc *base,
                                      const uint32_t cells[2], uint32_t k) {
    oak_material_desc md = *base;
    float sc[2] = {1.0f / (float)cells[0], 1.0f / (float)cells[1]};
    float off[2] = {(float)(k % cells[0]) * sc[0], (float)(k / cells[0]) * sc[1]};
    oak_texture_ref *refs[2] = {&md.base_color_tex, &md.emissive_tex};
    for (int t = 0; t < 2; t++) {
        if (!refs[t]->texture.id) continue;
        memcpy(refs[t]->offset, off, sizeof off);
        memcpy(refs[t]->scale, sc, sizeof sc);
        refs[t]->rotation = 0;
    }
    return oak_make_material(out, &md);
}

void oak_destroy_particles(oak_particles *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->count; i++) free_emitter(s, &s->em[i]);
    oak_free(s->em);
    if (s->quad.id) oak_destroy_mesh(s->quad);
    oak_free(s);
}

oak_result oak_make_particles(oak_particles **out, oak_scene *scene) {
    if (!out || !scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_particles: NULL");
    *out = NULL;
    oak_particles *s = oak_calloc(1, sizeof *s);
    if (!s) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "particles: no memory");
    s->scene = scene;
    /* a unit quad in x-z facing +y: each record turns +y to the eye */
    oak_shape_desc sd = {.type = OAK_SHAPE_PLANE, .size = {1, 0, 1}, .segments = 1};
    oak_result r = oak_make_shape(&s->quad, &sd);
    if (r) {
        oak_destroy_particles(s);
        return r;
    }
    *out = s;
    return OAK_OK;
}

static void attached_destroy(void *p) {
    oak_destroy_particles(p);
}

oak_result oak_world_particles(oak_scene *scene, oak_particles **out) {
    if (!scene || !out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_particles: NULL");
    *out = oak_scene_attachment(scene, attached_destroy);
    if (*out) return OAK_OK;
    oak_particles *s;
    oak_result r = oak_make_particles(&s, scene);
    if (r) return r;
    if ((r = oak_scene_attach(scene, s, attached_destroy))) {
        oak_destroy_particles(s);
        return r;
    }
    s->kept = true;
    *out = s;
    return OAK_OK;
}

oak_result oak_particles_add_emitter(oak_particles *s, const oak_emitter_desc *desc,
                                     uint32_t *index) {
    if (!s) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_add_emitter: NULL");
    oak_emitter_desc d = oak_emitter_desc_defaults(desc);
    const char *bad = oak_emitter_desc_problem(&d);
    if (bad) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_add_emitter: %s", bad);
    oak_result r = OAK_OK;
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 4;
        emitter *grown = oak_realloc(s->em, sizeof *grown * cap);
        if (!grown) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "particles: no memory");
        s->em = grown, s->cap = cap;
    }
    emitter *e = &s->em[s->count];
    memset(e, 0, sizeof *e);
    e->d = d;
    float len = sqrtf(d.direction[0] * d.direction[0] + d.direction[1] * d.direction[1] +
                      d.direction[2] * d.direction[2]);
    for (int k = 0; k < 3; k++) e->axis[k] = d.direction[k] / len;
    e->parts = oak_alloc(sizeof *e->parts * d.capacity);
    e->birth = oak_alloc(sizeof *e->birth * d.capacity);
    e->records = oak_alloc(sizeof *e->records * d.capacity);
    e->dead = oak_alloc(d.capacity);
    e->frame = oak_alloc(d.capacity);
    e->frames = d.flipbook[0] ? d.flipbook[0] * d.flipbook[1] : 1;
    if (e->frames > 1) e->by_frame = oak_alloc(sizeof *e->by_frame * d.capacity);
    r = e->parts && e->birth && e->records && e->dead && e->frame && (e->frames == 1 || e->by_frame)
            ? OAK_OK
            : oak_error(OAK_ERROR_OUT_OF_MEMORY, "particles: no memory for %u", d.capacity);
    oak_material mat = d.material;
    if (!r && !mat.id) {
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.unlit = true;
        md.double_sided = true;
        md.name = "particle";
        if (!(r = oak_make_material(&e->own_material, &md))) mat = e->own_material;
    }
    const oak_material_data *m = r ? NULL : oak_material_get(mat);
    if (!r && !m)
        r = oak_error(OAK_ERROR_INVALID_ARGUMENT,
                      "oak_particles_add_emitter: the material is not alive");
    if (!r && e->frames > 1 && !m->desc.base_color_tex.texture.id &&
        !m->desc.emissive_tex.texture.id)
        r = oak_error(OAK_ERROR_INVALID_ARGUMENT,
                      "oak_particles_add_emitter: a flipbook needs a material with a base colour "
                      "or emissive texture (the atlas)");
    for (uint32_t k = 0; !r && k < e->frames; k++) {
        oak_material fm = mat;
        if (e->frames > 1) {
            if ((r = make_frame_material(&e->frame_material[k], &m->desc, d.flipbook, k))) break;
            fm = e->frame_material[k];
        }
        oak_stream_desc sd = {.capacity = d.capacity,
                              .lod_count = 1,
                              .material = fm,
                              .flags = OAK_DRAW_NO_SHADOW,
                              .phase_opacity = m->desc.alpha_mode == OAK_ALPHA_BLEND,
                              .source = OAK_STREAM_SOURCE_PARTICLES};
        sd.lods[0] = (oak_stream_lod){s->quad, 0};
        oak_stream *st = NULL;
        if (!(r = oak_make_stream(&st, &sd))) {
            r = oak_scene_add_stream(s->scene, st); /* the scene destroys it on failure */
            if (!r) e->stream[k] = st;
        }
    }
    if (r) {
        free_emitter(s, e);
        return r;
    }
    e->sort = m->desc.alpha_mode == OAK_ALPHA_BLEND && !m->desc.additive;
    /* an "over" book's frame places each hold every particle, and the
       device sorts them all at once: at most OAK_PARTICLE_MAX entries */
    if (e->sort && (uint64_t)d.capacity * e->frames > OAK_PARTICLE_MAX) {
        free_emitter(s, e);
        return oak_error(OAK_ERROR_LIMIT,
                         "oak_particles_add_emitter: an \"over\" flipbook of %u frames holds at "
                         "most %u particles (capacity %u)",
                         e->frames, OAK_PARTICLE_MAX / e->frames, d.capacity);
    }
    if (e->sort) {
        e->sorted = oak_alloc(sizeof *e->sorted * d.capacity);
        e->depth = oak_alloc(sizeof *e->depth * d.capacity);
        e->order = oak_alloc(sizeof *e->order * 2 * d.capacity);
        if (!e->sorted || !e->depth || !e->order) {
            free_emitter(s, e);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "particles: no memory for %u", d.capacity);
        }
    }
    if (s->kept && !s->applying && (r = oak_scene_add_emitter(s->scene, &d))) {
        free_emitter(s, e);
        return r;
    }
    if (index) *index = s->count;
    s->count++;
    return OAK_OK;
}

static emitter *emitter_of(const oak_particles *s, uint32_t i, const char *who) {
    if (s && i < s->count) return &s->em[i];
    oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: no emitter %u", who, i);
    return NULL;
}

oak_result oak_particles_set_position(oak_particles *s, uint32_t i, const float position[3]) {
    emitter *e = emitter_of(s, i, "oak_particles_set_position");
    if (!e) return OAK_ERROR_INVALID_ARGUMENT;
    if (!position || !finite_n(position, 3))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_set_position: not finite");
    memcpy(e->d.position, position, sizeof e->d.position);
    oak_emitter_desc *kept = s->kept ? oak_scene_emitter(s->scene, i) : NULL;
    if (kept) memcpy(kept->position, position, sizeof kept->position);
    return OAK_OK;
}

oak_result oak_particles_burst(oak_particles *s, uint32_t i, uint32_t count) {
    emitter *e = emitter_of(s, i, "oak_particles_burst");
    if (!e) return OAK_ERROR_INVALID_ARGUMENT;
    e->pending = count > OAK_PARTICLE_MAX - e->pending ? OAK_PARTICLE_MAX : e->pending + count;
    return OAK_OK;
}

oak_stream *oak_particles_stream(const oak_particles *s, uint32_t i) {
    return oak_particles_frame_stream(s, i, 0);
}

oak_stream *oak_particles_frame_stream(const oak_particles *s, uint32_t i, uint32_t frame) {
    return s && i < s->count && frame < s->em[i].frames ? s->em[i].stream[frame] : NULL;
}

oak_result oak_particles_get_stats(const oak_particles *s, uint32_t i, oak_particle_stats *out) {
    const emitter *e = emitter_of(s, i, "oak_particles_get_stats");
    if (!e || !out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_get_stats: NULL");
    *out = (oak_particle_stats){.alive = e->alive,
                                .born = e->born,
                                .dropped = e->dropped,
                                .time = (double)s->steps * OAK_PARTICLE_STEP};
    return OAK_OK;
}

/* ---- the step ------------------------------------------------------------- */

/* [0, 1) draw k of birth number n */
static float draw(const emitter *e, uint64_t n, uint32_t k) {
    uint32_t key = _oak_world_hash_u32((uint32_t)n ^ _oak_world_hash_u32(e->d.seed + 0x9A27u)) ^
                   _oak_world_hash_u32((uint32_t)(n >> 32) + 0x51u);
    return _oak_world_hash01(key, k);
}

static float lerpf(float a, float b, float t) {
    return a + (b - a) * t;
}

/* Births one particle (birth number e->born) at time t; dropped past the capacity. */
static void spawn(emitter *e, double t) {
    uint64_t n = e->born++;
    if (e->alive >= e->d.capacity) {
        e->dropped++;
        return;
    }
    uint32_t slot = e->alive++;
    oak_gpu_particle *q = &e->parts[slot];
    /* a direction uniform over the cone's cap about the axis */
    float cosa = cosf((float)(e->d.cone_degrees * (TAU / 360.0)));
    float ct = 1 - draw(e, n, 0) * (1 - cosa), st = sqrtf(fmaxf(0, 1 - ct * ct));
    float ph = (float)TAU * draw(e, n, 1);
    const float *a = e->axis;
    float b1[3], b2[3]; /* a basis across the axis */
    if (fabsf(a[1]) < 0.9f)
        b1[0] = a[2], b1[1] = 0, b1[2] = -a[0];
    else
        b1[0] = 0, b1[1] = -a[2], b1[2] = a[1];
    float l = sqrtf(b1[0] * b1[0] + b1[1] * b1[1] + b1[2] * b1[2]);
    for (int c = 0; c < 3; c++) b1[c] /= l;
    b2[0] = a[1] * b1[2] - a[2] * b1[1];
    b2[1] = a[2] * b1[0] - a[0] * b1[2];
    b2[2] = a[0] * b1[1] - a[1] * b1[0];
    float speed = lerpf(e->d.speed[0], e->d.speed[1], draw(e, n, 2));
    for (int c = 0; c < 3; c++) {
        float dir = a[c] * ct + (b1[c] * cosf(ph) + b2[c] * sinf(ph)) * st;
        q->p0_life[c] = e->d.position[c];
        q->v0_size[c] = dir * speed;
    }
    q->p0_life[3] = lerpf(e->d.life[0], e->d.life[1], draw(e, n, 3));
    q->v0_size[3] = lerpf(e->d.size[0], e->d.size[1], draw(e, n, 4));
    q->spin_age[1] = lerpf(e->d.spin[0], e->d.spin[1], draw(e, n, 5));
    q->spin_age[0] = e->d.spin[0] != 0 || e->d.spin[1] != 0 ? (float)TAU * draw(e, n, 6) : 0;
    q->spin_age[2] = q->spin_age[3] = 0;
    e->birth[slot] = t;
    if (t + q->p0_life[3] < e->next_death) e->next_death = t + q->p0_life[3];
}

/* The births of the step [t0, t1): pending ones at t0, the rate's at j / rate,
   the bursts' at at + i every; each new particle keeps its own birth time. */
static void births(emitter *e, uint64_t step) {
    const double h = OAK_PARTICLE_STEP, t0 = (double)step * h, t1 = (double)(step + 1) * h - EDGE;
    for (; e->pending; e->pending--) spawn(e, t0);
    for (int b = 0; b < OAK_PARTICLE_BURSTS; b++) {
        const oak_particle_burst *bu = &e->d.bursts[b];
        if (!bu->count) continue;
        for (;;) {
            if (bu->every <= 0 && e->bursts_done[b]) break;
            double at = bu->at + (double)e->bursts_done[b] * (bu->every > 0 ? bu->every : 0);
            if (at >= t1) break;
            for (uint32_t i = 0; i < bu->count; i++) spawn(e, fmax(at, t0));
            e->bursts_done[b]++;
        }
    }
    if (e->d.rate > 0)
        for (;;) {
            double at = (double)e->rate_born / e->d.rate;
            if (at >= t1) break;
            spawn(e, fmax(at, t0));
            e->rate_born++;
        }
}

typedef struct step_job {
    emitter *e;
    double t1;  /* the step's end */
    bool write; /* the records are wanted (the update's last step) */
    bool have_eye;
    float eye[3], fwd[3];       /* fwd: the eye's view direction (its -z) */
    oak_gpu_particle_emitter c; /* e's constants (the kernel's block) */
} step_job;

/* Each particle of [begin, end): marked dead at the end of its life (its
   record is written when read: fill_host). Touches only particle i. */
static void step_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const step_job *j = user;
    emitter *e = j->e;
    for (uint32_t i = begin; i < end; i++) {
        double age = j->t1 - e->birth[i];
        e->dead[i] = age >= e->parts[i].p0_life[3] - EDGE;
    }
}

/* e's constants for the record function and the kernel (time.x 0: the
   ages are given). */
static void constants(oak_gpu_particle_emitter *c, const emitter *e, const step_job *j) {
    const oak_emitter_desc *d = &e->d;
    memset(c, 0, sizeof *c);
    memcpy(c->gravity_drag, d->gravity, sizeof d->gravity);
    c->gravity_drag[3] = d->drag;
    if (j->have_eye) memcpy(c->eye, j->eye, sizeof j->eye), c->eye[3] = 1;
    c->shape[0] = d->lift, c->shape[1] = (float)e->frames;
    c->shape[2] = (float)d->color_key_count, c->shape[3] = (float)d->size_key_count;
    c->time[1] = (float)e->alive;
    for (uint32_t i = 0; i < d->color_key_count; i++) {
        c->color_at[i / 4][i % 4] = d->color_keys[i].t;
        memcpy(c->color[i], d->color_keys[i].value, sizeof c->color[i]);
    }
    for (uint32_t i = 0; i < d->size_key_count; i++) {
        c->size_at[i / 4][i % 4] = d->size_keys[i].t;
        c->size_value[i / 4][i % 4] = d->size_keys[i].value[0];
    }
}

/* The dead taken out, survivors kept in order (particles and records). */
static void compact(emitter *e) {
    uint32_t w = 0;
    double next = INFINITY;
    for (uint32_t i = 0; i < e->alive; i++) {
        if (e->dead[i]) continue;
        next = fmin(next, e->birth[i] + e->parts[i].p0_life[3]);
        if (w != i) {
            e->parts[w] = e->parts[i], e->records[w] = e->records[i];
            e->birth[w] = e->birth[i];
            e->frame[w] = e->frame[i];
        }
        w++;
    }
    e->alive = w;
    e->next_death = next;
}

/* The records far to near by view depth (the eye at eye looking along
   fwd): a stable bottom-up merge sort of their indices, ties in particle
   order, so the order is the same on any run; into e->sorted. */
static const oak_instance *far_to_near(emitter *e, const float eye[3], const float fwd[3]) {
    uint32_t n = e->alive, *a = e->order, *b = e->order + e->d.capacity;
    for (uint32_t i = 0; i < n; i++) {
        const float *p = e->records[i].position;
        e->depth[i] =
            (p[0] - eye[0]) * fwd[0] + (p[1] - eye[1]) * fwd[1] + (p[2] - eye[2]) * fwd[2];
        a[i] = i;
    }
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) b[o++] = e->depth[a[j]] > e->depth[a[i]] ? a[j++] : a[i++];
            while (i < mid) b[o++] = a[i++];
            while (j < hi) b[o++] = a[j++];
        }
        uint32_t *t = a;
        a = b, b = t;
    }
    if (a != e->order) memcpy(e->order, a, sizeof *a * n); /* the order stays at e->order */
    for (uint32_t i = 0; i < n; i++) e->sorted[i] = e->records[e->order[i]];
    return e->sorted;
}

typedef struct fill_job {
    emitter *e;
    double t; /* the clock */
} fill_job;

static void fill_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const fill_job *j = user;
    emitter *e = j->e;
    /* the frame is the update's (frame_counts), not this age's */
    for (uint32_t i = begin; i < end; i++)
        _oak_particle_record(&e->c, &e->parts[i], (float)(j->t - e->birth[i]), &e->records[i]);
}

static void frame_counts(emitter *e, float since, uint32_t counts[OAK_PARTICLE_FRAMES]);

/* An emitter's host records (render/stream.h's fill hook), the C
   evaluation: each alive particle's record at the clock from the
   constants of the last update, on the job pool (an "over" one's then far
   to near along the update's eye, a stable merge sort); a flipbook's
   grouped by frame (in particle order, or that far-to-near order, within
   one) into every frame's stream at once, each then current: a plain
   book's by the update's frames, an "over" book's by the frames found here
   at the kernel's age (its streams each count every particle: its own
   records, then records of no scale to the count). */

static void fill_host(void *user, oak_stream *st) {
    oak_particles *s = user;
    for (uint32_t i = 0; i < s->count; i++) {
        emitter *e = &s->em[i];
        uint32_t k = 0;
        while (k < e->frames && e->stream[k] != st) k++;
        if (k == e->frames) continue;
        fill_job j = {e, (double)s->steps * OAK_PARTICLE_STEP};
        if (e->alive) oak_parallel_for(e->alive, OAK_PARTICLE_CHUNK, fill_chunk, &j);
        if (e->frames == 1) {
            /* an "over" one far to near as the update's eye saw them */
            const oak_instance *rec = e->records;
            if (e->sort && e->c.eye[3] != 0) rec = far_to_near(e, e->c.eye, e->fwd);
            oak_stream_write(st, 0, rec, e->alive); /* within the capacity */
            return;
        }
        /* an "over" book: each particle's frame at the kernel's age (as
           the device finds it), then far to near as the update's eye saw
           them, grouped stably by frame: the sort kernel's order */
        const oak_instance *rec = e->records;
        if (e->sort) {
            uint32_t unused[OAK_PARTICLE_FRAMES];
            frame_counts(e, e->since, unused);
            if (e->c.eye[3] != 0) rec = far_to_near(e, e->c.eye, e->fwd);
        }
        uint32_t at[OAK_PARTICLE_FRAMES + 1] = {0};
        for (uint32_t q = 0; q < e->alive; q++) at[e->frame[q] + 1]++;
        for (uint32_t f = 0; f < e->frames; f++) at[f + 1] += at[f];
        uint32_t first[OAK_PARTICLE_FRAMES + 1];
        memcpy(first, at, sizeof first);
        for (uint32_t q = 0; q < e->alive; q++) {
            uint32_t src = rec == e->records ? q : e->order[q];
            e->by_frame[at[e->frame[src]]++] = rec[q];
        }
        for (uint32_t f = 0; f < e->frames; f++) {
            uint32_t n = first[f + 1] - first[f];
            if (!e->sort) {
                oak_stream_write(e->stream[f], 0, e->by_frame + first[f], n);
            } else { /* its own first, then records of no scale (not drawn) to the count */
                memcpy(e->sorted, e->by_frame + first[f], sizeof *e->sorted * n);
                memset(e->sorted + n, 0, sizeof *e->sorted * (e->alive - n));
                oak_stream_write(e->stream[f], 0, e->sorted, e->alive);
            }
            e->stream[f]->host_stale = false;
        }
        return;
    }
}

/* A device flipbook's frame of each alive particle at the kernel's age
   (the block's age plus time.x, in floats, as the kernel adds them), so
   the host's count per frame is the kernel's where the device divides as
   IEEE does; into e->frame and counts. */
static void frame_counts(emitter *e, float since, uint32_t counts[OAK_PARTICLE_FRAMES]) {
    memset(counts, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    for (uint32_t i = 0; i < e->alive; i++) {
        const oak_gpu_particle *q = &e->parts[i];
        uint32_t fr = _oak_particle_frame(e->frames, q->spin_age[2] + since, q->p0_life[3]);
        e->frame[i] = (uint8_t)fr;
        counts[fr]++;
    }
}

static void restart(oak_particles *s) {
    s->steps = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        emitter *e = &s->em[i];
        e->alive = e->pending = 0;
        e->next_death = INFINITY;
        e->born = e->dropped = e->rate_born = 0;
        e->seen_born = UINT64_MAX; /* the block is stale whatever the counts */
        memset(e->bursts_done, 0, sizeof e->bursts_done);
    }
}

/* The step's scan (false: skipped, nobody marked; the records are written
   when read, fill_host, or on the device): skipped when no particle's death can fall
   at or before its end (a microsecond of margin over the rounding of the
   sum), so the device path's steps between deaths cost the host nothing
   per particle. The skip depends only on the state, never the threads. */
static bool run_chunks(step_job *j) {
    emitter *e = j->e;
    constants(&j->c, e, j);
    if (j->write) e->c = j->c;
    if (j->t1 + 1e-6 < e->next_death - EDGE) return false;
    if (e->alive) oak_parallel_for(e->alive, OAK_PARTICLE_CHUNK, step_chunk, j);
    return true;
}

oak_result oak_particles_update(oak_particles *s, double seconds) {
    if (!s) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_update: NULL");
    if (!isfinite(seconds) || seconds < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_particles_update: time %g not >= 0",
                         seconds);
    /* a time within 1e-4 of a step under a step boundary counts as on it
       (float frame times i / 60 land a hair either side) */
    uint64_t target = (uint64_t)floor(seconds / OAK_PARTICLE_STEP + 1e-4);
    if (target < s->steps) restart(s);
    if ((double)(target - s->steps) * OAK_PARTICLE_STEP > OAK_PARTICLE_CATCHUP_SECONDS)
        return oak_error(OAK_ERROR_LIMIT,
                         "oak_particles_update: %g s ahead of the clock (at most %g in one call)",
                         (double)(target - s->steps) * OAK_PARTICLE_STEP,
                         (double)OAK_PARTICLE_CATCHUP_SECONDS);
    step_job j = {0};
    oak_entity cam = oak_scene_active_camera(s->scene);
    if (cam.id) {
        mat4 m;
        oak_scene_update_transforms(s->scene);
        oak_scene_world_matrix(s->scene, cam, m);
        j.eye[0] = m[3][0], j.eye[1] = m[3][1], j.eye[2] = m[3][2];
        j.fwd[0] = -m[2][0], j.fwd[1] = -m[2][1], j.fwd[2] = -m[2][2];
        j.have_eye = true;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        emitter *e = &s->em[i];
        j.e = e;
        uint64_t step = s->steps;
        if (step == target) { /* no step: the records face the eye as it is now */
            j.write = true, j.t1 = (double)step * OAK_PARTICLE_STEP;
            run_chunks(&j);
        }
        for (; step < target; step++) {
            births(e, step);
            j.write = step + 1 == target;
            j.t1 = (double)(step + 1) * OAK_PARTICLE_STEP;
            if (run_chunks(&j)) compact(e);
        }
        if (e->born != e->seen_born || e->alive != e->seen_alive) {
            double clock = (double)target * OAK_PARTICLE_STEP;
            for (uint32_t k = 0; k < e->alive; k++)
                e->parts[k].spin_age[2] = (float)(clock - e->birth[k]);
            /* from one counter for every emitter: the backends key their
               copy of the block by (its address, this version), and a new
               emitter's block can land where a destroyed one's was */
            static atomic_uint_fast64_t block_versions;
            e->block_time = clock;
            e->block_version = atomic_fetch_add(&block_versions, 1) + 1;
            e->seen_born = e->born, e->seen_alive = e->alive;
        }
        /* the block and the constants: the device's input */
        oak_gpu_particle_emitter kc = e->c;
        kc.time[0] = e->since = (float)((double)target * OAK_PARTICLE_STEP - e->block_time);
        kc.time[1] = (float)e->alive;
        uint32_t counts[OAK_PARTICLE_FRAMES] = {e->alive};
        /* an "over" book's frames each count them all (the device finds
           their frames; fill_host the host's): no per-particle work here */
        for (uint32_t k = 1; e->sort && k < e->frames; k++) counts[k] = e->alive;
        if (e->frames > 1 && !e->sort) frame_counts(e, kc.time[0], counts);
        oak_result r = OAK_OK;
        for (uint32_t k = 0; !r && k < e->frames; k++) {
            /* target.w: the frame this stream holds (the backend finds
               the flipbook's other frames by the shared block) */
            kc.target[3] = k;
            /* a BLEND one (additive or "over") sorts among the BLEND
               surfaces by the emitter's position, known without its
               records (docs/WORLD.md "Blending"); an "over" one's own
               order is far to near along the update's view */
            float *up = e->stream[k]->unit_point, *fw = e->stream[k]->sort_fwd;
            for (int c = 0; c < 3; c++) up[c] = e->d.position[c];
            up[3] = 1;
            for (int c = 0; c < 3; c++) fw[c] = e->fwd[c] = j.fwd[c];
            /* an "over" book sorts without an eye too: by frame, then
               particle order (every depth 0), as fill_host groups them */
            fw[3] = e->sort && (j.have_eye || e->frames > 1) ? 1.0f : 0.0f;
            r = oak_stream_set_count(e->stream[k], counts[k]);
            if (!r)
                _oak_stream_set_particles(e->stream[k], &kc, e->parts, e->block_version, fill_host,
                                          s);
        }
        if (r) return r;
    }
    s->steps = target;
    if (s->kept) oak_scene_set_particle_time(s->scene, (double)target * OAK_PARTICLE_STEP);
    return OAK_OK;
}

oak_result oak_world_apply_particles(oak_scene *scene) {
    if (!scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_apply_particles: scene is NULL");
    uint32_t n = oak_scene_emitter_count(scene);
    oak_particles *s = oak_scene_attachment(scene, attached_destroy);
    if (!n || (s && s->count >= n)) return OAK_OK; /* none, or running already */
    oak_result r = s ? OAK_OK : oak_world_particles(scene, &s);
    if (r) return r;
    s->applying = true;
    for (uint32_t i = s->count; !r && i < n; i++)
        r = oak_particles_add_emitter(s, oak_scene_emitter(scene, i), NULL);
    s->applying = false;
    return r ? r : oak_particles_update(s, oak_scene_particle_time(scene));
}

oak_result oak_world_update_particles(oak_scene *scene, float seconds) {
    if (!scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_update_particles: scene is NULL");
    oak_particles *s = oak_scene_attachment(scene, attached_destroy);
    return s ? oak_particles_update(s, seconds) : OAK_OK;
}

oak_result _oak_particles_kernel_input(oak_particles *s, uint32_t index,
                                       struct oak_gpu_particle_emitter *c,
                                       const struct oak_gpu_particle **parts,
                                       const oak_instance **records, uint32_t *count,
                                       uint64_t *version) {
    emitter *e = emitter_of(s, index, "_oak_particles_kernel_input");
    if (!e) return OAK_ERROR_INVALID_ARGUMENT;
    _oak_stream_host_records(e->stream[0]); /* the C evaluation */
    *c = e->c;
    c->time[0] = (float)((double)s->steps * OAK_PARTICLE_STEP - e->block_time);
    c->time[1] = (float)e->alive;
    *parts = e->parts, *records = e->records, *count = e->alive;
    *version = e->block_version;
    return OAK_OK;
}
