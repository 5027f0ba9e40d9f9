/* Eye adaptation's arithmetic (render/exposure_adapt.c): the meter reads a
 * uniform picture's EV100 within half a bin, weights the centre, settles on
 * grey cards under 100, 6,830 and 100,000 lux, follows a step with its two
 * time constants (measured in frames at 60 Hz), and keeps a night dark.
 * The exposure pass that runs it per frame on each backend is
 * tests/test_exposure_pass.c's. */
#include "oak_test.h"

#include "render/exposure_adapt.h"

enum { W = 64, H = 36 };
static float g_rgb[W * H * 3];

static void fill(float lum_centre, float lum_edge) {
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) {
            bool centre = _oak_meter_weight(x, y, W, H) > 1;
            for (int c = 0; c < 3; c++) g_rgb[(y * W + x) * 3 + c] = centre ? lum_centre : lum_edge;
        }
}

static float meter(void) {
    uint32_t hist[OAK_METER_BINS] = {0};
    _oak_meter_image(hist, g_rgb, W, H);
    bool ok = false;
    float ev = _oak_meter_ev100(hist, &ok);
    CHECK(ok);
    return ev;
}

/* the display byte (ACES, sRGB, no dither) of luminance L at EV100 ev */
static double shown(double lum, double ev) {
    double x = lum / (OAK_EXPOSURE_SATURATION * exp2(ev));
    return 255.0 * oak_linear_to_srgb(oak_aces((float)x));
}

TEST(meterReadsUniformPicturesWithinHalfABin) {
    const double bin = (OAK_METER_LOG_MAX - OAK_METER_LOG_MIN) / (OAK_METER_BINS - 1);
    const float lums[5] = {0.05f, 5.73f, 391.4f, 5730, 1e6f};
    for (int i = 0; i < 5; i++) {
        fill(lums[i], lums[i]);
        double want = log2(lums[i] * 100.0 / OAK_EXPOSURE_METER_K), got = meter();
        fprintf(stderr, "  %9.2f cd/m^2: meter EV100 %.2f, exact %.2f\n", lums[i], got, want);
        CHECK_NEAR(got, want, bin / 2 + 1e-6);
    }
    /* black is not metered */
    fill(0, 0);
    uint32_t hist[OAK_METER_BINS] = {0};
    _oak_meter_image(hist, g_rgb, W, H);
    bool ok = true;
    (void)_oak_meter_ev100(hist, &ok);
    CHECK(!ok);
}

TEST(meterWeightsTheCentre) {
    /* a bright centre (1,000 cd/m^2) in a dark frame (10): each centre pixel
       counts OAK_METER_CENTRE_WEIGHT times, so the meter reads brighter than
       the plain mean of logs would */
    uint32_t centre = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) centre += _oak_meter_weight(x, y, W, H) > 1;
    double share = (double)centre / (W * H);
    CHECK(share > 0.15 && share < 0.25); /* an ellipse of half the size: pi/16 = 0.196 */
    fill(1000, 10);
    double got = meter();
    double wc = centre * (double)OAK_METER_CENTRE_WEIGHT, we = W * H - centre;
    double k = log2(100.0 / OAK_EXPOSURE_METER_K);
    double weighted = (wc * log2(1000.0) + we * log2(10.0)) / (wc + we) + k;
    double plain = share * log2(1000.0) + (1 - share) * log2(10.0) + k;
    fprintf(stderr, "  centre %.1f%% of pixels: meter %.2f, weighted %.2f, unweighted %.2f\n",
            100 * share, got, weighted, plain);
    CHECK_NEAR(got, weighted, 0.3);
    CHECK(got > plain + 1.0);
}

/* The job pool's per-row weights (render/exposure_adapt.c) are
   _oak_meter_weight's pixel by pixel: a bright centre-ellipse in a dark
   frame puts exactly CENTRE_WEIGHT x its pixels in the bright bin, at even,
   odd and one-pixel sizes. */
TEST(meterRowsWeighAsThePixelRule) {
    static float rgb[161 * 91 * 3];
    const uint32_t sizes[5][2] = {{64, 36}, {161, 91}, {17, 9}, {1, 1}, {2, 160 / 2}};
    for (int s = 0; s < 5; s++) {
        uint32_t w = sizes[s][0], h = sizes[s][1], inside = 0;
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                bool in = _oak_meter_weight(x, y, w, h) > 1;
                inside += in;
                for (int c = 0; c < 3; c++) rgb[(y * w + x) * 3 + c] = in ? 1000.0f : 10.0f;
            }
        uint32_t hist[OAK_METER_BINS] = {0};
        _oak_meter_image(hist, rgb, w, h);
        uint32_t bright = hist[_oak_meter_bin(1000)], dark = hist[_oak_meter_bin(10)];
        CHECK_EQ_INT(bright, inside * OAK_METER_CENTRE_WEIGHT);
        CHECK_EQ_INT(dark, w * h - inside);
    }
}

