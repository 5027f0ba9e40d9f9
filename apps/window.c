/* The GLFW presenter: native where the backend can (a Vulkan swapchain on
 * the window's surface, or the gl backend rendering in the window's own
 * context and drawing into its default framebuffer); else each frame's
 * pixels are read back, uploaded to a texture and drawn as one full-screen
 * triangle in a GL 3.3 core context. Resizing the window resizes the
 * renderer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glfw3.h declares glfwCreateWindowSurface only after the Vulkan header;
   no Vulkan call is made here, so no prototypes (nothing to link) */
#if __has_include(<vulkan/vulkan.h>)
#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>
#endif
#define GLFW_INCLUDE_NONE
#include <GL/glcorearb.h>
#include <GLFW/glfw3.h>

#include "overlay.h"
#include "window.h"

/* GLFW reports errors through a callback; the last one becomes our one line. */
static char g_glfw_error[256];

static void glfw_error(int code, const char *what) {
    snprintf(g_glfw_error, sizeof g_glfw_error, "%s (GLFW error 0x%x)", what, code);
}

/* The few GL 3.3 entry points the presenter needs, loaded through GLFW so the
   app links no GL loader of its own. */
typedef struct gl_api {
    PFNGLGETERRORPROC GetError;
    PFNGLVIEWPORTPROC Viewport;
    PFNGLCLEARCOLORPROC ClearColor;
    PFNGLCLEARPROC Clear;
    PFNGLGENTEXTURESPROC GenTextures;
    PFNGLDELETETEXTURESPROC DeleteTextures;
    PFNGLBINDTEXTUREPROC BindTexture;
    PFNGLACTIVETEXTUREPROC ActiveTexture;
    PFNGLTEXPARAMETERIPROC TexParameteri;
    PFNGLTEXIMAGE2DPROC TexImage2D;
    PFNGLTEXSUBIMAGE2DPROC TexSubImage2D;
    PFNGLPIXELSTOREIPROC PixelStorei;
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLGETSHADERIVPROC GetShaderiv;
    PFNGLGETSHADERINFOLOGPROC GetShaderInfoLog;
    PFNGLDELETESHADERPROC DeleteShader;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLDELETEPROGRAMPROC DeleteProgram;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
    PFNGLUNIFORM1IPROC Uniform1i;
    PFNGLGENVERTEXARRAYSPROC GenVertexArrays;
    PFNGLDELETEVERTEXARRAYSPROC DeleteVertexArrays;
    PFNGLBINDVERTEXARRAYPROC BindVertexArray;
    PFNGLDRAWARRAYSPROC DrawArrays;
    PFNGLREADBUFFERPROC ReadBuffer;
    PFNGLREADPIXELSPROC ReadPixels;
    PFNGLFINISHPROC Finish;
} gl_api;

typedef struct presenter {
    GLFWwindow *window;
    gl_api gl;
    GLuint program, texture, vao;
    uint32_t tex_width, tex_height; /* 0: texture storage not made yet */
    uint8_t *pixels;                /* the frame read back, grown by doubling */
    size_t pixels_cap;
    _oak_overlay overlay;
    bool show_overlay, f1_down; /* F1 toggles on its press */
    bool overlaid;              /* pixels hold the panel, not only the frame */
    bool f12_down, f2_down;     /* F12 and F2 act once a press */
    float speed_scale;          /* the wheel's, kept across frames */
    /* native presentation: the renderer's words for it ("swapchain fifo",
       "default framebuffer"), NULL for the read-back blit; the hooks it
       was attached with; the panel drawn alone (black under it) */
    const char *native;
    bool gl_native; /* the window's context is the gl backend's: swap it */
    oak_window_hooks hooks;
    uint8_t *panel;
    size_t panel_cap;
    uint32_t panel_width, panel_size[2]; /* the frame's width and the panel it holds */
} presenter;

/* The panel over rgba (the frame just read back, or black for a native
   present): the renderer's last timings. Returns its size in size. */
static void draw_overlay(presenter *p, const _oak_window_desc *d, uint8_t *rgba, uint32_t width,
                         uint32_t height, uint32_t size[2]) {
    oak_stage_timing stages[OAK_OVERLAY_STAGES];
    char title[64];
    snprintf(title, sizeof title, "%s %ux%u", oak_renderer_backend(d->renderer), width, height);
    _oak_overlay_frame f = {title, stages,
                            oak_renderer_timings(d->renderer, stages, OAK_OVERLAY_STAGES)};
    _oak_overlay_draw(&p->overlay, &f, rgba, width, height, size);
}

