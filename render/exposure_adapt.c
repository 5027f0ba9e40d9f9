/* Eye adaptation's arithmetic (render/exposure_adapt.h): the histogram's
 * bins and weights, the meter, the night-keeping target and the asymmetric
 * exponential step. A backend's exposure pass fills the histogram (the CPU
 * through _oak_meter_image) and steers with these. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include <oak/core.h>

#include "exposure_adapt.h"

#define BIN_WIDTH ((OAK_METER_LOG_MAX - OAK_METER_LOG_MIN) / (OAK_METER_BINS - 1))

uint32_t _oak_meter_bin(float luminance) {
    if (!(luminance > 0)) return 0; /* black, negative and NaN are not metered */
    double t = (log2((double)luminance) - OAK_METER_LOG_MIN) / BIN_WIDTH;
    if (t < 0) return 0;
    if (t >= OAK_METER_BINS - 2) return OAK_METER_BINS - 1;
    return 1 + (uint32_t)t;
}

uint32_t _oak_meter_weight(uint32_t x, uint32_t y, uint32_t w, uint32_t h) {
    /* pixel centres against an ellipse of half-axes w/4 and h/4, in integers
       scaled by 2 so both backends decide the same: (2x+1-w)^2/(w/2)^2 + ... <= 1 */
    int64_t dx = 2 * (int64_t)x + 1 - w, dy = 2 * (int64_t)y + 1 - h;
    int64_t a = w > 1 ? w / 2 : 1, b = h > 1 ? h / 2 : 1;
    bool inside = dx * dx * b * b + dy * dy * a * a <= a * a * b * b;
    return inside ? OAK_METER_CENTRE_WEIGHT : 1;
}

typedef struct meter_job {
    uint32_t hist[OAK_JOB_MAX_THREADS][OAK_METER_BINS];
    const float *rgb;
    uint32_t w, h;
} meter_job;

static void meter_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    meter_job *j = user;
    uint32_t *hist = j->hist[worker < OAK_JOB_MAX_THREADS ? worker : 0];
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < j->w; x++) {
            const float *c = j->rgb + ((size_t)y * j->w + x) * 3;
            float lum = 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
            hist[_oak_meter_bin(lum)] += _oak_meter_weight(x, y, j->w, j->h);
        }
}

void _oak_meter_image(uint32_t *hist, const float *rgb, uint32_t w, uint32_t h) {
    static meter_job job; /* 16 KiB of counts: kept off the stack */
    memset(job.hist, 0, sizeof job.hist);
    job.rgb = rgb, job.w = w, job.h = h;
    oak_parallel_for(h, 16, meter_rows, &job);
    for (uint32_t t = 0; t < OAK_JOB_MAX_THREADS; t++)
        for (uint32_t i = 0; i < OAK_METER_BINS; i++) hist[i] += job.hist[t][i];
}

float _oak_meter_ev100(const uint32_t *hist, bool *ok) {
    double sum = 0, count = 0;
    for (uint32_t i = 1; i < OAK_METER_BINS; i++) {
        double centre = OAK_METER_LOG_MIN + ((double)i - 0.5) * BIN_WIDTH;
        sum += centre * hist[i];
        count += hist[i];
    }
    *ok = count > 0;
    if (!*ok) return 0;
    return (float)(sum / count + log2(100.0 / OAK_EXPOSURE_METER_K));
}

float _oak_adapt_target(float metered) {
    double t = metered;
    if (t < OAK_ADAPT_NIGHT_EV)
        t = OAK_ADAPT_NIGHT_EV - (OAK_ADAPT_NIGHT_EV - t) * OAK_ADAPT_NIGHT_KEEP;
    if (!(t >= OAK_ADAPT_EV_MIN)) t = OAK_ADAPT_EV_MIN; /* NaN too */
    if (t > OAK_ADAPT_EV_MAX) t = OAK_ADAPT_EV_MAX;
    return (float)t;
}

float _oak_adapt_step(float current, float target, float dt) {
    double tau = target > current ? OAK_ADAPT_DOWN_S : OAK_ADAPT_UP_S;
    double k = dt > 0 ? 1.0 - exp(-(double)dt / tau) : 0.0;
    return (float)(current + (target - current) * k);
}
