/* Private to liboak: skinning by 3 x 4 rows (12 floats a joint, row-major),
 * the one arithmetic every CPU path poses with: posed meshes
 * (oak_mesh_update_palette), posed stream instances (render/pose_stream.c)
 * and the CPU backend; shaders/common/pose.glsl and skin.comp are its twins
 * on the GPUs. */
#ifndef OAK_ASSET_POSE_ROWS_H
#define OAK_ASSET_POSE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#define OAK_POSE_ROW_INFLUENCES 4 /* joints and weights per vertex */

/* Weights of a skin posed from a palette may miss 1 by this much. */
#define OAK_POSE_WEIGHT_TOLERANCE 1e-3f

/* The first of n vertices whose 4 weights are not all >= 0 summing to 1
   within OAK_POSE_WEIGHT_TOLERANCE, or that names a joint >= joints; n
   when every one is fit to pose from a palette of that many joints. */
static inline size_t _oak_pose_skin_check(const uint16_t *j, const float *w, size_t n,
                                          uint32_t joints) {
    for (size_t v = 0; v < n; v++) {
        float sum = 0;
        for (int k = 0; k < OAK_POSE_ROW_INFLUENCES; k++) {
            float x = w[4 * v + k];
            if (!(x >= 0) || j[4 * v + k] >= joints) return v;
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

#endif
