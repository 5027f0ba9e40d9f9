/* The gtao pass on the CPU backend: ground-truth ambient occlusion from the
 * visibility buffer, for the resolve to multiply the indirect light by
 * (cpu_gtao.c does the work, the same steps as the GPU backends). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_gtao(cpu_backend *b, const oak_render_view *v) {
    return _oak_cpu_gtao(b, v);
}
