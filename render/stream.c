/* Instance streams, the second kind of draw: one material and a ladder of
 * LOD meshes drawn at many places from compact records, held at a fixed
 * capacity so the count moves without reallocating (render.h). */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pose_stream.h"
#include "shaders/common/oak_gpu.h"
#include "stream.h"

_Static_assert(sizeof(oak_instance) == sizeof(oak_gpu_instance),
               "oak_instance and oak_gpu_instance are the same 12 floats");
/* a visible-list word and a visibility id hold instance, stream and LOD in
   24, 6 and 2 bits (oak_gpu.h "Visibility ids") */
_Static_assert(OAK_STREAM_MAX_INSTANCES <= (1u << OAK_GPU_ID_STREAM_SHIFT) &&
                   OAK_STREAM_MAX_PER_VIEW <=
                       (1u << (OAK_GPU_ID_LOD_SHIFT - OAK_GPU_ID_STREAM_SHIFT)) &&
                   OAK_STREAM_LODS <= (1u << (32 - OAK_GPU_ID_LOD_SHIFT)),
               "stream limits fit the list word's bits");

/* Each joint's vertices in the stream's posed LODs (the card aside: it
   turns to the eye, never posed by an override): the centre of their box
   and their reach from it, bind space; reach -1 for a joint that moves
   none. False when out of memory. */
static bool find_joint_reach(oak_stream *s) {
    uint32_t joints = oak_pose_bank_joints(s->desc.pose_bank);
    float(*box)[6] = oak_alloc(sizeof *box * joints);
    if (!box) return false;
    for (uint32_t j = 0; j < joints; j++)
        for (int e = 0; e < 6; e++) box[j][e] = e < 3 ? INFINITY : -INFINITY;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) /* the boxes' centres, reach 0 so far (-1: no vertex) */
            for (uint32_t j = 0; j < joints; j++) {
                float *q = s->joint_reach[j];
                for (int e = 0; e < 3; e++) q[e] = 0.5f * (box[j][e] + box[j][e + 3]);
                q[3] = box[j][0] <= box[j][3] ? 0.0f : -1.0f;
                for (int e = 0; e < 3; e++) q[4 + e] = 0.5f * (box[j][e + 3] - box[j][e]);
                q[7] = 0;
            }
        for (uint32_t k = 0; k < s->desc.lod_count; k++) {
            if (s->desc.impostor_lod && k == s->desc.impostor_lod) continue;
            const oak_mesh_data *md = oak_mesh_get(s->desc.lods[k].mesh);
            if (!md || !md->joints || !md->weights) continue;
            for (uint32_t v = 0; v < md->vertex_count; v++)
                for (int i = 0; i < 4; i++) {
                    uint32_t j = md->joints[4 * (size_t)v + i];
                    if (!(md->weights[4 * (size_t)v + i] > 0) || j >= joints) continue;
                    const float *p = md->positions + 3 * (size_t)v;
                    float *q = s->joint_reach[j];
                    if (!pass) {
                        for (int e = 0; e < 3; e++)
                            box[j][e] = fminf(box[j][e], p[e]),
                            box[j][e + 3] = fmaxf(box[j][e + 3], p[e]);
                        continue;
                    }
                    float d[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
                    q[3] = fmaxf(q[3], sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
                }
        }
    }
    oak_free(box);
    return true;
}

