/* Instance streams posed from a pose bank (render/pose_stream.h): the phase
 * decoded into two bank frames, the palette between them, skinning, and
 * the sphere that keeps culling conservative over every pose. */
#include "pose_stream.h"

#include <math.h>
#include <string.h>

#include "shaders/common/oak_gpu.h"
#include "oak/vecmath.h"
#include "stream.h"

/* (ints: C11 takes floating constants in a constant expression only as a
   cast's operand, and clang holds to it) */
_Static_assert((int)OAK_POSE_CLIP_SECONDS == (int)OAK_GPU_POSE_CLIP_SECONDS,
               "render.h and oak_gpu.h name one phase encoding");

_Static_assert(OAK_GPU_POSE_INFLUENCES == OAK_POSE_ROW_INFLUENCES, "one vertex's joints");
_Static_assert(OAK_GPU_POSE_BLEND_CLIPS == OAK_POSE_BANK_MAX_CLIPS, "a blend names any clip");
_Static_assert((long long)OAK_GPU_POSE_BLEND_CLIPS *OAK_GPU_POSE_BLEND_CLIPS
                       *OAK_GPU_POSE_BLEND_STEPS *OAK_GPU_POSE_BLEND_TIMES <= 16777216LL,
               "a blend's code is an integer a float holds exactly");

float oak_pose_blend_phase(uint32_t clip_a, uint32_t clip_b, float weight, float cycle) {
    if (clip_a >= OAK_GPU_POSE_BLEND_CLIPS || clip_b >= OAK_GPU_POSE_BLEND_CLIPS) {
        oak_error(OAK_ERROR_INVALID_ARGUMENT, "pose blend: clips %u and %u (at most %u)", clip_a,
                  clip_b, OAK_GPU_POSE_BLEND_CLIPS - 1);
        return 0;
    }
    float w = weight > 0 ? (weight < 1 ? weight : 1) : 0; /* NaN: 0 */
    float u = isfinite(cycle) ? cycle - floorf(cycle) : 0;
    uint32_t k = (uint32_t)lrintf(w * (OAK_GPU_POSE_BLEND_STEPS - 1));
    uint32_t n = (uint32_t)lrintf(u * OAK_GPU_POSE_BLEND_TIMES) % OAK_GPU_POSE_BLEND_TIMES;
    uint32_t code = ((clip_a * OAK_GPU_POSE_BLEND_CLIPS + clip_b) * OAK_GPU_POSE_BLEND_STEPS + k) *
                        OAK_GPU_POSE_BLEND_TIMES +
                    n;
    return -(float)code - 1.0f;
}

/* Clip and seconds of a phase that names one clip (phase >= 0; a negative
   one reaching here reads as clip 0, as it did before blends). */
static void one_clip(uint32_t clips, float phase, uint32_t *clip, float *t) {
    float c = floorf(phase / OAK_POSE_CLIP_SECONDS);
    *clip = c > 0 ? (c < (float)clips ? (uint32_t)c : clips - 1) : 0;
    *t = phase - (float)*clip * OAK_POSE_CLIP_SECONDS;
}

/* A blend's phase (negative) decoded: its clips (clamped to the bank's
   `clips`, as one clip is), clip b's weight and the share of the cycle. */
static void blend_code(uint32_t clips, float phase, uint32_t clip[2], float *w, float *u) {
    uint32_t code = (uint32_t)(-phase) - 1u;
    *u = (float)(code % OAK_GPU_POSE_BLEND_TIMES) / (float)OAK_GPU_POSE_BLEND_TIMES;
    code /= OAK_GPU_POSE_BLEND_TIMES;
    *w = (float)(code % OAK_GPU_POSE_BLEND_STEPS) / (float)(OAK_GPU_POSE_BLEND_STEPS - 1);
    code /= OAK_GPU_POSE_BLEND_STEPS;
    clip[0] = code / OAK_GPU_POSE_BLEND_CLIPS, clip[1] = code % OAK_GPU_POSE_BLEND_CLIPS;
    for (int k = 0; k < 2; k++) clip[k] = clip[k] < clips ? clip[k] : clips - 1;
}

