/* The fog pass on OpenGL: shaders/fog.comp, the inject then the integrate
 * (the step in a uniform, a storage barrier between them). The buffer
 * stays bound at OAK_B_FOG for the resolve and the BLEND pass
 * (_oak_gl_bind_common). The program is made on first use. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/fog.h"

oak_result _oak_gl_run_fog(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    oak_result r = OAK_OK;
    if (!f->prog_fog) r = _oak_gl_compute(&f->prog_fog, "fog", oak_gl_src_fog_comp);
    oak_gpu_fog g;
    _oak_fog_fill(&g, v);
    if (r || (r = _oak_gl_buffer_reserve(&f->fog, (size_t)_oak_fog_texels(&g) * 16, false)))
        return r;
    _oak_gl_bind_common(f, &f->draws); /* the light grid stays bound from its pass */
    glBindTextureUnit(OAK_B_SHADOW, f->shadow_tex);
    glUseProgram(f->prog_fog);
    const uint32_t grid[OAK_FOG_STEPS][2] = {{g.grid[0], g.grid[1] * g.grid[2]},
                                             {g.grid[0], g.grid[1]}};
    for (uint32_t s = 0; s < OAK_FOG_STEPS; s++) {
        _oak_gl_dispatch_step(s, s == 0, grid[s][0], grid[s][1]); /* integrate reads inject */
    }
    return OAK_OK; /* the next reader's barrier comes from its row (gl_track.c) */
}

void _oak_gl_fog_release(_oak_gl_frame *f) {
    if (f->prog_fog) glDeleteProgram(f->prog_fog);
    f->prog_fog = 0;
    _oak_gl_buffer_release(&f->fog);
}
