#version 450
// An "over" emitter's particles far to near and grouped by flipbook frame,
// in compute: world/particles.c's far_to_near (a stable merge sort by view
// depth, descending, ties in particle order) then its stable grouping by
// frame (write_streams), as one bitonic sort of (frame, depth key, particle
// index) triples, which orders the same (the index is the tie break, so no
// two keys are equal and the order is unique). The block at
// OAK_B_PARTICLE_IN is a head then m entries (m the count rounded up to a
// power of two, padded with entries that sort last), each entry's x the
// particle's frame as its writer put it (the particle kernel knows it),
// the records read at OAK_B_PARTICLE_OUT. head.step.x 0: each entry's key
// and index made from record i (its view depth from eye along fwd, the
// CPU's sum of products kept unfused by precise), 1: one compare-and-swap
// stage (k, j) = (step.y, step.z) of the network. The frames' first
// entries are the prefix of their counts (the particle kernel's atomics).
// In the frame (the particles pass, an "over" stream drawn from the
// device's records) each stage has its own head, so one block of heads is
// written before the dispatches: size.y says how many entries past this
// head's pairs the stream's pairs lie, size.z the stream's first record,
// size.w 1 that there is no flipbook (each entry's frame written 0 here),
// 2 an "over" flipbook drawn from the device: entry e is particle
// e % book.x of frame e / book.x, read at i of that frame's place
// (places), where the particle kernel wrote its record if it is in that
// frame and an empty one (scale below 0) if not, which sorts last.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = OAK_GPU_PARTICLE_GROUP) in;

OAK_SSBO(OAK_B_PARTICLE_IN) buffer SortBlock {
    vec4 eye;
    vec4 fwd;
    uvec4 step; // mode, k, j, the particle count
    uvec4 size; // m, the pairs' distance, the first record, no frames (1) or a book (2)
    uvec4 book; // a book's particles (each frame place's size), its frames
    uvec4 places[OAK_PARTICLE_FRAMES / 4]; // a book's frames' first records
    uvec4 pairs[]; // frame, depth key, particle index, 0
};
OAK_SSBO(OAK_B_PARTICLE_OUT) readonly buffer RecordBlock { oak_gpu_instance records[]; };

// a key whose ascending order is the depth's descending order (+0 and -0 alike)
uint depth_key(float d) {
    if (d == 0.0) d = 0.0;
    uint u = floatBitsToUint(d);
    u = (u & 0x80000000u) != 0u ? ~u : u | 0x80000000u;
    return ~u;
}

bool after(uvec4 a, uvec4 b) {
    return a.x != b.x ? a.x > b.x : a.y != b.y ? a.y > b.y : a.z > b.z;
}

void main() {
    uint i = gl_GlobalInvocationID.x, m = size.x, o = size.y;
    if (i >= m) return;
    if (step.x == 0u) {
        if (i >= step.w) {
            pairs[o + i] = uvec4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0u);
            return;
        }
        uint fr = 0u, at = size.z + i, pi = i;
        if (size.w == 2u) {
            fr = i / book.x;
            pi = i % book.x;
            at = places[fr / 4u][fr % 4u] + pi;
        }
        vec4 ps = records[at].position_scale;
        if (size.w == 2u && ps.w < 0.0) { // not in this frame
            pairs[o + i] = uvec4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0u);
            return;
        }
        vec3 p = ps.xyz;
        precise float d = (p.x - eye.x) * fwd.x + (p.y - eye.y) * fwd.y + (p.z - eye.z) * fwd.z;
        if (size.w == 2u)
            pairs[o + i] = uvec4(fr, depth_key(d), pi, 0u);
        else if (size.w != 0u)
            pairs[o + i] = uvec4(0u, depth_key(d), i, 0u);
        else
            pairs[o + i].yz = uvec2(depth_key(d), i);
        return;
    }
    uint k = step.y, j = step.z, l = i ^ j;
    if (l <= i) return;
    uvec4 a = pairs[o + i], b = pairs[o + l];
    bool up = (i & k) == 0u;
    if (up ? after(a, b) : after(b, a)) {
        pairs[o + i] = b;
        pairs[o + l] = a;
    }
}
