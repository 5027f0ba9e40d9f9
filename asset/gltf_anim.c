/* Keyframe sampling as glTF 2.0 defines it (Appendix C): STEP holds a key,
 * LINEAR lerps (slerps rotations the shorter way), CUBICSPLINE evaluates
 * the Hermite form with tangents scaled by the key interval. Clamped at the
 * ends. Pure functions: the animation system calls them per channel. */
#include <math.h>
#include <string.h>

#include <oak/gltf.h>

static void normalize4(float *q) {
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0)
        for (int i = 0; i < 4; i++) q[i] /= n;
}

static void slerp(float *out, const float *a, const float *b_in, float u) {
    float b[4];
    memcpy(b, b_in, sizeof b);
    float d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (d < 0) {
        for (int i = 0; i < 4; i++) b[i] = -b[i];
        d = -d;
    }
    float s0, s1;
    if (d > 0.9995f) { /* nearly parallel: lerp, then normalize */
        s0 = 1 - u;
        s1 = u;
    } else {
        float theta0 = acosf(d), theta = theta0 * u;
        float st = sinf(theta), st0 = sinf(theta0);
        s0 = cosf(theta) - d * st / st0;
        s1 = st / st0;
    }
    for (int i = 0; i < 4; i++) out[i] = s0 * a[i] + s1 * b[i];
    normalize4(out);
}

/* Index of the value (not tangent) of key k. */
static const float *key_value(const oak_anim_sampler *s, uint32_t k) {
    if (s->interp == OAK_INTERP_CUBICSPLINE) return s->values + ((size_t)k * 3 + 1) * s->width;
    return s->values + (size_t)k * s->width;
}

void oak_anim_sample(float *out, const oak_anim_sampler *s, float t, bool rotation) {
    if (!s || !s->key_count || !s->width) return;
    uint32_t n = s->key_count, w = s->width;
    if (n == 1 || !(t > s->times[0])) { /* NaN holds the first key too */
        memcpy(out, key_value(s, 0), w * sizeof(float));
        if (rotation && w == 4) normalize4(out);
        return;
    }
    if (t >= s->times[n - 1]) {
        memcpy(out, key_value(s, n - 1), w * sizeof(float));
        if (rotation && w == 4) normalize4(out);
        return;
    }
    uint32_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->times[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    float td = s->times[hi] - s->times[lo];
    float u = td > 0 ? (t - s->times[lo]) / td : 0;
    const float *a = key_value(s, lo), *b = key_value(s, hi);
    switch (s->interp) {
    case OAK_INTERP_STEP:
        memcpy(out, a, w * sizeof(float));
        break;
    case OAK_INTERP_CUBICSPLINE: {
        const float *out_tan = s->values + ((size_t)lo * 3 + 2) * w;
        const float *in_tan = s->values + ((size_t)hi * 3) * w;
        float u2 = u * u, u3 = u2 * u;
        float h00 = 2 * u3 - 3 * u2 + 1, h10 = u3 - 2 * u2 + u;
        float h01 = -2 * u3 + 3 * u2, h11 = u3 - u2;
        for (uint32_t i = 0; i < w; i++)
            out[i] = h00 * a[i] + td * h10 * out_tan[i] + h01 * b[i] + td * h11 * in_tan[i];
        break;
    }
    default:
        if (rotation && w == 4) {
            slerp(out, a, b, u);
            return;
        }
        for (uint32_t i = 0; i < w; i++) out[i] = a[i] + (b[i] - a[i]) * u;
        break;
    }
    if (rotation && w == 4) normalize4(out);
}
