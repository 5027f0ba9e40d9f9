/* The resolve pass on OpenGL: one compute dispatch (shaders/resolve.comp)
 * rebuilds, interpolates and shades each pixel from its id into the HDR
 * image; the sky where there is none. */
#include "gl_gpu.h"

oak_result _oak_gl_run_resolve(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    _oak_gl_bind_common(f, &f->draws);
    oak_result r = _oak_gl_gtao_bind(f, NULL);          /* read only when the gtao pass ran */
    if (r || (r = _oak_gl_ssr_bind(f, t, v))) return r; /* written when the ssr pass runs */
    glUseProgram(f->prog_resolve);
    glBindTextureUnit(OAK_B_IDS, t->vis);
    glBindTextureUnit(OAK_B_SHADOW, f->shadow_tex);
    glBindImageTexture(OAK_B_HDR - OAK_B_HDR, t->hdr, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    _oak_gl_dispatch_output(t);
    return OAK_OK;
}
