#version 450
// Compute rasterization of small stream triangles (docs/ARCHITECTURE.md
// "Compute rasterization"): one invocation per (instance, triangle) of a
// band's camera list, each band its own work groups, as many as its visible
// items need up to a cap (craster_plan.comp, oak_gpu.h OAK_GPU_CRASTER_PLAN),
// looping over the list in strides.
// The vertex goes through vis_stream.vert's steps (the instance's bent
// matrix, view_proj, oak_snap's 1/16-pixel grid after TAA's jitter), so the
// corners are the hardware's; then the pixel centres inside by exact integer
// edge functions with the top-left rule (framebuffer y down), depth z / w
// interpolated in screen space, and per pixel atomicMax(depth bits << 32 |
// item) into OAK_B_CRASTER_DEPTH (reversed-Z: the nearest wins); on a MASK
// band only the pixels its material's cutout keeps (common/mask.glsl's rule,
// uv perspective-correct from the corners, the level from the triangle's
// analytic uv derivatives: common/craster.glsl oak_craster_cut_out). GL has no
// 64-bit atomics on llvmpipe (nor NV_shader_atomic_int64 in general): there
// it runs twice over the same triangles, the depth step atomicMax-ing the
// pixel's high word, then the item step atomicMax-ing its low word where
// the depth is that nearest one: the same two words in the end.
#extension GL_GOOGLE_include_directive : require
#if defined(OAK_VULKAN_GLSL)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#define OAK_CRASTER_INT64 1
#else
#extension GL_ARB_gpu_shader_int64 : enable
#ifdef GL_ARB_gpu_shader_int64
#define OAK_CRASTER_INT64 1
#endif
#endif
#include "common/draw.glsl"

layout(local_size_x = 64) in;

OAK_SSBO(OAK_B_CRASTER) readonly buffer CrasterBlock { uvec4 craster_head; uvec4 craster_bands[]; };
#ifdef OAK_VULKAN_GLSL
OAK_SSBO(OAK_B_CRASTER_DEPTH) buffer CrasterDepthBlock { uint64_t craster_depth[]; };
#else
// two words per pixel: the item, then the depth bits
OAK_SSBO(OAK_B_CRASTER_DEPTH) buffer CrasterDepthBlock { uint craster_words[]; };
layout(location = 0) uniform uint oak_craster_step; // 0: depth, 1: item
#endif

#ifdef OAK_CRASTER_INT64

#include "common/craster.glsl"

// craster_bands' index of the plan's dispatch row (after the head)
const uint oak_plan = uint(OAK_GPU_CRASTER_PLAN) - 1u;

// Group g (of its band's plan groups) of band `band`: its items g x 64 on,
// in strides of the band's groups.
void raster(uint band, uint g, uint lid) {
    uvec4 a = craster_bands[band * 2u], m = craster_bands[band * 2u + 1u];
    uvec4 p = craster_bands[oak_plan + 2u + band];
    uint s = a.x, tris = a.z, base = p.x;
    uint cmd = m.z + craster_head.w; // the head's w: pass 2's lists under Hi-Z
    // n: the plan's (the visible count's, cut where the items reach 2^32)
    uint list = stream_words[cmd + 4u], n = p.w, stride = p.z * 64u;
    ivec2 size = ivec2(craster_head.yz);
    vec2 fsize = vec2(size);
    vec2 shift = vec2(view.taa.x, -view.taa.y);
    // a MASK band (the material the band's LOD draws in): its cutout per pixel
    uint mi = oak_stream_material(s, a.y);
    bool masked = materials[mi].mode.x == 2.0;
    // g0 is the work group's (uniform, so every invocation meets the barriers)
    // (n stays 256 below 2^32, so g0 + 63 cannot wrap; the stride could)
    for (uint g0 = g * 64u; g0 < n; g0 = n - g0 > stride ? g0 + stride : n) {
        uint i = g0 + lid;
        mat4 world = oak_craster_round_world(s, list, g0, n, tris, i);
        if (i >= n) continue;
        uint t = i - i / tris * tris;
        ivec2 v[3];
        float z[3], w[3];
        uint vi[3];
        bool keep = true;
        for (uint j = 0u; j < 3u; j++) {
            uint k = indices[m.x + t * 3u + j] + m.y;
            vec4 c = view.view_proj * (world * positions[k]);
            // oak_snap's grid (common/snap.glsl), in 1/16 pixels, y down
            vec2 q = (c.xy / c.w * 0.5 + 0.5) * fsize + shift;
            keep = keep && c.w > 0.0 && all(lessThan(abs(q), vec2(OAK_GPU_CRASTER_GUARD)));
            q = roundEven(q * 16.0);
            OAK_PUT3(v, j, ivec2(int(q.x), size.y * 16 - int(q.y)));
            OAK_PUT3(z, j, c.z / c.w);
            OAK_PUT3(w, j, c.w);
            OAK_PUT3(vi, j, k);
        }
        if (!keep) continue;
        // front faces wind clockwise in y-down pixels (counter-clockwise in
        // clip space through the flipped viewport): a negative area here
        ivec2 lo, hi, v1 = v[1];
        int64_t b[3];
        float inv;
        if (!oak_craster_setup(v, z, (m.w & 1u) != 0u, size, lo, hi, b, inv)) continue;
        oak_craster_cut cut = oak_craster_cut_setup(masked, mi, v, v[1] != v1, vi, w);
        uint64_t item = uint64_t(base + i);
        for (int y = lo.y; y <= hi.y; y++)
            for (int x = lo.x; x <= hi.x; x++) {
                vec3 e;
                float d = oak_craster_depth(v, z, b, inv, x, y, e);
                if (d < 0.0 || d > 1.0) continue;
                uint at = uint(y) * uint(size.x) + uint(x);
                // the cutout only where the sample would win: a lost one
                // changes nothing, cut or not
#ifdef OAK_VULKAN_GLSL
                uint64_t key = (uint64_t(floatBitsToUint(d)) << 32) | item;
                if (craster_depth[at] < key && !(masked && oak_craster_cut_out(cut, e)))
                    atomicMax(craster_depth[at], key);
#else
                uint bits = floatBitsToUint(d);
                if (oak_craster_step == 0u) {
                    if (craster_words[at * 2u + 1u] < bits && !(masked && oak_craster_cut_out(cut, e)))
                        atomicMax(craster_words[at * 2u + 1u], bits);
                } else if (craster_words[at * 2u + 1u] == bits && !(masked && oak_craster_cut_out(cut, e))) {
                    atomicMax(craster_words[at * 2u], uint(item));
                }
#endif
            }
    }
}

void main() {
    uint lid = gl_LocalInvocationID.x, groups = craster_bands[oak_plan + 1u].x;
    // the plan's groups, more than one a work group past the dispatch's limit
    for (uint g = gl_WorkGroupID.x; g < groups; g += gl_NumWorkGroups.x) {
        // its band: the last whose first group is at or below g (one without
        // groups has the next's first group, so it is never the last)
        uint lo = 0u, hi = craster_head.x - 1u;
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if (craster_bands[oak_plan + 2u + mid].y <= g)
                lo = mid;
            else
                hi = mid - 1u;
        }
        raster(lo, g - craster_bands[oak_plan + 2u + lo].y, lid);
    }
}
#else
void main() {} // GL without 64-bit integers: the backend never dispatches it
#endif