oak_result oak_make_stream(oak_stream **out, const oak_stream_desc *desc) {
    if (!out || !desc) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream: NULL argument");
    *out = NULL;
    oak_stream_desc d = *desc;
    if (d.capacity == 0 || d.capacity > OAK_STREAM_MAX_INSTANCES)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: capacity %u is outside 1 .. OAK_STREAM_MAX_INSTANCES (%u)",
                         d.capacity, OAK_STREAM_MAX_INSTANCES);
    if (d.lod_count == 0) d.lod_count = 1;
    if (d.lod_count > OAK_STREAM_LODS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: %u LODs, at most OAK_STREAM_LODS (%u)", d.lod_count,
                         OAK_STREAM_LODS);
    if (!oak_material_get(d.material))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream: no live material");
    for (uint32_t k = 0; k < d.lod_count; k++) {
        const oak_mesh_data *md = oak_mesh_get(d.lods[k].mesh);
        if (!md) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream: LOD %u has no live mesh", k);
        if (md->index_count / 3 > OAK_GPU_STREAM_MAX_TRIANGLES)
            return oak_error(OAK_ERROR_LIMIT,
                             "stream: LOD %u's mesh has %u triangles, at most %u (the visibility "
                             "id's triangle bits)",
                             k, md->index_count / 3, OAK_GPU_STREAM_MAX_TRIANGLES);
        bool last = k + 1 == d.lod_count;
        float dist = d.lods[k].distance;
        if (!(dist >= 0) || (!last && dist <= 0) ||
            (k > 0 && dist > 0 && dist <= d.lods[k - 1].distance))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "stream: LOD %u's distance %g must be > 0 and above the LOD before "
                             "(the last may be 0: no limit)",
                             k, (double)dist);
    }
    if (d.impostor_lod &&
        (!d.pose_bank || d.impostor_lod + 1 != d.lod_count ||
         !oak_material_get(d.impostor_material) || oak_pose_bank_joints(d.pose_bank) < 2))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: impostor LOD %u needs a posed stream (of 2 joints or more), to "
                         "be the last LOD and a live impostor material",
                         d.impostor_lod);
    if (d.source != OAK_STREAM_SOURCE_HOST && d.source != OAK_STREAM_SOURCE_PARTICLES &&
        d.source != OAK_STREAM_SOURCE_GRASS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream: source %d is not a stream source",
                         (int)d.source);
    if (d.source == OAK_STREAM_SOURCE_GRASS && (d.pose_bank || d.phase_opacity))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: a grass stream is rigid and opaque (no pose bank or opacity)");
    if (d.phase_opacity && d.pose_bank)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: a posed stream's phase is its pose, not an opacity");
    float spheres[OAK_STREAM_LODS][4] = {{0}};
    for (uint32_t k = 0; d.pose_bank && k < d.lod_count; k++)
        if (!_oak_pose_sphere(d.pose_bank, d.lods[k].mesh, spheres[k]))
            return OAK_ERROR_INVALID_ARGUMENT; /* said by it */
    if (d.impostor_lod) { /* the card turns about +y: the sphere round its axis */
        const oak_mesh_data *md = oak_mesh_get(d.lods[d.impostor_lod].mesh);
        float lo = INFINITY, hi = -INFINITY, r2 = 0;
        for (uint32_t v = 0; v < md->vertex_count; v++)
            lo = fminf(lo, md->positions[3 * v + 1]), hi = fmaxf(hi, md->positions[3 * v + 1]);
        float cy = 0.5f * (lo + hi);
        for (uint32_t v = 0; v < md->vertex_count; v++) {
            const float *p = md->positions + 3 * v;
            r2 = fmaxf(r2, p[0] * p[0] + p[2] * p[2] + (p[1] - cy) * (p[1] - cy));
        }
        spheres[d.impostor_lod][0] = spheres[d.impostor_lod][2] = 0;
        spheres[d.impostor_lod][1] = cy, spheres[d.impostor_lod][3] = sqrtf(r2);
    }
    if (d.pose_overrides && (!d.pose_bank || d.pose_overrides > OAK_POSE_OVERRIDES_MAX))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "stream: %u override palettes need a posed stream and at most %u",
                         d.pose_overrides, OAK_POSE_OVERRIDES_MAX);
    size_t override_floats =
        d.pose_overrides ? (size_t)2 * d.pose_overrides * oak_pose_bank_joints(d.pose_bank) * 12
                         : 0;
    oak_stream *s = oak_calloc(1, sizeof *s);
    if (s) s->records = oak_calloc(d.capacity, sizeof *s->records);
    if (s && override_floats) s->overrides = oak_calloc(override_floats, sizeof(float));
    if (s && override_floats)
        s->joint_reach = oak_alloc(sizeof *s->joint_reach * oak_pose_bank_joints(d.pose_bank));
    if (!s || !s->records || (override_floats && (!s->overrides || !s->joint_reach))) {
        if (s) oak_free(s->records), oak_free(s->overrides), oak_free(s->joint_reach);
        oak_free(s);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "stream: no memory for %u instances", d.capacity);
    }
    static atomic_uint_fast64_t serials;
    s->desc = d;
    memcpy(s->pose_sphere, spheres, sizeof spheres);
    if (s->joint_reach && !find_joint_reach(s)) {
        oak_destroy_stream(s);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "stream: no memory for its joints' reach");
    }
    s->version = 1;
    s->log[1][0] = 0, s->log[1][1] = d.capacity; /* what a copy at version 0 lacks */
    s->serial = atomic_fetch_add(&serials, 1) + 1;
    *out = s;
    return OAK_OK;
}

