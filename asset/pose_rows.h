/* Private to liboak: skinning by 3 x 4 rows (12 floats a joint, row-major),
 * the one arithmetic every CPU path poses with: posed meshes
 * (oak_mesh_update_palette), posed stream instances (render/pose_stream.c)
 * and the CPU backend; shaders/common/pose.glsl and skin.comp are its twins
 * on the GPUs. */
#ifndef OAK_ASSET_POSE_ROWS_H
#define OAK_ASSET_POSE_ROWS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <oak/asset.h>

#define OAK_POSE_ROW_INFLUENCES 4 /* joints and weights per vertex */

/* Weights of a skin posed from a palette may miss 1 by this much. */
#define OAK_POSE_WEIGHT_TOLERANCE 1e-3f

/* The first of n vertices whose 4 weights (8 with a second set j1, w1;
   NULL: none) are not all >= 0 summing to 1 within
   OAK_POSE_WEIGHT_TOLERANCE, or that names a joint >= joints; n when every
   one is fit to pose from a palette of that many joints. */
static inline size_t _oak_pose_skin_check(const uint16_t *j, const float *w, const uint16_t *j1,
                                          const float *w1, size_t n, uint32_t joints) {
    for (size_t v = 0; v < n; v++) {
        float sum = 0;
        for (int k = 0; k < 2 * OAK_POSE_ROW_INFLUENCES; k++) {
            const uint16_t *js = k < 4 ? j : j1;
            const float *ws = k < 4 ? w : w1;
            if (!js) break;
            float x = ws[4 * v + k % 4];
            if (!(x >= 0) || js[4 * v + k % 4] >= joints) return v;
            sum += x;
        }
        float off = sum - 1;
        if (off > OAK_POSE_WEIGHT_TOLERANCE || off < -OAK_POSE_WEIGHT_TOLERANCE) return v;
    }
    return n;
}

/* One vertex's skinning rows from its 4 joints and weights: the palette's
   rows weighed and summed, joint by joint in order. */
static inline void _oak_pose_skin(const float *palette, const uint16_t joints[4],
                                  const float weights[4], float m[12]) {
    for (int e = 0; e < 12; e++) m[e] = 0;
    for (int k = 0; k < OAK_POSE_ROW_INFLUENCES; k++) {
        const float *jm = palette + (size_t)joints[k] * 12;
        for (int e = 0; e < 12; e++) m[e] += weights[k] * jm[e];
    }
}

/* p (a point when w = 1, a direction when 0) through skinning rows m. */
static inline void _oak_pose_apply(const float m[12], const float p[3], float w, float out[3]) {
    for (int r = 0; r < 3; r++)
        out[r] = m[r * 4] * p[0] + m[r * 4 + 1] * p[1] + m[r * 4 + 2] * p[2] + m[r * 4 + 3] * w;
}

/* A second set of 4 joints' rows (influences 5..8) added to m, after the
   first 4 as skin.comp adds them. */
static inline void _oak_pose_skin_more(const float *palette, const uint16_t joints[4],
                                       const float weights[4], float m[12]) {
    for (int k = 0; k < OAK_POSE_ROW_INFLUENCES; k++) {
        const float *jm = palette + (size_t)joints[k] * 12;
        for (int e = 0; e < 12; e++) m[e] += weights[k] * jm[e];
    }
}

/* Vertex v's stream `what` (0 position, 1 normal, 2 tangent) morphed:
   out = rest + w[t] x delta, target by target in order, zero weights
   skipped (targets: count x n x 9 floats, oak_mesh_desc.targets). */
static inline void _oak_pose_morph(const float *targets, uint32_t count, size_t n, const float *w,
                                   size_t v, int what, const float rest[3], float out[3]) {
    for (int k = 0; k < 3; k++) out[k] = rest[k];
    for (uint32_t t = 0; t < count; t++) {
        if (w[t] == 0) continue;
        const float *d = targets + ((size_t)t * n + v) * 9 + what * 3;
        for (int k = 0; k < 3; k++) out[k] += w[t] * d[k];
    }
}

/* A direction through skinning rows, made unit (the unskinned one where
   the result has no length), as skin.comp's skin_dir. */
static inline void _oak_pose_dir(const float m[12], const float d[3], float out[3]) {
    float o[3];
    _oak_pose_apply(m, d, 0, o);
    float l = sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    for (int k = 0; k < 3; k++) out[k] = l > 0 ? o[k] / l : d[k];
}

/* Vertex v of a mesh posed by palettes (oak_mesh_update_pose) as every
   backend poses it, this pose or the previous one: morphed, then skinned
   by its 4 (or 8) joints; the normal and tangent (each may be NULL) unit. */
static inline void _oak_pose_vertex(const oak_mesh_data *m, bool prev, size_t v, float pos[3],
                                    float nrm[3], float tan[3]) {
    const float *pal = m->palette + (prev ? (size_t)m->joint_count * 12 : 0);
    float rows[12], in[3];
    _oak_pose_skin(pal, m->joints + 4 * v, m->weights + 4 * v, rows);
    if (m->joints1) _oak_pose_skin_more(pal, m->joints1 + 4 * v, m->weights1 + 4 * v, rows);
    const float *mw =
        m->targets && m->morph_weights ? m->morph_weights + (prev ? m->target_count : 0) : NULL;
    uint32_t tc = mw ? m->target_count : 0;
    _oak_pose_morph(m->targets, tc, m->vertex_count, mw, v, 0, m->positions + 3 * v, in);
    _oak_pose_apply(rows, in, 1, pos);
    if (nrm) {
        _oak_pose_morph(m->targets, tc, m->vertex_count, mw, v, 1, m->normals + 3 * v, in);
        _oak_pose_dir(rows, in, nrm);
    }
    if (tan) {
        _oak_pose_morph(m->targets, tc, m->vertex_count, mw, v, 2, m->tangents + 4 * v, in);
        _oak_pose_dir(rows, in, tan);
    }
}

#endif
