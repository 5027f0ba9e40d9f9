/* What both GPU backends upload for the skin pass (shaders/skin.comp.glsl;
 * oak_gpu.h "The skin pass"): each posed mesh's rest pose with its joints
 * and weights (and its second set and morph deltas), once per version, and
 * each frame the jobs, palettes and morph weights of the meshes whose pose
 * moved. */
#include <string.h>

#include "gpu_records.h"

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The morph targets a posed mesh's pass reads (none before its weights). */
static uint32_t targets(const oak_mesh_data *d) {
    return d->targets && d->morph_weights ? d->target_count : 0;
}

void _oak_gpu_skin_source(const oak_mesh_data *d, uint32_t v, oak_gpu_vertex *out) {
    const uint16_t *j = d->joints + (size_t)v * 4;
    uint32_t j01 = (uint32_t)j[0] | (uint32_t)j[1] << 16,
             j23 = (uint32_t)j[2] | (uint32_t)j[3] << 16;
    /* the words travel as bits: a float holding joint indices is never
       touched as a float on the host (memcpy) nor in the shader */
    memcpy(out->normal, d->normals + (size_t)v * 3, 12);
    memcpy(&out->normal[3], &j01, 4);
    memcpy(out->tangent, d->tangents + (size_t)v * 4, 16);
    memcpy(out->uv, d->weights + (size_t)v * 4, 16);
    memcpy(out->color, d->positions + (size_t)v * 3, 12);
    memcpy(&out->color[3], &j23, 4);
}

uint32_t _oak_gpu_skin_extra(const oak_mesh_data *d) {
    return d->vertex_count * ((d->joints1 ? 1u : 0u) + (d->targets ? d->target_count : 0u));
}

void _oak_gpu_skin_extra_vertex(const oak_mesh_data *d, uint32_t i, oak_gpu_vertex *out) {
    uint32_t n = d->vertex_count;
    memset(out, 0, sizeof *out);
    if (d->joints1) {
        if (i < n) { /* weights 4..7, then joints 4 | 5 << 16, 6 | 7 << 16 */
            const uint16_t *j = d->joints1 + (size_t)i * 4;
            uint32_t j45 = (uint32_t)j[0] | (uint32_t)j[1] << 16,
                     j67 = (uint32_t)j[2] | (uint32_t)j[3] << 16;
            memcpy(out->normal, d->weights1 + (size_t)i * 4, 16);
            memcpy(&out->tangent[0], &j45, 4);
            memcpy(&out->tangent[1], &j67, 4);
            return;
        }
        i -= n;
    }
    /* target i / n's deltas of vertex i % n: position, normal, tangent */
    const float *t = d->targets + (size_t)i * 9;
    memcpy(out->normal, t, 12);
    memcpy(out->tangent, t + 3, 12);
    memcpy(out->uv, t + 6, 12);
}

oak_result _oak_gpu_skin_push(_oak_gpu_skin_queue *q, const oak_mesh_data *d, uint64_t first) {
    uint32_t cap = q->cap; /* the two arrays grow together */
    if (!OAK_GROW(q->data, q->cap, q->count + 1) || !OAK_GROW(q->first, cap, q->count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "skin pass: no memory for its jobs");
    q->data[q->count] = d;
    q->first[q->count++] = first;
    if (d->vertex_count > q->vertices) q->vertices = d->vertex_count;
    return OAK_OK;
}

void _oak_gpu_skin_queue_free(_oak_gpu_skin_queue *q) {
    oak_free(q->data), oak_free(q->first);
    *q = (_oak_gpu_skin_queue){0};
}

uint64_t _oak_gpu_skin_words(const oak_mesh_data *const *meshes, uint32_t count) {
    uint64_t words = 1 + 2 * (uint64_t)count;
    for (uint32_t i = 0; i < count; i++)
        words += (uint64_t)meshes[i]->joint_count * 6 + (targets(meshes[i]) * 2 + 3) / 4;
    return words;
}

void _oak_gpu_skin_fill(uint32_t (*out)[4], const oak_mesh_data *const *meshes,
                        const uint64_t *first, uint32_t count) {
    out[0][0] = count, out[0][1] = out[0][2] = out[0][3] = 0;
    uint64_t at = 1 + 2 * (uint64_t)count;
    for (uint32_t i = 0; i < count; i++) {
        const oak_mesh_data *d = meshes[i];
        uint32_t *job = out[1 + 2 * i], *more = out[2 + 2 * i];
        job[0] = (uint32_t)first[i], job[1] = d->vertex_count, job[2] = (uint32_t)at;
        job[3] = d->joint_count;
        /* this pose's rows, then the previous pose's: 24 floats a joint */
        size_t floats = (size_t)d->joint_count * 24;
        for (size_t k = 0; k < floats; k++) out[at + k / 4][k % 4] = bits(d->palette[k]);
        at += floats / 4;
        /* then this pose's morph weights and the previous pose's */
        uint32_t tc = targets(d), words = (tc * 2 + 3) / 4;
        more[0] = d->joints1 ? 1u : 0u, more[1] = tc, more[2] = (uint32_t)at, more[3] = 0;
        for (uint32_t k = 0; k < words * 4; k++)
            out[at + k / 4][k % 4] = k < tc * 2 ? bits(d->morph_weights[k]) : 0;
        at += words;
    }
}
