/* The command line's window: shows a backend's frames in a GLFW window,
 * natively where the backend can (Vulkan's swapchain, GL's default
 * framebuffer), else read back as RGBA8 and drawn through an OpenGL 3.3
 * core context (cpu, null, and any native start that failed). Built only
 * when GLFW is found. */
#ifndef OAK_CLI_WINDOW_H
#define OAK_CLI_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <oak/oak.h>

/* What the keys and mouse ask of a fly camera this frame (include/oak/fly.h):
   W/S forward and back, A/D left and right, E/Q up and down, Shift four
   times as fast, the wheel scaling the speed (1.25 a notch); the mouse
   dragged with its right button (or the arrow keys) turns; [ and ] held
   turn the hour back and on (2 hours a second). A test's script stands in
   for the user (desc.script). */
typedef struct _oak_window_input {
    float move[3]; /* right, up, forward: -1..1 */
    float look[2]; /* yaw (left +) and pitch (up +), radians this frame */
    bool fast;
    float speed_scale; /* the wheel's: 1.25 per notch up, 1/16 .. 16 */
    float hours;       /* the hour's change this frame */
    float notches;     /* the wheel's turn this frame (window.c makes speed_scale of it) */
    bool screenshot;   /* F12 this frame (the window writes it) */
    int weather_steps; /* F2 presses this frame: the next weather kind each */
    bool active;       /* any key or drag this frame */
} _oak_window_input;

/* Called before each frame is drawn with the renderer's current size (the
   window's framebuffer size) and the frame's input; it poses the scene and
   draws into the renderer. */
typedef oak_result (*_oak_window_frame_fn)(void *user, uint32_t index, uint32_t width,
                                           uint32_t height, const _oak_window_input *input);

typedef struct _oak_window_desc {
    const char *title;
    oak_renderer *renderer; /* its size is the window's first size */
    uint32_t width, height;
    uint32_t frames; /* 0: until the window is closed or Escape pressed */
    _oak_window_frame_fn frame;
    void *user;
    const char *out;     /* the last frame as drawn, as a PNG; NULL: none */
    const char *capture; /* the window's back buffer after the last frame; NULL: none */
    /* the timings panel (overlay.h) over the frames, F1 toggling it; `out`
       is the frame without it */
    bool overlay;
    /* A test's stand-in for a user dragging the window's edge: after the
       first frame the window is resized to this (0: never). */
    uint32_t resize_width, resize_height;
    /* A test's stand-in for the user's keys: "KEYS:FRAMES,..." holds the
       keys (of wasdqe, F for Shift, < > ^ v for the arrows, h H for [ and
       ] (the hour: CMake's lists cannot carry brackets), + - for a notch of
       the wheel each frame, P for F12's screenshot) for that many frames each, then nothing (NULL:
       the real keyboard and mouse). */
    const char *script;
    bool no_vsync; /* --no-vsync: Vulkan's MAILBOX or IMMEDIATE, GL's swap interval 0 */
} _oak_window_desc;

typedef struct _oak_window_stats {
    uint32_t frames;        /* frames shown */
    uint32_t width, height; /* the size at the end */
    double ms_per_frame;    /* mean, draw to present */
    /* frame pacing: present to present, the standard deviation and the
       worst, over the frames after the first (which pays start-up) */
    double ms_jitter, ms_worst;
    uint32_t screenshots; /* F12: oak-shot-N.png beside desc.out (else in the working
                             folder), the frame without the overlay */
    /* "swapchain fifo", "default framebuffer" or "read-back blit" */
    char presentation[48];
} _oak_window_stats;

#ifdef OAK_HAVE_GLFW
/* Writes why no window can open here into why (one line) and returns false,
   or describes the window system ("GLFW 3.3, display :0") and returns true.
   Starts and stops GLFW. */
bool _oak_window_available(char *why, size_t size);
/* How each backend would present in a window here, in one line (GLFW
   started and stopped): vulkan's swapchain where GLFW finds a Vulkan
   loader, gl's default framebuffer, the read-back blit for the rest. */
void _oak_window_presentations(char *out, size_t size);
/* Whether a script parses ("" is none): false, with why in one line, if not. */
bool _oak_window_script_ok(const char *script, char *why, size_t size);
/* Opens the window, runs frames until closed or desc->frames were shown,
   writes desc->out and desc->capture, closes the window. Failures (no
   display included) return an oak_result with oak_last_error() set. */
oak_result _oak_window_run(const _oak_window_desc *desc, _oak_window_stats *stats);
#else
static inline bool _oak_window_script_ok(const char *script, char *why, size_t size) {
    (void)script, (void)why, (void)size;
    return true;
}
static inline void _oak_window_presentations(char *out, size_t size) {
    if (size) snprintf(out, size, "read-back blit only (no GLFW)");
}
static inline bool _oak_window_available(char *why, size_t size) {
    if (size) snprintf(why, size, "oak was built without GLFW (libglfw3-dev)");
    return false;
}
static inline oak_result _oak_window_run(const _oak_window_desc *desc, _oak_window_stats *stats) {
    (void)desc, (void)stats;
    return oak_error(OAK_ERROR_UNSUPPORTED, "--window: oak was built without GLFW (libglfw3-dev)");
}
#endif

#endif
