// Instances posed from a pose bank (oak_gpu.h "Pose blocks"; the CPU's
// twin is render/pose_stream.c): the phase names a clip and a time (or,
// negative, a blend of two clips at one share of their cycles), the two
// nearest bank frames are lerped joint by joint (then a blend's two
// clips), and a vertex's four joints weigh them into its skinning rows. Needs stream_heads and
// stream_records (common/draw.glsl). Every step in the CPU's order, so the
// backends pose the same vertex to rounding.
#ifndef OAK_POSE_GLSL
#define OAK_POSE_GLSL

// The bank frames around t seconds into `clip` of stream s's bank and the
// second's weight.
void oak_pose_clip_frames(uint s, uint clip, float t, out uint f0, out uint f1, out float w) {
    // first frame, frames, duration
    vec4 info = stream_records[stream_heads[s].pose.x + clip].position_scale;
    uint first = uint(info.x), n = uint(info.y);
    float d = info.z;
    f0 = first;
    f1 = first;
    w = 0.0;
    if (n < 2u || !(d > 0.0) || isnan(t) || isinf(t)) return;
    float u = t - d * floor(t / d);
    float x = u / d * float(n - 1u);
    uint i = x > 0.0 ? uint(x) : 0u;
    if (i >= n - 1u) {
        i = n - 2u;
        x = float(n - 1u);
    }
    f0 = first + i;
    f1 = f0 + 1u;
    w = x - float(i);
}

// The bank frames around `phase` (one clip) in stream s's block and the
// second's weight; an override phase (below -2^24, oak_gpu.h "Pose blocks")
// names one frame after the bank's, at weight 0: the one branch overrides
// take, so the posing code stays one copy (lavapipe compiles every inlined
// copy of it).
void oak_pose_frames(uint s, float phase, out uint f0, out uint f1, out float w) {
    uvec4 ps = stream_heads[s].pose;
    if (phase < -OAK_GPU_POSE_OVERRIDE_BASE) {
        vec4 last = stream_records[ps.x + ps.z - 1u].position_scale;
        f0 = uint(last.x + last.y) + uint((-phase - OAK_GPU_POSE_OVERRIDE_BASE) * 0.5) - 1u;
        f1 = f0;
        w = 0.0;
        return;
    }
    float c = floor(phase / OAK_GPU_POSE_CLIP_SECONDS);
    uint clip = c > 0.0 ? (c < float(ps.z) ? uint(c) : ps.z - 1u) : 0u;
    float t = phase - float(clip) * OAK_GPU_POSE_CLIP_SECONDS;
    oak_pose_clip_frames(s, clip, t, f0, f1, w);
}

// A negative integer phase blends two clips (oak_gpu.h "Pose blocks").
bool oak_pose_is_blend(float phase) {
    return phase <= -1.0 && phase >= -16777216.0;
}

// A blend's frames: clip a's (fa, wa.x), clip b's (fb, wa.y), and clip b's
// weight over a (wa.z); render/pose_stream.c blend_of in the same steps.
void oak_pose_blend(uint s, float phase, out uvec2 fa, out uvec2 fb, out vec3 wa) {
    uvec4 ps = stream_heads[s].pose;
    uint code = uint(-phase) - 1u;
    uint n = code % uint(OAK_GPU_POSE_BLEND_TIMES);
    code /= uint(OAK_GPU_POSE_BLEND_TIMES);
    wa.z = float(code % uint(OAK_GPU_POSE_BLEND_STEPS)) / float(OAK_GPU_POSE_BLEND_STEPS - 1);
    code /= uint(OAK_GPU_POSE_BLEND_STEPS);
    uint ca = code / uint(OAK_GPU_POSE_BLEND_CLIPS), cb = code % uint(OAK_GPU_POSE_BLEND_CLIPS);
    if (ca >= ps.z) ca = ps.z - 1u;
    if (cb >= ps.z) cb = ps.z - 1u;
    float u = float(n) / float(OAK_GPU_POSE_BLEND_TIMES);
    oak_pose_clip_frames(s, ca, u * stream_records[ps.x + ca].position_scale.z, fa.x, fa.y, wa.x);
    oak_pose_clip_frames(s, cb, u * stream_records[ps.x + cb].position_scale.z, fb.x, fb.y, wa.y);
}

