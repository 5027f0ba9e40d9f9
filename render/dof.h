/* Depth of field's layout and lens, shared by the backends (shaders/common/
 * dof.glsl mirrors the layout and the arithmetic): the buffer holds RGBA32F
 * texels, the half-size prefiltered frame (rgb, signed circle of confusion),
 * the half-size gathered frame (rgb, near-field coverage), then one texel
 * per near-field tile (x: the largest near radius in it). */
#ifndef OAK_RENDER_DOF_H
#define OAK_RENDER_DOF_H

#include <stdbool.h>
#include <stdint.h>

#include <oak/config.h>

/* The pass runs four steps, one dispatch (or job batch) each. */
enum {
    OAK_DOF_STEP_PREFILTER, /* half size: 2 x 2 mean colour, the nearest texel's CoC */
    OAK_DOF_STEP_TILES,     /* per tile: its largest near-field radius */
    OAK_DOF_STEP_GATHER,    /* half size: far and focus field, near field over it */
    OAK_DOF_STEP_COMPOSITE, /* full size: the frame mixed toward the gather by its own CoC */
    OAK_DOF_STEPS
};

typedef struct oak_dof_layout {
    uint32_t hw, hh;   /* half size */
    uint32_t tw, th;   /* tiles */
    uint64_t gathered; /* first texel of the gathered image */
    uint64_t tiles;    /* first texel of the tiles */
    uint64_t texels;   /* the whole buffer */
} oak_dof_layout;

static inline oak_dof_layout _oak_dof_layout(uint32_t width, uint32_t height) {
    oak_dof_layout l;
    l.hw = (width + 1) / 2, l.hh = (height + 1) / 2;
    l.tw = (l.hw + OAK_DOF_TILE - 1) / OAK_DOF_TILE,
    l.th = (l.hh + OAK_DOF_TILE - 1) / OAK_DOF_TILE;
    l.gathered = (uint64_t)l.hw * l.hh;
    l.tiles = 2 * l.gathered;
    l.texels = l.tiles + (uint64_t)l.tw * l.th;
    return l;
}

/* The view's dof_params from the camera: the thin-lens circle of confusion's
   radius c(z) = K (1 - focus / z) in half-size pixels, K = A f / (focus - f)
   over the sensor height times a quarter of the image height (A = f / N, the
   blur's diameter on the sensor A f |z - focus| / (z (focus - f)); f the focal
   length the vertical field of view gives on OAK_DOF_SENSOR_HEIGHT), is
   linear in reversed-Z device depth d, since 1 / z = (d + P22) / P32:
   c = x + y d. All zero (no pass) for orthographic cameras, a focus <= 0
   or not finite. proj is column-major (proj[col][row]). */
void _oak_dof_params(float out[4], const float proj[4][4], bool ortho, float focus, float fnumber,
                     uint32_t height);
/* The gather's taps (x, y, radius, 0) on the unit disc: rings of 8, 16 and
   24 at radius 1/3, 2/3 and 1, odd rings turned half a step. Made on the
   host, so every backend reads the same floats (the GPUs in the view). */
void _oak_dof_taps(float taps[OAK_DOF_TAP_COUNT][4]);

#endif
