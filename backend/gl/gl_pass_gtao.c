/* The gtao pass on OpenGL: the four compute steps (shaders/gtao_*.comp, the
 * files the Vulkan backend compiles), view depth and normals from the ids,
 * the depth mips, the horizon search, the denoise, into the ao buffer the
 * resolve reads; barriers between the steps from render/pass_gtao.h's rows.
 * Programs are made on first use. */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"
#include "render/pass_gtao.h"

static oak_result gtao_setup(_oak_gl_frame *f) {
    if (f->prog_gtao[3]) return OAK_OK;
    const char *const srcs[4] = {oak_gl_src_gtao_prefilter_comp, oak_gl_src_gtao_mips_comp,
                                 oak_gl_src_gtao_search_comp, oak_gl_src_gtao_denoise_comp};
    static const char *const names[4] = {"gtao-prefilter", "gtao-mips", "gtao-search",
                                         "gtao-denoise"};
    for (int i = 0; i < 4; i++) {
        if (f->prog_gtao[i]) continue;
        oak_result r = _oak_gl_compute(&f->prog_gtao[i], names[i], srcs[i]);
        if (r) return r;
    }
    return OAK_OK;
}

oak_result _oak_gl_gtao_bind(_oak_gl_frame *f, const _oak_gl_targets *t) {
    /* the resolve (t NULL) binds what there is: it reads it only after a gtao */
    size_t bytes = t ? (size_t)_oak_gpu_ao_floats(t->width, t->height) * sizeof(float) : 16;
    oak_result r = _oak_gl_buffer_reserve(&f->ao, bytes, false);
    if (r) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_AO, f->ao.id);
    return OAK_OK;
}

oak_result _oak_gl_run_gtao(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    oak_result r = gtao_setup(f);
    if (r || (r = _oak_gl_gtao_bind(f, t))) return r;
    _oak_gl_bind_common(f, &f->draws);
    glBindTextureUnit(OAK_B_IDS, t->vis);
    glUseProgram(f->prog_gtao[0]);
    _oak_gl_dispatch_output(t);
    /* each later step after the barrier its row's reads and writes need */
    const oak_pass_row *prev = &_oak_pass_table()[OAK_PASS_GTAO];
    for (uint32_t s = 0; s < OAK_GTAO_STEP_COUNT; s++) {
        _oak_gl_track_after(f, prev);
        _oak_gl_track_before(f, &k_oak_gtao_steps[s]);
        glUseProgram(f->prog_gtao[s + 1]);
        _oak_gl_dispatch_output(t);
        prev = &k_oak_gtao_steps[s];
    }
    return OAK_OK;
}

void _oak_gl_gtao_release(_oak_gl_frame *f) {
    for (int i = 0; i < 4; i++)
        if (f->prog_gtao[i]) glDeleteProgram(f->prog_gtao[i]);
    memset(f->prog_gtao, 0, sizeof f->prog_gtao);
    _oak_gl_buffer_release(&f->ao);
}
