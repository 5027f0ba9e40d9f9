/* Eye adaptation's arithmetic (render/exposure_adapt.h): the histogram's
 * bins and weights, the meter, the night-keeping target and the asymmetric
 * exponential step. A backend's exposure pass fills the histogram (the CPU
 * through _oak_meter_image) and steers with these. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include <oak/core.h>

#include "exposure_adapt.h"

#define BIN_WIDTH ((OAK_METER_LOG_MAX - OAK_METER_LOG_MIN) / (OAK_METER_BINS - 1))

/* The bins' lower edges in cd/m^2: g_edges[k] = 2^(LOG_MIN + k * width)
   starts bin k + 1 (and g_edges[63] = infinity closes the last). A
   per-pixel log2 in double cost the CPU pass twice post's time at
   1280 x 720; a branch-free binary search over the edges (six compares) is
   the same rule up to an edge's last bit of rounding. */
_Static_assert(OAK_METER_BINS == 64, "the search below takes six halvings of 64 edges");
static float g_edges[OAK_METER_BINS];
static pthread_once_t g_edges_once = PTHREAD_ONCE_INIT;

static void edges_init(void) {
    for (uint32_t k = 0; k < OAK_METER_BINS - 1; k++)
        g_edges[k] = (float)exp2(OAK_METER_LOG_MIN + k * BIN_WIDTH);
    g_edges[OAK_METER_BINS - 1] = INFINITY;
}

static inline uint32_t bin_of(float luminance) {
    /* black, negative, NaN and below 2^LOG_MIN are not metered */
    if (!(luminance >= g_edges[0])) return 0;
    uint32_t lo = 0; /* the last edge at or below the luminance */
    for (uint32_t step = OAK_METER_BINS / 2; step; step /= 2)
        lo += luminance >= g_edges[lo + step] ? step : 0;
    return lo >= OAK_METER_BINS - 2 ? OAK_METER_BINS - 1 : 1 + lo;
}

uint32_t _oak_meter_bin(float luminance) {
    pthread_once(&g_edges_once, edges_init);
    return bin_of(luminance);
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
    int64_t w = j->w, h = j->h, a = w > 1 ? w / 2 : 1, b = h > 1 ? h / 2 : 1;
    for (uint32_t y = begin; y < end; y++) {
        /* _oak_meter_weight's test per row: dx^2 b^2 <= a^2 b^2 - dy^2 a^2 = r,
           so inside when dx^2 <= floor(r / b^2) (none when r < 0) */
        int64_t dy = 2 * (int64_t)y + 1 - h, r = a * a * b * b - dy * dy * a * a;
        int64_t most = r < 0 ? -1 : r / (b * b);
        const float *c = j->rgb + (size_t)y * j->w * 3;
        for (uint32_t x = 0; x < j->w; x++, c += 3) {
            float lum = 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
            int64_t dx = 2 * (int64_t)x + 1 - w;
            hist[bin_of(lum)] += dx * dx <= most ? OAK_METER_CENTRE_WEIGHT : 1;
        }
    }
}

void _oak_meter_image(uint32_t *hist, const float *rgb, uint32_t w, uint32_t h) {
    pthread_once(&g_edges_once, edges_init);
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