/* A buffer of at least bytes, grown by doubling and kept. */
static bool grow(uint8_t **buf, size_t *cap, size_t bytes) {
    if (bytes <= *cap) return true;
    size_t c = *cap ? *cap : bytes;
    while (c < bytes) c *= 2;
    uint8_t *g = oak_realloc(*buf, c);
    if (!g) return false;
    *buf = g, *cap = c;
    return true;
}

static bool load_gl(gl_api *gl) {
    /* One table of names in the struct's order keeps loading and checking in
       one loop. */
    static const char *const names[] = {
        "glGetError",
        "glViewport",
        "glClearColor",
        "glClear",
        "glGenTextures",
        "glDeleteTextures",
        "glBindTexture",
        "glActiveTexture",
        "glTexParameteri",
        "glTexImage2D",
        "glTexSubImage2D",
        "glPixelStorei",
        "glCreateShader",
        "glShaderSource",
        "glCompileShader",
        "glGetShaderiv",
        "glGetShaderInfoLog",
        "glDeleteShader",
        "glCreateProgram",
        "glAttachShader",
        "glLinkProgram",
        "glGetProgramiv",
        "glDeleteProgram",
        "glUseProgram",
        "glGetUniformLocation",
        "glUniform1i",
        "glGenVertexArrays",
        "glDeleteVertexArrays",
        "glBindVertexArray",
        "glDrawArrays",
        "glReadBuffer",
        "glReadPixels",
        "glFinish",
    };
    _Static_assert(sizeof names / sizeof names[0] == sizeof(gl_api) / sizeof(GLFWglproc),
                   "gl_api and its names differ");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        GLFWglproc proc = glfwGetProcAddress(names[i]);
        memcpy((char *)gl + i * sizeof proc, &proc, sizeof proc); /* slot i, by representation */
        if (!proc) {
            oak_error(OAK_ERROR_DEVICE, "--window: the GL context lacks %s", names[i]);
            return false;
        }
    }
    return true;
}

/* Row 0 of the frame is its top, while GL's texture row 0 sits at v = 0 at
   the bottom: the vertex shader flips v so the picture stands upright. */
static const char *const k_vertex_src =
    "#version 330 core\n"
    "out vec2 uv;\n"
    "void main() {\n"
    "    vec2 p = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));\n"
    "    uv = vec2(p.x, 1.0 - p.y);\n"
    "    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n"
    "}\n";
static const char *const k_fragment_src = "#version 330 core\n"
                                          "in vec2 uv;\n"
                                          "uniform sampler2D frame;\n"
                                          "out vec4 color;\n"
                                          "void main() { color = texture(frame, uv); }\n";

static GLuint compile(presenter *p, GLenum stage, const char *src) {
    gl_api *gl = &p->gl;
    GLuint s = gl->CreateShader(stage);
    gl->ShaderSource(s, 1, &src, NULL);
    gl->CompileShader(s);
    GLint ok = 0;
    gl->GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[256] = "";
        gl->GetShaderInfoLog(s, sizeof log, NULL, log);
        log[strcspn(log, "\n")] = 0;
        oak_error(OAK_ERROR_DEVICE, "--window: presenter shader: %s", log);
        gl->DeleteShader(s);
        return 0;
    }
    return s;
}

static oak_result make_gl_objects(presenter *p) {
    gl_api *gl = &p->gl;
    GLuint vs = compile(p, GL_VERTEX_SHADER, k_vertex_src);
    GLuint fs = vs ? compile(p, GL_FRAGMENT_SHADER, k_fragment_src) : 0;
    if (!fs) {
        if (vs) gl->DeleteShader(vs);
        return OAK_ERROR_DEVICE;
    }
    p->program = gl->CreateProgram();
    gl->AttachShader(p->program, vs);
    gl->AttachShader(p->program, fs);
    gl->LinkProgram(p->program);
    gl->DeleteShader(vs);
    gl->DeleteShader(fs);
    GLint ok = 0;
    gl->GetProgramiv(p->program, GL_LINK_STATUS, &ok);
    if (!ok) return oak_error(OAK_ERROR_DEVICE, "--window: presenter program does not link");
    gl->UseProgram(p->program);
    gl->Uniform1i(gl->GetUniformLocation(p->program, "frame"), 0);
    gl->GenVertexArrays(1, &p->vao); /* core profile draws need a bound VAO */
    gl->BindVertexArray(p->vao);
    gl->GenTextures(1, &p->texture);
    gl->ActiveTexture(GL_TEXTURE0);
    gl->BindTexture(GL_TEXTURE_2D, p->texture);
    /* nearest: at 1:1 each window pixel is exactly one frame pixel */
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl->TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    gl->PixelStorei(GL_UNPACK_ALIGNMENT, 1);
    gl->PixelStorei(GL_PACK_ALIGNMENT, 1);
    GLenum e = gl->GetError();
    if (e) return oak_error(OAK_ERROR_DEVICE, "--window: presenter setup: GL error 0x%x", e);
    return OAK_OK;
}

