/* GPU copies of the assets a view uses: meshes appended to one vertex/index
 * pool, textures as layers of 2D arrays grouped by size class (size, levels,
 * format), materials as records in one storage buffer indexed by handle slot.
 * An asset is uploaded again only when its version moved on. */
#include <math.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"

static oak_result grow_slots(void **arr, uint32_t *cap, uint32_t need, size_t elem) {
    uint32_t old = *cap;
    if (need <= old) return OAK_OK;
    if (!oak_grow(arr, cap, need, elem))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for asset slots");
    memset((uint8_t *)*arr + (size_t)old * elem, 0, (size_t)(*cap - old) * elem);
    return OAK_OK;
}

/* ---- meshes -------------------------------------------------------------- */

const _oak_gl_mesh_slot *_oak_gl_mesh_of(const _oak_gl_frame *f, oak_mesh mesh) {
    if (!mesh.id) return NULL;
    uint32_t i = oak_handle_index(mesh.id);
    if (i >= f->mesh_cap || f->meshes[i].id != mesh.id) return NULL;
    return &f->meshes[i];
}

/* A mesh posed by its palette: skinned this frame when its pose moved (or
   it was uploaded), never uploaded again for it. */
static oak_result skin_queue(_oak_gl_frame *f, _oak_gl_mesh_slot *s, const oak_mesh_data *md) {
    if (!s->prev || !md->palette || !md->joints || s->pose_version == md->pose_version)
        return OAK_OK;
    s->pose_version = md->pose_version;
    memcpy(s->center, md->bounds.center, sizeof s->center);
    return _oak_gpu_skin_push(&f->skin_q, md, s->base_vertex);
}

/* The mesh's positions, then its previous pose's (a palette's rest pose,
   which the skin pass overwrites), at base in the position buffer. */
static oak_result send_positions(_oak_gl_frame *f, uint32_t base, const oak_mesh_data *md,
                                 uint32_t prev, bool palette) {
    size_t n = md->vertex_count;
    if (!n) return OAK_OK;
    /* kept between frames: a mesh posed every frame makes no heap call */
    if ((n + prev) * 4 > UINT32_MAX || !OAK_GROW(f->pos_stage, f->pos_stage_cap, (n + prev) * 4))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory staging a mesh");
    float *pos = f->pos_stage;
    for (size_t v = 0; v < n + prev; v++) {
        const float *p = v < n     ? &md->positions[v * 3]
                         : palette ? &md->positions[(v - n) * 3]
                                   : &md->prev_positions[(v - n) * 3];
        memcpy(&pos[v * 4], p, 12);
        pos[v * 4 + 3] = 1;
    }
    oak_result r = _oak_gl_buffer_upload(&f->positions, (size_t)base * 16, pos, (n + prev) * 16);
    if (r == OAK_OK) f->up_now.mesh_bytes += (n + prev) * 16;
    return r;
}

