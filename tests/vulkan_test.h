/* Shared by the Vulkan tests: engine init with the validation layer on and a
 * log hook that counts every validation message (any one fails the test),
 * views built by the real frontend (through the null backend), and a direct
 * handle on the Vulkan backend so tests can read its live-object counters. */
#ifndef OAK_VULKAN_TEST_H
#define OAK_VULKAN_TEST_H

#include <dlfcn.h>

#include "oak_test.h"

#include "backend/vulkan/vk_debug.h"

static int vkt_validation_messages;
static int vkt_errors;

static void vkt_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (strstr(msg, "vulkan validation")) {
        vkt_validation_messages++;
        fprintf(stderr, "VALIDATION: %s\n", msg);
    } else if (level >= OAK_LOG_WARN) {
        if (level >= OAK_LOG_ERROR) vkt_errors++;
        fprintf(stderr, "%s: %s\n", level >= OAK_LOG_ERROR ? "error" : "warn", msg);
    }
}

/* Heap calls through the engine's hooks (vkt_init_counting). */

static inline void vkt_init_with(const oak_allocator *a);
static inline void vkt_init(void) {
    vkt_init_with(NULL);
}
static inline void vkt_init_counting(void) {
    oak_allocator a = oak_test_counting_allocator();
    vkt_init_with(&a);
}

static inline void vkt_init_with(const oak_allocator *a) {
    setenv("OAK_VK_VALIDATION", "1", 0);
    /* The loader unloads the driver and layer with the instance; LSan then
       cannot name their leaks ("<unknown module>") and lsan.supp cannot
       match them. Pinning them keeps their frames symbolized. */
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    oak_engine_desc d = {0};
    d.log = vkt_log;
    d.log_level = OAK_LOG_WARN;
    if (a) d.allocator = *a;
    if (oak_init(&d) != OAK_OK) {
        fprintf(stderr, "oak_init failed: %s\n", oak_last_error());
        exit(2);
    }
}

/* The frontend's view of input at w x h (drawn by the null backend). */
typedef struct vkt_frontend {
    oak_renderer *r;
    uint32_t shadow_size; /* 0: 256 texels, small enough for lavapipe */
} vkt_frontend;

static inline const oak_render_view *vkt_view(vkt_frontend *fe, uint32_t w, uint32_t h,
                                              const oak_frame_input *in) {
    if (!fe->r) {
        oak_renderer_desc rd = {.backend = "null",
                                .width = w,
                                .height = h,
                                .shadow_map_size = fe->shadow_size ? fe->shadow_size : 256};
        if (oak_make_renderer(&fe->r, &rd) != OAK_OK) return NULL;
    }
    uint32_t cw, ch;
    oak_renderer_size(fe->r, &cw, &ch);
    if (cw != w || ch != h) oak_renderer_resize(fe->r, w, h);
    if (oak_renderer_draw(fe->r, in) != OAK_OK) return NULL;
    return oak_renderer_last_view(fe->r);
}

static inline void vkt_frontend_release(vkt_frontend *fe) {
    if (fe->r) oak_destroy_renderer(fe->r);
    fe->r = NULL;
}

/* sync + render + read_pixels on the Vulkan backend. */
static inline oak_result vkt_draw(void *vk, const oak_render_view *v, uint8_t *rgba) {
    const oak_backend *b = oak_backend_vulkan();
    oak_result r;
    if ((r = b->sync(vk, v)) || (r = b->render(vk, v))) return r;
    return rgba ? b->read_pixels(vk, rgba, (size_t)v->width * v->height * 4) : OAK_OK;
}

/* A camera at eye looking at target, +Y up, as a camera-to-world matrix. */
static inline void vkt_look(mat4 out, float ex, float ey, float ez, float tx, float ty, float tz) {
    vec3 eye = {ex, ey, ez}, target = {tx, ty, tz}, up = {0, 1, 0};
    mat4 view;
    glm_lookat(eye, target, up, view);
    glm_mat4_inv(view, out);
}

static inline uint8_t vkt_byte_round(float linear) {
    float s = oak_linear_to_srgb(linear < 0 ? 0 : linear > 1 ? 1 : linear);
    return (uint8_t)floorf(s * 255.0f + 0.5f);
}

#endif
