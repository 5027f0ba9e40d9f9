#version 450
// The particle kernel: render/particle_eval.c's _oak_particle_record in
// compute, line for line (the same closed-form flight from the birth, keys,
// facing, lift and spin), one invocation per particle. Each particle's age is
// its block's age plus the emitter's time.x, so a block written once serves
// every later frame. The flipbook frame of each is counted into the frame
// counts by atomics (the counts are exact, as the CPU's). In a frame (the
// particles pass) it writes at target.x + i, and last frame's copy at
// target.y + i where the instcull pass reads it for motion vectors. A
// flipbook drawn on the device (target.w 1) is run as ONE work group that
// walks the particles a group at a time: each particle goes to its frame's
// place (frame_first) plus its rank within its frame in particle order (the
// ranks of the groups before, kept in shared memory, plus the earlier ones
// of its own group), the CPU's grouping (world/particles.c write_streams),
// so the order is stable and every run draws the same bytes. A rank past
// the frame's end (the host counted the frame otherwise: a division a few
// ulp off IEEE) is not written. One group: cheap for a flipbook's
// hundreds or thousands, serial past that (docs/WORLD.md). An "over"
// flipbook sorted on the device (target.w 2) has each frame's place sized
// for every particle: one invocation per particle writes its record at i
// of its own frame's place (last frame's copy past them, as above) and an
// empty record (scale -1) at i of every other frame's place, and the sort
// kernel (particles_sort.comp.glsl) groups them by frame far to near.
#extension GL_GOOGLE_include_directive : require
#include "common/oak_gpu.h"

layout(local_size_x = OAK_GPU_PARTICLE_GROUP) in;

OAK_SSBO(OAK_B_PARTICLE_IN) buffer ParticleBlock {
    oak_gpu_particle_emitter em;
    uint frame_count[OAK_PARTICLE_FRAMES];
    uint frame_first[OAK_PARTICLE_FRAMES];
    uint frame_end[OAK_PARTICLE_FRAMES];
    oak_gpu_particle parts[];
};
OAK_SSBO(OAK_B_PARTICLE_OUT) writeonly buffer RecordBlock { oak_gpu_instance records[]; };

float lerp1(float a, float b, float t) { return a + (b - a) * t; }

// keys n (> 0) at share f: the pair to lerp and the weight, held past the ends
float key_pick_color(uint n, float f, out uint i0, out uint i1) {
    i0 = 0u;
    i1 = 0u;
    if (f <= em.color_at[0].x) return 0.0;
    for (uint i = 1u; i < n; i++) {
        float t = em.color_at[i / 4u][i % 4u];
        if (f > t) continue;
        float t0 = em.color_at[(i - 1u) / 4u][(i - 1u) % 4u], span = t - t0;
        i0 = i - 1u;
        i1 = i;
        return span > 0.0 ? (f - t0) / span : 1.0;
    }
    i0 = n - 1u;
    i1 = n - 1u;
    return 0.0;
}

float key_pick_size(uint n, float f, out uint i0, out uint i1) {
    i0 = 0u;
    i1 = 0u;
    if (f <= em.size_at[0].x) return 0.0;
    for (uint i = 1u; i < n; i++) {
        float t = em.size_at[i / 4u][i % 4u];
        if (f > t) continue;
        float t0 = em.size_at[(i - 1u) / 4u][(i - 1u) % 4u], span = t - t0;
        i0 = i - 1u;
        i1 = i;
        return span > 0.0 ? (f - t0) / span : 1.0;
    }
    i0 = n - 1u;
    i1 = n - 1u;
    return 0.0;
}

vec4 qmul(vec4 a, vec4 b) {
    return vec4(a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
                a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z);
}

// the quad's +y to the eye, its -z to world up as the eye sees it
vec4 face_eye(vec3 p, vec3 eye) {
    vec3 n = eye - p;
    float l = sqrt(dot(n, n));
    if (!(l > 1e-6)) return vec4(0.0, 0.0, 0.0, 1.0);
    n /= l;
    vec3 up = vec3(-n.y * n.x, 1.0 - n.y * n.y, -n.y * n.z);
    float ul = sqrt(dot(up, up));
    if (ul < 1e-4) {
        up = vec3(n.z * n.x, n.z * n.y, -1.0 + n.z * n.z);
        ul = sqrt(dot(up, up));
    }
    up /= ul;
    // columns x = up x n, y = n, z = -up (c0, c1, c2)
    vec3 c0 = vec3(up.y * n.z - up.z * n.y, up.z * n.x - up.x * n.z, up.x * n.y - up.y * n.x);
    vec3 c1 = n, c2 = -up;
    float tr = c0.x + c1.y + c2.z;
    vec4 q;
    if (tr > 0.0) {
        float s = 2.0 * sqrt(tr + 1.0);
        q = vec4((c1.z - c2.y) / s, (c2.x - c0.z) / s, (c0.y - c1.x) / s, 0.25 * s);
    } else if (c0.x > c1.y && c0.x > c2.z) {
        float s = 2.0 * sqrt(1.0 + c0.x - c1.y - c2.z);
        q = vec4(0.25 * s, (c1.x + c0.y) / s, (c2.x + c0.z) / s, (c1.z - c2.y) / s);
    } else if (c1.y > c2.z) {
        float s = 2.0 * sqrt(1.0 + c1.y - c0.x - c2.z);
        q = vec4((c1.x + c0.y) / s, 0.25 * s, (c2.y + c1.z) / s, (c2.x - c0.z) / s);
    } else {
        float s = 2.0 * sqrt(1.0 + c2.z - c0.x - c1.y);
        q = vec4((c2.x + c0.z) / s, (c2.y + c1.z) / s, 0.25 * s, (c0.y - c1.x) / s);
    }
    return q;
}

