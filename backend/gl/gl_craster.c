/* Compute rasterization on OpenGL (docs/ARCHITECTURE.md "Compute
 * rasterization"): as on Vulkan (vk_craster.c), the natively drawn streams'
 * small LOD bands (backend/gpu/craster.h) are rasterized by craster.comp
 * before the raster pass's draws, and craster_merge draws its pixels into
 * the cleared visibility buffer at their depth. GL has no 64-bit atomics
 * on llvmpipe, so craster.comp runs twice here: the depth step keeps each
 * pixel's nearest depth (32-bit atomicMax), the item step the largest item
 * at exactly that depth: the two words Vulkan's one 64-bit atomicMax
 * leaves. Needs ARB_gpu_shader_int64 (the edge functions). Under two-pass
 * Hi-Z it runs once a pass (gl_hiz.c), as on Vulkan: pass 1's bands from
 * the camera's lists, pass 2's from the LATE lists, each merged first. */
#include <string.h>

#include "backend/gpu/craster.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

/* the camera's table, the cascades', then the camera's plan (oak_gpu.h
   "Compute rasterization", OAK_GPU_CRASTER_PLAN) */
#define TABLE_BYTES ((size_t)OAK_GPU_CRASTER_TABLE_ROWS * 16)

/* The plans' view of the instcull pass's streams (backend/gpu/craster.h). */
static bool mesh_of(void *user, oak_mesh mesh, uint32_t out[3]) {
    const _oak_gl_mesh_slot *m = _oak_gl_mesh_of(user, mesh);
    if (!m || !m->index_count) return false;
    out[0] = m->index_count, out[1] = m->first_index, out[2] = m->base_vertex;
    return true;
}
static _oak_craster_streams streams_of(_oak_gl_frame *f, const oak_render_view *v) {
    return (_oak_craster_streams){.v = v,
                                  .heads = f->instcull_heads,
                                  .group = f->instcull_group,
                                  .moved = f->instcull_moved,
                                  .count = f->instcull_streams,
                                  .mesh = mesh_of,
                                  .user = f};
}

void _oak_gl_craster_split(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    /* the plan's conditions: without a compute raster no instance may go */
    if (!b->ctx.has_int64 || !f->instcull_streams ||
        _oak_craster_mode_get() == OAK_CRASTER_MODE_OFF)
        return;
    _oak_craster_streams in = streams_of(f, v);
    _oak_craster_split(&in, f->instcull_heads);
}

/* Whether this frame may rasterize any band in compute: 64-bit atomics,
   streams the instcull pass filled, and the raster not switched off. */
static bool craster_possible(const _oak_gl_backend *b, const _oak_gl_frame *f) {
    return b->ctx.has_int64 && f->instcull_streams &&
           _oak_craster_mode_get() != OAK_CRASTER_MODE_OFF;
}

/* The streams, the table and one target at its binding: what the bands'
   steps and their merges read. */
static void bind_tables(const _oak_gl_frame *f, GLuint target_binding, GLuint target) {
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCE_OUT, f->instance_out.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_CRASTER, f->craster.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, target_binding, target);
}

/* The camera's bands: the plan (craster_plan.comp: each band's first item
   and work groups from its list's visible count, this pass's; it reads the
   head's w), then the raster's two steps over the groups it wrote, through
   the table's indirect command; the merge's fragments read what they
   wrote. */
static void dispatch_bands(_oak_gl_frame *f) {
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id); /* y as Vulkan's */
    bind_tables(f, OAK_B_CRASTER_DEPTH, f->craster_depth.id);
    glUseProgram(f->prog_craster_plan);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT | GL_COMMAND_BARRIER_BIT);
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, f->craster.id);
    glUseProgram(f->prog_craster);
    for (GLuint step = 0; step < 2; step++) { /* the depth, then the item at it */
        glUniform1ui(0, step);
        glDispatchComputeIndirect((GLintptr)OAK_GPU_CRASTER_PLAN * 16);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    glBindBuffer(GL_DISPATCH_INDIRECT_BUFFER, 0);
}