void oak_destroy_stream(oak_stream *s) {
    if (!s) return;
    oak_free(s->records);
    oak_free(s->overrides);
    oak_free(s->joint_reach);
    oak_free(s->slot_version);
    oak_free(s);
}

/* Moves the version on and logs the records it wrote. */
static void log_write(oak_stream *s, uint32_t lo, uint32_t hi) {
    s->version++;
    s->log[s->version % OAK_STREAM_WRITE_LOG][0] = lo;
    s->log[s->version % OAK_STREAM_WRITE_LOG][1] = hi;
    if (s->slot_version && lo < hi) {
        uint32_t size = s->grass_slot_size, last = (hi - 1) / size;
        for (uint32_t k = lo / size; k <= last && k < s->slot_versions; k++)
            s->slot_version[k] = s->version;
    }
}

uint32_t _oak_stream_writes_since(const oak_stream *s, uint64_t since, uint32_t (*ranges)[2],
                                  uint32_t cap) {
    if (since >= s->version) return 0;
    uint64_t n = s->version - since;
    if (n > cap || n >= OAK_STREAM_WRITE_LOG) return UINT32_MAX;
    for (uint64_t k = 0; k < n; k++) {
        const uint32_t *e = s->log[(since + 1 + k) % OAK_STREAM_WRITE_LOG];
        ranges[k][0] = e[0], ranges[k][1] = e[1];
    }
    return (uint32_t)n;
}

static int span_order(const void *a, const void *b) {
    const uint32_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

uint32_t _oak_stream_spans_since(const oak_stream *s, uint64_t since, uint32_t count,
                                 uint32_t (*spans)[2], uint32_t cap) {
    uint32_t r[OAK_STREAM_WRITE_LOG][2];
    uint32_t n = _oak_stream_writes_since(s, since, r, OAK_STREAM_WRITE_LOG);
    if (n == UINT32_MAX || !cap) return UINT32_MAX;
    uint32_t m = 0; /* the ranges under count */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t hi = r[i][1] < count ? r[i][1] : count;
        if (r[i][0] < hi) r[m][0] = r[i][0], r[m][1] = hi, m++;
    }
    qsort(r, m, sizeof r[0], span_order);
    uint32_t k = 0; /* overlapping and touching ranges as one */
    for (uint32_t i = 0; i < m; i++) {
        if (k && r[i][0] <= r[k - 1][1]) {
            if (r[i][1] > r[k - 1][1]) r[k - 1][1] = r[i][1];
        } else {
            r[k][0] = r[i][0], r[k][1] = r[i][1], k++;
        }
    }
    /* past cap: close the narrowest gap (the first of equals), k - cap
       times; k <= 256, so the quadratic walk is cheap beside a copy */
    while (k > cap) {
        uint32_t g = 1;
        for (uint32_t i = 2; i < k; i++)
            if (r[i][0] - r[i - 1][1] < r[g][0] - r[g - 1][1]) g = i;
        r[g - 1][1] = r[g][1];
        memmove(r[g], r[g + 1], (size_t)(k - g - 1) * sizeof r[0]);
        k--;
    }
    memcpy(spans, r, (size_t)k * sizeof r[0]);
    return k;
}

oak_instance *_oak_stream_records_to_write_range(oak_stream *s, uint32_t first, uint32_t count) {
    log_write(s, first, first + count);
    return s->records;
}

oak_result oak_stream_write(oak_stream *s, uint32_t first, const oak_instance *records,
                            uint32_t count) {
    if (!s || (count && !records))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream write: NULL argument");
    if ((uint64_t)first + count > s->desc.capacity)
        return oak_error(OAK_ERROR_LIMIT,
                         "stream write: instances %u .. %llu past the capacity %u (streams do "
                         "not grow: make a larger one)",
                         first, (unsigned long long)first + count, s->desc.capacity);
    /* an override phase must name a slot the stream holds: the GPUs read
       it unchecked */
    uint32_t slots = 2 * s->desc.pose_overrides;
    for (uint32_t i = 0; s->desc.pose_bank && i < count; i++)
        if (_oak_pose_is_override(records[i].phase) &&
            _oak_pose_override_slot(records[i].phase) >= slots)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "stream write: instance %u poses from override slot %u, the stream "
                             "holds %u",
                             first + i, _oak_pose_override_slot(records[i].phase), slots);
    memcpy(s->records + first, records, (size_t)count * sizeof *records);
    log_write(s, first, first + count);
    return OAK_OK;
}