// render/include oak.h's oak_instance_phase_pack
float phase_pack(float opacity, float share) {
    float o = clamp(opacity, 0.0, 1.0);
    float f = share > 0.0 ? min(share, 0.99996) : 0.0;
    return float(int(o * 255.0 + 0.5)) + f;
}

// the flipbook frame at age of a life (world/particles.c frame_of)
uint frame_of(float age, float life) {
    uint frames = uint(em.shape.y);
    return min(uint(clamp(age / life, 0.0, 1.0) * float(frames)), frames - 1u);
}

// particle q's record at age into records[at]; its flipbook frame
uint record(oak_gpu_particle q, float age, uint at) {
    vec3 g = em.gravity_drag.xyz, p0 = q.p0_life.xyz, v0 = q.v0_size.xyz;
    float k = em.gravity_drag.w, life = q.p0_life.w;
    vec3 p;
    if (k > 0.0) {
        float s = (1.0 - exp(-k * age)) / k;
        vec3 vt = g / k;
        p = p0 + vt * age + (v0 - vt) * s;
    } else {
        p = p0 + v0 * age + 0.5 * g * age * age;
    }
    float f = clamp(age / life, 0.0, 1.0);
    vec4 col = vec4(1.0);
    float sz = 1.0;
    uint ck = uint(em.shape.z), sk = uint(em.shape.w), a, b;
    if (ck > 0u) {
        float w = key_pick_color(ck, f, a, b);
        col = em.color[a] + (em.color[b] - em.color[a]) * w;
    }
    if (sk > 0u) {
        float w = key_pick_size(sk, f, a, b);
        sz = lerp1(em.size_value[a / 4u][a % 4u], em.size_value[b / 4u][b % 4u], w);
    }
    uint fr = frame_of(age, life);
    float scale = q.v0_size.w * sz;
    vec4 face = em.eye.w != 0.0 ? face_eye(p, em.eye.xyz) : vec4(0.0, 0.0, 0.0, 1.0);
    float lift = em.shape.x;
    vec3 pos = p;
    if (lift != 0.0) {
        vec4 o = face;
        vec3 up = vec3(-2.0 * (o.x * o.z + o.w * o.y), -2.0 * (o.y * o.z - o.w * o.x),
                       -(1.0 - 2.0 * (o.x * o.x + o.y * o.y)));
        pos += up * lift * scale;
    }
    float ang = 0.5 * (q.spin_age.x + q.spin_age.y * age);
    vec4 rot = qmul(face, vec4(0.0, sin(ang), 0.0, cos(ang)));
    records[at].position_scale = vec4(pos, scale);
    records[at].rotation = rot;
    records[at].color_phase = vec4(col.xyz, phase_pack(col.w, f));
    return fr;
}

shared uint s_frame[OAK_GPU_PARTICLE_GROUP];
shared uint s_rank[OAK_PARTICLE_FRAMES];

// target.w 1: the flipbook's stable scatter, one work group over them all
void scatter() {
    uint t = gl_LocalInvocationID.x, n = uint(em.time.y), frames = uint(em.shape.y);
    if (t < uint(OAK_PARTICLE_FRAMES)) s_rank[t] = 0u;
    barrier();
    for (uint base = 0u; base < n; base += uint(OAK_GPU_PARTICLE_GROUP)) {
        uint i = base + t;
        oak_gpu_particle q = parts[min(i, n - 1u)];
        float age = q.spin_age.z + em.time.x;
        uint fr = frame_of(age, q.p0_life.w);
        s_frame[t] = i < n ? fr : 0xffffffffu;
        barrier();
        if (i < n) {
            uint rank = s_rank[fr];
            for (uint u = 0u; u < t; u++) rank += s_frame[u] == fr ? 1u : 0u;
            uint at = frame_first[fr] + rank;
            if (at < frame_end[fr]) {
                record(q, age, at);
                if (em.target.z != 0u) record(q, age - em.time.z, em.target.y + at);
            }
            atomicAdd(frame_count[fr], 1u);
        }
        barrier();
        if (t < frames) {
            uint more = 0u;
            for (uint u = 0u; u < uint(OAK_GPU_PARTICLE_GROUP); u++)
                more += s_frame[u] == t ? 1u : 0u;
            s_rank[t] += more;
        }
        barrier();
    }
}

// target.w 2: an "over" book, particle i at i of its frame's place
void book() {
    uint i = gl_GlobalInvocationID.x, frames = uint(em.shape.y);
    if (i >= uint(em.time.y)) return;
    oak_gpu_particle q = parts[i];
    float age = q.spin_age.z + em.time.x;
    uint fr = frame_of(age, q.p0_life.w);
    for (uint k = 0u; k < frames; k++) {
        uint at = frame_first[k] + i;
        if (at >= frame_end[k]) continue; // a frame with no place in the view
        if (k != fr) {
            records[at].position_scale = vec4(0.0, 0.0, 0.0, -1.0);
            continue;
        }
        record(q, age, at);
        if (em.target.z != 0u) record(q, age - em.time.z, em.target.y + at);
    }
    atomicAdd(frame_count[fr], 1u);
}

void main() {
    if (em.target.w == 2u) {
        book();
        return;
    }
    if (em.target.w != 0u) {
        scatter();
        return;
    }
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(em.time.y)) return;
    oak_gpu_particle q = parts[i];
    float age = q.spin_age.z + em.time.x;
    atomicAdd(frame_count[record(q, age, em.target.x + i)], 1u);
    // last frame's copy (motion vectors): the same particle time.z younger
    if (em.target.z != 0u) record(q, age - em.time.z, em.target.y + i);
}
