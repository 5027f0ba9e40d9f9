/* The taa pass on OpenGL: shaders/taa.comp (the file the Vulkan backend
 * compiles), step 0 blending the frame with its history into the other
 * history image, a storage barrier, step 1 copying that image into the HDR
 * frame; the step in a uniform. The program is made on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/taa.h"

oak_result _oak_gl_run_taa(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = OAK_OK;
    if (!f->prog_taa) r = _oak_gl_compute(&f->prog_taa, "taa", oak_gl_src_taa_comp);
    /* a new size resets the history (the frontend says so in taa_reset) */
    uint32_t ow, oh; /* the output: larger than the frame when it upsamples */
    _oak_taa_out_size(v, &ow, &oh);
    if (r || (r = _oak_gl_buffer_reserve(&f->taa, (size_t)_oak_taa_texels(ow, oh) * 16, false)))
        return r;
    _oak_gl_bind_common(f, &f->draws);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_TAA, f->taa.id);
    glBindTextureUnit(OAK_B_IDS, t->vis);
    glBindImageTexture(OAK_B_HDR - OAK_B_HDR, t->hdr, 0, GL_FALSE, 0, GL_READ_WRITE, GL_RGBA32F);
    glUseProgram(f->prog_taa);
    for (uint32_t s = 0; s < 2; s++) {
        _oak_gl_dispatch_step(s, s == 0, ow, oh); /* the copy reads the history step 0 wrote */
    }
    return OAK_OK; /* the next readers' barriers come from their rows (gl_track.c) */
}

void _oak_gl_taa_release(_oak_gl_frame *f) {
    if (f->prog_taa) glDeleteProgram(f->prog_taa);
    f->prog_taa = 0;
    _oak_gl_buffer_release(&f->taa);
}