static oak_result sync_mesh(_oak_gl_frame *f, oak_mesh mesh) {
    const oak_mesh_data *md = oak_mesh_get(mesh);
    /* as every backend: a view naming a dead asset is the caller's error */
    if (!md) return oak_error(OAK_ERROR_NOT_FOUND, "gl: mesh %u is not live", mesh.id);
    uint32_t i = oak_handle_index(mesh.id);
    oak_result r = grow_slots((void **)&f->meshes, &f->mesh_cap, i + 1, sizeof *f->meshes);
    if (r != OAK_OK) return r;
    _oak_gl_mesh_slot *s = &f->meshes[i];
    if (s->id == mesh.id && s->version == md->version) return skin_queue(f, s, md);
    bool palette = md->palette && md->joints && md->weights;
    /* posed in place with its shape kept (docs/ARCHITECTURE.md "Meshes
       posed in place"): the positions alone, into the range it holds */
    if (s->id == mesh.id && s->shape_version == md->shape_version && md->prev_positions &&
        !palette && s->prev && s->prev == md->vertex_count && !s->ml_count) {
        if ((r = send_positions(f, s->base_vertex, md, s->prev, false)) != OAK_OK) return r;
        s->version = md->version;
        memcpy(s->center, md->bounds.center, sizeof s->center);
        f->up_now.meshes_positions++;
        return OAK_OK;
    }
    f->up_now.meshes_whole++;
    /* a posed mesh's range holds its previous pose's positions after its
       own, uploaded with them in one step (that half's attributes unused);
       one posed by its palette keeps its rest pose there for the skin pass */
    uint32_t prev = md->vertex_count && (md->prev_positions || palette) ? md->vertex_count : 0;
    uint32_t extra = palette ? _oak_gpu_skin_extra(md) : 0; /* second joints, morph deltas */
    uint32_t need = md->vertex_count + prev + extra;
    /* a cluster-LOD mesh: every pass draws its finest level (the first
       indices) but the camera's, culled by meshlets over all its levels
       (gl_meshcull.c), so those are uploaded too when culling is on
       (docs/ARCHITECTURE.md "Cluster LOD") */
    uint32_t ic = md->finest_index_count ? md->finest_index_count : md->index_count;
    uint32_t all = md->finest_index_count && _oak_gl_meshcull_on(f) ? md->index_count : ic;
    /* Reuse the old range when the new contents fit, else append. */
    bool fits = s->id && need <= s->vertex_count && all <= s->index_room;
    uint32_t base = fits ? s->base_vertex : f->vertex_fill;
    uint32_t first = fits ? s->first_index : f->index_fill;
    if (md->vertex_count) {
        size_t n = md->vertex_count;
        size_t na = palette ? n + prev + extra : n; /* attributes: the rest pose after */
        oak_gpu_vertex *attr = oak_alloc(na * sizeof *attr);
        if (!attr) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory staging a mesh");
        for (size_t v = 0; v < n; v++) {
            oak_gpu_vertex *a = &attr[v];
            memset(a, 0, sizeof *a);
            memcpy(a->normal, &md->normals[v * 3], 12);
            memcpy(a->tangent, &md->tangents[v * 4], 16);
            memcpy(a->uv, &md->uv0[v * 2], 8);
            memcpy(a->uv + 2, &md->uv1[v * 2], 8);
            memcpy(a->color, &md->colors[v * 4], 16);
        }
        for (size_t v = n; v < n + prev && palette; v++)
            _oak_gpu_skin_source(md, (uint32_t)(v - n), &attr[v]);
        for (size_t v = n + prev; v < na; v++)
            _oak_gpu_skin_extra_vertex(md, (uint32_t)(v - n - prev), &attr[v]);
        r = send_positions(f, base, md, prev, palette);
        if (r == OAK_OK)
            r = _oak_gl_buffer_upload(&f->attributes, (size_t)base * sizeof *attr, attr,
                                      na * sizeof *attr);
        oak_free(attr);
        if (r != OAK_OK) return r;
        f->up_now.mesh_bytes += na * sizeof *attr;
    }
    r = _oak_gl_buffer_upload(&f->indices, (size_t)first * 4, md->indices, (size_t)all * 4);
    if (r != OAK_OK) return r;
    f->up_now.mesh_bytes += (uint64_t)all * 4;
    s->shape_version = md->shape_version;
    if (!fits) {
        f->vertex_fill += need;
        f->index_fill += all;
    }
    s->id = mesh.id;
    s->version = md->version;
    s->base_vertex = base;
    s->first_index = first;
    if (!fits) s->vertex_count = need; /* a reused range keeps its room */
    s->prev = prev;
    memcpy(s->center, md->bounds.center, sizeof s->center);
    s->index_count = ic / 3 * 3;
    s->index_room = all;
    s->pose_version = 0;
    /* its meshlets, when its draws are culled by them (gl_meshcull.c) */
    if ((r = _oak_gl_meshcull_upload(f, s, mesh, md)) != OAK_OK) return r;
    return skin_queue(f, s, md);
}

