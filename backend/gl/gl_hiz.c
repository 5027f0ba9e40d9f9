/* Two-pass Hi-Z occlusion culling on OpenGL (shaders/hiz_cull.comp.glsl
 * and hiz_pyramid.comp.glsl, the files the Vulkan backend compiles;
 * docs/ARCHITECTURE.md "Occlusion culling"), inside the raster pass when
 * the view asks for it (occ_gpu): pass 1 draws what was visible last frame,
 * the pyramid is built from its depth, every candidate is tested against it
 * and pass 2 draws the newly visible over pass 1's targets; the native
 * streams' instances take the same passes (instcull.comp's EARLY step in
 * the instcull pass, its LATE step here). Commands are
 * compacted on the GPU in the candidates' order and drawn by count where
 * the context has ARB_indirect_parameters (or GL 4.6), else drawn in place
 * with instance counts of 0 or 1 (also with OAK_GL_NO_DRAW_COUNT=1). The
 * draws culled by meshlets are no candidates: their meshlets take the
 * same two steps (gl_meshcull.c, common/meshcull_hiz.glsl). The
 * counters are copied into one of two small buffers behind a fence and
 * read once it has passed, never waiting. */
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

#define CMD_WORDS 5u

oak_result _oak_gl_hiz_upload(_oak_gl_frame *f, const _oak_gl_context *ctx,
                              const oak_render_view *v, uint32_t width, uint32_t height) {
    f->hiz_on = v->occ_gpu;
    f->hiz_timed = false;
    if (!f->hiz_on) return OAK_OK;
    /* the main view's commands, one draw each, in the four vis groups */
    uint32_t n = f->main_groups[4] - f->main_groups[0];
    uint32_t first[OAK_GPU_HIZ_GROUPS], count[OAK_GPU_HIZ_GROUPS];
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++) {
        first[g] = f->main_groups[g] - f->main_groups[0];
        count[g] = f->main_groups[g + 1] - f->main_groups[g];
    }
    size_t head = sizeof(oak_gpu_hiz_head), bytes = head + (size_t)n * sizeof(oak_gpu_hiz_draw);
    if (!OAK_GROW(f->hiz_data, f->hiz_cap, (uint32_t)bytes))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u Hi-Z candidates", n);
    /* OAK_GL_NO_DRAW_COUNT=1: the in-place path, for tests */
    const char *no_count = getenv("OAK_GL_NO_DRAW_COUNT");
    f->hiz_compact = ctx->has_indirect_count && !(no_count && *no_count && *no_count != '0');
    oak_gpu_hiz_head *h = (oak_gpu_hiz_head *)f->hiz_data;
    _oak_gpu_hiz_head_fill(h, v, n, first, count, f->hiz_compact, width, height);
    oak_gpu_hiz_draw *c = (oak_gpu_hiz_draw *)(f->hiz_data + head);
    for (uint32_t j = 0; j < n; j++) {
        const _oak_gl_command *d = &f->cmds[f->main_groups[0] + j];
        uint32_t g = 0;
        while (g + 1 < OAK_GPU_HIZ_GROUPS && j >= first[g + 1]) g++;
        _oak_gpu_hiz_draw_fill(&c[j], v, d->base_instance, g, d->count, d->first_index,
                               (uint32_t)d->base_vertex);
    }
    /* then both passes' commands, the compaction's flags and sums */
    oak_result r =
        _oak_gl_buffer_reserve(&f->hiz, bytes + ((size_t)n * (2 * CMD_WORDS + 2) + 1) * 4, false);
    if (!r) r = _oak_gl_buffer_upload(&f->hiz, 0, f->hiz_data, bytes);
    if (r) return r;
    /* keys, pyramid, the native streams' bits, then the meshlets' (placed
       by the draws' keys, as Vulkan's: gl_meshcull.c) */
    uint64_t ml_base = _oak_gpu_hiz_stream_base(v, width, height) + _oak_gpu_hiz_stream_words(v);
    uint64_t ml_words = 0;
    if ((r = _oak_gl_meshcull_hiz_place(f, v, ml_base, &ml_words))) return r;
    size_t keep = (size_t)(ml_base + ml_words) * 4;
    if (!f->hiz_keep.id || f->hiz_keep.capacity < keep) {
        /* a new one starts with nothing visible */
        _oak_gl_buffer_release(&f->hiz_keep);
        if ((r = _oak_gl_buffer_reserve(&f->hiz_keep, keep, false))) return r;
        GLuint zero = 0;
        glClearNamedBufferData(f->hiz_keep.id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, &zero);
    }
    return OAK_OK;
}

static void dispatch(_oak_gl_frame *f, uint32_t step, uint32_t items) {
    if (!items) return;
    glUniform1ui(0, step);
    glDispatchCompute((items + 63) / 64, 1, 1);
    (void)f;
}

