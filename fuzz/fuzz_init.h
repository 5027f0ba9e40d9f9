/* The engine set up once per fuzz process: no log output (every refused input
 * would print), one job thread (so a report names the loader's own stack). */
#ifndef OAK_FUZZ_INIT_H
#define OAK_FUZZ_INIT_H

#include <stdlib.h>

#include <oak/oak.h>

static int fuzz_initialized;

static inline void fuzz_init_once(void) {
    if (fuzz_initialized) return;
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_NONE;
    d.threads = 1;
    if (oak_init(&d) != OAK_OK) abort();
    fuzz_initialized = 1;
}

/* A fresh engine next time (a target that must return what a run left in
   the registries). */
static inline void fuzz_shutdown(void) {
    oak_shutdown();
    fuzz_initialized = 0;
}

#endif