/* A blend's clips, seconds into each and clip b's weight: pose.glsl's
   oak_pose_blend in the same steps. */
static void blend_of(const oak_pose_bank *b, float phase, uint32_t clip[2], float t[2], float *w) {
    float u;
    blend_code(oak_pose_bank_clips(b), phase, clip, w, &u);
    for (int k = 0; k < 2; k++) t[k] = u * oak_pose_bank_duration(b, clip[k]);
}

void _oak_pose_clips(uint32_t clips, float phase, uint32_t clip[2], float *share) {
    *share = 0;
    clip[0] = clip[1] = 0;
    if (!clips || _oak_pose_is_override(phase)) return;
    if (_oak_pose_is_blend(phase)) {
        float u;
        blend_code(clips, phase, clip, share, &u);
        return;
    }
    float t;
    one_clip(clips, phase, &clip[0], &t);
    clip[1] = clip[0];
}

bool _oak_pose_is_blend(float phase) {
    return phase <= -1.0f && phase >= -16777216.0f;
}

/* The bank frames around t seconds into clip `clip`. */
static void clip_frames(const oak_pose_bank *b, uint32_t clip, float t, uint32_t *f0, uint32_t *f1,
                        float *w) {
    uint32_t first = oak_pose_bank_first_frame(b, clip), n = oak_pose_bank_frames(b, clip);
    float d = oak_pose_bank_duration(b, clip);
    *f0 = *f1 = first, *w = 0;
    if (n < 2 || !(d > 0) || !isfinite(t)) return;
    /* GLSL's mod: t - d floor(t / d) */
    float u = t - d * floorf(t / d);
    float x = u / d * (float)(n - 1);
    uint32_t i = x > 0 ? (uint32_t)x : 0;
    if (i >= n - 1) i = n - 2, x = (float)(n - 1);
    *f0 = first + i, *f1 = *f0 + 1, *w = x - (float)i;
}

void _oak_pose_frames(const oak_pose_bank *b, float phase, uint32_t *f0, uint32_t *f1, float *w) {
    uint32_t clip;
    float t;
    one_clip(oak_pose_bank_clips(b), phase, &clip, &t);
    clip_frames(b, clip, t, f0, f1, w);
}

void _oak_pose_palette(const oak_pose_bank *b, const float *overrides, uint32_t slots, float phase,
                       float *palette) {
    size_t stride = (size_t)oak_pose_bank_joints(b) * 12;
    const float *data = oak_pose_bank_data(b, NULL);
    if (_oak_pose_is_override(phase)) { /* pose.glsl: one frame at weight 0 */
        uint32_t k = _oak_pose_override_slot(phase);
        memcpy(palette, k < slots && overrides ? overrides + k * stride : data,
               stride * sizeof(float));
        return;
    }
    if (_oak_pose_is_blend(phase)) {
        uint32_t clip[2], fa0, fa1, fb0, fb1;
        float t[2], w, wa, wb;
        blend_of(b, phase, clip, t, &w);
        clip_frames(b, clip[0], t[0], &fa0, &fa1, &wa);
        clip_frames(b, clip[1], t[1], &fb0, &fb1, &wb);
        const float *a0 = data + fa0 * stride, *a1 = data + fa1 * stride;
        const float *b0 = data + fb0 * stride, *b1 = data + fb1 * stride;
        for (size_t i = 0; i < stride; i++) {
            float pa = a0[i] + (a1[i] - a0[i]) * wa, pb = b0[i] + (b1[i] - b0[i]) * wb;
            palette[i] = pa + (pb - pa) * w;
        }
        return;
    }
    uint32_t f0, f1;
    float w;
    _oak_pose_frames(b, phase, &f0, &f1, &w);
    const float *a = data + f0 * stride, *c = data + f1 * stride;
    for (size_t i = 0; i < stride; i++) palette[i] = a[i] + (c[i] - a[i]) * w;
}