static const char *display_name(void) {
    const char *x = getenv("DISPLAY"), *w = getenv("WAYLAND_DISPLAY");
    if (x && *x) return x;
    if (w && *w) return w;
    return NULL;
}

/* glfwInit, or the one line saying why not. */
static oak_result start_glfw(void) {
    if (!display_name())
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "--window: no display: $DISPLAY and $WAYLAND_DISPLAY are unset");
    g_glfw_error[0] = 0;
    glfwSetErrorCallback(glfw_error);
    if (!glfwInit())
        return oak_error(OAK_ERROR_UNSUPPORTED, "--window: no display: %s",
                         g_glfw_error[0] ? g_glfw_error : "glfwInit failed");
    return OAK_OK;
}

bool _oak_window_available(char *why, size_t size) {
    if (start_glfw() != OAK_OK) {
        /* drop the "--window: " prefix, info prints its own */
        const char *msg = oak_last_error();
        const char *colon = strstr(msg, ": ");
        snprintf(why, size, "%s", colon ? colon + 2 : msg);
        oak_clear_error();
        return false;
    }
    int major, minor, rev;
    glfwGetVersion(&major, &minor, &rev);
    snprintf(why, size, "GLFW %d.%d, display %s", major, minor, display_name());
    glfwTerminate();
    return true;
}

void _oak_window_presentations(char *out, size_t size) {
    bool vk = false;
    if (start_glfw() == OAK_OK) {
#ifdef VK_VERSION_1_0
        vk = glfwVulkanSupported() == GLFW_TRUE;
#endif
        glfwTerminate();
    }
    oak_clear_error();
    snprintf(out, size,
             "vulkan %s, gl default framebuffer (in the window's own 4.5 context), cpu and null "
             "read-back blit (a backend whose native start fails falls back to it; --verbose "
             "says why)",
             vk ? "swapchain (where its queue can present to the window's surface)"
                : "read-back blit (GLFW finds no Vulkan loader)");
}

/* GLFW's EGL context first: the gl backend renders through EGL, and one API
   for both contexts lets each side make its own current without stepping on
   the other; the native (GLX) context is the fallback. */
static GLFWwindow *create_window(const _oak_window_desc *d) {
    for (int attempt = 0; attempt < 2; attempt++) {
        glfwDefaultWindowHints();
        glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
        glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
        glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
        glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
        glfwWindowHint(GLFW_CONTEXT_CREATION_API,
                       attempt == 0 ? GLFW_EGL_CONTEXT_API : GLFW_NATIVE_CONTEXT_API);
        GLFWwindow *w = glfwCreateWindow((int)d->width, (int)d->height, d->title ? d->title : "oak",
                                         NULL, NULL);
        if (w) {
            oak_log(OAK_LOG_INFO, "window: GL 3.3 core context through %s, GLFW %s",
                    attempt == 0 ? "EGL" : "GLX", glfwGetVersionString());
            return w;
        }
    }
    oak_error(OAK_ERROR_DEVICE, "--window: cannot open a GL 3.3 core window: %s",
              g_glfw_error[0] ? g_glfw_error : "glfwCreateWindow failed");
    return NULL;
}

static oak_result close_presenter(presenter *p, oak_renderer *renderer) {
    /* the backend lets go of the window (its surface, its context) first */
    oak_result r = p->native ? oak_renderer_attach_window(renderer, NULL) : OAK_OK;
    if (p->native) {
        glfwDestroyWindow(p->window);
        p->window = NULL;
    }
    oak_free(p->panel);
    if (p->window) {
        glfwMakeContextCurrent(p->window);
        if (p->texture) p->gl.DeleteTextures(1, &p->texture);
        if (p->vao) p->gl.DeleteVertexArrays(1, &p->vao);
        if (p->program) p->gl.DeleteProgram(p->program);
        glfwMakeContextCurrent(NULL);
        glfwDestroyWindow(p->window);
    }
    oak_free(p->pixels);
    /* GLFW stays initialised until the process ends (as the gl backend keeps
       its EGL display): glfwTerminate ends EGL, which unloads Mesa's driver,
       and the driver's never-freed caches then show as leaks in a module
       that no longer exists, so no suppression can name them. */
    return r;
}

