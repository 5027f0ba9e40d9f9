/* The backends compiled into this build, best first, and their probes. */
#include <stdio.h>
#include <string.h>

#include "renderer_internal.h"

static const oak_backend *g_table[4];
static uint32_t g_count;

static void fill_table(void) {
    if (g_count) return;
#ifdef OAK_HAVE_VULKAN
    if (oak_backend_vulkan()) g_table[g_count++] = oak_backend_vulkan();
#endif
#ifdef OAK_HAVE_GL
    if (oak_backend_gl()) g_table[g_count++] = oak_backend_gl();
#endif
    g_table[g_count++] = oak_backend_cpu();
    g_table[g_count++] = oak_backend_null();
}

uint32_t oak_backend_count(void) {
    fill_table();
    return g_count;
}

const char *oak_backend_name(uint32_t index) {
    fill_table();
    return index < g_count ? g_table[index]->name : NULL;
}

const oak_backend *_oak_backend_find(const char *name) {
    fill_table();
    for (uint32_t i = 0; i < g_count; i++)
        if (strcmp(g_table[i]->name, name) == 0) return g_table[i];
    return NULL;
}

const oak_backend *_oak_backend_at(uint32_t index) {
    fill_table();
    return index < g_count ? g_table[index] : NULL;
}

oak_result oak_backend_probe(const char *name, char *report, size_t report_size) {
    if (report_size) report[0] = 0;
    const oak_backend *b = name ? _oak_backend_find(name) : NULL;
    if (!b) {
        if (report_size) snprintf(report, report_size, "not compiled into this build");
        return oak_error(OAK_ERROR_NOT_FOUND, "unknown backend '%s'", name ? name : "(null)");
    }
    return b->probe(report, report_size);
}

uint64_t oak_backend_caps(const char *name) {
    const oak_backend *b = name ? _oak_backend_find(name) : NULL;
    return b ? b->caps : 0;
}