oak_result _oak_gl_craster_run(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    f->craster_bands = 0;
    memset(f->craster_lods, 0, sizeof f->craster_lods);
    if (!craster_possible(b, f)) return OAK_OK;
    uint32_t w = b->targets.width, h = b->targets.height;
    uint32_t split;
    _oak_craster_streams in = streams_of(f, v);
    uint32_t n = _oak_craster_plan(&in, w, h, f->craster_table, f->craster_lods, &split);
    if (n != f->craster_logged || split != f->craster_split_logged) /* once a change */
        oak_log_info("gl: compute raster: %u LOD band%s (+%u per instance)", n - split,
                     n - split == 1 ? "" : "s", split);
    f->craster_logged = n, f->craster_split_logged = split;
    if (!n) return OAK_OK;
    /* the plan's indirect command: y, z and the cap the host's, x the GPU's */
    const uint32_t plan_head[4] = {0, 1, 1, _oak_craster_group_cap()};
    oak_result r;
    if (!f->prog_craster &&
        (r = _oak_gl_compute(&f->prog_craster, "craster", oak_gl_src_craster_comp)))
        return r;
    if (!f->prog_craster_plan &&
        (r = _oak_gl_compute(&f->prog_craster_plan, "craster-plan", oak_gl_src_craster_plan_comp)))
        return r;
    if (!f->prog_craster_merge &&
        (r = _oak_gl_shared_program(&f->prog_craster_merge, "craster-merge",
                                    oak_gl_src_craster_merge_vert, oak_gl_src_craster_merge_frag,
                                    NULL)))
        return r;
    if ((r = _oak_gl_buffer_reserve(&f->craster, TABLE_BYTES, false)) ||
        (r = _oak_gl_buffer_upload(&f->craster, 0, f->craster_table, (1 + 2 * (size_t)n) * 16)) ||
        (r = _oak_gl_buffer_upload(&f->craster, (size_t)OAK_GPU_CRASTER_PLAN * 16, plan_head,
                                   sizeof plan_head)) ||
        (r = _oak_gl_buffer_reserve(&f->craster_depth, (size_t)w * h * 8, false)))
        return r;
    glClearNamedBufferData(f->craster_depth.id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    _oak_gl_bind_common(f, &f->draws);
    dispatch_bands(f);
    f->craster_bands = n;
    return _oak_gl_check("compute raster")
               ? oak_error(OAK_ERROR_DEVICE, "gl: compute raster failed")
               : OAK_OK;
}

void _oak_gl_craster_late(_oak_gl_frame *f) {
    if (!f->craster_bands) return;
    /* the head's w: every band's command word moves to its LATE list's
       (oak_gpu.h "Compute rasterization"); the next frame's upload writes
       it back to 0. The target cleared, after pass 1's merge read it. */
    const uint32_t late = OAK_GPU_CRASTER_LATE_WORDS;
    glNamedBufferSubData(f->craster.id, 12, 4, &late);
    glClearNamedBufferData(f->craster_depth.id, GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    /* the LATE step's lists, the head and the cleared target */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    dispatch_bands(f); /* the plan anew from the LATE lists' counts */
    /* the raster's view (y negated) back for pass 2 */
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->raster_view.id);
}

void _oak_gl_craster_merge(_oak_gl_frame *f) {
    if (!f->craster_bands) return;
    bind_tables(f, OAK_B_CRASTER_DEPTH, f->craster_depth.id);
    glBindVertexArray(f->vao);
    glDisable(GL_CULL_FACE);
    glUseProgram(f->prog_craster_merge);
    glDrawArrays(GL_TRIANGLES, 0, 3);
}

oak_result _oak_gl_craster_shadow_run(_oak_gl_backend *b, const oak_render_view *v,
                                      const oak_shadow_layer_plan *plans, uint32_t cascades) {
    _oak_gl_frame *f = b->frame;
    f->craster_shadow_bands = f->craster_shadow_regions = 0;
    memset(f->craster_shadow_lods, 0, sizeof f->craster_shadow_lods);
    if (!craster_possible(b, f) || !f->shadow_size) return OAK_OK;
    uint64_t most;
    _oak_craster_streams in = streams_of(f, v);
    uint32_t n =
        _oak_craster_shadow_plan(&in, plans, cascades, f->shadow_size / 2, f->craster_shadow_table,
                                 f->craster_shadow_lods, &f->craster_shadow_regions, &most);
    if (n != f->craster_shadow_logged) /* once a change, for tests and benches */
        oak_log_info("gl: shadow compute raster: %u cascade band%s", n, n == 1 ? "" : "s");
    f->craster_shadow_logged = n;
    if (!n) return OAK_OK;
    oak_result r;
    if (!f->prog_craster_shadow && (r = _oak_gl_compute(&f->prog_craster_shadow, "craster-shadow",
                                                        oak_gl_src_craster_shadow_comp)))
        goto off;
    if (!f->prog_craster_shadow_merge &&
        (r = _oak_gl_shared_program(&f->prog_craster_shadow_merge, "craster-shadow-merge",
                                    oak_gl_src_craster_shadow_merge_vert,
                                    oak_gl_src_craster_shadow_merge_frag, NULL)))
        goto off;
    size_t size = f->shadow_size / 2, region_bytes = size * size * 4;
    if ((r = _oak_gl_buffer_reserve(&f->craster, TABLE_BYTES, true)) ||
        (r = _oak_gl_buffer_upload(&f->craster, OAK_GPU_CRASTER_SHADOW_TABLE * 16,
                                   f->craster_shadow_table, (1 + 2 * (size_t)n) * 16)) ||
        (r = _oak_gl_buffer_reserve(&f->craster_shadow, region_bytes * 2 * OAK_MAX_CASCADES,
                                    false)))
        goto off;
    for (uint32_t i = 0; i < 2 * OAK_MAX_CASCADES; i++)
        if (f->craster_shadow_regions >> i & 1u)
            glClearNamedBufferSubData(f->craster_shadow.id, GL_R32UI, i * region_bytes,
                                      region_bytes, GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    bind_tables(f, OAK_B_CRASTER_SHADOW, f->craster_shadow.id);
    glUseProgram(f->prog_craster_shadow);
    glDispatchCompute(_oak_craster_groups(most), n, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    f->craster_shadow_bands = n;
    return _oak_gl_check("shadow compute raster")
               ? oak_error(OAK_ERROR_DEVICE, "gl: shadow compute raster failed")
               : OAK_OK;
off: /* the hardware draws them all */
    f->craster_shadow_regions = 0;
    memset(f->craster_shadow_lods, 0, sizeof f->craster_shadow_lods);
    return r;
}

void _oak_gl_craster_shadow_merge(_oak_gl_frame *f, uint32_t cascade, bool mover) {
    uint32_t region = cascade * 2 + mover;
    if (!f->craster_shadow_bands || !(f->craster_shadow_regions >> region & 1u)) return;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_CRASTER_SHADOW, f->craster_shadow.id);
    glUseProgram(f->prog_craster_shadow_merge);
    glUniform1ui(0, region);
    glDrawArrays(GL_TRIANGLES, 0, 6);
}

void _oak_gl_craster_release(_oak_gl_frame *f) {
    if (f->prog_craster) glDeleteProgram(f->prog_craster);
    if (f->prog_craster_merge) glDeleteProgram(f->prog_craster_merge);
    if (f->prog_craster_plan) glDeleteProgram(f->prog_craster_plan);
    if (f->prog_craster_shadow) glDeleteProgram(f->prog_craster_shadow);
    if (f->prog_craster_shadow_merge) glDeleteProgram(f->prog_craster_shadow_merge);
    f->prog_craster = f->prog_craster_merge = f->prog_craster_plan = 0;
    f->prog_craster_shadow = f->prog_craster_shadow_merge = 0;
    _oak_gl_buffer_release(&f->craster);
    _oak_gl_buffer_release(&f->craster_depth);
    _oak_gl_buffer_release(&f->craster_shadow);
    f->craster_bands = f->craster_shadow_bands = 0;
}