/* ---- native presentation ---------------------------------------------------- */

#ifdef VK_VERSION_1_0
static oak_result vk_surface(void *user, void *instance, uint64_t *surface) {
    VkSurfaceKHR s = VK_NULL_HANDLE;
    g_glfw_error[0] = 0;
    VkResult r = glfwCreateWindowSurface((VkInstance)instance, user, NULL, &s);
    if (r != VK_SUCCESS)
        return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: glfwCreateWindowSurface: VkResult %d%s%s",
                         (int)r, g_glfw_error[0] ? ": " : "", g_glfw_error);
    *surface = (uint64_t)(uintptr_t)s;
    return OAK_OK;
}
#endif

static oak_result gl_current(void *user) {
    glfwMakeContextCurrent(user);
    if (glfwGetCurrentContext() != user)
        return oak_error(OAK_ERROR_DEVICE, "gl: the window's context cannot be made current");
    return OAK_OK;
}

/* A window without a GL context (Vulkan), or with a 4.5 core one the gl
   backend adopts: EGL first, as the gl backend's own context is, then the
   native (GLX) one. */
static GLFWwindow *native_window(const _oak_window_desc *d, bool gl) {
    const char *dbg = getenv("OAK_GL_DEBUG");
    for (int attempt = 0; attempt < (gl ? 2 : 1); attempt++) {
        glfwDefaultWindowHints();
        if (gl) {
            glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
            glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
            glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
            glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
            glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, !(dbg && !strcmp(dbg, "0")));
            glfwWindowHint(GLFW_CONTEXT_CREATION_API,
                           attempt == 0 ? GLFW_EGL_CONTEXT_API : GLFW_NATIVE_CONTEXT_API);
        } else {
            glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
        }
        GLFWwindow *w = glfwCreateWindow((int)d->width, (int)d->height, d->title ? d->title : "oak",
                                         NULL, NULL);
        if (w) return w;
    }
    return NULL;
}

/* Attaches the window to the renderer when its backend presents natively;
   false, with why in one line, when the read-back blit has to do. */
static bool open_native(presenter *p, const _oak_window_desc *d, char *why, size_t size) {
    const char *backend = oak_renderer_backend(d->renderer);
    bool vk = !strcmp(backend, "vulkan"), gl = !strcmp(backend, "gl");
    if (!vk && !gl) {
        snprintf(why, size, "the %s backend has no native presentation", backend);
        return false;
    }
    p->hooks = (oak_window_hooks){.no_vsync = d->no_vsync};
    if (vk) {
#ifdef VK_VERSION_1_0
        if (!glfwVulkanSupported()) {
            snprintf(why, size, "GLFW finds no Vulkan loader");
            return false;
        }
        p->hooks.vk_extensions = glfwGetRequiredInstanceExtensions(&p->hooks.vk_extension_count);
        p->hooks.vk_surface = vk_surface;
#else
        snprintf(why, size, "oak's window was built without the Vulkan header");
        return false;
#endif
    } else {
        p->hooks.gl_make_current = gl_current;
    }
    g_glfw_error[0] = 0;
    p->window = native_window(d, gl);
    if (!p->window) {
        snprintf(why, size, "no window for it: %s",
                 g_glfw_error[0] ? g_glfw_error : "glfwCreateWindow failed");
        return false;
    }
    p->hooks.user = p->window;
    if (oak_renderer_attach_window(d->renderer, &p->hooks)) {
        snprintf(why, size, "%s", oak_last_error());
        oak_clear_error();
        glfwDestroyWindow(p->window);
        p->window = NULL;
        return false;
    }
    p->native = oak_renderer_presentation(d->renderer);
    p->gl_native = gl;
    if (gl) glfwSwapInterval(d->no_vsync ? 0 : 1);
    return true;
}

