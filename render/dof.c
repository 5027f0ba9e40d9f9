/* Depth of field's lens: the thin-lens circle of confusion as a linear
 * function of device depth, for the backends' dof passes (render/dof.h). */
#include <math.h>

#include "dof.h"

void _oak_dof_params(float out[4], const float proj[4][4], bool ortho, float focus, float fnumber,
                     uint32_t height) {
    out[0] = out[1] = out[2] = out[3] = 0;
    double p11 = proj[1][1], p22 = proj[2][2], p32 = proj[3][2];
    if (ortho || !(focus > 0) || !isfinite(focus) || !(p11 > 0) || !(p32 != 0) || !height) return;
    double n = fnumber > 0 && isfinite(fnumber) ? fnumber : OAK_DOF_FNUMBER;
    /* the focal length that gives this vertical field on the sensor:
       P11 = 1 / tan(fov / 2) and tan(fov / 2) = (sensor / 2) / f */
    double sensor = OAK_DOF_SENSOR_HEIGHT, f = 0.5 * sensor * p11;
    /* nothing closer than the focal length can be focused on */
    double zf = focus > 1.001 * f ? focus : 1.001 * f;
    double a = f / n; /* the aperture's diameter */
    /* the blur circle's diameter on the sensor is a f |z - zf| / (z (zf - f));
       its radius in half-size pixels is that over the sensor times H / 4 */
    double k = a * f / (zf - f) / sensor * (0.25 * height);
    out[0] = (float)(k * (1.0 - zf * p22 / p32));
    out[1] = (float)(-k * zf / p32);
    out[2] = (float)OAK_DOF_MAX_RADIUS;
    out[3] = 1;
}

void _oak_dof_taps(float taps[OAK_DOF_TAP_COUNT][4]) {
    uint32_t i = 0;
    for (uint32_t k = 1; k <= 3 && i < OAK_DOF_TAP_COUNT; k++) {
        uint32_t n = 8 * k;
        for (uint32_t j = 0; j < n && i < OAK_DOF_TAP_COUNT; j++, i++) {
            double a = 2.0 * 3.14159265358979323846 * (j + 0.5 * (k & 1)) / n, r = k / 3.0;
            taps[i][0] = (float)(r * cos(a));
            taps[i][1] = (float)(r * sin(a));
            taps[i][2] = (float)r;
            taps[i][3] = 0;
        }
    }
}