/* Pass `which`'s flags into commands in the candidates' order: the scan
   (one work group), then the scatter; only with indirect counts. */
static void compact(_oak_gl_frame *f, uint32_t which, uint32_t n) {
    if (!f->hiz_compact || !n) return;
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    dispatch(f, which ? OAK_GPU_HIZ_STEP_SCAN1 : OAK_GPU_HIZ_STEP_SCAN0, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    dispatch(f, which ? OAK_GPU_HIZ_STEP_SCATTER1 : OAK_GPU_HIZ_STEP_SCATTER0, n);
}

/* The commands of pass `which` (0: pass 1), group by group. */
static void draw_pass(_oak_gl_frame *f, uint32_t which) {
    const oak_gpu_hiz_head *h = (const oak_gpu_hiz_head *)f->hiz_data;
    uint32_t n = h->info[0];
    size_t region = (OAK_GPU_HIZ_HEAD_WORDS + (size_t)n * OAK_GPU_HIZ_DRAW_WORDS +
                     (size_t)which * n * CMD_WORDS) *
                    4;
    glBindVertexArray(f->vao);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->hiz.id);
    if (f->hiz_compact) glBindBuffer(GL_PARAMETER_BUFFER_ARB, f->hiz.id);
    for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++) {
        uint32_t count = h->group_count[g];
        if (!count) continue;
        if ((g & 1) == 0) /* single-sided */
            glEnable(GL_CULL_FACE);
        else
            glDisable(GL_CULL_FACE);
        glUseProgram(g >= 2 ? f->prog_vis_mask : f->prog_vis);
        const void *at = (const void *)(uintptr_t)(region + (size_t)h->group_first[g] * 20);
        if (f->hiz_compact) {
            GLintptr counter =
                (GLintptr)(offsetof(oak_gpu_hiz_head, early) + (which ? 16u : 0u) + g * 4u);
            glMultiDrawElementsIndirectCountARB(GL_TRIANGLES, GL_UNSIGNED_INT, at, counter,
                                                (GLsizei)count, 0);
        } else {
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, at, (GLsizei)count, 0);
        }
    }
    glDisable(GL_CULL_FACE);
    /* unbound for the plain indirect draws after these (the meshlets',
       the streams'): on llvmpipe (Mesa 22.3) the meshcull pass's
       glMultiDrawElementsIndirect drew nothing while it stayed bound in a
       frame with no count draw (test_meshcull_hiz, the wall aside) */
    if (f->hiz_compact) glBindBuffer(GL_PARAMETER_BUFFER_ARB, 0);
}