void _oak_quat_rotate(const float q[4], const float v[3], float out[3]) {
    float qx = q[0], qy = q[1], qz = q[2], qw = q[3];
    float t[3] = {2 * (qy * v[2] - qz * v[1]), 2 * (qz * v[0] - qx * v[2]),
                  2 * (qx * v[1] - qy * v[0])};
    out[0] = v[0] + qw * t[0] + (qy * t[2] - qz * t[1]);
    out[1] = v[1] + qw * t[1] + (qz * t[0] - qx * t[2]);
    out[2] = v[2] + qw * t[2] + (qx * t[1] - qy * t[0]);
}

void _oak_impostor_rows(const oak_instance *r, const float eye[3], float m[12], uint32_t *view) {
    /* the eye into the instance's frame: its rotation's conjugate (a
       non-unit quaternion scales the vector, which keeps its direction) */
    float d[3] = {eye[0] - r->position[0], eye[1] - r->position[1], eye[2] - r->position[2]};
    const float conj[4] = {-r->rotation[0], -r->rotation[1], -r->rotation[2], r->rotation[3]};
    float e[3];
    _oak_quat_rotate(conj, d, e);
    float l = sqrtf(e[0] * e[0] + e[2] * e[2]);
    float s = l > 1e-6f ? e[0] / l : 0, c = l > 1e-6f ? e[2] / l : 1;
    const float k[12] = {c, 0, s, 0, 0, 1, 0, 0, -s, 0, c, 0};
    memcpy(m, k, sizeof k);
    if (view)
        *view = (uint32_t)(int)floorf(atan2f(s, c) * (OAK_IMPOSTOR_VIEWS / (2 * OAK_PI)) + 0.5f) &
                (OAK_IMPOSTOR_VIEWS - 1);
}

uint32_t _oak_impostor_frame(const oak_pose_bank *b, float phase) {
    if (_oak_pose_is_override(phase)) return 0; /* no clip time to show (near figures only) */
    uint32_t clips = oak_pose_bank_clips(b);
    if (_oak_pose_is_blend(phase)) { /* a blend's share of its cycle */
        uint32_t clip[2];
        float w, u;
        blend_code(clips, phase, clip, &w, &u);
        return (uint32_t)(int)floorf(u * OAK_IMPOSTOR_FRAMES + 0.5f) & (OAK_IMPOSTOR_FRAMES - 1);
    }
    uint32_t clip;
    float t;
    one_clip(clips, phase, &clip, &t);
    float d = oak_pose_bank_duration(b, clip);
    if (!(d > 0) || !isfinite(t)) return 0;
    float u = t - d * floorf(t / d);
    return (uint32_t)(int)floorf(u / d * OAK_IMPOSTOR_FRAMES + 0.5f) & (OAK_IMPOSTOR_FRAMES - 1);
}

void _oak_impostor_pose(const oak_pose_bank *b, const oak_instance *rec, const oak_instance *prev,
                        const float eye[3], float *palette) {
    size_t stride = (size_t)oak_pose_bank_joints(b) * 12;
    uint32_t view;
    _oak_impostor_rows(rec, eye, palette, &view);
    palette[12] = (float)view / OAK_IMPOSTOR_VIEWS;
    palette[13] = (float)_oak_impostor_frame(b, rec->phase) / OAK_IMPOSTOR_FRAMES;
    _oak_impostor_rows(prev, eye, palette + stride, NULL);
}

