/* Eye adaptation's arithmetic, shared by every backend (docs/SHADING.md "Eye
 * adaptation"): the luminance histogram's bins and centre weights, the
 * metered EV100, the target the camera steers to and one step toward it. */
#ifndef OAK_RENDER_EXPOSURE_ADAPT_H
#define OAK_RENDER_EXPOSURE_ADAPT_H

#include <stdint.h>

#include <oak/config.h>

/* The bin of a luminance in cd/m^2: 0 for black and below OAK_METER_LOG_MIN,
   else 1 + floor((log2 L - LOG_MIN) / width) clamped to the last bin. */
uint32_t _oak_meter_bin(float luminance);
/* The integer weight of pixel (x, y) of a w x h picture: OAK_METER_CENTRE_WEIGHT
   inside the centre ellipse (half the width and half the height across), 1 outside. */
uint32_t _oak_meter_weight(uint32_t x, uint32_t y, uint32_t w, uint32_t h);
/* Adds a w x h picture of linear RGB floats (cd/m^2) into hist
   (OAK_METER_BINS counts) on the job pool; the counts are integers, so the
   same for any number of threads. */
void _oak_meter_image(uint32_t *hist, const float *rgb, uint32_t w, uint32_t h);
/* The EV100 a reflected-light meter (K = OAK_EXPOSURE_METER_K) reads from a
   histogram: log2 of the weighted geometric mean luminance (bin centres,
   black not counted) + log2(100 / K). ok false when nothing was metered. */
float _oak_meter_ev100(const uint32_t *hist, bool *ok);
/* The EV100 the camera steers to for a metered one: the meter's, but below
   OAK_ADAPT_NIGHT_EV only OAK_ADAPT_NIGHT_KEEP of the drop is followed (a
   night stays night), within [OAK_ADAPT_EV_MIN, OAK_ADAPT_EV_MAX]. */
float _oak_adapt_target(float metered_ev100);
/* One frame of dt seconds from current toward target, exponentially:
   OAK_ADAPT_DOWN_S when the target is brighter (EV100 rising), else
   OAK_ADAPT_UP_S. */
float _oak_adapt_step(float current, float target, float dt);

#endif
