/* The opaquecopy pass on the CPU backend: the lit frame (sky included) into
 * level 0 of the copy, then each level the 2 x 2 box of the one above
 * (render/opaque_copy.h), rows split over the job pool level by level. Each
 * texel is computed alone from the level above, so the bytes are the same
 * at any thread count. */
#include <string.h>

#include "cpu_internal.h"
#include "render/opaque_copy.h"

#define ROWS_PER_JOB 8

typedef struct copy_job {
    cpu_backend *b;
    uint32_t level;
} copy_job;

static void copy_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const copy_job *j = user;
    const cpu_backend *b = j->b;
    uint32_t W = b->width, H = b->height, w, h, uw, uh;
    _oak_pyramid_size(W, H, j->level, &w, &h);
    float *dst = b->opaque_copy + 3 * _oak_opaque_offset(W, H, j->level);
    if (!j->level) {
        memcpy(dst + (size_t)begin * w * 3, b->color + (size_t)begin * W * 3,
               (size_t)(end - begin) * w * 3 * sizeof(float));
        return;
    }
    _oak_pyramid_size(W, H, j->level - 1, &uw, &uh);
    const float *src = b->opaque_copy + 3 * _oak_opaque_offset(W, H, j->level - 1);
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < w; x++) {
            uint32_t x0 = 2 * x, y0 = 2 * y;
            uint32_t x1 = x0 + 1 < uw ? x0 + 1 : uw - 1, y1 = y0 + 1 < uh ? y0 + 1 : uh - 1;
            const float *a = src + 3 * ((size_t)y0 * uw + x0),
                        *c1 = src + 3 * ((size_t)y0 * uw + x1);
            const float *c2 = src + 3 * ((size_t)y1 * uw + x0),
                        *d = src + 3 * ((size_t)y1 * uw + x1);
            float *o = dst + 3 * ((size_t)y * w + x);
            for (int k = 0; k < 3; k++) o[k] = (a[k] + c1[k] + c2[k] + d[k]) * 0.25f;
        }
}

oak_result _oak_cpu_run_opaquecopy(cpu_backend *b, const oak_render_view *v) {
    (void)v;
    uint64_t floats = _oak_opaque_texels(b->width, b->height) * 3;
    if (floats > b->opaque_copy_cap) {
        float *p = oak_realloc(b->opaque_copy, (size_t)floats * sizeof(float));
        if (!p) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: opaque copy");
        b->opaque_copy = p;
        b->opaque_copy_cap = floats;
    }
    for (uint32_t l = 0; l < OAK_GPU_OPAQUE_LEVELS; l++) {
        uint32_t w, h;
        _oak_pyramid_size(b->width, b->height, l, &w, &h);
        copy_job j = {b, l};
        oak_parallel_for(h, ROWS_PER_JOB, copy_rows, &j);
    }
    b->opaque_valid = true;
    return OAK_OK;
}