// k times joint j's rows, lerped between frames f0 and f1 by w, added to r.
void oak_pose_add(uint at, uint joints, uint f0, uint f1, float w, float jf, float k,
                  inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    uint a = at + f0 * joints + uint(jf), b = at + f1 * joints + uint(jf);
    vec4 a0 = stream_records[a].position_scale, b0 = stream_records[b].position_scale;
    vec4 a1 = stream_records[a].rotation, b1 = stream_records[b].rotation;
    vec4 a2 = stream_records[a].color_phase, b2 = stream_records[b].color_phase;
    r0 += k * (a0 + (b0 - a0) * w);
    r1 += k * (a1 + (b1 - a1) * w);
    r2 += k * (a2 + (b2 - a2) * w);
}

// k times joint j's rows of a blend (oak_pose_blend's frames and weights),
// added to r: each clip's two frames lerped, then the two clips.
void oak_pose_add_blend(uint at, uint joints, uvec2 fa, uvec2 fb, vec3 wa, float jf, float k,
                        inout vec4 r0, inout vec4 r1, inout vec4 r2) {
    uint j = uint(jf);
    uint a = at + fa.x * joints + j, a1 = at + fa.y * joints + j;
    uint b = at + fb.x * joints + j, b1 = at + fb.y * joints + j;
    vec4 p0 = stream_records[a].position_scale, q0 = stream_records[a1].position_scale;
    vec4 p1 = stream_records[a].rotation, q1 = stream_records[a1].rotation;
    vec4 p2 = stream_records[a].color_phase, q2 = stream_records[a1].color_phase;
    vec4 pa0 = p0 + (q0 - p0) * wa.x, pa1 = p1 + (q1 - p1) * wa.x, pa2 = p2 + (q2 - p2) * wa.x;
    p0 = stream_records[b].position_scale, q0 = stream_records[b1].position_scale;
    p1 = stream_records[b].rotation, q1 = stream_records[b1].rotation;
    p2 = stream_records[b].color_phase, q2 = stream_records[b1].color_phase;
    vec4 pb0 = p0 + (q0 - p0) * wa.y, pb1 = p1 + (q1 - p1) * wa.y, pb2 = p2 + (q2 - p2) * wa.y;
    r0 += k * (pa0 + (pb0 - pa0) * wa.z);
    r1 += k * (pa1 + (pb1 - pa1) * wa.z);
    r2 += k * (pa2 + (pb2 - pa2) * wa.z);
}

// The skinning rows of vertex v (its index inside LOD lod's mesh) of stream
// s at `phase`.
void oak_pose_rows(uint s, uint lod, uint v, float phase, out vec4 r0, out vec4 r1,
                   out vec4 r2) {
    uvec4 ps = stream_heads[s].pose;
    uint sv = stream_heads[s].pose_lod[lod] + v;
    vec4 j = stream_records[sv].position_scale, k = stream_records[sv].rotation;
    uint at = ps.x + ps.z; // the palettes, after the clip table
    r0 = vec4(0.0);
    r1 = vec4(0.0);
    r2 = vec4(0.0);
    if (oak_pose_is_blend(phase)) {
        uvec2 fa, fb;
        vec3 wa;
        oak_pose_blend(s, phase, fa, fb, wa);
        oak_pose_add_blend(at, ps.y, fa, fb, wa, j.x, k.x, r0, r1, r2);
        oak_pose_add_blend(at, ps.y, fa, fb, wa, j.y, k.y, r0, r1, r2);
        oak_pose_add_blend(at, ps.y, fa, fb, wa, j.z, k.z, r0, r1, r2);
        oak_pose_add_blend(at, ps.y, fa, fb, wa, j.w, k.w, r0, r1, r2);
        return;
    }
    uint f0, f1;
    float w;
    oak_pose_frames(s, phase, f0, f1, w);
    oak_pose_add(at, ps.y, f0, f1, w, j.x, k.x, r0, r1, r2);
    oak_pose_add(at, ps.y, f0, f1, w, j.y, k.y, r0, r1, r2);
    oak_pose_add(at, ps.y, f0, f1, w, j.z, k.z, r0, r1, r2);
    oak_pose_add(at, ps.y, f0, f1, w, j.w, k.w, r0, r1, r2);
}

bool oak_stream_posed(uint s) {
    return stream_heads[s].pose.y != 0u;
}

// p (w = 1: a point; 0: a direction) through skinning rows.
vec4 oak_pose_apply(vec4 r0, vec4 r1, vec4 r2, vec4 p) {
    return vec4(dot(r0, p), dot(r1, p), dot(r2, p), p.w);
}

// Impostor cards (render.h oak_stream_desc impostor_lod; the CPU's twins
// are render/pose_stream.c _oak_impostor_rows and _oak_impostor_frame):
// whether LOD lod of stream s is its card.
bool oak_impostor_lod(uint s, uint lod) {
    return stream_heads[s].pose.w != 0u && stream_heads[s].pose.w == lod;
}

