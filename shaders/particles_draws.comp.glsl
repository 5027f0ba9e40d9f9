#version 450
// A BLEND particle stream's draw records from its device records
// (docs/WORLD.md "Particles", oak_render_stream.device_blend): after the
// particle kernel wrote a stream's records (and last frame's copies) into
// the instance buffer, each becomes one oak_gpu_draw at its slot past the
// frame's lists, which the blend pass draws as one instanced command. The
// matrix is render/stream_cull.c _oak_instance_matrix's with nothing that
// bends (rotation times scale, then the position), its inverse transpose
// the rotation over the scale, the colour the record's with the phase's
// opacity (oak_instance_phase_opacity) where the stream is made with
// phase_opacity, info and prev the stream's one draw's (its quad and
// material). A record of no scale is not drawn on the CPU: here its
// triangles collapse to a point. One job per stream (gl_WorkGroupID.y).
// An "over" stream's slot i takes record order[i], the particle index of
// entry i of its sorted pairs (shaders/particles_sort.comp.glsl), which lie
// in this same buffer: far to near, as the CPU draws it. A frame of an
// "over" flipbook (w's frames above 1) finds its frame's first entry among
// the book's sorted pairs (they ascend by frame) and draws its slot i from
// entry i past it while that entry is of its frame; its other slots (its
// stream counts every particle of the book) collapse to a point. Its
// thread 0 writes the frame's own count (its entries among the pairs) at
// jobs[COUNTS_AT + j].x, which the particles pass copies into the frame's
// indirect command as its instanceCount, so the blend pass draws only the
// frame's particles (backend/gpu/gpu_particles.h OAK_GPU_BOOK_COUNTS_AT).
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = OAK_GPU_PARTICLE_GROUP) in;

// job j: jobs[2 j] x the stream's one draw (the template), y its first
// record, z its first last-frame copy, w its first slot; jobs[2 j + 1] x
// the records, y 1 when the opacity is the phase's, w not 0 when the stream
// is sorted and z then the index here of its first sorted pair (the jobs
// start this buffer): 1, plus 256 x an "over" book's frames and 65536 x
// this stream's frame; past the jobs, one uvec4 a job: its frame's count
OAK_SSBO(OAK_B_PARTICLE_IN) buffer DrawJobs { uvec4 jobs[]; };

const uint COUNTS_AT = 2u * OAK_STREAM_MAX_PER_VIEW;

// the index among a book's sorted pairs (from z, frames x n of them) of
// the first entry of frame k or later: a binary search (they ascend by frame)
uint first_of(uint z, uint n, uint k) {
    uint lo = 0u, hi = n;
    while (lo < hi) {
        uint mid = (lo + hi) / 2u;
        if (jobs[z + mid].x < k)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}
OAK_SSBO(OAK_B_INSTANCES) readonly buffer RecordBlock { oak_gpu_instance records[]; };
OAK_SSBO(OAK_B_DRAWS) buffer DrawBlock { oak_gpu_draw draws[]; };

// the record's rotation columns (each times the scale into m, over it into nm)
void frame_of(oak_gpu_instance r, out mat4 m, out mat4 nm) {
    vec4 q = r.rotation;
    float n = dot(q, q);
    if (!(n > 0.0)) {
        q = vec4(0.0, 0.0, 0.0, 1.0);
        n = 1.0;
    }
    float k = 2.0 / n, x = q.x, y = q.y, z = q.z, w = q.w, s = r.position_scale.w;
    vec3 r0 = vec3(1.0 - k * (y * y + z * z), k * (x * y + z * w), k * (x * z - y * w));
    vec3 r1 = vec3(k * (x * y - z * w), 1.0 - k * (x * x + z * z), k * (y * z + x * w));
    vec3 r2 = vec3(k * (x * z + y * w), k * (y * z - x * w), 1.0 - k * (x * x + y * y));
    if (!(s > 0.0)) { // gone: nothing to draw
        m = mat4(0.0);
        nm = mat4(0.0);
        return;
    }
    m = mat4(vec4(r0 * s, 0.0), vec4(r1 * s, 0.0), vec4(r2 * s, 0.0),
             vec4(r.position_scale.xyz, 1.0));
    float inv = 1.0 / s;
    nm = mat4(vec4(r0 * inv, 0.0), vec4(r1 * inv, 0.0), vec4(r2 * inv, 0.0), vec4(0.0));
}

void main() {
    uint j = gl_WorkGroupID.y, i = gl_GlobalInvocationID.x;
    uvec4 a = jobs[2u * j], b = jobs[2u * j + 1u];
    if (i >= b.x) return;
    uint src = i, first = b.z, frames = (b.w >> 8u) & 255u;
    bool shown = true;
    if (frames > 1u) { // the first entry of this frame
        uint k = b.w >> 16u, lo = first_of(b.z, frames * b.x, k);
        first = b.z + lo;
        shown = lo + i < frames * b.x && jobs[first + i].x == k;
        if (i == 0u) // the frame's own count: its entries (empty ones sort last)
            jobs[COUNTS_AT + j] = uvec4(first_of(b.z, frames * b.x, k + 1u) - lo, 0u, 0u, 0u);
    }
    if (b.w != 0u) src = shown ? jobs[first + i].z : 0u;
    oak_gpu_instance r = records[a.y + src], rp = records[a.z + src];
    if (!shown) { // past this frame's particles: nothing drawn
        r.position_scale.w = 0.0;
        rp.position_scale.w = 0.0;
    }
    mat4 m, nm, pm, pn;
    frame_of(r, m, nm);
    frame_of(rp, pm, pn);
    float ph = r.color_phase.w;
    float o = ph > 0.0 ? float(int(ph)) / 255.0 : 0.0;
    nm[3] = vec4(r.color_phase.xyz, b.y != 0u ? min(o, 1.0) : 1.0);
    uint at = a.w + i;
    draws[at].world = m;
    draws[at].normal = nm;
    draws[at].info = draws[a.x].info;
    draws[at].prev_world = pm;
    draws[at].prev = draws[a.x].prev;
}
