/* The ssr pass on OpenGL: shaders/ssr.comp (the file the Vulkan backend
 * compiles), one dispatch over the frame, the HDR image changed in place;
 * the resolve wrote the mirror buffer (render/ssr.h) for it. The program is
 * made on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/pass_table.h"
#include "render/ssr.h"

oak_result _oak_gl_ssr_bind(_oak_gl_frame *f, const _oak_gl_targets *t, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_SSR], v, oak_backend_gl()->caps);
    /* not running: what there is (the resolve does not write it) */
    size_t bytes = runs ? (size_t)_oak_ssr_floats(t->width, t->height) * 4 : 16;
    oak_result r = _oak_gl_buffer_reserve(&f->ssr, bytes, false);
    if (r) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_SSR, f->ssr.id);
    return OAK_OK;
}

oak_result _oak_gl_run_ssr(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_ssr && (r = _oak_gl_compute(&f->prog_ssr, "ssr", oak_gl_src_ssr_comp))) return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_SSR, f->ssr.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    glBindTextureUnit(OAK_B_DEPTH, t->depth);
    glUseProgram(f->prog_ssr);
    glDispatchCompute((t->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (t->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    return OAK_OK;
}

void _oak_gl_ssr_release(_oak_gl_frame *f) {
    if (f->prog_ssr) glDeleteProgram(f->prog_ssr);
    f->prog_ssr = 0;
    _oak_gl_buffer_release(&f->ssr);
}