/* The presented image (the backend reads it back) as a PNG. */
static oak_result native_capture(presenter *p, const _oak_window_desc *d, const char *path,
                                 const oak_present_panel *panel, int fb_w, int fb_h) {
    size_t bytes = (size_t)fb_w * (size_t)fb_h * 4;
    uint8_t *img = oak_alloc(bytes);
    if (!img) return OAK_ERROR_OUT_OF_MEMORY;
    oak_result r = oak_renderer_present(d->renderer, (uint32_t)fb_w, (uint32_t)fb_h, panel, img);
    if (!r && p->gl_native) glfwSwapBuffers(p->window);
    if (!r) r = oak_image_write_png(path, (uint32_t)fb_w, (uint32_t)fb_h, img);
    oak_free(img);
    return r;
}

/* Uploads the frame and draws it over the whole framebuffer (not swapped). */
static oak_result draw_frame(presenter *p, uint32_t width, uint32_t height, int fb_w, int fb_h) {
    gl_api *gl = &p->gl;
    glfwMakeContextCurrent(p->window); /* the gl backend may have made its own current */
    gl->BindTexture(GL_TEXTURE_2D, p->texture);
    if (p->tex_width != width || p->tex_height != height) {
        gl->TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, (GLsizei)width, (GLsizei)height, 0, GL_RGBA,
                       GL_UNSIGNED_BYTE, p->pixels);
        p->tex_width = width, p->tex_height = height;
    } else {
        gl->TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, (GLsizei)width, (GLsizei)height, GL_RGBA,
                          GL_UNSIGNED_BYTE, p->pixels);
    }
    gl->Viewport(0, 0, fb_w, fb_h);
    gl->ClearColor(0, 0, 0, 1);
    gl->Clear(GL_COLOR_BUFFER_BIT);
    gl->UseProgram(p->program);
    gl->BindVertexArray(p->vao);
    gl->DrawArrays(GL_TRIANGLES, 0, 3);
    GLenum e = gl->GetError();
    if (e) return oak_error(OAK_ERROR_DEVICE, "--window: presenting a frame: GL error 0x%x", e);
    return OAK_OK;
}

/* Reads the back buffer (bottom row first in GL) into a top-first PNG. */
static oak_result capture(presenter *p, const char *path, int fb_w, int fb_h) {
    gl_api *gl = &p->gl;
    size_t row = (size_t)fb_w * 4, bytes = row * (size_t)fb_h;
    uint8_t *img = oak_alloc(bytes * 2);
    if (!img) return OAK_ERROR_OUT_OF_MEMORY;
    gl->ReadBuffer(GL_BACK);
    gl->ReadPixels(0, 0, fb_w, fb_h, GL_RGBA, GL_UNSIGNED_BYTE, img + bytes);
    oak_result r = OAK_OK;
    GLenum e = gl->GetError();
    if (e) {
        r = oak_error(OAK_ERROR_DEVICE, "--window-capture: glReadPixels: GL error 0x%x", e);
    } else {
        for (int y = 0; y < fb_h; y++)
            memcpy(img + (size_t)y * row, img + bytes + (size_t)(fb_h - 1 - y) * row, row);
        r = oak_image_write_png(path, (uint32_t)fb_w, (uint32_t)fb_h, img);
    }
    oak_free(img);
    return r;
}

/* ---- input: the user's keys and mouse, or a test's script ----------------- */

#define LOOK_KEY_RATE  (1.5f / 60) /* radians a frame an arrow key turns */
#define HOUR_KEY_RATE  (2.0f / 60) /* hours a frame [ or ] turns the clock */
#define WHEEL_STEP     1.25f       /* the speed's factor a notch of the wheel */
#define SCRIPT_KEYS    "wasdqeF<>^vhH+-PK"
#define LOOK_DRAG_RATE 0.004f /* radians a pixel of right-button drag */

static void key_into(_oak_window_input *in, char k) {
    switch (k) {
    case 'w':
        in->move[2] += 1;
        break;
    case 's':
        in->move[2] -= 1;
        break;
    case 'd':
        in->move[0] += 1;
        break;
    case 'a':
        in->move[0] -= 1;
        break;
    case 'e':
        in->move[1] += 1;
        break;
    case 'q':
        in->move[1] -= 1;
        break;
    case 'F':
        in->fast = true;
        break;
    case '<':
        in->look[0] += LOOK_KEY_RATE;
        break;
    case '>':
        in->look[0] -= LOOK_KEY_RATE;
        break;
    case '^':
        in->look[1] += LOOK_KEY_RATE;
        break;
    case 'v':
        in->look[1] -= LOOK_KEY_RATE;
        break;
    case 'h':
        in->hours -= HOUR_KEY_RATE;
        break;
    case 'H':
        in->hours += HOUR_KEY_RATE;
        break;
    case '+':
        in->notches += 1;
        break;
    case '-':
        in->notches -= 1;
        break;
    case 'P':
        in->screenshot = true;
        break;
    case 'K':
        in->weather_steps++;
        break;
    default:
        break;
    }
}

