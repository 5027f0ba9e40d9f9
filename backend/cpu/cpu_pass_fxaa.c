/* The FXAA pass on the CPU backend: FXAA over the tone-mapped bytes into the
 * output; with FXAA off the post pass wrote the output and this does nothing. */
#include "cpu_internal.h"

oak_result _oak_cpu_run_fxaa(cpu_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_cpu_post_fxaa(b);
    return OAK_OK;
}
