/* The post pass on OpenGL: one compute dispatch (shaders/post.comp) from
 * the HDR image to packed RGBA8: the bloom pass's pyramid mixed in
 * (OAK_B_BLOOM), exposure (fixed, or the exposure pass's camera from
 * OAK_B_EXPOSURE), the tone curve, sRGB with dither. */
#include "gl_gpu.h"

oak_result _oak_gl_run_post(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = _oak_gl_bloom_bind(f, NULL);
    if (r) return r;
    glUseProgram(f->prog_post);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LDR, t->ldr.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_EXPOSURE, f->exposure.id);
    _oak_gl_dispatch_output(t);
    return OAK_OK;
}
