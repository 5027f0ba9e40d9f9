/* Engine lifetime: oak_init sets the hooks and starts the job pool; layers
 * above register shutdown callbacks so oak_shutdown frees everything. */
#include <string.h>

#include "internal.h"

#define MAX_SHUTDOWN_HOOKS 32

static bool g_initialized;
static void (*g_hooks[MAX_SHUTDOWN_HOOKS])(void);
static uint32_t g_hook_count;

oak_engine_desc oak_engine_desc_defaults(const oak_engine_desc *desc) {
    oak_engine_desc d = desc ? *desc : (oak_engine_desc){0};
    if (d.log_level == OAK_LOG_DEFAULT) d.log_level = OAK_LOG_INFO;
    return d;
}

oak_result oak_init(const oak_engine_desc *desc) {
    if (g_initialized) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_init called twice");
    oak_engine_desc d = oak_engine_desc_defaults(desc);
    _oak_log_configure(d.log, d.log_user, d.log_level);
    _oak_alloc_configure(&d.allocator);
    oak_result r = _oak_jobs_start(d.threads);
    if (r) return r;
    g_initialized = true;
    return OAK_OK;
}

void _oak_on_shutdown(void (*fn)(void)) {
    for (uint32_t i = 0; i < g_hook_count; i++)
        if (g_hooks[i] == fn) return;
    if (g_hook_count < MAX_SHUTDOWN_HOOKS) g_hooks[g_hook_count++] = fn;
}

void oak_shutdown(void) {
    if (!g_initialized) return;
    while (g_hook_count) g_hooks[--g_hook_count]();
    _oak_jobs_stop();
    g_initialized = false;
    _oak_alloc_configure(NULL);
    _oak_log_configure(NULL, NULL, OAK_LOG_INFO);
}

bool oak_is_initialized(void) {
    return g_initialized;
}
