/* The particles pass's blocks for both GPU backends (gpu_particles.h). */
#include "gpu_particles.h"

#include <string.h>

#include "render/stream.h"

bool _oak_gpu_particle_block_leads(const oak_render_view *v, uint32_t ns, uint32_t s) {
    const void *b = s < ns ? v->streams[s].particles : NULL;
    if (!b || !v->streams[s].particle_constants) return false;
    for (uint32_t t = 0; t < s; t++)
        if (v->streams[t].particles == b) return false;
    return true;
}

uint32_t _oak_gpu_particle_count(const oak_render_stream *rs) {
    return (uint32_t)rs->particle_constants->time[1];
}

uint32_t _oak_gpu_book_frames(const oak_render_stream *rs) {
    uint32_t frames = rs->particle_constants ? (uint32_t)rs->particle_constants->shape[1] : 1;
    return rs->device_sort && frames > 1 ? frames : 1;
}

/* The places of the flipbook whose frame stream is rs: each frame's
   stream's first record and end in the view (0 and 0 for a frame with no
   stream among the first ns), by the shared block. */
static void book_places(const oak_render_view *v, uint32_t ns, const oak_render_stream *rs,
                        uint32_t frames, uint32_t first[OAK_PARTICLE_FRAMES],
                        uint32_t end[OAK_PARTICLE_FRAMES]) {
    uint64_t at = 0;
    memset(first, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    memset(end, 0, sizeof(uint32_t) * OAK_PARTICLE_FRAMES);
    for (uint32_t t = 0; t < ns; t++) {
        const oak_render_stream *o = &v->streams[t];
        uint32_t k = o->particle_constants ? o->particle_constants->target[3] : UINT32_MAX;
        if (o->particles == rs->particles && k < frames && k < OAK_PARTICLE_FRAMES)
            first[k] = (uint32_t)at, end[k] = (uint32_t)(at + o->count);
        at += o->count;
    }
}

uint32_t _oak_gpu_particle_head(const oak_render_view *v, uint32_t ns, uint32_t s, uint64_t here,
                                uint64_t total, uint8_t *out) {
    const oak_render_stream *rs = &v->streams[s];
    oak_gpu_particle_emitter c = *rs->particle_constants;
    uint32_t n = _oak_gpu_particle_count(rs), frames = (uint32_t)c.shape[1];
    uint32_t words[OAK_GPU_PARTICLE_HEAD_UINTS] = {0}, groups;
    c.time[2] = v->dt > 0 ? v->dt : 0;
    if (frames <= 1) {
        c.target[0] = (uint32_t)here, c.target[1] = (uint32_t)(total + here);
        c.target[2] = 1, c.target[3] = 0;
        groups = (n + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP;
    } else {
        /* each frame's place is its stream's, found by the shared block;
           an "over" book sorted here (target.w 2): particle i at i of its
           frame's place, a thread each (particles.comp.glsl book); else
           one group walks them all (scatter) */
        bool book = _oak_gpu_book_frames(rs) > 1;
        c.target[0] = 0, c.target[1] = (uint32_t)total, c.target[2] = 1, c.target[3] = book ? 2 : 1;
        book_places(v, ns, rs, frames, words + OAK_PARTICLE_FRAMES,
                    words + 2 * OAK_PARTICLE_FRAMES);
        groups = book ? (n + OAK_GPU_PARTICLE_GROUP - 1) / OAK_GPU_PARTICLE_GROUP : 1;
    }
    memcpy(out, &c, sizeof c);
    memcpy(out + sizeof c, words, sizeof words);
    return groups;
}

uint32_t _oak_gpu_blend_slot(const oak_render_view *v, uint32_t ns, uint32_t s) {
    uint32_t at = 0;
    for (uint32_t t = 0; t < s && t < ns; t++)
        if (v->streams[t].device_blend) at += v->streams[t].count;
    return at;
}

uint32_t _oak_gpu_blend_jobs(const oak_render_view *v, uint32_t slots_from, uint32_t jobs[][8],
                             uint32_t *most) {
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint32_t tmpl[OAK_STREAM_MAX_PER_VIEW], n = 0, total = 0, here = 0, slot = 0;
    bool any = false;
    for (uint32_t s = 0; s < ns; s++) {
        tmpl[s] = UINT32_MAX;
        total += v->streams[s].count;
        any |= v->streams[s].device_blend;
    }
    *most = 0;
    if (!any || !v->draws.unit) return 0;
    /* each unit's one draw: the first of its unit among the view's */
    for (uint32_t d = 0; d < v->draws.count; d++) {
        uint32_t u = v->draws.unit[d];
        if (u && u <= ns && v->streams[u - 1].device_blend && tmpl[u - 1] == UINT32_MAX)
            tmpl[u - 1] = d;
    }
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint32_t at = here, first = slot;
        here += rs->count;
        if (!rs->device_blend) continue;
        slot += rs->count;
        if (tmpl[s] == UINT32_MAX || !rs->count) continue;
        uint32_t *j = jobs[n++];
        j[0] = tmpl[s], j[1] = at, j[2] = total + at, j[3] = slots_from + first;
        j[4] = rs->count, j[5] = rs->stream && rs->stream->desc.phase_opacity, j[6] = s;
        j[7] = 0;
        *most = rs->count > *most ? rs->count : *most;
    }
    return n;
}

uint32_t _oak_gpu_book_count_cmds(const oak_render_view *v, const uint32_t jobs[][8], uint32_t n,
                                  const uint32_t *blend_draw, uint32_t nb, uint32_t out[][3]) {
    uint32_t m = 0;
    if (!v->draws.unit || !blend_draw) return 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t s = jobs[j][6];
        if (s >= v->stream_count || _oak_gpu_book_frames(&v->streams[s]) <= 1) continue;
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t i = blend_draw[k];
            if (i < v->draws.count && v->draws.unit[i] == s + 1) {
                out[m][0] = j, out[m][1] = k;
                out[m++][2] = v->streams[s].particle_constants->target[3];
                break;
            }
        }
    }
    return m;
}