bool _oak_window_script_ok(const char *script, char *why, size_t size) {
    for (const char *s = script; s && *s;) {
        const char *colon = strchr(s, ':');
        if (!colon || colon == s) {
            snprintf(why, size, "expected KEYS:FRAMES at '%.32s'", s);
            return false;
        }
        for (const char *k = s; k < colon; k++)
            if (!strchr(SCRIPT_KEYS, *k)) {
                snprintf(why, size, "'%c' is not one of the keys " SCRIPT_KEYS, *k);
                return false;
            }
        char *end;
        long n = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || n <= 0 || n > 1000000 || (*end && *end != ',')) {
            snprintf(why, size, "expected a frame count after '%.*s:'", (int)(colon - s), s);
            return false;
        }
        s = *end ? end + 1 : end;
    }
    return true;
}

/* The script's keys at frame i (a script that parsed: _oak_window_script_ok). */
static void script_input(const char *script, uint32_t i, _oak_window_input *in) {
    uint64_t at = 0;
    for (const char *s = script; *s;) {
        const char *colon = strchr(s, ':');
        char *end;
        long n = strtol(colon + 1, &end, 10);
        if (i >= at && i < at + (uint64_t)n) {
            for (const char *k = s; k < colon; k++) key_into(in, *k);
            return;
        }
        at += (uint64_t)n;
        s = *end ? end + 1 : end;
    }
}

/* The wheel's notches since the last frame (GLFW reports them by callback;
   one window a process). */
static double g_scroll;

static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)w, (void)dx;
    g_scroll += dy;
}

