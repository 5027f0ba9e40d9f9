/* One particle's record from its birth state (render/particle_eval.h): the
 * closed-form flight from the birth, the keys by the share of the life, the
 * quad turned to the eye and spun; shaders/particles.comp.glsl is its twin,
 * line for line, so the two differ only by the device's float rounding. */
#include <math.h>
#include <string.h>

#include "particle_eval.h"
#include "stream.h"

static float lerpf(float a, float b, float t) {
    return a + (b - a) * t;
}

/* Keys n (> 0) at share f of a life (key i's t at at[i / 4][i % 4]): the
   pair to lerp and the weight, held past the ends. */
static float key_pick(const float at[][4], uint32_t n, float f, uint32_t *i0, uint32_t *i1) {
    *i0 = *i1 = 0;
    if (f <= at[0][0]) return 0;
    for (uint32_t i = 1; i < n; i++) {
        float t = at[i / 4][i % 4];
        if (f > t) continue;
        float t0 = at[(i - 1) / 4][(i - 1) % 4], span = t - t0;
        *i0 = i - 1, *i1 = i;
        return span > 0 ? (f - t0) / span : 1;
    }
    *i0 = *i1 = n - 1;
    return 0;
}

/* q = a * b */
static void qmul(float q[4], const float a[4], const float b[4]) {
    q[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    q[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    q[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    q[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

/* The quad (x-z, facing +y, its texture's top at -z) turned to face the
   eye from p: +y onto the direction to the eye, -z onto world up as the
   eye sees it (upright: a flame stands), +x across; looking straight up
   or down, -z takes world -z instead. */
static void face_eye(float q[4], const float p[3], const float eye[3]) {
    float n[3] = {eye[0] - p[0], eye[1] - p[1], eye[2] - p[2]};
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(l > 1e-6f)) return;
    for (int c = 0; c < 3; c++) n[c] /= l;
    float up[3] = {-n[1] * n[0], 1 - n[1] * n[1], -n[1] * n[2]}; /* y less its n part */
    float ul = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    if (ul < 1e-4f) { /* -z less its n part */
        up[0] = n[2] * n[0], up[1] = n[2] * n[1], up[2] = -1 + n[2] * n[2];
        ul = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    }
    for (int c = 0; c < 3; c++) up[c] /= ul;
    /* columns: x = up x n, y = n, z = -up */
    float m[3][3] = {
        {up[1] * n[2] - up[2] * n[1], up[2] * n[0] - up[0] * n[2], up[0] * n[1] - up[1] * n[0]},
        {n[0], n[1], n[2]},
        {-up[0], -up[1], -up[2]}};
    /* matrix to quaternion (m[col][row]) */
    float tr = m[0][0] + m[1][1] + m[2][2];
    if (tr > 0) {
        float s = 2 * sqrtf(tr + 1);
        q[3] = 0.25f * s;
        q[0] = (m[1][2] - m[2][1]) / s, q[1] = (m[2][0] - m[0][2]) / s;
        q[2] = (m[0][1] - m[1][0]) / s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        float s = 2 * sqrtf(1 + m[0][0] - m[1][1] - m[2][2]);
        q[3] = (m[1][2] - m[2][1]) / s, q[0] = 0.25f * s;
        q[1] = (m[1][0] + m[0][1]) / s, q[2] = (m[2][0] + m[0][2]) / s;
    } else if (m[1][1] > m[2][2]) {
        float s = 2 * sqrtf(1 + m[1][1] - m[0][0] - m[2][2]);
        q[3] = (m[2][0] - m[0][2]) / s, q[0] = (m[1][0] + m[0][1]) / s;
        q[1] = 0.25f * s, q[2] = (m[2][1] + m[1][2]) / s;
    } else {
        float s = 2 * sqrtf(1 + m[2][2] - m[0][0] - m[1][1]);
        q[3] = (m[0][1] - m[1][0]) / s, q[0] = (m[2][0] + m[0][2]) / s;
        q[1] = (m[2][1] + m[1][2]) / s, q[2] = 0.25f * s;
    }
}

uint32_t _oak_particle_frame(uint32_t frames, float age, float life) {
    float f = age / life;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    uint32_t fr = (uint32_t)(f * (float)frames);
    return fr < frames ? fr : frames - 1;
}

uint32_t _oak_particle_record(const oak_gpu_particle_emitter *c, const oak_gpu_particle *q,
                              float age, oak_instance *r) {
    const float *g = c->gravity_drag, *p0 = q->p0_life, *v0 = q->v0_size;
    float k = c->gravity_drag[3], life = q->p0_life[3];
    /* dv/dt = g - k v from the birth: for k > 0 v relaxes to the terminal
       g / k by e^(-k a) and the position takes its integral; k = 0 the
       parabola */
    float p[3];
    if (k > 0) {
        float s = (1 - expf(-k * age)) / k;
        for (int i = 0; i < 3; i++) {
            float vt = g[i] / k;
            p[i] = p0[i] + vt * age + (v0[i] - vt) * s;
        }
    } else {
        for (int i = 0; i < 3; i++) p[i] = p0[i] + v0[i] * age + 0.5f * g[i] * age * age;
    }
    float f = age / life;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    float col[4] = {1, 1, 1, 1}, sz[4] = {1, 0, 0, 0};
    uint32_t ck = (uint32_t)c->shape[2], sk = (uint32_t)c->shape[3];
    uint32_t a, b;
    if (ck) {
        float w = key_pick(c->color_at, ck, f, &a, &b);
        for (int i = 0; i < 4; i++) col[i] = lerpf(c->color[a][i], c->color[b][i], w);
    }
    if (sk) {
        float w = key_pick(c->size_at, sk, f, &a, &b);
        sz[0] = lerpf(c->size_value[a / 4][a % 4], c->size_value[b / 4][b % 4], w);
    }
    uint32_t fr = _oak_particle_frame((uint32_t)c->shape[1], age, life);
    memcpy(r->position, p, sizeof p);
    r->scale = q->v0_size[3] * sz[0];
    float face[4] = {0, 0, 0, 1};
    if (c->eye[3] != 0) face_eye(face, p, c->eye);
    float lift = c->shape[0];
    if (lift != 0) { /* raised along the quad's up (-z turned by the facing) */
        const float *o = face;
        float up[3] = {-2 * (o[0] * o[2] + o[3] * o[1]), -2 * (o[1] * o[2] - o[3] * o[0]),
                       -(1 - 2 * (o[0] * o[0] + o[1] * o[1]))};
        for (int i = 0; i < 3; i++) r->position[i] += up[i] * lift * r->scale;
    }
    float ang = 0.5f * (q->spin_age[0] + q->spin_age[1] * age);
    float spin[4] = {0, sinf(ang), 0, cosf(ang)};
    qmul(r->rotation, face, spin);
    memcpy(r->color, col, sizeof r->color);
    r->phase = oak_instance_phase_pack(col[3], f);
    return fr;
}

float _oak_blend_unit_key(const oak_render_view *v, uint32_t draw, const float cam[3], float key) {
    if (!v || !v->draws.unit || draw >= v->draws.count) return key;
    uint32_t u = v->draws.unit[draw];
    if (!u || u > v->stream_count || !v->streams[u - 1].stream) return key;
    const float *p = v->streams[u - 1].stream->unit_point;
    if (p[3] == 0) return key;
    return (p[0] - cam[0]) * (p[0] - cam[0]) + (p[1] - cam[1]) * (p[1] - cam[1]) +
           (p[2] - cam[2]) * (p[2] - cam[2]);
}
