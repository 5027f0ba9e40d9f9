/* The OpenGL backend's EGL context: headless, no surface and no config, on an
 * EGL device (hardware first) or Mesa's surfaceless platform, or a window's
 * own context adopted (gl_present.c); plus KHR_debug capture routed to
 * oak_log, so tests can fail on any error-severity message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_internal.h"

static uint32_t g_debug_errors;

uint32_t _oak_gl_debug_errors(void) {
    return __atomic_load_n(&g_debug_errors, __ATOMIC_RELAXED);
}

static bool has_ext(const char *list, const char *name) {
    if (!list) return false;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return true;
    return false;
}

static void GLAPIENTRY debug_cb(GLenum source, GLenum type, GLuint id, GLenum severity,
                                GLsizei length, const GLchar *msg, const void *user) {
    (void)length, (void)user;
    /* Compile errors come back through _oak_gl_program with the whole log;
       the driver echoing them here is not an API error. */
    if (source == GL_DEBUG_SOURCE_SHADER_COMPILER) {
        oak_log(OAK_LOG_DEBUG, "gl: %s", msg);
    } else if (type == GL_DEBUG_TYPE_ERROR || severity == GL_DEBUG_SEVERITY_HIGH) {
        __atomic_add_fetch(&g_debug_errors, 1, __ATOMIC_RELAXED);
        oak_log(OAK_LOG_ERROR, "gl: debug error %u: %s", id, msg);
    } else if (severity == GL_DEBUG_SEVERITY_MEDIUM && type != GL_DEBUG_TYPE_PERFORMANCE) {
        /* Performance notes (NVIDIA's buffer moves, shader recompiles) are
           advice for profiling, not warnings for every run. */
        oak_log(OAK_LOG_WARN, "gl: %s", msg);
    } else {
        oak_log(OAK_LOG_DEBUG, "gl: %s", msg);
    }
}

GLenum _oak_gl_check(const char *where) {
    GLenum first = 0, e;
    for (int i = 0; i < 16 && (e = glGetError()) != GL_NO_ERROR; i++) {
        if (!first) first = e;
        oak_log(OAK_LOG_ERROR, "gl: error 0x%04x after %s", e, where);
    }
    return first;
}

/* A 4.5 core context without a surface; NULL when the display cannot give
   one. EGL_KHR_no_config_context spares choosing a config; drivers without
   it get the first config that can render OpenGL (never used for a surface). */
static EGLContext make_context(EGLDisplay dpy, bool debug, bool *no_config) {
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!has_ext(ext, "EGL_KHR_surfaceless_context") || !has_ext(ext, "EGL_KHR_create_context"))
        return EGL_NO_CONTEXT;
    if (!eglBindAPI(EGL_OPENGL_API)) return EGL_NO_CONTEXT;
    EGLConfig config = EGL_NO_CONFIG_KHR;
    *no_config = has_ext(ext, "EGL_KHR_no_config_context");
    if (!*no_config) {
        const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
        EGLint n = 0;
        if (!eglChooseConfig(dpy, want, &config, 1, &n) || n < 1) return EGL_NO_CONTEXT;
    }
    const EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION,
                            4,
                            EGL_CONTEXT_MINOR_VERSION,
                            5,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK,
                            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                            EGL_CONTEXT_OPENGL_DEBUG,
                            debug ? EGL_TRUE : EGL_FALSE,
                            EGL_NONE};
    return eglCreateContext(dpy, config, EGL_NO_CONTEXT, attrs);
}

static bool try_display(_oak_gl_context *c, EGLDisplay dpy, const char *platform, bool debug) {
    if (dpy == EGL_NO_DISPLAY) return false;
    EGLint major, minor;
    if (!eglInitialize(dpy, &major, &minor)) return false;
    EGLContext ctx = make_context(dpy, debug, &c->no_config);
    if (ctx == EGL_NO_CONTEXT) {
        return false;
    }
    c->display = dpy;
    c->context = ctx;
    c->platform = platform;
    return true;
}

static void read_strings(_oak_gl_context *c) {
    snprintf(c->vendor, sizeof c->vendor, "%s", (const char *)glGetString(GL_VENDOR));
    snprintf(c->renderer, sizeof c->renderer, "%s", (const char *)glGetString(GL_RENDERER));
    snprintf(c->version, sizeof c->version, "%s", (const char *)glGetString(GL_VERSION));
    snprintf(c->glsl, sizeof c->glsl, "%s", (const char *)glGetString(GL_SHADING_LANGUAGE_VERSION));
    c->software = strstr(c->renderer, "llvmpipe") || strstr(c->renderer, "softpipe") ||
                  strstr(c->renderer, "swrast");
    glGetIntegerv(GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS, &c->max_compute_invocations);
    glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &c->max_texture_layers);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &c->max_texture_size);
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &c->max_ssbo_bindings);
    glGetIntegerv(GL_MAX_COMPUTE_TEXTURE_IMAGE_UNITS, &c->max_compute_texture_units);
    c->has_draw_parameters = epoxy_has_gl_extension("GL_ARB_shader_draw_parameters");
    c->has_bindless = epoxy_has_gl_extension("GL_ARB_bindless_texture");
    c->has_timer_query = epoxy_has_gl_extension("GL_ARB_timer_query") || epoxy_gl_version() >= 33;
    c->has_indirect_count =
        epoxy_has_gl_extension("GL_ARB_indirect_parameters") || epoxy_gl_version() >= 46;
    c->has_int64 = epoxy_has_gl_extension("GL_ARB_gpu_shader_int64");
}

