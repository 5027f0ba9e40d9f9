/* The particles pass's blocks for both GPU backends (gpu_particles.h). */
#include "gpu_particles.h"

#include <string.h>

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
        /* one group walks them all (particles.comp.glsl scatter): each
           frame's place is its stream's, found by the shared block */
        c.target[0] = 0, c.target[1] = (uint32_t)total, c.target[2] = 1, c.target[3] = 1;
        uint64_t first = 0;
        for (uint32_t t = 0; t < ns; t++) {
            const oak_render_stream *o = &v->streams[t];
            uint32_t k = o->particle_constants ? o->particle_constants->target[3] : UINT32_MAX;
            if (o->particles == rs->particles && k < frames && k < OAK_PARTICLE_FRAMES) {
                words[OAK_PARTICLE_FRAMES + k] = (uint32_t)first;
                words[2 * OAK_PARTICLE_FRAMES + k] = (uint32_t)(first + o->count);
            }
            first += o->count;
        }
        groups = 1;
    }
    memcpy(out, &c, sizeof c);
    memcpy(out + sizeof c, words, sizeof words);
    return groups;
}