bool _oak_pose_sphere(const oak_pose_bank *b, oak_mesh mesh, float out[4]) {
    const oak_mesh_data *md = oak_mesh_get(mesh);
    uint32_t joints = oak_pose_bank_joints(b);
    if (!md || !md->joints || !md->weights) {
        oak_error(OAK_ERROR_INVALID_ARGUMENT, "posed stream: a LOD mesh has no joints and weights");
        return false;
    }
    for (size_t i = 0; i < (size_t)md->vertex_count * 4; i++)
        if (md->joints[i] >= joints) {
            oak_error(OAK_ERROR_INVALID_ARGUMENT,
                      "posed stream: a vertex names joint %u, the bank has %u", md->joints[i],
                      joints);
            return false;
        }
    size_t floats = 0;
    const float *data = oak_pose_bank_data(b, &floats);
    uint32_t frames = (uint32_t)(floats / ((size_t)joints * 12));
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    /* two sweeps over every frame and vertex: the box's centre, then the
       farthest point from it */
    for (int sweep = 0; sweep < 2; sweep++) {
        float c[3] = {(lo[0] + hi[0]) * 0.5f, (lo[1] + hi[1]) * 0.5f, (lo[2] + hi[2]) * 0.5f};
        float r2 = 0;
        for (uint32_t f = 0; f < frames; f++) {
            const float *pal = data + (size_t)f * joints * 12;
            for (uint32_t v = 0; v < md->vertex_count; v++) {
                float m[12], p[3];
                _oak_pose_skin(pal, md->joints + (size_t)v * 4, md->weights + (size_t)v * 4, m);
                _oak_pose_apply(m, md->positions + (size_t)v * 3, 1, p);
                for (int k = 0; k < 3 && sweep == 0; k++) {
                    lo[k] = p[k] < lo[k] ? p[k] : lo[k];
                    hi[k] = p[k] > hi[k] ? p[k] : hi[k];
                }
                if (sweep == 1) {
                    float d2 = (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]) * (p[1] - c[1]) +
                               (p[2] - c[2]) * (p[2] - c[2]);
                    r2 = d2 > r2 ? d2 : r2;
                }
            }
        }
        if (sweep == 1) {
            memcpy(out, c, sizeof c);
            out[3] = sqrtf(r2) * 1.0001f + 1e-6f; /* rounding on the GPU's side of it */
        }
    }
    if (!frames || !isfinite(out[3])) { /* an empty bank: the rest bounds */
        memcpy(out, md->bounds.center, sizeof(float) * 3);
        out[3] = md->bounds.radius;
    }
    return true;
}

uint32_t oak_stream_instance_points(const oak_stream *s, uint32_t i, uint32_t lod, float *xyz,
                                    uint32_t capacity) {
    if (!s || i >= s->count || lod >= s->desc.lod_count || (capacity && !xyz)) return 0;
    const oak_mesh_data *md = oak_mesh_get(s->desc.lods[lod].mesh);
    if (!md) return 0;
    const oak_pose_bank *b = s->desc.pose_bank;
    float *pal = NULL;
    if (b) {
        pal = oak_alloc(sizeof(float) * 12 * oak_pose_bank_joints(b));
        if (!pal) return 0;
        _oak_pose_palette(b, s->overrides, 2 * s->desc.pose_overrides, s->records[i].phase, pal);
    }
    mat4 world;
    _oak_instance_matrix(NULL, &s->records[i], world);
    uint32_t n = md->vertex_count < capacity ? md->vertex_count : capacity;
    for (uint32_t v = 0; v < n; v++) {
        float p[3], m[12];
        memcpy(p, md->positions + (size_t)v * 3, sizeof p);
        if (pal) {
            float q[3];
            _oak_pose_skin(pal, md->joints + (size_t)v * 4, md->weights + (size_t)v * 4, m);
            _oak_pose_apply(m, p, 1, q);
            memcpy(p, q, sizeof p);
        }
        for (int r = 0; r < 3; r++)
            xyz[(size_t)v * 3 + r] =
                world[0][r] * p[0] + world[1][r] * p[1] + world[2][r] * p[2] + world[3][r];
    }
    oak_free(pal);
    return n;
}
