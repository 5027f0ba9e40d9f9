/* The lamp grid pass on the CPU backend: each cluster's lamps listed for the
 * resolve, one job per depth slice, and the spot cone cosines the shading
 * takes once a frame (cpu_lightgrid.c does the work). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_lightgrid(cpu_backend *b, const oak_render_view *v) {
    (void)v; /* b->view is this frame's view */
    return _oak_cpu_light_grid(b);
}