TEST(adaptationSettlesOnGreyCardsFromDuskToNoon) {
    /* an 18% card filling the view under E lux: L = 0.18 E / pi */
    const float lux[3] = {100, 6830, 100000};
    for (int i = 0; i < 3; i++) {
        float lum = 0.18f * lux[i] / OAK_PI;
        fill(lum, lum);
        float target = _oak_adapt_target(meter());
        float ev = 8; /* from an indoor camera */
        for (int f = 0; f < 5 * 60; f++) ev = _oak_adapt_step(ev, target, 1.0f / 60);
        double exact = log2(lum * 100.0 / OAK_EXPOSURE_METER_K);
        fprintf(stderr,
                "  %6.0f lux: settled EV100 %.2f, target %.2f, exact meter %.2f, card %.0f/255\n",
                lux[i], ev, target, exact, shown(lum, ev));
        CHECK_NEAR(ev, target, 0.5);
        CHECK_NEAR(ev, exact, 0.5); /* none of them is a night: the target is the meter's */
        /* a metered grey shows as the meter's mid grey, K = 12.5: 0.104 exposed, 102/255 */
        CHECK_NEAR(shown(lum, ev), 102, 8);
    }
}

TEST(adaptationFollowsAStepDownFastAndUpSlowly) {
    /* 63% of the way in one time constant: count frames at 60 Hz */
    float dark = _oak_adapt_target(log2f(0.18f * 100 / OAK_PI * 8)); /* 100 lux */
    float bright = _oak_adapt_target(log2f(0.18f * 100000 / OAK_PI * 8));
    int frames[2];
    for (int dir = 0; dir < 2; dir++) {
        float from = dir ? bright : dark, to = dir ? dark : bright, ev = from;
        int f = 0;
        while (fabsf(ev - from) < 0.632f * fabsf(to - from) && f < 100000)
            ev = _oak_adapt_step(ev, to, 1.0f / 60), f++;
        frames[dir] = f;
    }
    fprintf(stderr, "  brightening step: %d frames (%.2f s); darkening: %d frames (%.2f s)\n",
            frames[0], frames[0] / 60.0, frames[1], frames[1] / 60.0);
    CHECK_NEAR(frames[0] / 60.0, OAK_ADAPT_DOWN_S, 1.5 / 60);
    CHECK_NEAR(frames[1] / 60.0, OAK_ADAPT_UP_S, 1.5 / 60);
}

TEST(adaptationKeepsANightDark) {
    /* a moonlit street: the view's mean 0.05 cd/m^2. A camera that followed
       the meter all the way would show it as the meter's mid grey (102/255);
       this one follows half the drop below EV100 5 and shows it dark */
    fill(0.05f, 0.05f);
    float metered = meter(), target = _oak_adapt_target(metered);
    double byte = shown(0.05, target), full = shown(0.05, metered);
    fprintf(stderr, "  night: meter EV100 %.2f, target %.2f, shows %.0f/255 (followed: %.0f)\n",
            metered, target, byte, full);
    CHECK(target > metered + 2);
    CHECK(byte < 40);
    CHECK(full > 90);
    /* and the limits hold */
    CHECK_NEAR(_oak_adapt_target(-40), OAK_ADAPT_EV_MIN, 0);
    CHECK_NEAR(_oak_adapt_target(40), OAK_ADAPT_EV_MAX, 0);
    CHECK_NEAR(_oak_adapt_target(NAN), OAK_ADAPT_EV_MIN, 0);
}

int main(void) {
    oak_test_init(0);
    RUN(meterReadsUniformPicturesWithinHalfABin);
    RUN(meterWeightsTheCentre);
    RUN(meterRowsWeighAsThePixelRule);
    RUN(adaptationSettlesOnGreyCardsFromDuskToNoon);
    RUN(adaptationFollowsAStepDownFastAndUpSlowly);
    RUN(adaptationKeepsANightDark);
    oak_shutdown();
    return TEST_SUMMARY();
}
