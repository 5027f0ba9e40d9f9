/* The post pass on the CPU backend: exposure, ACES and sRGB with dither,
 * linear floats to bytes, rows on the job pool (cpu_post.c does the work). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_post(cpu_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_cpu_post(b);
    return OAK_OK;
}
