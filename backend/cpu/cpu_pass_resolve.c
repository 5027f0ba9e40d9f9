/* The resolve pass on the CPU backend: each pixel the raster covered shaded
 * once from its triangle id (docs/SHADING.md), the sky where it is empty; on
 * the job pool in rows (cpu_resolve.c does the work). */
#include <string.h>

#include "cpu_internal.h"
#include "render/pass_table.h"
#include "render/ssr.h"

oak_result _oak_cpu_run_resolve(cpu_backend *b, const oak_render_view *v) {
    /* the ssr pass runs after: the mirror buffer, 0 where no mirror lies */
    b->ssr_on = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_SSR], v, ~0ull);
    if (b->ssr_on) {
        uint64_t floats = _oak_ssr_floats(b->opaque.width, b->opaque.height);
        if (floats > b->ssr_cap) {
            float *p = oak_realloc(b->ssr, (size_t)floats * sizeof(float));
            if (!p) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: ssr buffer");
            b->ssr = p;
            b->ssr_cap = floats;
        }
        memset(b->ssr, 0, (size_t)floats * sizeof(float));
    }
    if (v->post.debug == OAK_DEBUG_AO) { /* the gtao term as grey instead */
        _oak_cpu_gtao_show(b);
        return OAK_OK;
    }
    _oak_cpu_resolve(b);
    return OAK_OK;
}