uint32_t _oak_gpu_sort_stages(uint32_t n, uint32_t *m) {
    uint32_t l = 0;
    *m = 1;
    while (*m < n) *m *= 2, l++;
    return l * (l + 1) / 2;
}

uint64_t _oak_gpu_sort_block_bytes(uint32_t n, uint64_t *pairs) {
    uint32_t m, stages = _oak_gpu_sort_stages(n, &m);
    uint64_t at = (uint64_t)OAK_GPU_SORT_HEAD * (stages + 1), b = at + 16 * (uint64_t)m;
    if (pairs) *pairs = at;
    return (b + OAK_GPU_SORT_HEAD - 1) / OAK_GPU_SORT_HEAD * OAK_GPU_SORT_HEAD;
}

/* shaders/particles_sort.comp.glsl SortBlock's head */
typedef struct sort_head {
    float eye[4], fwd[4];
    uint32_t step[4], size[4], book[4], places[OAK_PARTICLE_FRAMES];
} sort_head;

uint32_t _oak_gpu_sort_entries(const oak_render_stream *rs) {
    return rs->count * _oak_gpu_book_frames(rs);
}

bool _oak_gpu_sort_leads(const uint64_t *sort_at, uint32_t s) {
    if (sort_at[s] == UINT64_MAX) return false;
    for (uint32_t t = 0; t < s; t++)
        if (sort_at[t] == sort_at[s]) return false;
    return true;
}

uint64_t _oak_gpu_sort_plan(const oak_render_view *v, uint32_t ns, uint64_t at, uint64_t *sort_at,
                            uint64_t *firsts, uint64_t *most) {
    uint64_t first = 0;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        firsts[s] = first;
        first += rs->count;
        sort_at[s] = UINT64_MAX;
        if (!rs->device_sort || !rs->device_blend || !rs->count || !rs->particles) continue;
        /* an "over" book's frames share its first one's block */
        uint32_t t = 0;
        while (t < s && !(v->streams[t].particles == rs->particles && sort_at[t] != UINT64_MAX))
            t++;
        if (t < s && _oak_gpu_book_frames(rs) > 1) {
            sort_at[s] = sort_at[t];
            continue;
        }
        uint64_t b = _oak_gpu_sort_block_bytes(_oak_gpu_sort_entries(rs), NULL);
        sort_at[s] = at;
        at += b, *most = b > *most ? b : *most;
    }
    return at;
}

uint32_t _oak_gpu_sort_heads(const oak_render_view *v, uint32_t ns, uint32_t s, uint64_t first,
                             uint8_t *out, uint32_t *size) {
    const oak_render_stream *rs = &v->streams[s];
    uint32_t n = _oak_gpu_sort_entries(rs), m, stages = _oak_gpu_sort_stages(n, &m), t = 0;
    uint32_t frames = _oak_gpu_book_frames(rs);
    *size = m;
    sort_head h = {{0}};
    memcpy(h.eye, rs->particle_constants->eye, sizeof(float) * 3);
    memcpy(h.fwd, rs->stream->sort_fwd, sizeof(float) * 3);
    h.size[0] = m, h.size[2] = (uint32_t)first, h.size[3] = frames > 1 ? 2 : 1;
    h.step[3] = n;
    if (frames > 1) { /* entry e: particle e % count of frame e / count, at its frame's place */
        uint32_t end[OAK_PARTICLE_FRAMES];
        book_places(v, ns, rs, frames, h.places, end);
        h.book[0] = rs->count, h.book[1] = frames;
    }
    memset(out, 0, (size_t)OAK_GPU_SORT_HEAD * (stages + 1));
    for (uint32_t k = 1; k <= m; k *= 2)
        for (uint32_t j = k > 1 ? k / 2 : 0; t <= stages; j /= 2) {
            /* head 0: the keys; then stage (k, j) of the network */
            h.step[0] = t ? 1 : 0, h.step[1] = k, h.step[2] = j;
            /* from this head's pairs[0] to the block's pairs, in entries */
            h.size[1] = (OAK_GPU_SORT_HEAD * (stages + 1 - t) - (uint32_t)sizeof h) / 16;
            memcpy(out + (size_t)OAK_GPU_SORT_HEAD * t++, &h, sizeof h);
            if (j <= 1) break;
        }
    return stages;
}

void _oak_gpu_blend_jobs_sorted(const oak_render_view *v, const uint64_t *sort_at,
                                uint32_t jobs[][8], uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = jobs[i][6];
        jobs[i][6] = jobs[i][7] = 0;
        if (s >= v->stream_count || sort_at[s] == UINT64_MAX) continue;
        uint64_t pairs = 0;
        const oak_render_stream *rs = &v->streams[s];
        _oak_gpu_sort_block_bytes(_oak_gpu_sort_entries(rs), &pairs);
        /* w: 1, plus an "over" book's frames x 256 and this stream's frame x 65536 */
        uint32_t frames = _oak_gpu_book_frames(rs);
        jobs[i][6] = (uint32_t)((sort_at[s] + pairs) / 16);
        jobs[i][7] = frames > 1 ? 1 + 256 * frames + 65536 * rs->particle_constants->target[3] : 1;
    }
}
