/* Reruns the CPU backend's numeric image tests on another backend: the
 * including file defines OAK_RERUN_BACKEND ("gl", "vulkan"), includes this,
 * maps oak_backend_cpu to its backend and includes a test_cpu_*.c with its
 * main renamed. Tests of the CPU rasterizer itself (its thread pool) are
 * skipped; every other result must hold unchanged. */
#ifndef OAK_CPU_RERUN_H
#define OAK_CPU_RERUN_H

#include "oak_test.h"

static bool rerun_skip(const char *name) {
    return strcmp(name, "cpuThreadCountDeterminism") == 0;
}

#undef RUN
#define RUN(name)                                                                                  \
    do {                                                                                           \
        if (rerun_skip(#name)) break;                                                              \
        oak_test_failures_ = 0;                                                                    \
        name();                                                                                    \
        if (oak_test_failures_) {                                                                  \
            oak_test_failed_++;                                                                    \
            fprintf(stderr, "FAIL %s (%s)\n", #name, OAK_RERUN_BACKEND);                           \
        } else {                                                                                   \
            oak_test_passed_++;                                                                    \
            fprintf(stderr, "ok   %s (%s)\n", #name, OAK_RERUN_BACKEND);                           \
        }                                                                                          \
    } while (0)

#endif
