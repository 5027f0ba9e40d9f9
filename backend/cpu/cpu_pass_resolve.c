/* The resolve pass on the CPU backend: each pixel the raster covered shaded
 * once from its triangle id (docs/SHADING.md), the sky where it is empty; on
 * the job pool in rows (cpu_resolve.c does the work). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_resolve(cpu_backend *b, const oak_render_view *v) {
    if (v->post.debug == OAK_DEBUG_AO) { /* the gtao term as grey instead */
        _oak_cpu_gtao_show(b);
        return OAK_OK;
    }
    _oak_cpu_resolve(b);
    return OAK_OK;
}