static void enable_debug(bool debug) {
    if (debug && epoxy_has_gl_extension("GL_KHR_debug")) {
        glEnable(GL_DEBUG_OUTPUT);
        glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS); /* messages on this thread, in order */
        glDebugMessageCallback(debug_cb, NULL);
        glDebugMessageControl(GL_DONT_CARE, GL_DONT_CARE, GL_DONT_CARE, 0, NULL, GL_TRUE);
    }
}

oak_result _oak_gl_context_adopt(_oak_gl_context *c, bool debug, const oak_window_hooks *window) {
    memset(c, 0, sizeof *c);
    if (!window->gl_make_current)
        return oak_error(OAK_ERROR_UNSUPPORTED, "gl: the window gives no OpenGL context");
    c->window = window;
    c->platform = "window";
    c->display = EGL_NO_DISPLAY;
    c->context = EGL_NO_CONTEXT;
    oak_result r = window->gl_make_current(window->user);
    if (r) return r;
    if (epoxy_gl_version() < 45) {
        int v = epoxy_gl_version();
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "gl: the window's context is OpenGL %d.%d, 4.5 is needed", v / 10, v % 10);
    }
    read_strings(c);
    enable_debug(debug);
    return OAK_OK;
}

oak_result _oak_gl_context_create(_oak_gl_context *c, bool debug) {
    return _oak_gl_context_create_on(c, debug, NULL);
}

oak_result _oak_gl_context_create_on(_oak_gl_context *c, bool debug, const char *device) {
    memset(c, 0, sizeof *c);
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    if (!client || !has_ext(client, "EGL_EXT_platform_base"))
        return oak_error(OAK_ERROR_DEVICE, "gl: no EGL display (EGL_EXT_platform_base missing)");
    /* device: NULL or "" for the best, a number for that EGL device, or
       "surfaceless" for Mesa's surfaceless platform */
    bool any = !device || !*device, surfaceless_only = device && !strcmp(device, "surfaceless");
    long want = -1;
    if (!any && !surfaceless_only) {
        char *end = NULL;
        want = strtol(device, &end, 10);
        if (!*device || *end || want < 0)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "gl: device '%s': give an EGL device number or 'surfaceless'", device);
    }

    /* Hardware EGL devices first (NVIDIA's EGL offers only these), then
       Mesa's surfaceless platform, which gives llvmpipe without a GPU. */
    bool found = false;
    EGLint n = 0;
    if (!surfaceless_only && has_ext(client, "EGL_EXT_device_enumeration")) {
        EGLDeviceEXT devs[16];
        if (eglQueryDevicesEXT(16, devs, &n)) {
            for (EGLint i = 0; i < n && !found; i++) {
                const char *dext = eglQueryDeviceStringEXT(devs[i], EGL_EXTENSIONS);
                if (want >= 0 ? i != want : has_ext(dext, "EGL_MESA_device_software")) continue;
                EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                found = try_display(c, d, "device", debug);
            }
        }
    }
    if (want >= 0 && !found)
        return oak_error(OAK_ERROR_DEVICE,
                         "gl: EGL device %ld of %d gives no OpenGL 4.5 core context", want, n);
    if (!found && has_ext(client, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay d =
            eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        found = try_display(c, d, "surfaceless", debug);
    }
    if (!found)
        return oak_error(OAK_ERROR_DEVICE,
                         "gl: no EGL display gives an OpenGL 4.5 core context (EGL error 0x%x)",
                         eglGetError());
    if (!eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, c->context)) {
        EGLint e = eglGetError();
        _oak_gl_context_destroy(c);
        return oak_error(OAK_ERROR_DEVICE, "gl: eglMakeCurrent failed (EGL error 0x%x)", e);
    }
    if (epoxy_gl_version() < 45) {
        int v = epoxy_gl_version();
        _oak_gl_context_destroy(c);
        return oak_error(OAK_ERROR_DEVICE, "gl: context is OpenGL %d.%d, 4.5 is needed", v / 10,
                         v % 10);
    }
    read_strings(c);
    enable_debug(debug);
    return OAK_OK;
}

void _oak_gl_context_destroy(_oak_gl_context *c) {
    if (c->display == EGL_NO_DISPLAY || c->display == NULL) return;
    eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    if (c->context != EGL_NO_CONTEXT) eglDestroyContext(c->display, c->context);
    /* The display stays initialised for the life of the process: EGL keeps
       one per platform anyway, and terminating unloads the driver, whose
       bookkeeping then shows as leaks nobody can name. */
    c->display = EGL_NO_DISPLAY;
    c->context = EGL_NO_CONTEXT;
}

oak_result _oak_gl_make_current(const _oak_gl_context *c) {
    if (c->window) return c->window->gl_make_current(c->window->user);
    /* Always rebind: a GLX context made current in between (a GLFW window's
       native context) leaves EGL still naming ours while GL calls go there. */
    if (!eglMakeCurrent(c->display, EGL_NO_SURFACE, EGL_NO_SURFACE, c->context))
        return oak_error(OAK_ERROR_DEVICE, "gl: eglMakeCurrent failed (EGL error 0x%x)",
                         eglGetError());
    return OAK_OK;
}
