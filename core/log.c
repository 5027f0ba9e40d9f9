/* Logging through one callback (stderr by default) and the per-thread last
 * error that every failing call leaves behind. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static oak_log_fn g_log_fn;
static void *g_log_user;
static oak_log_level g_log_level = OAK_LOG_INFO;
static _Thread_local char t_last_error[512];
static _Thread_local bool t_quiet;

void _oak_error_quiet(bool quiet) {
    t_quiet = quiet;
}

static const char *level_name(oak_log_level l) {
    switch (l) {
    case OAK_LOG_DEBUG:
        return "debug";
    case OAK_LOG_WARN:
        return "warning";
    case OAK_LOG_ERROR:
        return "error";
    default:
        return "info";
    }
}

static void default_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    fprintf(stderr, "oak: %s: %s\n", level_name(level), msg);
}

void _oak_log_configure(oak_log_fn fn, void *user, oak_log_level level) {
    g_log_fn = fn;
    g_log_user = user;
    g_log_level = level == OAK_LOG_DEFAULT ? OAK_LOG_INFO : level;
}

/* Newlines would break the one-line contract; they become spaces. */
static void emit(oak_log_level level, char *msg) {
    if (level < g_log_level) return;
    for (char *c = msg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    (g_log_fn ? g_log_fn : default_log)(g_log_user, level, msg);
}

/* A message longer than its buffer keeps its head and its tail joined by
 * "...": a long path (a 5,000-character --out) then loses its middle, not
 * the reason that follows it. */
#define FIT_HEAD 160
static void format_fit(char *out, size_t size, const char *fmt, va_list ap) {
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(out, size, fmt, ap);
    if (n >= 0 && (size_t)n >= size && size > FIT_HEAD + 8) {
        char *full = oak_alloc((size_t)n + 1);
        if (full) {
            vsnprintf(full, (size_t)n + 1, fmt, again);
            size_t tail = size - 1 - FIT_HEAD - 3;
            memcpy(out, full, FIT_HEAD);
            memcpy(out + FIT_HEAD, "...", 3);
            memcpy(out + FIT_HEAD + 3, full + (size_t)n - tail, tail + 1);
            oak_free(full);
        }
    }
    va_end(again);
}

void oak_log(oak_log_level level, const char *fmt, ...) {
    if (level < g_log_level) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    format_fit(buf, sizeof buf, fmt, ap);
    va_end(ap);
    emit(level, buf);
}

oak_result oak_error(oak_result code, const char *fmt, ...) {
    /* Formatted aside first: oak_last_error() may be one of the arguments. */
    char fresh[sizeof t_last_error];
    va_list ap;
    va_start(ap, fmt);
    format_fit(fresh, sizeof fresh, fmt, ap);
    va_end(ap);
    memcpy(t_last_error, fresh, sizeof fresh);
    if (t_quiet) return code;
    char copy[sizeof t_last_error];
    memcpy(copy, t_last_error, sizeof copy);
    emit(OAK_LOG_ERROR, copy);
    return code;
}

const char *oak_last_error(void) {
    return t_last_error;
}
void oak_clear_error(void) {
    t_last_error[0] = 0;
}

const char *oak_result_name(oak_result r) {
    switch (r) {
    case OAK_OK:
        return "OAK_OK";
    case OAK_ERROR_INVALID_ARGUMENT:
        return "OAK_ERROR_INVALID_ARGUMENT";
    case OAK_ERROR_OUT_OF_MEMORY:
        return "OAK_ERROR_OUT_OF_MEMORY";
    case OAK_ERROR_IO:
        return "OAK_ERROR_IO";
    case OAK_ERROR_PARSE:
        return "OAK_ERROR_PARSE";
    case OAK_ERROR_UNSUPPORTED:
        return "OAK_ERROR_UNSUPPORTED";
    case OAK_ERROR_NOT_FOUND:
        return "OAK_ERROR_NOT_FOUND";
    case OAK_ERROR_DEVICE:
        return "OAK_ERROR_DEVICE";
    case OAK_ERROR_LIMIT:
        return "OAK_ERROR_LIMIT";
    }
    return "OAK_ERROR_UNKNOWN";
}
