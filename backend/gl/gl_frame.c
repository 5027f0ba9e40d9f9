/* One frame on OpenGL, the same pass list as every backend (DESIGN.md):
 * (the passes land here one by one; until then the picture is the sky's
 * horizon colour so callers see a defined image). */
#include <math.h>

#include "gl_internal.h"

typedef struct _oak_gl_frame {
    double render_ms;
} _oak_gl_frame;

oak_result _oak_gl_frame_create(_oak_gl_backend *b) {
    b->frame = oak_calloc(1, sizeof *b->frame);
    if (!b->frame) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for the frame");
    return OAK_OK;
}

void _oak_gl_frame_destroy(_oak_gl_backend *b) {
    oak_free(b->frame);
    b->frame = NULL;
}

oak_result _oak_gl_frame_sync(_oak_gl_backend *b, const oak_render_view *view) {
    (void)b, (void)view;
    return OAK_OK;
}

oak_result _oak_gl_frame_render(_oak_gl_backend *b, const oak_render_view *view) {
    uint64_t t0 = oak_time_ns();
    float c[4] = {view->sky_horizon[0], view->sky_horizon[1], view->sky_horizon[2], 1};
    glClearTexImage(b->targets.out, 0, GL_RGBA, GL_FLOAT, c);
    b->frame->render_ms = oak_ms_since(t0);
    return _oak_gl_check("render") ? oak_error(OAK_ERROR_DEVICE, "gl: the frame failed") : OAK_OK;
}

uint32_t _oak_gl_frame_timings(_oak_gl_backend *b, oak_stage_timing *out, uint32_t max) {
    if (!max) return 0;
    out[0] = (oak_stage_timing){"render", b->frame->render_ms, -1.0};
    return 1;
}
