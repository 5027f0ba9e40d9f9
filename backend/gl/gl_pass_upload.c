/* The upload pass on OpenGL: the sync contract (render syncs itself), then
 * the frame's records: the view block (and its y-flipped twin for the
 * raster), draw records and indirect commands for the view and the casters,
 * lights, the reflection probes when they changed, the per-instance draw
 * index and the shadow map's storage. */
#include <string.h>

#include "backend/gpu/gpu_particles.h"
#include "backend/gpu/gpu_records.h"
#include "render/particle_eval.h"
#include "gl_gpu.h"

static void copy_mat(float out[16], mat4 m) {
    memcpy(out, m, 64);
}

/* The view block exactly as the Vulkan backend fills it (gpu_records.c). */
static void fill_view(oak_gpu_view *g, const oak_render_view *v, uint32_t shadow_size,
                      uint32_t lights) {
    _oak_gpu_view_fill(g, v, v->width, v->height, lights, shadow_size);
}

#define OAK_GL_MATRIX_CHUNK 512 /* draws per job when filling draw records */

/* Which command group a draw goes to (see build_list); -1: none. */
static int group_of(const _oak_gl_mat_slot *mt, const _oak_gl_mesh_slot *ms, bool main_view,
                    uint32_t flags) {
    if (!ms->index_count) return -1;
    if (mt->blend) return main_view ? 4 : -1;
    if (!main_view && (flags & OAK_DRAW_NO_SHADOW)) return -1;
    return (mt->mask ? 2 : 0) + (mt->double_sided ? 1 : 0);
}

typedef struct matrix_job {
    const oak_draw_list *list;
    oak_gpu_draw *out;
    bool casters; /* a caster marked OAK_DRAW_NO_SHADOW draws nothing: no matrices */
} matrix_job;

static void fill_matrices(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    matrix_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        if (j->casters && (j->out[i].info[3] & OAK_DRAW_NO_SHADOW)) continue;
        mat4 nm;
        glm_mat4_inv(j->list->world[i], nm);
        glm_mat4_transpose(nm);
        copy_mat(j->out[i].world, j->list->world[i]);
        copy_mat(j->out[i].normal, nm);
        copy_mat(j->out[i].prev_world,
                 j->list->prev_world ? j->list->prev_world[i] : j->list->world[i]);
        /* column 3 of the normal matrix carries the draw's colour (oak_gpu.h) */
        for (int k = 0; k < 4; k++)
            j->out[i].normal[12 + k] = j->list->color ? j->list->color[i][k] : 1.0f;
    }
}

/* Draw records for one list (oak_gpu_draw); commands for the drawable ones
   go into f->cmds from *ncmd on, in groups whose ranges come back in
   group[6]: single-sided opaque, double-sided opaque, single-sided masked,
   double-sided masked (culling and the cutout differ between them), then,
   for the main view (camera given), the BLEND draws far to near. Casters
   (camera NULL) leave out BLEND and OAK_DRAW_NO_SHADOW draws, as the CPU
   backend does. */
/* A static caster of a cascade whose layer the shadow pass keeps this frame
   (its static_key holds): no command, no record. */
static bool kept_static(const _oak_gl_frame *f, const oak_render_view *v, uint32_t i) {
    if (!v) return false;
    uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    for (uint32_t k = 0; k < n; k++) {
        const oak_shadow_cascade *c = &v->cascades[k];
        if (i >= c->first_caster && i < c->first_caster + c->caster_count)
            return i < c->first_caster + c->static_count && c->static_key &&
                   c->static_key == f->shadow_layer[k].key;
    }
    return false;
}

