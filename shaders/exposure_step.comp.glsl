#version 450
// The exposure pass's step, one invocation: the meter's EV100 from the
// histogram, the target, one step of the camera toward it (or the target
// itself on the first frame), post's multiplier; then the counts are
// cleared for the next frame. render/exposure_adapt.c is the same in C.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/exposure.glsl"

layout(local_size_x = 1) in;

void main() {
    float sum = 0.0, count = 0.0;
    for (uint i = 1u; i < uint(OAK_METER_BINS); i++) {
        float n = float(exposure_hist[i]);
        sum += oak_meter_centre(i) * n;
        count += n;
    }
    // nothing metered (a black frame): the camera opens as far as it goes
    float metered = count > 0.0 ? sum / count + log2(100.0 / float(OAK_EXPOSURE_METER_K))
                                : float(OAK_ADAPT_EV_MIN);
    float target = count > 0.0 ? oak_adapt_target(metered) : float(OAK_ADAPT_EV_MIN);
    bool settle = (view.flags.y & OAK_GPU_POST_SETTLE) != 0u;
    float ev = settle ? target : oak_adapt_step(exposure_state.x, target, view.sky_horizon.w);
    float e = exp2(view.fog_color.w) / (float(OAK_EXPOSURE_SATURATION) * exp2(ev));
    exposure_state = vec4(ev, e, metered, target);
    for (uint i = 0u; i < uint(OAK_METER_BINS); i++) exposure_hist[i] = 0u;
}