/* ---- textures ------------------------------------------------------------ */

static oak_result class_for(_oak_gl_frame *f, const oak_texture_data *td, uint32_t *out) {
    bool is_float = td->format == OAK_FORMAT_RGBA32F;
    for (uint32_t c = 0; c < f->class_count; c++) {
        const _oak_gl_tex_class *k = &f->classes[c];
        if (k->width == td->width && k->height == td->height && k->mips == td->mip_count &&
            k->is_float == is_float) {
            *out = c;
            return OAK_OK;
        }
    }
    if (f->class_count == OAK_GPU_TEXTURE_CLASSES)
        return oak_error(OAK_ERROR_LIMIT,
                         "gl: texture '%s' (%ux%u, %u levels) needs a size class beyond the %d "
                         "a pass can read",
                         td->name ? td->name : "?", td->width, td->height, td->mip_count,
                         OAK_GPU_TEXTURE_CLASSES);
    _oak_gl_tex_class *k = &f->classes[f->class_count];
    *k = (_oak_gl_tex_class){0, td->width, td->height, td->mip_count, 0, 0, is_float};
    *out = f->class_count++;
    return OAK_OK;
}

/* Room for one more layer: a bigger array, the old layers copied over. */
static oak_result class_reserve(_oak_gl_tex_class *k) {
    if (k->layers < k->capacity) return OAK_OK;
    uint32_t cap = k->capacity ? k->capacity * 2 : 4;
    GLuint t = 0;
    glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &t);
    while (glGetError() != GL_NO_ERROR) {
    }
    glTextureStorage3D(t, (GLsizei)k->mips, k->is_float ? GL_RGBA32F : GL_RGBA8, (GLsizei)k->width,
                       (GLsizei)k->height, (GLsizei)cap);
    if (glGetError() == GL_OUT_OF_MEMORY) {
        glDeleteTextures(1, &t);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for a %ux%u x%u texture array",
                         k->width, k->height, cap);
    }
    /* Filtering is done by hand with texelFetch; keep the sampler plain. */
    glTextureParameteri(t, GL_TEXTURE_MIN_FILTER, GL_NEAREST_MIPMAP_NEAREST);
    glTextureParameteri(t, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    if (k->tex) {
        for (uint32_t l = 0; l < k->mips; l++) {
            uint32_t w = k->width >> l ? k->width >> l : 1, h = k->height >> l ? k->height >> l : 1;
            glCopyImageSubData(k->tex, GL_TEXTURE_2D_ARRAY, (GLint)l, 0, 0, 0, t,
                               GL_TEXTURE_2D_ARRAY, (GLint)l, 0, 0, 0, (GLsizei)w, (GLsizei)h,
                               (GLsizei)k->layers);
        }
        glDeleteTextures(1, &k->tex);
    }
    k->tex = t;
    k->capacity = cap;
    return OAK_OK;
}

static oak_result sync_texture(_oak_gl_frame *f, oak_texture tex, const _oak_gl_tex_slot **out) {
    *out = NULL;
    const oak_texture_data *td = tex.id ? oak_texture_get(tex) : NULL;
    if (!td) return OAK_OK;
    uint32_t i = oak_handle_index(tex.id);
    oak_result r = grow_slots((void **)&f->texs, &f->tex_cap, i + 1, sizeof *f->texs);
    if (r != OAK_OK) return r;
    _oak_gl_tex_slot *s = &f->texs[i];
    if (s->id == tex.id && s->version == td->version) {
        *out = s;
        return OAK_OK;
    }
    uint32_t c = 0;
    if ((r = class_for(f, td, &c)) != OAK_OK) return r;
    _oak_gl_tex_class *k = &f->classes[c];
    int32_t layer;
    if (s->id == tex.id && s->cls == (int32_t)c) {
        layer = s->layer;
    } else {
        if ((r = class_reserve(k)) != OAK_OK) return r;
        layer = (int32_t)k->layers++;
        f->epoch++;
    }
    for (uint32_t l = 0; l < td->mip_count; l++)
        glTextureSubImage3D(k->tex, (GLint)l, 0, 0, layer, (GLsizei)td->mip_width[l],
                            (GLsizei)td->mip_height[l], 1, GL_RGBA,
                            k->is_float ? GL_FLOAT : GL_UNSIGNED_BYTE, td->mips[l]);
    s->id = tex.id;
    s->version = td->version;
    s->cls = (int32_t)c;
    s->layer = layer;
    *out = s;
    return OAK_OK;
}