oak_instance *_oak_stream_records_to_write(oak_stream *s) {
    log_write(s, 0, s->desc.capacity);
    return s->records;
}

float oak_pose_override_phase(uint32_t slot) {
    return -(float)(OAK_GPU_POSE_OVERRIDE_BASE + 2.0 * ((double)slot + 1));
}

oak_result oak_stream_write_pose_overrides(oak_stream *s, uint32_t count, const float *palettes,
                                           uint32_t *first_slot) {
    return oak_stream_write_pose_overrides_from(s, count, palettes, NULL, first_slot);
}

/* How far palette `pal` moves any vertex of the stream's posed LODs from
   where `base` puts it (mesh units): a vertex is a weighted mean (weights
   summing to 1) of its joints' transforms of it, so it moves at most as far
   as its farthest-moving joint moves it. Joint j moves a vertex p by D p
   for the palettes' difference D (affine), which is at most the smaller of
   |D q| + ||D's linear part||_F |p - q| (q the centre of j's vertices'
   box, |p - q| at most their reach) and the largest |D c| over the box's
   8 corners c (an affine map's length is convex, so the box's largest is
   at a corner). */
static float override_bound(const oak_stream *s, const float *pal, const float *base) {
    uint32_t joints = oak_pose_bank_joints(s->desc.pose_bank);
    float most = 0;
    for (uint32_t j = 0; j < joints; j++) {
        const float *q = s->joint_reach[j], *a = pal + (size_t)j * 12, *b = base + (size_t)j * 12;
        if (!(q[3] >= 0)) continue;
        float dq2 = 0, lin2 = 0;
        for (int r = 0; r < 3; r++) {
            float d0 = a[4 * r] - b[4 * r], d1 = a[4 * r + 1] - b[4 * r + 1],
                  d2 = a[4 * r + 2] - b[4 * r + 2], d3 = a[4 * r + 3] - b[4 * r + 3];
            float dq = d0 * q[0] + d1 * q[1] + d2 * q[2] + d3;
            dq2 += dq * dq, lin2 += d0 * d0 + d1 * d1 + d2 * d2;
        }
        float e = sqrtf(dq2) + sqrtf(lin2) * q[3], corner = 0;
        for (int c = 0; c < 8; c++) {
            float p[3] = {q[0] + (c & 1 ? q[4] : -q[4]), q[1] + (c & 2 ? q[5] : -q[5]),
                          q[2] + (c & 4 ? q[6] : -q[6])};
            float l2 = 0;
            for (int r = 0; r < 3; r++) {
                float dp = (a[4 * r] - b[4 * r]) * p[0] + (a[4 * r + 1] - b[4 * r + 1]) * p[1] +
                           (a[4 * r + 2] - b[4 * r + 2]) * p[2] + (a[4 * r + 3] - b[4 * r + 3]);
                l2 += dp * dp;
            }
            corner = l2 > corner ? l2 : corner;
        }
        e = sqrtf(corner) < e ? sqrtf(corner) : e;
        most = e > most ? e : most;
    }
    /* float rounding in the bound and in the posing: a part in 10^4 of
       the bound and in 10^5 of the near tier's sphere */
    return most > 0 ? most * 1.0001f + 1e-5f * s->pose_sphere[0][3] : 0;
}

void _oak_stream_cull_spheres(const oak_stream *s, float out[OAK_STREAM_LODS][4]) {
    memcpy(out, s->pose_sphere, sizeof s->pose_sphere);
    float grow =
        s->override_reach[0] > s->override_reach[1] ? s->override_reach[0] : s->override_reach[1];
    for (uint32_t k = 0; grow > 0 && k < s->desc.lod_count; k++)
        if (!s->desc.impostor_lod || k != s->desc.impostor_lod) out[k][3] += grow;
}

oak_result oak_stream_write_pose_overrides_from(oak_stream *s, uint32_t count,
                                                const float *palettes, const float *bases,
                                                uint32_t *first_slot) {
    if (!s || (count && !palettes) || !first_slot)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream overrides: NULL argument");
    if (count > s->desc.pose_overrides)
        return oak_error(OAK_ERROR_LIMIT, "stream overrides: %u palettes, the stream holds %u",
                         count, s->desc.pose_overrides);
    size_t stride = (size_t)oak_pose_bank_joints(s->desc.pose_bank) * 12;
    uint32_t first = s->override_gen * s->desc.pose_overrides;
    if (count)
        memcpy(s->overrides + first * stride, palettes, (size_t)count * stride * sizeof(float));
    float reach = 0;
    for (uint32_t i = 0; bases && i < count; i++) {
        float e = override_bound(s, palettes + i * stride, bases + i * stride);
        reach = e > reach ? e : reach;
    }
    s->override_reach[s->override_gen] = reach;
    s->override_gen ^= 1u;
    s->override_version++;
    *first_slot = first;
    return OAK_OK;
}

