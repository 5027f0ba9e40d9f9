/* The blend pass on OpenGL: BLEND surfaces, far to near, forward-shaded
 * (shaders/blend.frag) over the resolved HDR frame: depth-tested against the
 * opaque depth without writing it, blended "over" (or added) in linear light. The
 * fragment stage rebuilds the surface from gl_FragCoord with the real
 * view_proj, so this pass draws with the upper-left origin and the unflipped
 * view: row 0 at the top. */
#include "gl_gpu.h"

/* A plain unlit material (no water, no texture tricks): blend_unlit.frag,
   whose registers are not sized by the lit path it never runs
   (docs/WORLD.md "Particles", the campfire's blend cost). */
static bool unlit(oak_material material) {
    const oak_material_data *m = oak_material_get(material);
    if (!m || !m->desc.unlit || m->desc.water) return false;
    const oak_material_fx *x = &m->desc.fx;
    return !(x->triplanar > 0 || x->breakup > 0 || x->detail > 0);
}

oak_result _oak_gl_run_blend(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    const uint32_t *main_groups = f->main_groups;
    if (main_groups[5] == main_groups[4]) return OAK_OK;
    oak_result r = _oak_gl_opaquecopy_bind(f, NULL);
    if (r) return r;
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
       multi-draw each */
    /* a command's material is its draw's (blend_draw): not base_instance,
       which for a device-written stream lies past the list */
    uint32_t k = main_groups[4], g4 = main_groups[4];
    GLuint bound = f->prog_blend;
    while (k < main_groups[5]) {
        oak_material m = view->draws.material[f->blend_draw[k - g4]];
        bool two = _oak_gl_mat_of(f, m)->double_sided, plain = unlit(m);
        uint32_t e = k + 1;
        while (e < main_groups[5]) {
            oak_material n = view->draws.material[f->blend_draw[e - g4]];
            if (_oak_gl_mat_of(f, n)->double_sided != two || unlit(n) != plain) break;
            e++;
        }
        if (two)
            glDisable(GL_CULL_FACE);
        else
            glEnable(GL_CULL_FACE);
        GLuint prog = plain ? f->prog_blend_unlit : f->prog_blend;
        if (prog != bound) glUseProgram(prog);
        bound = prog;
        if (plain) f->blend_unlit += e - k;
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)(k * sizeof(_oak_gl_command)),
                                    (GLsizei)(e - k), 0);
        k = e;
    }
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    glDepthMask(GL_TRUE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return OAK_OK;
}