/* ---- materials ----------------------------------------------------------- */

const _oak_gl_mat_slot *_oak_gl_mat_of(const _oak_gl_frame *f, oak_material material) {
    if (!material.id) return NULL;
    uint32_t i = oak_handle_index(material.id);
    if (i >= f->mat_cap || f->mats[i].id != material.id) return NULL;
    return &f->mats[i];
}

/* Packing as oak_gpu.h says (oak_gpu_texref.a.w): resolved oak_wrap and
   oak_filter values, the uv set and the sRGB bit beside the level count. */
static oak_result texref(_oak_gl_frame *f, const oak_texture_ref *ref, oak_gpu_texref *out) {
    memset(out, 0, sizeof *out);
    oak_gpu_texref_transform(out, (const float[2]){0, 0}, 0, (const float[2]){1, 1});
    const _oak_gl_tex_slot *s;
    oak_result r = sync_texture(f, ref->texture, &s);
    if (r != OAK_OK || !s) return r;
    const oak_texture_data *td = oak_texture_get(ref->texture);
    const oak_sampler *sm = &ref->sampler;
    uint32_t wu = sm->wrap_u ? sm->wrap_u : OAK_WRAP_REPEAT;
    uint32_t wv = sm->wrap_v ? sm->wrap_v : OAK_WRAP_REPEAT;
    uint32_t mag = sm->mag ? sm->mag : OAK_FILTER_LINEAR,
             min = sm->min ? sm->min : OAK_FILTER_LINEAR;
    uint32_t mip = sm->mip ? sm->mip : OAK_FILTER_LINEAR;
    bool srgb = td->format == OAK_FORMAT_RGBA8_SRGB || td->format == OAK_FORMAT_DEFAULT;
    out->a[0] = (uint32_t)s->cls + 1;
    out->a[1] = (uint32_t)s->layer;
    out->a[2] = td->width | td->height << 16;
    out->a[3] = td->mip_count | wu << 8 | wv << 10 | mag << 12 | min << 14 | mip << 16 |
                (ref->uv_set ? 1u : 0u) << 18 | (srgb ? OAK_GPU_TEX_SRGB : 0);
    oak_gpu_texref_transform(out, ref->offset, ref->rotation, ref->scale);
    return OAK_OK;
}

static oak_result sync_material(_oak_gl_frame *f, oak_material mat) {
    const oak_material_data *md = mat.id ? oak_material_get(mat) : NULL;
    if (!md) return oak_error(OAK_ERROR_NOT_FOUND, "gl: material %u is not live", mat.id);
    uint32_t i = oak_handle_index(mat.id);
    oak_result r = grow_slots((void **)&f->mats, &f->mat_cap, i + 1, sizeof *f->mats);
    if (r != OAK_OK) return r;
    _oak_gl_mat_slot *s = &f->mats[i];
    const oak_material_desc *d = &md->desc;
    const oak_texture_ref *refs[5] = {&d->base_color_tex, &d->metallic_roughness_tex,
                                      &d->normal_tex, &d->occlusion_tex, &d->emissive_tex};
    /* Textures first: a texture's new version must reach the GPU even when
       the material itself did not change. */
    oak_gpu_material g;
    memset(&g, 0, sizeof g);
    for (int t = 0; t < 5; t++)
        if ((r = texref(f, refs[t], &g.tex[t])) != OAK_OK) return r;
    const oak_texture_ref *lrefs[OAK_GPU_LOBE_TEX];
    _oak_gpu_lobe_refs(d, lrefs);
    for (int t = 0; t < OAK_GPU_LOBE_TEX; t++)
        if ((r = texref(f, lrefs[t], &g.lobe_tex[t])) != OAK_OK) return r;
    if (s->id == mat.id && s->version == md->version && s->epoch == f->epoch) return OAK_OK;
    _oak_gpu_material_fill(&g, d);
    r = _oak_gl_buffer_upload(&f->materials, (size_t)i * sizeof g, &g, sizeof g);
    if (r != OAK_OK) return r;
    s->id = mat.id;
    s->version = md->version;
    s->epoch = f->epoch;
    s->double_sided = d->double_sided;
    s->mask = d->alpha_mode == OAK_ALPHA_MASK;
    s->blend = d->alpha_mode == OAK_ALPHA_BLEND;
    return OAK_OK;
}

