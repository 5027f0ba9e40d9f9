#version 450
// An "over" emitter's particles far to near, in compute: world/particles.c's
// far_to_near (a stable merge sort by view depth, descending, ties in
// particle order) as a bitonic sort of (depth key, particle index) pairs,
// which orders the same (the index is the tie break, so no two keys are
// equal and the order is unique). The block at OAK_B_PARTICLE_IN is a head
// then m pairs (m the count rounded up to a power of two, padded with
// pairs that sort last); the records are read at OAK_B_PARTICLE_OUT.
// head.step.x 0: each pair made from record i (its view depth from eye
// along fwd, the CPU's sum of products kept unfused by precise), 1: one
// compare-and-swap stage (k, j) = (step.y, step.z) of the network.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = OAK_GPU_PARTICLE_GROUP) in;

OAK_SSBO(OAK_B_PARTICLE_IN) buffer SortBlock {
    vec4 eye;
    vec4 fwd;
    uvec4 step; // mode, k, j, the particle count
    uvec4 size; // x m
    uvec2 pairs[];
};
OAK_SSBO(OAK_B_PARTICLE_OUT) readonly buffer RecordBlock { oak_gpu_instance records[]; };

// a key whose ascending order is the depth's descending order (+0 and -0 alike)
uint depth_key(float d) {
    if (d == 0.0) d = 0.0;
    uint u = floatBitsToUint(d);
    u = (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
    return ~u;
}

bool after(uvec2 a, uvec2 b) { return a.x > b.x || (a.x == b.x && a.y > b.y); }

void main() {
    uint i = gl_GlobalInvocationID.x, m = size.x;
    if (i >= m) return;
    if (step.x == 0u) {
        if (i >= step.w) {
            pairs[i] = uvec2(0xffffffffu, 0xffffffffu);
            return;
        }
        vec3 p = records[i].position_scale.xyz;
        precise float d = (p.x - eye.x) * fwd.x + (p.y - eye.y) * fwd.y + (p.z - eye.z) * fwd.z;
        pairs[i] = uvec2(depth_key(d), i);
        return;
    }
    uint k = step.y, j = step.z, l = i ^ j;
    if (l <= i) return;
    uvec2 a = pairs[i], b = pairs[l];
    bool up = (i & k) == 0u;
    if (up ? after(a, b) : after(b, a)) {
        pairs[i] = b;
        pairs[l] = a;
    }
}
