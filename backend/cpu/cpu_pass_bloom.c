/* The bloom pass on the CPU backend: the pyramid down and up, then mixed
 * into the frame in place (the GPU backends mix it in post; cpu_bloom.c
 * does the work). */
#include "cpu_internal.h"

oak_result _oak_cpu_run_bloom(cpu_backend *b, const oak_render_view *v) {
    return _oak_cpu_bloom(b, v);
}
