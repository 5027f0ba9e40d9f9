// Per-meshlet culling on the GPUs (docs/ARCHITECTURE.md "Meshlet culling"):
// the test backend/gpu/meshcull.c's _oak_meshcull_test makes, with the same
// planes (the host's, 2 px margin) and the same cone epsilon, written in the
// same order with `precise` so no multiply-add is fused and the counts match
// the CPU's (sqrt aside). The draw's eye in mesh space and scale are the
// host's (_oak_meshcull_draw_make).
#ifndef OAK_MESHCULL_GLSL
#define OAK_MESHCULL_GLSL
#include "common/oak_gpu.h"
#include "common/clod.glsl"
#include "common/meshcull_block.glsl"

// The head's view: the left, right, bottom, top and near planes (from
// word 8) and cluster LOD's eye, lod_px, znear and ortho (from word 28).
void oak_meshcull_head_view(out vec4 planes[5], out vec3 eye, out float lod_px, out float znear,
                            out bool ortho) {
    for (int i = 0; i < 5; i++)
        planes[i] = uintBitsToFloat(uvec4(mc[8 + 4 * i], mc[9 + 4 * i], mc[10 + 4 * i], mc[11 + 4 * i]));
    eye = uintBitsToFloat(uvec3(mc[28], mc[29], mc[30]));
    lod_px = uintBitsToFloat(mc[31]);
    znear = uintBitsToFloat(mc[32]);
    ortho = mc[33] != 0u;
}

// backend/gpu/meshcull.h's OAK_MESHCULL_CONE_EPS and verdicts
#define OAK_MESHCULL_CONE_EPS 0.01
#define OAK_MESHCULL_KEEP     0u
#define OAK_MESHCULL_FRUSTUM  1u
#define OAK_MESHCULL_CONE     2u
#define OAK_MESHCULL_LOD      3u

oak_gpu_meshlet oak_meshlet_unpack(uvec4 a, uvec4 b, uvec4 c, uvec4 d, uvec4 e, uvec4 f, uvec4 g) {
    oak_gpu_meshlet m;
    m.sphere = uintBitsToFloat(a);
    m.cone_apex = uintBitsToFloat(b);
    m.cone_axis = uintBitsToFloat(c);
    m.lod_sphere = uintBitsToFloat(d);
    m.parent_sphere = uintBitsToFloat(e);
    m.error = uintBitsToFloat(f);
    m.offsets = g;
    return m;
}

uint oak_meshcull_test(vec4 planes[5], mat4 world, float scale, bool cone, vec3 eye,
                       oak_gpu_meshlet ml) {
    vec3 c = ml.sphere.xyz;
    precise vec3 w;
    for (int r = 0; r < 3; r++)
        w[r] = world[0][r] * c.x + world[1][r] * c.y + world[2][r] * c.z + world[3][r];
    precise float rad = ml.sphere.w * scale;
    for (int i = 0; i < 5; i++) {
        vec4 p = planes[i];
        precise float s = p.x * w.x + p.y * w.y + p.z * w.z + p.w;
        if (s < -rad) return OAK_MESHCULL_FRUSTUM;
    }
    float cutoff = ml.cone_apex.w;
    if (cone && cutoff < 1.0) {
        precise vec3 d = ml.cone_apex.xyz - eye;
        precise float l2 = d.x * d.x + d.y * d.y + d.z * d.z;
        float l = sqrt(l2);
        precise float dp = d.x * ml.cone_axis.x + d.y * ml.cone_axis.y + d.z * ml.cone_axis.z;
        precise float lim = (cutoff + float(OAK_MESHCULL_CONE_EPS)) * l;
        if (l > 0.0 && dp >= lim) return OAK_MESHCULL_CONE;
    }
    return OAK_MESHCULL_KEEP;
}

// Meshlet m's verdict in its job: the cut first (a meshlet out of
// cluster LOD's cut, common/clod.glsl, is never drawn and is counted as such
// whatever the frustum says, as the CPU tests the cut first, and a plain
// mesh's meshlets, error 0 under a root, skip it; a world that cannot be
// culled by keeps its finest level, the first `finest` meshlets), then the
// frustum and the cone, which a shadow job (its map's cut alone) skips.
// lod_eye, lod_px, znear and ortho are the cut's view: the camera's, or a
// shadow job's own. One function for meshcull.comp and the mesh path's task
// shader (shaders/mesh/vis_mesh.task.glsl), so both cull alike.
uint oak_meshcull_verdict(vec4 planes[5], mat4 world, float scale, bool cone, vec3 eye,
                          bool shadow, bool uncut, uint m, uint finest, vec3 lod_eye,
                          float lod_px, float znear, bool ortho, oak_gpu_meshlet ml) {
    uint t = shadow ? OAK_MESHCULL_KEEP : oak_meshcull_test(planes, world, scale, cone, eye, ml);
    bool clod = ml.error.x > 0.0 || ml.error.y < OAK_CLOD_ROOT_ERROR;
    if (uncut ? m >= finest
              : clod && !oak_clod_keep(world, scale, lod_eye, lod_px, znear, ortho, ml.lod_sphere,
                                       ml.error.x, ml.parent_sphere, ml.error.y))
        t = OAK_MESHCULL_LOD;
    return t;
}
#endif
