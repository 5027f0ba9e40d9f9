/* The shadow pass on OpenGL: the key light's casters (no BLEND, none marked
 * OAK_DRAW_NO_SHADOW) into the 2 x 2 cascade atlas (reversed-Z) as one
 * multi-draw indirect, each clipped to its cascade's tile, with the
 * lower-left origin so that row 0 is clip y = -1 (docs/SHADING.md). */
#include "gl_gpu.h"

oak_result _oak_gl_run_shadow(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    float zero = 0;
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glClearNamedFramebufferfv(f->shadow_fbo, GL_DEPTH, 0, &zero);
    const uint32_t *g = f->shadow_groups;
    if (g[4] > g[0]) { /* groups 0-3: casters are never BLEND */
        glBindFramebuffer(GL_FRAMEBUFFER, f->shadow_fbo);
        glViewport(0, 0, (GLsizei)f->shadow_size, (GLsizei)f->shadow_size); /* the atlas */
        _oak_gl_bind_common(f, &f->casters);
        /* every cascade in one go: the vertex shader clips each to its tile */
        for (int k = 0; k < 4; k++) glEnable(GL_CLIP_DISTANCE0 + k);
        _oak_gl_draw_groups(f, g, f->prog_shadow, f->prog_shadow_mask, false);
        for (int k = 0; k < 4; k++) glDisable(GL_CLIP_DISTANCE0 + k);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
    }
    return OAK_OK;
}
