/* The FXAA pass on OpenGL: one compute dispatch (shaders/fxaa.comp) from
 * the tone-mapped bytes to the output, a copy when the view turns FXAA off. */
#include "gl_gpu.h"

oak_result _oak_gl_run_fxaa(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    glUseProgram(f->prog_fxaa);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LDR, t->ldr.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_OUTPUT, t->out.id);
    _oak_gl_dispatch_output(t);
    return OAK_OK;
}
