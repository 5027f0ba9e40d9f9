/* The lamp shadow pass on OpenGL: the budget's slots and faces, the lamp
 * casters' records (face in info.w >> 16) and per face-layer indirect
 * commands; each tile's static layer drawn into the static atlas only when
 * its face's static_hash moved, copied into the atlas the resolve reads,
 * and the movers drawn over that copy (docs/SHADING.md "Lamp shadows"). */
#include <stdio.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

#define ATLAS (OAK_LAMP_ATLAS_TILES * OAK_LAMP_SHADOW_FACE)

void _oak_gl_lampshadow_release(_oak_gl_frame *f) {
    _oak_gl_lamp *l = &f->lamp;
    GLuint progs[2] = {l->prog, l->prog_mask};
    for (int i = 0; i < 2; i++)
        if (progs[i]) glDeleteProgram(progs[i]);
    GLuint fbos[2] = {l->static_fbo, l->live_fbo};
    glDeleteFramebuffers(2, fbos);
    GLuint texs[2] = {l->static_tex, l->live_tex};
    glDeleteTextures(2, texs);
    _oak_gl_buffer_release(&l->block);
    _oak_gl_buffer_release(&l->casters);
    _oak_gl_buffer_release(&l->commands);
    oak_free(l->draw_data);
    oak_free(l->cmds);
    memset(l, 0, sizeof *l);
}

static oak_result program(GLuint *out, const char *name, bool masked) {
    char head[96];
    snprintf(head, sizeof head, "#version 450 core\n#define OAK_GL 1\n#define MASKED %s\n",
             masked ? "true" : "false");
    const char *srcs[2] = {oak_gl_src_lamp_shadow_vert, oak_gl_src_shadow_masked_frag};
    char *full[2] = {NULL, NULL};
    oak_result r = OAK_OK;
    for (int i = 0; i < 2 && !r; i++) {
        if (i == 1 && !masked) break;
        size_t hl = strlen(head), n = strlen(srcs[i]);
        if (!(full[i] = oak_alloc(hl + n + 1))) {
            r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for shader %s", name);
            break;
        }
        memcpy(full[i], head, hl);
        memcpy(full[i] + hl, srcs[i], n + 1);
    }
    if (!r) r = _oak_gl_program(out, name, full[0], full[1], NULL);
    oak_free(full[0]);
    oak_free(full[1]);
    return r;
}

