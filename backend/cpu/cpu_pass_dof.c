/* The depth-of-field pass on the CPU backend: four steps over the frame in
 * place (cpu_dof.c does the work). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_dof(cpu_backend *b, const oak_render_view *v) {
    return _oak_cpu_dof(b, v);
}
