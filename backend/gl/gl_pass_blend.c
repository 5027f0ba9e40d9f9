/* The blend pass on OpenGL: BLEND surfaces, far to near, forward-shaded
 * (shaders/blend.frag) over the resolved HDR frame: depth-tested against the
 * opaque depth without writing it, blended "over" (or added) in linear light. The
 * fragment stage rebuilds the surface from gl_FragCoord with the real
 * view_proj, so this pass draws with the upper-left origin and the unflipped
 * view: row 0 at the top. */
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

/* A plain unlit material (no water, no texture tricks): blend_unlit.frag,
   whose registers are not sized by the lit path it never runs
   (docs/WORLD.md "Particles", the campfire's blend cost). */
static bool unlit(oak_material material) {
    const oak_material_data *m = oak_material_get(material);
    if (!m || !m->desc.unlit || m->desc.water) return false;
    const oak_material_fx *x = &m->desc.fx;
    return !(x->triplanar > 0 || x->breakup > 0 || x->detail > 0);
}

/* Water shaded in compute (docs/SHADING.md "Water on the GPUs"), as on
   Vulkan: a plain draw of a lit water material, not additive, not
   softened. Its fragments find its pixels; blend_water.comp shades them. */
static bool water_in_compute(const _oak_gl_frame *f, const oak_render_view *v, uint32_t i) {
    if (f->water_forward || (v->draws.unit && v->draws.unit[i])) return false;
    const oak_material_data *m = oak_material_get(v->draws.material[i]);
    return m && m->desc.water && !m->desc.unlit && !m->desc.additive && !(m->desc.softness > 0);
}

/* The water programs, made on first use, and the per-pixel words (the
   compute raster's target, free after the raster pass's merge) cleared. */
static oak_result water_begin(_oak_gl_backend *b) {
    _oak_gl_frame *f = b->frame;
    oak_result r;
    if (!f->prog_blend_water_id &&
        (r = _oak_gl_shared_program(&f->prog_blend_water_id, "blend-water-id", oak_gl_src_vis_vert,
                                    oak_gl_src_blend_water_id_frag, NULL)))
        return r;
    if (!f->prog_blend_water &&
        (r = _oak_gl_shared_program(&f->prog_blend_water, "blend-water", NULL, NULL,
                                    oak_gl_src_blend_water_comp)))
        return r;
    size_t words = (size_t)b->targets.width * b->targets.height + 1;
    if ((r = _oak_gl_buffer_reserve(&f->craster_depth, words * 8, false))) return r;
    glClearNamedBufferSubData(f->craster_depth.id, GL_R32UI, 0, (GLsizeiptr)(words * 4),
                              GL_RED_INTEGER, GL_UNSIGNED_INT, NULL);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_CRASTER_DEPTH, f->craster_depth.id);
    return OAK_OK;
}

/* The water draw's pixels, found by the draw just made, shaded over the
   frame (the words it read left cleared for the next water draw). */
static void shade_water(_oak_gl_backend *b) {
    _oak_gl_frame *f = b->frame;
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glBindImageTexture(OAK_B_HDR - OAK_B_HDR, b->targets.hdr, 0, GL_FALSE, 0, GL_READ_WRITE,
                       GL_RGBA32F);
    glUseProgram(f->prog_blend_water);
    glDispatchCompute((b->targets.width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (b->targets.height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT |
                    GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
}

oak_result _oak_gl_run_blend(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    const uint32_t *main_groups = f->main_groups;
    if (main_groups[5] == main_groups[4]) return OAK_OK;
    oak_result r = _oak_gl_opaquecopy_bind(f, NULL);
    if (r) return r;
    uint32_t g4 = main_groups[4];
    bool water = false;
    for (uint32_t k = g4; k < main_groups[5] && !water; k++)
        water = water_in_compute(f, view, f->blend_draw[k - g4]);
    if (water && (r = water_begin(b))) return r;
    glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE);
    glBindFramebuffer(GL_FRAMEBUFFER, t->blend_fbo);
    glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    _oak_gl_bind_common(f, &f->draws);
    glBindTextureUnit(OAK_B_SHADOW, f->shadow_tex);
    glDepthMask(GL_FALSE);
    glEnable(GL_BLEND);
    /* premultiplied: the shader gives src * a and a (0 for additive materials) */
    glBlendFuncSeparate(GL_ONE, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glUseProgram(f->prog_blend);
    glBindVertexArray(f->vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    /* runs of equal sidedness and program keep the sorted order in one
       multi-draw each; a water draw in compute is a run of its own */
    /* a command's material is its draw's (blend_draw): not base_instance,
       which for a device-written stream lies past the list */
    uint32_t k = g4;
    GLuint bound = f->prog_blend;
    while (k < main_groups[5]) {
        oak_material m = view->draws.material[f->blend_draw[k - g4]];
        bool two = _oak_gl_mat_of(f, m)->double_sided, plain = unlit(m);
        bool wc = water && water_in_compute(f, view, f->blend_draw[k - g4]);
        uint32_t e = k + 1;
        while (e < main_groups[5] && !wc) {
            uint32_t i = f->blend_draw[e - g4];
            oak_material n = view->draws.material[i];
            if (_oak_gl_mat_of(f, n)->double_sided != two || unlit(n) != plain ||
                (water && water_in_compute(f, view, i)))
                break;
            e++;
        }
        if (two)
            glDisable(GL_CULL_FACE);
        else
            glEnable(GL_CULL_FACE);
        GLuint prog = wc ? f->prog_blend_water_id : plain ? f->prog_blend_unlit : f->prog_blend;
        if (prog != bound) glUseProgram(prog);
        bound = prog;
        if (plain) f->blend_unlit += e - k;
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)(k * sizeof(_oak_gl_command)),
                                    (GLsizei)(e - k), 0);
        if (wc) {
            shade_water(b);
            f->blend_compute++;
            bound = f->prog_blend_water;
        }
        k = e;
    }
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return OAK_OK;
}
