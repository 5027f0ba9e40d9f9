/* The raster pass on OpenGL: opaque and MASK draws into the visibility
 * buffer (depth + (draw, triangle) ids) as multi-draw indirect in four groups
 * (sidedness x cutout), then the instance streams from the instcull pass's
 * lists, their small LOD bands rasterized in compute first (gl_craster.c);
 * the draws culled by meshlets from the meshcull pass's commands after
 * their groups (gl_meshcull.c); or, under Hi-Z occlusion culling, gl_hiz.c's two passes. Row 0 is
 * the top: the lower-left origin with the y-negated view (the upload pass says why) and clockwise
 * front faces. */
#include "gl_gpu.h"

oak_result _oak_gl_run_raster(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    float zero = 0;
    GLuint none[4] = {0, 0, 0, 0};
    /* small stream triangles in compute first (gl_craster.c) */
    oak_result r = _oak_gl_craster_run(b, v); /* under Hi-Z pass 1's lists (gl_hiz.c) */
    if (r) return r;
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glClearNamedFramebufferuiv(t->vis_fbo, GL_COLOR, 0, none);
    glClearNamedFramebufferfv(t->vis_fbo, GL_DEPTH, 0, &zero);
    glBindFramebuffer(GL_FRAMEBUFFER, t->vis_fbo);
    glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    _oak_gl_bind_common(f, &f->draws);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->raster_view.id);
    glFrontFace(GL_CW); /* y negated */
    if (f->hiz_on) {    /* two passes around the Hi-Z pyramid (gl_hiz.c) */
        r = _oak_gl_hiz_raster(f, t);
        glFrontFace(GL_CCW);
        glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
        return r;
    }
    _oak_gl_craster_merge(f); /* its pixels, before the hardware's */
    _oak_gl_draw_groups(f, f->main_groups, f->prog_vis, f->prog_vis_mask, true);
    _oak_gl_meshcull_draw(f);   /* draws culled by meshlets (gl_meshcull.c) */
    _oak_gl_draw_streams(f, 0); /* gl_pass_instcull.c */
    glFrontFace(GL_CCW);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return OAK_OK;
}
