/* The bloom pass on OpenGL: shaders/bloom.comp (the file the Vulkan backend
 * compiles), one dispatch per step, the step in a uniform (GL has no
 * specialization constants), a storage barrier between steps; post reads
 * the pyramid. The program is made on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/bloom.h"

oak_result _oak_gl_bloom_bind(_oak_gl_frame *f, const _oak_gl_targets *t) {
    /* post (t NULL) binds what there is: it reads it only after a bloom */
    size_t bytes = t ? (size_t)_oak_bloom_texels(t->width, t->height) * 16 : 16;
    oak_result r = _oak_gl_buffer_reserve(&f->bloom, bytes, false);
    if (r) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_BLOOM, f->bloom.id);
    return OAK_OK;
}

oak_result _oak_gl_run_bloom(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_bloom) r = _oak_gl_compute(&f->prog_bloom, "bloom", oak_gl_src_bloom_comp);
    if (r || (r = _oak_gl_bloom_bind(f, t))) return r;
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_EXPOSURE, f->exposure.id);
    glUseProgram(f->prog_bloom);
    for (uint32_t s = 0; s < OAK_BLOOM_STEPS; s++) {
        uint32_t level, w, h;
        _oak_bloom_step_level(s, &level);
        _oak_pyramid_size(t->width, t->height, level, &w, &h);
        _oak_gl_dispatch_step(s, s == 0, w, h);
    }
    return OAK_OK; /* post's barrier comes from its row (gl_track.c) */
}

void _oak_gl_bloom_release(_oak_gl_frame *f) {
    if (f->prog_bloom) glDeleteProgram(f->prog_bloom);
    f->prog_bloom = 0;
    _oak_gl_buffer_release(&f->bloom);
}
