/* The null backend: accepts every view and draws nothing, so tests of the
 * engine half run without pixels. read_pixels gives a mid-grey frame. */
#include <string.h>

#include <oak/backend.h>

typedef struct null_backend {
    uint32_t width, height;
    uint32_t draws_seen; /* last view's draw count, kept for debugging */
} null_backend;

static oak_result null_probe(char *report, size_t size) {
    if (size) strncpy(report, "device: none (draws nothing)\n", size - 1), report[size - 1] = 0;
    return OAK_OK;
}

static oak_result null_create(void **self, const oak_backend_desc *desc) {
    null_backend *b = oak_calloc(1, sizeof *b);
    if (!b) return OAK_ERROR_OUT_OF_MEMORY;
    b->width = desc->width;
    b->height = desc->height;
    *self = b;
    return OAK_OK;
}

static void null_destroy(void *self) {
    oak_free(self);
}
static const char *null_device(void *self) {
    (void)self;
    return "none";
}

static oak_result null_resize(void *self, uint32_t w, uint32_t h) {
    null_backend *b = self;
    b->width = w, b->height = h;
    return OAK_OK;
}

static oak_result null_sync(void *self, const oak_render_view *v) {
    (void)self, (void)v;
    return OAK_OK;
}

static oak_result null_render(void *self, const oak_render_view *v) {
    ((null_backend *)self)->draws_seen = v->draws.count;
    return OAK_OK;
}

static oak_result null_read(void *self, uint8_t *rgba, size_t size) {
    null_backend *b = self;
    size_t n = (size_t)b->width * b->height * 4;
    memset(rgba, 128, n < size ? n : size);
    return OAK_OK;
}

static uint32_t null_timings(void *self, oak_stage_timing *out, uint32_t max) {
    (void)self, (void)out, (void)max;
    return 0;
}

const oak_backend *oak_backend_null(void) {
    static const oak_backend b = {"null",
                                  null_probe,
                                  null_create,
                                  null_destroy,
                                  null_device,
                                  null_resize,
                                  null_sync,
                                  null_render,
                                  null_read,
                                  null_timings,
                                  0 /* caps: it runs no pass and draws nothing */};
    return &b;
}