static void user_input(GLFWwindow *w, double *last_x, double *last_y, bool *dragging,
                       bool *f12_down, bool *f2_down, _oak_window_input *in) {
    static const struct {
        int key;
        char as;
    } keys[] = {{GLFW_KEY_W, 'w'},
                {GLFW_KEY_S, 's'},
                {GLFW_KEY_D, 'd'},
                {GLFW_KEY_A, 'a'},
                {GLFW_KEY_E, 'e'},
                {GLFW_KEY_Q, 'q'},
                {GLFW_KEY_LEFT_SHIFT, 'F'},
                {GLFW_KEY_LEFT, '<'},
                {GLFW_KEY_RIGHT, '>'},
                {GLFW_KEY_UP, '^'},
                {GLFW_KEY_DOWN, 'v'},
                {GLFW_KEY_LEFT_BRACKET, 'h'},
                {GLFW_KEY_RIGHT_BRACKET, 'H'}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (glfwGetKey(w, keys[k].key) == GLFW_PRESS) key_into(in, keys[k].as);
    bool f12 = glfwGetKey(w, GLFW_KEY_F12) == GLFW_PRESS;
    if (f12 && !*f12_down) key_into(in, 'P'); /* once a press */
    *f12_down = f12;
    bool f2 = glfwGetKey(w, GLFW_KEY_F2) == GLFW_PRESS;
    if (f2 && !*f2_down) key_into(in, 'K'); /* the next weather, once a press */
    *f2_down = f2;
    in->notches += (float)g_scroll;
    g_scroll = 0;
    double x, y;
    glfwGetCursorPos(w, &x, &y);
    bool down = glfwGetMouseButton(w, GLFW_MOUSE_BUTTON_RIGHT) == GLFW_PRESS;
    if (down && *dragging) {
        in->look[0] -= (float)(x - *last_x) * LOOK_DRAG_RATE;
        in->look[1] -= (float)(y - *last_y) * LOOK_DRAG_RATE;
    }
    *dragging = down, *last_x = x, *last_y = y;
}

oak_result _oak_window_run(const _oak_window_desc *d, _oak_window_stats *stats) {
    memset(stats, 0, sizeof *stats);
    oak_result r = start_glfw();
    if (r) return r;
    presenter p = {0};
    char why[512];
    if (open_native(&p, d, why, sizeof why)) {
        oak_log_info("window: %s presents natively (%s)", oak_renderer_backend(d->renderer),
                     p.native);
        snprintf(stats->presentation, sizeof stats->presentation, "%s", p.native);
    } else {
        oak_log_info("window: read-back blit: %s", why);
        snprintf(stats->presentation, sizeof stats->presentation, "read-back blit");
        p.window = create_window(d);
        if (!p.window) {
            r = OAK_ERROR_DEVICE;
            goto done;
        }
        glfwMakeContextCurrent(p.window);
        glfwSwapInterval(d->no_vsync ? 0 : 1);
        if (!load_gl(&p.gl)) {
            r = OAK_ERROR_DEVICE;
            goto done;
        }
        if ((r = make_gl_objects(&p))) goto done;
    }
    uint32_t width = d->width, height = d->height;
    double total_ms = 0, mouse_x = 0, mouse_y = 0;
    /* frame pacing: presents' spacing, summed for the mean and variance */
    double pace_sum = 0, pace_sq = 0;
    uint32_t paced = 0;
    uint64_t last_present = 0;
    bool dragging = false;
    int fb_w = 0, fb_h = 0;
    p.show_overlay = d->overlay;
    p.speed_scale = 1;
    g_scroll = 0;
    glfwSetScrollCallback(p.window, on_scroll);
    oak_present_panel panel = {0};
    for (uint32_t i = 0; !d->frames || i < d->frames; i++) {
        glfwPollEvents();
        if (glfwWindowShouldClose(p.window) || glfwGetKey(p.window, GLFW_KEY_ESCAPE) == GLFW_PRESS)
            break;
        glfwGetFramebufferSize(p.window, &fb_w, &fb_h);
        if (fb_w > 0 && fb_h > 0 && ((uint32_t)fb_w != width || (uint32_t)fb_h != height) &&
            fb_w <= OAK_MAX_OUTPUT_SIZE && fb_h <= OAK_MAX_OUTPUT_SIZE &&
            (uint64_t)fb_w * (uint64_t)fb_h <= OAK_MAX_OUTPUT_PIXELS) {
            if ((r = oak_renderer_resize(d->renderer, (uint32_t)fb_w, (uint32_t)fb_h))) goto done;
            width = (uint32_t)fb_w, height = (uint32_t)fb_h;
        }
        if (fb_w <= 0 || fb_h <= 0) { /* minimised: nothing to draw or show, wait */
            glfwWaitEventsTimeout(0.1);
            i--;
            continue;
        }
        uint64_t start = oak_time_ns();
        _oak_window_input in = {0};
        if (d->script)
            script_input(d->script, i, &in);
        else
            user_input(p.window, &mouse_x, &mouse_y, &dragging, &p.f12_down, &p.f2_down, &in);
        p.speed_scale *= powf(WHEEL_STEP, in.notches);
        p.speed_scale = p.speed_scale < 1.0f / 16 ? 1.0f / 16
                        : p.speed_scale > 16      ? 16
                                                  : p.speed_scale;
        in.speed_scale = p.speed_scale;
        in.active = in.fast || in.move[0] || in.move[1] || in.move[2] || in.look[0] || in.look[1];
        if ((r = d->frame(d->user, i, width, height, &in))) goto done;
        size_t bytes = (size_t)width * height * 4;
        /* the read-back blit reads every frame; a native present only for F12 */
        if ((!p.native || in.screenshot) && !grow(&p.pixels, &p.pixels_cap, bytes)) {
            r = OAK_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        if ((!p.native || in.screenshot) &&
            (r = oak_renderer_read_pixels(d->renderer, p.pixels, bytes)))
            goto done;
        p.overlaid = false;
        if (in.screenshot) { /* the frame alone, before the panel goes over it */
            /* beside --out (the working folder without one) */
            char shot[1024];
            const char *slash = d->out ? strrchr(d->out, '/') : NULL;
            int dir = slash ? (int)(slash - d->out + 1) : 0;
            snprintf(shot, sizeof shot, "%.*soak-shot-%u.png", dir, d->out ? d->out : "",
                     stats->screenshots + 1);
            if ((r = oak_image_write_png(shot, width, height, p.pixels))) goto done;
            stats->screenshots++;
            oak_log_info("window: screenshot %s", shot);
        }
        bool f1 = glfwGetKey(p.window, GLFW_KEY_F1) == GLFW_PRESS;
        if (f1 && !p.f1_down) p.show_overlay = !p.show_overlay;
        p.f1_down = f1;
        bool last = d->frames && i + 1 == d->frames;
        if (p.native) {
            /* the panel alone over black, handed to the backend to copy over
               the picture it presents */
            const oak_present_panel *pp = NULL;
            if (p.show_overlay) {
                size_t had = p.panel_cap;
                if (!grow(&p.panel, &p.panel_cap, bytes)) {
                    r = OAK_ERROR_OUT_OF_MEMORY;
                    goto done;
                }
                /* black under the panel: the whole buffer when it or the
                   frame's width is new, else only the last panel's rows
                   (nothing else was ever written) */
                if (had != p.panel_cap || p.panel_width != width)
                    memset(p.panel, 0, bytes);
                else
                    for (uint32_t y = 0; y < p.panel_size[1] && y < height; y++)
                        memset(p.panel + (size_t)y * width * 4, 0, (size_t)p.panel_size[0] * 4);
                p.panel_width = width;
                uint32_t size[2];
                draw_overlay(&p, d, p.panel, width, height, size);
                p.panel_size[0] = size[0], p.panel_size[1] = size[1];
                panel = (oak_present_panel){p.panel, 0, 0, size[0], size[1], width};
                pp = &panel;
            }
            if (last && d->capture) {
                if ((r = native_capture(&p, d, d->capture, pp, fb_w, fb_h))) goto done;
            } else {
                if ((r = oak_renderer_present(d->renderer, (uint32_t)fb_w, (uint32_t)fb_h, pp,
                                              NULL)))
                    goto done;
                if (p.gl_native) glfwSwapBuffers(p.window);
            }
        } else {
            if (p.show_overlay) {
                uint32_t size[2];
                draw_overlay(&p, d, p.pixels, width, height, size);
                p.overlaid = true;
            }
            if ((r = draw_frame(&p, width, height, fb_w, fb_h))) goto done;
            if (last && d->capture && (r = capture(&p, d->capture, fb_w, fb_h))) goto done;
            glfwSwapBuffers(p.window);
        }
        uint64_t now = oak_time_ns();
        if (last_present && i > 1) { /* after the first frame's start-up */
            double gap = (double)(now - last_present) / 1e6;
            pace_sum += gap, pace_sq += gap * gap, paced++;
            if (gap > stats->ms_worst) stats->ms_worst = gap;
        }
        /* the panel's frame time: present to present, as the user sees it */
        _oak_overlay_push(&p.overlay, (float)(last_present ? (double)(now - last_present) / 1e6
                                                           : oak_ms_since(start)));
        last_present = now;
        if (i == 0 && d->resize_width && d->resize_height)
            glfwSetWindowSize(p.window, (int)d->resize_width, (int)d->resize_height);
        total_ms += oak_ms_since(start);
        stats->frames++;
    }
    stats->width = width, stats->height = height;
    if (p.native) /* the mode the first present settled on */
        snprintf(stats->presentation, sizeof stats->presentation, "%s",
                 oak_renderer_presentation(d->renderer));
    stats->ms_per_frame = stats->frames ? total_ms / stats->frames : 0;
    if (paced) {
        double mean = pace_sum / paced, var = pace_sq / paced - mean * mean;
        stats->ms_jitter = var > 0 ? sqrt(var) : 0;
        oak_log_info("window: %u presents %.2f ms apart on average, jitter %.2f ms, worst %.2f ms",
                     paced, mean, stats->ms_jitter, stats->ms_worst);
    }
    if (d->capture && !(d->frames && stats->frames == d->frames) && stats->frames) {
        /* closed early: the capture is of the last frame shown, drawn again */
        if (p.native) {
            if ((r = native_capture(&p, d, d->capture, p.show_overlay ? &panel : NULL, fb_w, fb_h)))
                goto done;
        } else {
            glfwMakeContextCurrent(p.window);
            if ((r = draw_frame(&p, width, height, fb_w, fb_h)) ||
                (r = capture(&p, d->capture, fb_w, fb_h)))
                goto done;
        }
    }
    /* the picture without the panel (a native present read nothing back) */
    size_t bytes = (size_t)width * height * 4;
    if (d->out && stats->frames && (p.overlaid || p.native)) {
        if (!grow(&p.pixels, &p.pixels_cap, bytes)) {
            r = OAK_ERROR_OUT_OF_MEMORY;
            goto done;
        }
        if ((r = oak_renderer_read_pixels(d->renderer, p.pixels, bytes))) goto done;
    }
    if (d->out && stats->frames && (r = oak_image_write_png(d->out, width, height, p.pixels)))
        goto done;
done:;
    oak_result closed = close_presenter(&p, d->renderer);
    return r ? r : closed;
}
