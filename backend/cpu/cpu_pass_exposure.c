/* The exposure pass on the CPU backend: the frame's luminance histogram on
 * the job pool (integer weights, so any thread count counts the same), then
 * one step of the camera toward what it meters; post reads the state
 * (render/exposure_adapt.c holds the arithmetic the GPU kernels mirror). */
#include <math.h>

#include "cpu_internal.h"
#include "render/exposure_adapt.h"

oak_result _oak_cpu_run_exposure(cpu_backend *b, const oak_render_view *v) {
    uint32_t hist[OAK_METER_BINS] = {0};
    _oak_meter_image(hist, b->color, b->width, b->height);
    bool ok = false;
    float metered = _oak_meter_ev100(hist, &ok);
    /* nothing metered (a black frame): the camera opens as far as it goes */
    if (!ok) metered = (float)OAK_ADAPT_EV_MIN;
    float target = ok ? _oak_adapt_target(metered) : (float)OAK_ADAPT_EV_MIN;
    float *s = b->exposure_state;
    float ev = v->adapt_settle ? target : _oak_adapt_step(s[0], target, v->dt);
    s[0] = ev;
    s[1] = (float)(exp2(v->post.exposure_comp) / (OAK_EXPOSURE_SATURATION * exp2(ev)));
    s[2] = metered;
    s[3] = target;
    return OAK_OK;
}