// The card's rows for record r: turned about the instance's +y toward the
// eye (the stream head's, the camera's in every pass), and the view its
// angle picks, nearest of OAK_IMPOSTOR_VIEWS.
void oak_impostor_rows(uint s, oak_gpu_instance r, out vec4 r0, out vec4 r1, out vec4 r2,
                       out uint view) {
    // the eye into the instance's frame by its rotation's conjugate
    vec3 d = stream_heads[s].eye.xyz - r.position_scale.xyz;
    vec3 q = -r.rotation.xyz;
    vec3 t = 2.0 * cross(q, d);
    vec3 e = d + r.rotation.w * t + cross(q, t);
    float l = sqrt(e.x * e.x + e.z * e.z);
    float sn = l > 1e-6 ? e.x / l : 0.0, c = l > 1e-6 ? e.z / l : 1.0;
    r0 = vec4(c, 0.0, sn, 0.0);
    r1 = vec4(0.0, 1.0, 0.0, 0.0);
    r2 = vec4(-sn, 0.0, c, 0.0);
    float k = floor(atan(sn, c) * (float(OAK_IMPOSTOR_VIEWS) / (2.0 * 3.14159265358979)) + 0.5);
    view = uint(int(k)) & uint(OAK_IMPOSTOR_VIEWS - 1);
}

// The walk frame nearest the phase's share of its clip.
uint oak_impostor_frame(uint s, float phase) {
    if (oak_pose_is_blend(phase)) { // a blend's share of its cycle
        uint n = (uint(-phase) - 1u) % uint(OAK_GPU_POSE_BLEND_TIMES);
        float fb = floor(float(n) / float(OAK_GPU_POSE_BLEND_TIMES) * float(OAK_IMPOSTOR_FRAMES) + 0.5);
        return uint(int(fb)) & uint(OAK_IMPOSTOR_FRAMES - 1);
    }
    if (phase < -OAK_GPU_POSE_OVERRIDE_BASE) return 0u; // no clip time (near figures only)
    uvec4 ps = stream_heads[s].pose;
    float c = floor(phase / OAK_GPU_POSE_CLIP_SECONDS);
    uint clip = c > 0.0 ? (c < float(ps.z) ? uint(c) : ps.z - 1u) : 0u;
    float t = phase - float(clip) * OAK_GPU_POSE_CLIP_SECONDS;
    float d = stream_records[ps.x + clip].position_scale.z;
    if (!(d > 0.0) || isnan(t) || isinf(t)) return 0u;
    float u = t - d * floor(t / d);
    float f = floor(u / d * float(OAK_IMPOSTOR_FRAMES) + 0.5);
    return uint(int(f)) & uint(OAK_IMPOSTOR_FRAMES - 1);
}

// The uv offset of record rec's cell on LOD lod (0 but on the card).
vec2 oak_impostor_uv(uint s, uint lod, uint rec) {
    if (!oak_impostor_lod(s, lod)) return vec2(0.0);
    vec4 r0, r1, r2;
    uint view;
    oak_impostor_rows(s, stream_records[rec], r0, r1, r2, view);
    return vec2(float(view) / float(OAK_IMPOSTOR_VIEWS),
                float(oak_impostor_frame(s, stream_records[rec].color_phase.w)) /
                    float(OAK_IMPOSTOR_FRAMES));
}

// The rows of vertex v of LOD lod of posed stream s for record rec (this
// frame's, or its last-frame copy): the bank's skinning, or the card's.
void oak_stream_rows(uint s, uint lod, uint v, uint rec, out vec4 r0, out vec4 r1,
                     out vec4 r2) {
    if (oak_impostor_lod(s, lod)) {
        uint view;
        oak_impostor_rows(s, stream_records[rec], r0, r1, r2, view);
    } else
        oak_pose_rows(s, lod, v, stream_records[rec].color_phase.w, r0, r1, r2);
}

// The material slot LOD lod of stream s draws in.
uint oak_stream_material(uint s, uint lod) {
    return oak_impostor_lod(s, lod) ? stream_heads[s].prev.w : stream_heads[s].draw.x;
}

// Mesh-space point p of vertex v in LOD lod of stream s, posed at phase.
vec4 oak_pose_point(uint s, uint lod, uint v, float phase, vec4 p) {
    vec4 r0, r1, r2;
    oak_pose_rows(s, lod, v, phase, r0, r1, r2);
    return oak_pose_apply(r0, r1, r2, p);
}
#endif
