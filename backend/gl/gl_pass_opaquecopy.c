/* The opaquecopy pass on OpenGL: shaders/opaquecopy.comp (the file the
 * Vulkan backend compiles), one dispatch per level, the level in a uniform
 * (GL has no specialization constants), a storage barrier between levels;
 * the blend pass reads the chain (render/opaque_copy.h). The program is made
 * on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/opaque_copy.h"

oak_result _oak_gl_opaquecopy_bind(_oak_gl_frame *f, const _oak_gl_targets *t) {
    /* blend (t NULL) binds what there is: it reads it only after a copy */
    size_t bytes = t ? (size_t)_oak_opaque_texels(t->width, t->height) * 16 : 16;
    oak_result r = _oak_gl_buffer_reserve(&f->opaque, bytes, false);
    if (r) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_OPAQUE, f->opaque.id);
    return OAK_OK;
}

oak_result _oak_gl_run_opaquecopy(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_opaquecopy)
        r = _oak_gl_compute(&f->prog_opaquecopy, "opaquecopy", oak_gl_src_opaquecopy_comp);
    if (r || (r = _oak_gl_opaquecopy_bind(f, t))) return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    glBindTextureUnit(OAK_B_DEPTH, t->depth); /* level 0's w */
    glUseProgram(f->prog_opaquecopy);
    for (uint32_t l = 0; l < OAK_GPU_OPAQUE_LEVELS; l++) {
        uint32_t w, h;
        _oak_pyramid_size(t->width, t->height, l, &w, &h);
        _oak_gl_dispatch_step(l, l == 0, w, h); /* each level reads the one before */
    }
    return OAK_OK; /* blend's barrier comes from its row (gl_track.c) */
}

void _oak_gl_opaquecopy_release(_oak_gl_frame *f) {
    if (f->prog_opaquecopy) glDeleteProgram(f->prog_opaquecopy);
    f->prog_opaquecopy = 0;
    _oak_gl_buffer_release(&f->opaque);
}