static oak_result make_atlas(GLuint *tex, GLuint *fbo) {
    glCreateTextures(GL_TEXTURE_2D, 1, tex);
    glTextureStorage2D(*tex, 1, GL_DEPTH_COMPONENT32F, ATLAS, ATLAS);
    glTextureParameteri(*tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(*tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCreateFramebuffers(1, fbo);
    glNamedFramebufferTexture(*fbo, GL_DEPTH_ATTACHMENT, *tex, 0);
    glNamedFramebufferDrawBuffer(*fbo, GL_NONE);
    if (glCheckNamedFramebufferStatus(*fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return oak_error(OAK_ERROR_DEVICE, "gl: lamp atlas framebuffer incomplete");
    return OAK_OK;
}

static oak_result setup(_oak_gl_frame *f) {
    _oak_gl_lamp *l = &f->lamp;
    if (l->live_tex) return OAK_OK;
    oak_result r = program(&l->prog, "lamp-shadow", false);
    if (!r) r = program(&l->prog_mask, "lamp-shadow-masked", true);
    if (!r) r = make_atlas(&l->static_tex, &l->static_fbo);
    if (!r) r = make_atlas(&l->live_tex, &l->live_fbo);
    memset(l->drawn, 0, sizeof l->drawn);
    return r;
}

/* Records and commands: per face, its static casters then its movers, each
   layer as plain commands then masked ones (ranges in l->range[face][layer]:
   plain from [0], masked from [1], end at [2]). */
static oak_result build(_oak_gl_frame *f, const oak_render_view *v) {
    _oak_gl_lamp *l = &f->lamp;
    const oak_draw_list *c = &v->lamp_casters;
    uint32_t n = c->count;
    if (!OAK_GROW(l->draw_data, l->draw_cap, n ? n : 1) ||
        !OAK_GROW(l->cmds, l->cmd_cap, n ? n : 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u lamp casters", n);
    uint32_t at = 0;
    for (uint32_t fi = 0; fi < v->lamp_face_count; fi++) {
        const oak_lamp_face *face = &v->lamp_faces[fi];
        for (uint32_t layer = 0; layer < 2; layer++) {
            uint32_t first = face->first_caster + (layer ? face->static_count : 0);
            uint32_t count = layer ? face->mover_count : face->static_count;
            for (int masked = 0; masked < 2; masked++) {
                l->range[fi][layer][masked] = at;
                for (uint32_t i = first; i < first + count; i++) {
                    const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, c->mesh[i]);
                    const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, c->material[i]);
                    if (!ms || !mt)
                        return oak_error(OAK_ERROR_NOT_FOUND,
                                         "gl: lamp caster %u: mesh or material not synced", i);
                    if (!ms->index_count || mt->blend || mt->mask != (masked == 1)) continue;
                    l->cmds[at++] = (_oak_gl_command){ms->index_count, 1, ms->first_index,
                                                      (int32_t)ms->base_vertex, i};
                }
            }
            l->range[fi][layer][2] = at;
        }
    }
    for (uint32_t fi = 0; fi < v->lamp_face_count; fi++) {
        const oak_lamp_face *face = &v->lamp_faces[fi];
        uint32_t end = face->first_caster + face->static_count + face->mover_count;
        for (uint32_t i = face->first_caster; i < end; i++) {
            const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, c->mesh[i]);
            oak_gpu_draw *d = &l->draw_data[i];
            mat4 nm;
            glm_mat4_inv(c->world[i], nm);
            glm_mat4_transpose(nm);
            memcpy(d->world, c->world[i], 64);
            memcpy(d->normal, nm, 64);
            memcpy(d->prev_world, c->world[i], 64); /* a shadow view has no motion */
            d->info[0] = oak_handle_index(c->material[i].id);
            d->info[1] = ms ? ms->first_index : 0;
            d->info[2] = ms ? ms->base_vertex : 0;
            d->info[3] = (c->flags ? c->flags[i] & 0xffffu : 0) | fi << 16;
        }
    }
    oak_result r =
        _oak_gl_buffer_upload(&l->casters, 0, l->draw_data, (size_t)n * sizeof(oak_gpu_draw));
    if (!r)
        r = _oak_gl_buffer_upload(&l->commands, 0, l->cmds, (size_t)at * sizeof(_oak_gl_command));
    return r;
}

static void draw_range(_oak_gl_frame *f, const uint32_t range[3]) {
    _oak_gl_lamp *l = &f->lamp;
    for (int masked = 0; masked < 2; masked++) {
        GLsizei n = (GLsizei)(range[masked + 1] - range[masked]);
        if (!n) continue;
        glUseProgram(masked ? l->prog_mask : l->prog);
        glMultiDrawElementsIndirect(
            GL_TRIANGLES, GL_UNSIGNED_INT,
            (const void *)(uintptr_t)(range[masked] * sizeof(_oak_gl_command)), n, 0);
    }
}

oak_result _oak_gl_run_lampshadow(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_lamp *l = &f->lamp;
    if (v->lamp_face_count > OAK_LAMP_ATLAS_FACES || v->lamp_shadow_count > OAK_LAMP_SHADOW_MAX)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: %u lamp faces past %u",
                         v->lamp_face_count, OAK_LAMP_ATLAS_FACES);
    for (uint32_t i = 0; i < v->lamp_face_count; i++) {
        const oak_lamp_face *face = &v->lamp_faces[i];
        uint64_t end = (uint64_t)face->first_caster + face->static_count + face->mover_count;
        if (face->tile >= OAK_LAMP_ATLAS_FACES || end > v->lamp_casters.count)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "gl: lamp face %u past the atlas or the %u lamp casters", i,
                             v->lamp_casters.count);
    }
    oak_result r = setup(f);
    if (!r) r = build(f, v);
    if (r) return r;
    oak_gpu_lamp_shadows block;
    if ((r = _oak_gpu_lamp_shadows_fill(&block, v)) ||
        (r = _oak_gl_buffer_upload(&l->block, 0, &block, sizeof block)))
        return r;

    const GLsizei F = OAK_LAMP_SHADOW_FACE;
    float zero = 0;
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    _oak_gl_bind_common(f, &l->casters);
    glBindVertexArray(f->vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, l->commands.id);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glDisable(GL_CULL_FACE);
    glEnable(GL_SCISSOR_TEST);
    for (uint32_t i = 0; i < v->lamp_face_count; i++) {
        const oak_lamp_face *face = &v->lamp_faces[i];
        uint32_t t = face->tile;
        GLint x = (GLint)(t % OAK_LAMP_ATLAS_TILES) * F, y = (GLint)(t / OAK_LAMP_ATLAS_TILES) * F;
        glViewport(x, y, F, F);
        glScissor(x, y, F, F);
        bool redraw = !l->drawn[t] || l->hash[t] != face->static_hash;
        if (redraw) {
            glBindFramebuffer(GL_FRAMEBUFFER, l->static_fbo);
            glClearNamedFramebufferfv(l->static_fbo, GL_DEPTH, 0, &zero);
            draw_range(f, l->range[i][0]);
            l->drawn[t] = true;
            l->hash[t] = face->static_hash;
        }
        /* the atlas the resolve reads: the static layer, movers over it */
        if (redraw || face->mover_count || l->had_movers[t])
            glCopyImageSubData(l->static_tex, GL_TEXTURE_2D, 0, x, y, 0, l->live_tex, GL_TEXTURE_2D,
                               0, x, y, 0, F, F, 1);
        l->had_movers[t] = face->mover_count > 0;
        if (face->mover_count) {
            glBindFramebuffer(GL_FRAMEBUFFER, l->live_fbo);
            draw_range(f, l->range[i][1]);
        }
    }
    glDisable(GL_SCISSOR_TEST);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return OAK_OK;
}