static oak_result build_list(_oak_gl_frame *f, const oak_draw_list *l, const float *camera,
                             const oak_render_view *casters_of, _oak_gl_buffer *buf, uint32_t *ncmd,
                             uint32_t group[6], const oak_render_view *main_view) {
    if (l->count && (!OAK_GROW(f->draw_data, f->draw_cap, l->count) ||
                     !OAK_GROW(f->blend_keys, f->blend_key_cap, l->count)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u draws", l->count);
    if (!OAK_GROW(f->cmds, f->cmd_cap, *ncmd + l->count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u commands", l->count);
    uint32_t counts[5] = {0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < l->count; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
        if (!ms)
            return oak_error(OAK_ERROR_NOT_FOUND, "gl: draw %u: mesh %u is not live or not synced",
                             i, l->mesh[i].id);
        if (!mt)
            return oak_error(OAK_ERROR_NOT_FOUND,
                             "gl: draw %u: material %u is not live or not synced", i,
                             l->material[i].id);
        oak_gpu_draw *d = &f->draw_data[i];
        if (kept_static(f, casters_of, i)) {
            d->info[3] = OAK_DRAW_NO_SHADOW; /* marks it undrawn for the loop below */
            continue;
        }
        d->info[0] = oak_handle_index(l->material[i].id);
        d->info[1] = ms->first_index;
        d->info[2] = ms->base_vertex;
        d->info[3] = l->flags ? l->flags[i] : 0;
        /* last frame's pose where the frontend says the mesh moved since */
        d->prev[0] = camera && (d->info[3] & OAK_DRAW_PREV_POSE) ? ms->prev : 0;
        d->prev[1] = d->prev[2] = d->prev[3] = 0;
        int g = group_of(mt, ms, camera != NULL, d->info[3]);
        if (g < 0) continue;
        counts[g]++;
        if (g == 4) {
            vec4 c = {ms->center[0], ms->center[1], ms->center[2], 1}, w;
            glm_mat4_mulv(l->world[i], c, w);
            f->blend_keys[i] = _oak_blend_unit_key(main_view, i, camera,
                                                   (w[0] - camera[0]) * (w[0] - camera[0]) +
                                                       (w[1] - camera[1]) * (w[1] - camera[1]) +
                                                       (w[2] - camera[2]) * (w[2] - camera[2]));
        }
    }
    /* the matrices, the heavy part, on the job pool */
    matrix_job job = {l, f->draw_data, camera == NULL};
    oak_parallel_for(l->count, OAK_GL_MATRIX_CHUNK, fill_matrices, &job);
    /* the main view's draws culled by meshlets take the meshcull pass's
       commands (gl_meshcull.c) */
    oak_result r = main_view    ? _oak_gl_meshcull_plan(f, main_view)
                   : casters_of ? _oak_gl_meshcull_shadow_plan(f, casters_of)
                                : OAK_OK;
    if (r != OAK_OK) return r;
    group[0] = *ncmd;
    for (int g = 0; g < 5; g++) group[g + 1] = group[g] + counts[g];
    uint32_t at[5] = {group[0], group[1], group[2], group[3], group[4]};
    for (uint32_t i = 0; i < l->count; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        int g = group_of(_oak_gl_mat_of(f, l->material[i]), ms, camera != NULL,
                         f->draw_data[i].info[3]);
        if (g < 0 || (main_view && g < 4 && f->mc_take[i]) || (casters_of && f->mcs_take[i]))
            continue;
        /* a BLEND stream's instances (oak_draw_list.unit), consecutive
           draws far to near, are one instanced draw in their order */
        _oak_gl_command *prev = at[4] > group[4] ? &f->cmds[at[4] - 1] : NULL;
        if (g == 4 && prev && l->unit && l->unit[i] && l->unit[i] == l->unit[prev->base_instance] &&
            prev->base_instance + prev->instance_count == i &&
            prev->first_index == ms->first_index && prev->count == ms->index_count) {
            prev->instance_count++;
            continue;
        }
        f->cmds[at[g]++] =
            (_oak_gl_command){ms->index_count, 1, ms->first_index, (int32_t)ms->base_vertex, i};
    }
    /* The draws the meshcull pass took (gl_meshcull.c) were counted in
       their groups but given no command: close the gaps they left, or the
       groups' draws read whatever those slots held before (on llvmpipe a
       first frame's garbage counts did not finish in 200 s). */
    uint32_t to = group[0];
    for (int g = 0; g < 5; g++) {
        uint32_t n = at[g] - group[g];
        if (to != group[g]) memmove(f->cmds + to, f->cmds + group[g], n * sizeof *f->cmds);
        group[g] = to, at[g] = to + n;
        to += n;
    }
    group[5] = at[4];
    if (camera)
        f->blend_surfaces = counts[4], f->blend_draws = at[4] - group[4], f->blend_unlit = 0;
    f->blend_compute = 0;
    /* BLEND far to near, ties in draw order: a stable insertion sort as the
       CPU backend's (blend draws are few; a stream is one, keyed by its
       first, farthest instance, or its unit_point: _oak_blend_unit_key) */
    _oak_gl_command *bl = f->cmds + group[4];
    for (uint32_t i = 1; i < group[5] - group[4]; i++) {
        _oak_gl_command x = bl[i];
        uint32_t j = i;
        while (j > 0 && f->blend_keys[bl[j - 1].base_instance] < f->blend_keys[x.base_instance]) {
            bl[j] = bl[j - 1];
            j--;
        }
        bl[j] = x;
    }
    /* each BLEND command's draw, then a device-written stream's command
       over its slots past the list (gl_pass_particles.c fills them) */
    uint32_t nb = group[5] - group[4], ns = 0, slots = 0;
    if (main_view) {
        ns = main_view->stream_count < OAK_STREAM_MAX_PER_VIEW ? main_view->stream_count
                                                               : OAK_STREAM_MAX_PER_VIEW;
        slots = _oak_gpu_blend_slot(main_view, ns, ns);
        if (!OAK_GROW(f->blend_draw, f->blend_draw_cap, nb + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for blend commands");
        for (uint32_t k = 0; k < nb; k++) {
            uint32_t i = bl[k].base_instance, u = l->unit ? l->unit[i] : 0;
            f->blend_draw[k] = i;
            if (!u || u > ns || !main_view->streams[u - 1].device_blend) continue;
            bl[k].base_instance = l->count + _oak_gpu_blend_slot(main_view, ns, u - 1);
            bl[k].instance_count = main_view->streams[u - 1].count;
            f->blend_surfaces += bl[k].instance_count - 1; /* its surfaces: every particle */
        }
    }
    *ncmd = group[5];
    /* room for those slots: the kernel writes them after this upload */
    oak_result rr =
        _oak_gl_buffer_reserve(buf, ((size_t)l->count + slots + 1) * sizeof *f->draw_data, true);
    if (rr != OAK_OK) return rr;
    return _oak_gl_buffer_upload(buf, 0, f->draw_data, (size_t)l->count * sizeof *f->draw_data);
}

static oak_result upload_lights(_oak_gl_frame *f, const oak_render_view *v, uint32_t n) {
    if (!n) return OAK_OK;
    if (!OAK_GROW(f->light_data, f->light_cap, n))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u lights", n);
    for (uint32_t i = 0; i < n; i++) {
        _oak_gpu_light_fill(&f->light_data[i], &v->lights[i]);
        _oak_gpu_light_slot(&f->light_data[i], v, i);
    }
    return _oak_gl_buffer_upload(&f->lights, 0, f->light_data, (size_t)n * sizeof *f->light_data);
}

/* The per-instance draw index: a buffer 0, 1, 2, ... read with divisor 1,
   so base_instance picks the draw. */
oak_result _oak_gl_ensure_draw_ids(_oak_gl_frame *f, uint32_t n) {
    if (n <= f->draw_id_count) return OAK_OK;
    uint32_t cap = f->draw_id_count ? f->draw_id_count : 256;
    while (cap < n) cap *= 2;
    uint32_t *ids = oak_alloc((size_t)cap * 4);
    if (!ids) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for draw ids");
    for (uint32_t i = 0; i < cap; i++) ids[i] = i;
    _oak_gl_buffer_release(&f->draw_ids);
    oak_result r = _oak_gl_buffer_upload(&f->draw_ids, 0, ids, (size_t)cap * 4);
    oak_free(ids);
    if (r != OAK_OK) return r;
    f->draw_id_count = cap;
    glVertexArrayVertexBuffer(f->vao, 0, f->draw_ids.id, 0, 4);
    glVertexArrayAttribIFormat(f->vao, 0, 1, GL_UNSIGNED_INT, 0);
    glVertexArrayAttribBinding(f->vao, 0, 0);
    glVertexArrayBindingDivisor(f->vao, 0, 1);
    glEnableVertexArrayAttrib(f->vao, 0);
    return OAK_OK;
}

/* One depth atlas texture and a framebuffer drawing into it. */
static oak_result depth_atlas(GLuint *tex, GLuint *fbo, uint32_t size) {
    if (*fbo) glDeleteFramebuffers(1, fbo);
    if (*tex) glDeleteTextures(1, tex);
    glCreateTextures(GL_TEXTURE_2D, 1, tex);
    glTextureStorage2D(*tex, 1, GL_DEPTH_COMPONENT32F, (GLsizei)size, (GLsizei)size);
    glTextureParameteri(*tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(*tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCreateFramebuffers(1, fbo);
    glNamedFramebufferTexture(*fbo, GL_DEPTH_ATTACHMENT, *tex, 0);
    glNamedFramebufferDrawBuffer(*fbo, GL_NONE);
    if (glCheckNamedFramebufferStatus(*fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return oak_error(OAK_ERROR_DEVICE, "gl: %ux%u shadow map framebuffer incomplete", size,
                         size);
    return OAK_OK;
}

/* The key light's atlas: 2 x 2 cascade maps of size texels each, and the
   same again for the cached static layers (gl_pass_shadow.c). */
static oak_result ensure_shadow_map(_oak_gl_frame *f, uint32_t size) {
    if (size > OAK_MAX_TEXTURE_SIZE / 2)
        return oak_error(OAK_ERROR_LIMIT, "gl: shadow map of %u texels past %u", size,
                         OAK_MAX_TEXTURE_SIZE / 2);
    size *= 2;
    if (f->shadow_tex && f->static_tex && f->shadow_size == size) return OAK_OK;
    for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++) _oak_shadow_layer_reset(&f->shadow_layer[c]);
    f->shadow_size = size;
    oak_result r = depth_atlas(&f->shadow_tex, &f->shadow_fbo, size);
    return r != OAK_OK ? r : depth_atlas(&f->static_tex, &f->static_fbo, size);
}

oak_result _oak_gl_run_upload(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    oak_result r = OAK_OK;
    f->instcull_streams = 0; /* no stream drawn until the instcull pass runs this frame */
    if (f->synced_view != view || f->synced_frame != view->frame)
        r = _oak_gl_sync_view(f, &b->ctx, view);
    f->synced_view = NULL;
    if (r != OAK_OK) return r;
    uint32_t lights = view->light_count < OAK_MAX_LIGHTS ? view->light_count : OAK_MAX_LIGHTS;
    uint32_t shadow_size = view->shadow_map_size ? view->shadow_map_size : b->shadow_map_size;
    bool shadows = view->shadows && view->cascade_count > 0;
    f->shadow_size_now = shadows ? shadow_size : 1;
    oak_gpu_view gv;
    fill_view(&gv, view, f->shadow_size_now, lights);
    if ((r = _oak_gl_buffer_upload(&f->view, 0, &gv, sizeof gv)) != OAK_OK) return r;
    /* llvmpipe's GL breaks edge ties against the picture's top edges
       whichever clip origin is set, where the CPU rasterizer's top-left
       rule (and Vulkan's) keeps them. Both raster passes therefore run with
       the LOWER_LEFT origin, which puts memory row 0 at clip y = -1 as the
       shadow map wants; the main view draws with clip y negated (and so
       clockwise front faces) to put the picture's top in row 0 with its
       ties on the CPU's side. */
    for (int c = 0; c < 4; c++) gv.view_proj[c * 4 + 1] = -gv.view_proj[c * 4 + 1];
    gv.taa[1] = -gv.taa[1]; /* vis.vert's jitter, in that flipped y too */
    if ((r = _oak_gl_buffer_upload(&f->raster_view, 0, &gv, sizeof gv)) != OAK_OK) return r;
    uint32_t ncmd = 0;
    memset(f->shadow_groups, 0, sizeof f->shadow_groups);
    /* the atlas first: a new one holds no layer, and the casters' commands
       leave out only those of layers that are kept */
    if ((r = ensure_shadow_map(f, f->shadow_size_now)) != OAK_OK) return r;
    if ((r = build_list(f, &view->draws, view->camera_pos, NULL, &f->draws, &ncmd, f->main_groups,
                        view)) != OAK_OK)
        return r;
    if (shadows && (r = build_list(f, &view->casters, NULL, view, &f->casters, &ncmd,
                                   f->shadow_groups, NULL)) != OAK_OK)
        return r;
    if ((r = _oak_gl_buffer_upload(&f->commands, 0, f->cmds, ncmd * sizeof *f->cmds)) != OAK_OK)
        return r;
    if ((r = _oak_gl_hiz_upload(f, &b->ctx, view, b->targets.width, b->targets.height)) != OAK_OK)
        return r;
    if ((r = upload_lights(f, view, lights)) != OAK_OK) return r;
    if ((r = _oak_gl_probes_upload(f, view)) != OAK_OK) return r;
    if ((r = _oak_gl_aerial_upload(f, view)) != OAK_OK) return r;
    uint32_t most =
        view->draws.count > view->casters.count ? view->draws.count : view->casters.count;
    if (view->lamp_casters.count > most) most = view->lamp_casters.count;
    uint32_t ns =
        view->stream_count < OAK_STREAM_MAX_PER_VIEW ? view->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint32_t blend_end = view->draws.count + _oak_gpu_blend_slot(view, ns, ns);
    if (blend_end > most) most = blend_end; /* the device-written BLEND draws' ids */
    return _oak_gl_ensure_draw_ids(f, most);
}
