/* Which build of the shading kernel runs: the widest the CPU has (AVX2, then
 * SSE4.1, then scalar), asked once through cpuid; $OAK_CPU_ISA narrows it for
 * tests and measurements. All three give the same bytes, so the choice is
 * only about speed. */
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "cpu_post.h"

typedef struct isa {
    const char *name;
    cpu_light_fn fn;
    cpu_surface_fn surface;
    cpu_prep_fn prep;
    cpu_post_kernels post; /* the post pass's and FXAA's (cpu_post_kernel.inc) */
} isa;

static const isa k_isa[] = {
    {"avx2",
     _oak_cpu_light_avx2,
     _oak_cpu_surface_lanes_avx2,
     _oak_cpu_prep_lanes_avx2,
     {_oak_cpu_post_lanes_avx2, _oak_cpu_fxaa_lanes_avx2, 8}},
    {"sse4",
     _oak_cpu_light_sse4,
     _oak_cpu_surface_lanes_sse4,
     _oak_cpu_prep_lanes_sse4,
     {_oak_cpu_post_lanes_sse4, _oak_cpu_fxaa_lanes_sse4, 4}},
    {"scalar",
     _oak_cpu_light_scalar,
     _oak_cpu_surface_lanes_scalar,
     _oak_cpu_prep_lanes_scalar,
     {_oak_cpu_post_lanes_scalar, _oak_cpu_fxaa_lanes_scalar, 1}},
};

static _Atomic int g_isa = -1; /* index into k_isa, -1 until first asked */

static bool supported(int i) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (i == 0) return __builtin_cpu_supports("avx2");
    if (i == 1) return __builtin_cpu_supports("sse4.1");
#endif
    return i == 2;
}

static int best(void) {
    int i = 0;
    while (!supported(i)) i++;
    const char *env = getenv("OAK_CPU_ISA");
    for (int k = 0; env && k < 3; k++)
        if (!strcmp(env, k_isa[k].name)) return k > i ? k : i;
    return i;
}

cpu_light_fn _oak_cpu_light_kernel(void) {
    int i = g_isa;
    if (i < 0) g_isa = i = best();
    return k_isa[i].fn;
}

cpu_surface_fn _oak_cpu_surface_kernel(void) {
    _oak_cpu_light_kernel();
    return k_isa[g_isa].surface;
}

cpu_prep_fn _oak_cpu_prep_kernel(void) {
    _oak_cpu_light_kernel();
    return k_isa[g_isa].prep;
}

cpu_post_kernels _oak_cpu_post_kernels(void) {
    _oak_cpu_light_kernel();
    return k_isa[g_isa].post;
}

const char *_oak_cpu_isa_name(void) {
    _oak_cpu_light_kernel();
    return k_isa[g_isa].name;
}

bool _oak_cpu_isa_set(const char *name) {
    for (int k = 0; k < 3; k++)
        if (name && !strcmp(name, k_isa[k].name) && supported(k)) {
            g_isa = k;
            return true;
        }
    return false;
}