static oak_result sync_list(_oak_gl_frame *f, const oak_draw_list *l) {
    for (uint32_t i = 0; i < l->count; i++) {
        /* draws come batched by (material, mesh): look each run up once */
        if (i && l->mesh[i].id == l->mesh[i - 1].id && l->material[i].id == l->material[i - 1].id)
            continue;
        oak_result r = sync_mesh(f, l->mesh[i]);
        if (r == OAK_OK) r = sync_material(f, l->material[i]);
        if (r != OAK_OK) return r;
    }
    return OAK_OK;
}

oak_result _oak_gl_sync_view(_oak_gl_frame *f, const _oak_gl_context *ctx,
                             const oak_render_view *view) {
    (void)ctx;
    uint32_t epoch = f->epoch;
    oak_result r = sync_list(f, &view->draws);
    if (r == OAK_OK) r = sync_list(f, &view->casters);
    /* instance streams: their LOD meshes and material (a destroyed one draws nothing) */
    for (uint32_t s = 0; s < view->stream_count && r == OAK_OK; s++) {
        const oak_render_stream *rs = &view->streams[s];
        for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS && r == OAK_OK; k++)
            if (oak_mesh_get(rs->lods[k])) r = sync_mesh(f, rs->lods[k]);
        if (r == OAK_OK && oak_material_get(rs->material)) r = sync_material(f, rs->material);
        if (r == OAK_OK && rs->impostor_lod && oak_material_get(rs->impostor_material))
            r = sync_material(f, rs->impostor_material); /* its impostor card's */
    }
    /* A texture that moved to a new layer changes materials synced earlier
       in this pass; one more pass over the materials settles them. */
    if (r == OAK_OK && epoch != f->epoch) {
        for (uint32_t i = 0; i < view->draws.count && r == OAK_OK; i++)
            r = sync_material(f, view->draws.material[i]);
        for (uint32_t i = 0; i < view->casters.count && r == OAK_OK; i++)
            r = sync_material(f, view->casters.material[i]);
        for (uint32_t s = 0; s < view->stream_count && r == OAK_OK; s++) {
            const oak_render_stream *rs = &view->streams[s];
            if (oak_material_get(rs->material)) r = sync_material(f, rs->material);
            if (r == OAK_OK && rs->impostor_lod && oak_material_get(rs->impostor_material))
                r = sync_material(f, rs->impostor_material);
        }
    }
    return r;
}

void _oak_gl_resources_release(_oak_gl_frame *f) {
    for (uint32_t c = 0; c < f->class_count; c++)
        if (f->classes[c].tex) glDeleteTextures(1, &f->classes[c].tex);
    f->class_count = 0;
    oak_free(f->meshes), oak_free(f->texs), oak_free(f->mats), oak_free(f->pos_stage);
    f->meshes = NULL, f->texs = NULL, f->mats = NULL, f->pos_stage = NULL;
    f->pos_stage_cap = 0;
    f->mesh_cap = f->tex_cap = f->mat_cap = 0;
}