oak_result oak_stream_set_count(oak_stream *s, uint32_t count) {
    if (!s) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream count: NULL stream");
    if (count > s->desc.capacity)
        return oak_error(OAK_ERROR_LIMIT,
                         "stream count: %u past the capacity %u (streams do not grow: make a "
                         "larger one)",
                         count, s->desc.capacity);
    /* records between the old count and the new were not copied by whom
       copies only the counted ones */
    if (count != s->count)
        log_write(s, count < s->count ? count : s->count, count < s->count ? s->count : count);
    s->count = count;
    return OAK_OK;
}

uint32_t oak_stream_count(const oak_stream *s) {
    return s ? s->count : 0;
}
uint32_t oak_stream_capacity(const oak_stream *s) {
    return s ? s->desc.capacity : 0;
}
uint64_t oak_stream_version(const oak_stream *s) {
    return s ? s->version : 0;
}
const oak_instance *oak_stream_records(const oak_stream *s) {
    /* a reader of a PARTICLES stream gets the C evaluation: filled now
       when the frame did not need it (the stream is the caller's own) */
    if (s && s->host_stale) _oak_stream_host_records((oak_stream *)s);
    return s ? s->records : NULL;
}

void _oak_stream_set_particles(oak_stream *s, const oak_gpu_particle_emitter *c,
                               const oak_gpu_particle *parts, uint64_t block_version,
                               void (*fill)(void *user, oak_stream *s), void *user) {
    s->particle_constants = *c;
    s->particles = parts;
    s->particle_version = block_version;
    s->particle_fill = fill, s->particle_user = user;
    s->host_stale = fill != NULL;
    s->version++;
}

void _oak_stream_host_records(oak_stream *s) {
    if (!s->host_stale) return;
    s->host_stale = false;
    s->particle_fill(s->particle_user, s); /* moves the version as a write does */
}

oak_result oak_stream_set_lod_override(oak_stream *s, const uint8_t *lods) {
    if (!s) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "stream LOD override: NULL stream");
    s->lod_override = lods;
    log_write(s, 0, s->desc.capacity); /* the picks change what casts */
    return OAK_OK;
}

oak_result _oak_stream_set_grass(oak_stream *s, uint32_t slot_size,
                                 bool (*job)(void *user, const oak_stream *s, uint32_t slot,
                                             uint32_t first, oak_gpu_grass_square *out),
                                 void *user) {
    oak_free(s->slot_version);
    s->slot_version = NULL, s->slot_versions = 0;
    if (slot_size) {
        /* every slot counts as written now: a copy older than this lacks it */
        uint32_t n = (s->desc.capacity + slot_size - 1) / slot_size;
        if (!(s->slot_version = oak_alloc(sizeof *s->slot_version * (n ? n : 1))))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "stream: no memory for grass slots");
        for (uint32_t k = 0; k < n; k++) s->slot_version[k] = s->version;
        s->slot_versions = n;
    }
    s->grass_slot_size = slot_size;
    s->grass_job = slot_size ? job : NULL;
    s->grass_user = user;
    return OAK_OK;
}

void _oak_stream_set_host_fill(oak_stream *s, void (*fill)(void *user, oak_stream *s), void *user) {
    s->particle_fill = fill, s->particle_user = user;
    s->host_stale = fill != NULL;
}

uint32_t _oak_stream_grass_jobs(const oak_stream *s, bool same, uint64_t since, uint32_t first,
                                oak_gpu_grass_square **jobs, uint32_t *cap, uint32_t at) {
    uint32_t size = s->grass_slot_size, slots = size ? (s->count + size - 1) / size : 0;
    if (!s->grass_job || !slots || (same && since >= s->version)) return 0;
    if (slots > s->slot_versions) slots = s->slot_versions;
    uint32_t n = 0;
    for (uint32_t k = 0; k < slots; k++) {
        /* a copy of version `since` holds every slot written by then */
        if (same && s->slot_version[k] <= since) continue;
        if (!OAK_GROW(*jobs, *cap, at + n + 1) ||
            !s->grass_job(s->grass_user, s, k, first, &(*jobs)[at + n]))
            return UINT32_MAX;
        n++;
    }
    return n;
}
