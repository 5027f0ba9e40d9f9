/* The depth-of-field pass on OpenGL: shaders/dof.comp (the file the Vulkan
 * backend compiles), one dispatch per step, the step in a uniform, a storage
 * barrier between steps; the frame's depth texture is read through
 * OAK_B_DEPTH and the HDR image is changed in place. The program is made on
 * first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/dof.h"

oak_result _oak_gl_run_dof(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_dof) r = _oak_gl_compute(&f->prog_dof, "dof", oak_gl_src_dof_comp);
    oak_dof_layout l = _oak_dof_layout(t->width, t->height);
    if (r || (r = _oak_gl_buffer_reserve(&f->dof, (size_t)l.texels * 16, false))) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DOF, f->dof.id);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    glBindTextureUnit(OAK_B_DEPTH, t->depth);
    glUseProgram(f->prog_dof);
    for (uint32_t s = 0; s < OAK_DOF_STEPS; s++) {
        uint32_t w = s == OAK_DOF_STEP_TILES ? l.tw : s == OAK_DOF_STEP_COMPOSITE ? t->width : l.hw;
        uint32_t h = s == OAK_DOF_STEP_TILES       ? l.th
                     : s == OAK_DOF_STEP_COMPOSITE ? t->height
                                                   : l.hh;
        _oak_gl_dispatch_step(s, s == 0, w, h);
    }
    return OAK_OK; /* the next reader's barrier comes from its row (gl_track.c) */
}

void _oak_gl_dof_release(_oak_gl_frame *f) {
    if (f->prog_dof) glDeleteProgram(f->prog_dof);
    f->prog_dof = 0;
    _oak_gl_buffer_release(&f->dof);
}