oak_result _oak_gl_hiz_raster(_oak_gl_frame *f, _oak_gl_targets *t) {
    oak_result r = OAK_OK;
    if ((!f->prog_hiz &&
         (r = _oak_gl_compute(&f->prog_hiz, "hiz_cull", oak_gl_src_hiz_cull_comp))) ||
        (!f->prog_hiz_pyramid &&
         (r = _oak_gl_compute(&f->prog_hiz_pyramid, "hiz_pyramid", oak_gl_src_hiz_pyramid_comp))))
        return r;
    const oak_gpu_hiz_head *h = (const oak_gpu_hiz_head *)f->hiz_data;
    uint32_t n = h->info[0], levels = h->size[2];
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ, f->hiz.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ_KEEP, f->hiz_keep.id);
    /* last frame's bits and pyramid, written by compute */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_hiz);
    dispatch(f, OAK_GPU_HIZ_STEP_EARLY, n);
    compact(f, 0, n);
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    /* pass 1 (the raster pass cleared the targets and bound its state);
       the streams too, whose depth then hides draws as well */
    _oak_gl_craster_merge(f); /* the small bands of pass 1's lists (gl_craster.c) */
    draw_pass(f, 0);
    _oak_gl_meshcull_draw(f);   /* the meshlets the meshcull pass's EARLY step kept */
    _oak_gl_draw_streams(f, 0); /* gl_pass_instcull.c */
    /* this frame's set of queries (gl_frame.c reads a finished one) */
    GLuint *hq = f->hiz_queries[_oak_gl_frame_slot(f)];
    if (!hq[0]) glGenQueries(2, hq);
    glQueryCounter(hq[0], GL_TIMESTAMP);
    /* the pyramid from pass 1's depth, sampled (not drawn into meanwhile) */
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glBindTextureUnit(OAK_B_DEPTH, t->depth);
    glUseProgram(f->prog_hiz_pyramid);
    for (uint32_t k = 0; k < levels; k++) {
        uint32_t w = t->width, hh = t->height;
        for (uint32_t i = 0; i <= k; i++) w = (w + 1) / 2, hh = (hh + 1) / 2;
        if (k) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
        dispatch(f, OAK_GPU_HIZ_STEP_LEVEL + k, w * hh);
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_hiz);
    dispatch(f, OAK_GPU_HIZ_STEP_LATE, n);
    /* the meshlets against the same pyramid (meshcull.comp's LATE step):
       their bits, and pass 2's triangles placed and written over pass 1's
       regions and commands (gl_meshcull.c) */
    _oak_gl_meshcull_late(f);
    glUseProgram(f->prog_hiz);
    /* the native streams' instances against the same pyramid: bits, and
       pass 2's lists (instcull.comp's LATE step, one row per stream) */
    bool streams = false;
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        streams |= f->instcull_heads[s].prev[1] != OAK_GPU_INSTCULL_HIZ_OFF &&
                   f->instcull_heads[s].info[0];
    if (streams) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCE_OUT, f->instance_out.id);
        glUseProgram(f->prog_instcull);
        glUniform1ui(0, OAK_GPU_HIZ_STEP_LATE);
        glDispatchCompute((f->instcull_most + 63) / 64, f->instcull_streams, 1);
        /* the small bands of pass 2's lists in compute */
        _oak_gl_craster_late(f);
        glUseProgram(f->prog_hiz);
    }
    compact(f, 1, n);
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT |
                    GL_BUFFER_UPDATE_BARRIER_BIT);
    glQueryCounter(hq[1], GL_TIMESTAMP);
    f->hiz_timed = true;
    /* pass 2 over pass 1's ids and depth */
    glBindFramebuffer(GL_FRAMEBUFFER, t->vis_fbo);
    if (streams) _oak_gl_craster_merge(f); /* the newly visible small bands */
    draw_pass(f, 1);
    _oak_gl_meshcull_draw(f); /* the newly visible meshlets */
    if (streams) _oak_gl_draw_streams(f, OAK_GPU_INSTCULL_LATE);
    /* the counters, for a read once this frame has passed */
    uint32_t k = (uint32_t)(f->hiz_serial % 2);
    if (f->hiz_fence[k]) glDeleteSync(f->hiz_fence[k]);
    if ((r = _oak_gl_buffer_reserve(&f->hiz_read[k], sizeof(oak_gpu_hiz_head), false))) return r;
    glCopyNamedBufferSubData(f->hiz.id, f->hiz_read[k].id, 0, 0, sizeof(oak_gpu_hiz_head));
    f->hiz_fence[k] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    f->hiz_read_serial[k] = ++f->hiz_serial;
    return OAK_OK;
}

bool _oak_gl_hiz_stats(_oak_gl_frame *f, oak_occlusion_stats *out) {
    for (uint32_t k = 0; k < 2; k++) {
        if (!f->hiz_fence[k] || f->hiz_read_serial[k] <= f->hiz_stats_serial) continue;
        GLenum s = glClientWaitSync(f->hiz_fence[k], 0, 0);
        if (s != GL_ALREADY_SIGNALED && s != GL_CONDITION_SATISFIED) continue;
        oak_gpu_hiz_head h;
        glGetNamedBufferSubData(f->hiz_read[k].id, 0, sizeof h, &h);
        oak_occlusion_stats st = {
            .on = true, .draws_tested = h.info[0], .draws_occluded = h.stats[1]};
        for (uint32_t g = 0; g < OAK_GPU_HIZ_GROUPS; g++)
            st.drawn_pass1 += h.early[g], st.drawn_pass2 += h.late[g];
        _oak_gpu_hiz_stream_stats(&st, &h);
        f->hiz_stats = st;
        f->hiz_stats_serial = f->hiz_read_serial[k];
    }
    if (!f->hiz_stats_serial) return false;
    *out = f->hiz_stats;
    return true;
}

void _oak_gl_hiz_release(_oak_gl_frame *f) {
    if (f->prog_hiz) glDeleteProgram(f->prog_hiz);
    if (f->prog_hiz_pyramid) glDeleteProgram(f->prog_hiz_pyramid);
    f->prog_hiz = f->prog_hiz_pyramid = 0;
    _oak_gl_buffer_release(&f->hiz);
    _oak_gl_buffer_release(&f->hiz_keep);
    memset(&f->hiz_streams, 0, sizeof f->hiz_streams);
    for (uint32_t k = 0; k < 2; k++) {
        if (f->hiz_fence[k]) glDeleteSync(f->hiz_fence[k]);
        f->hiz_fence[k] = 0;
        _oak_gl_buffer_release(&f->hiz_read[k]);
    }
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++) {
        if (f->hiz_queries[k][0]) glDeleteQueries(2, f->hiz_queries[k]);
        f->hiz_queries[k][0] = f->hiz_queries[k][1] = 0;
    }
    f->hiz_timed = false;
    oak_free(f->hiz_data);
    f->hiz_data = NULL;
    f->hiz_cap = 0;
    f->hiz_stats_serial = 0;
}
