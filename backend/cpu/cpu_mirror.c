/* Mirrors of the registry's meshes, textures and materials in the layouts the
 * CPU passes read: interleaved vertex attributes and linear float texels of
 * every mip. An asset is copied again only when its version moved. */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"

static int32_t find(const oak_map *map, uint32_t id) {
    uint32_t v;
    return id && oak_map_get(map, id, &v) ? (int32_t)v : -1;
}

int32_t _oak_cpu_mesh_index(const cpu_backend *b, oak_mesh mesh) {
    return find(&b->mesh_map, mesh.id);
}

int32_t _oak_cpu_material_index(const cpu_backend *b, oak_material material) {
    return find(&b->material_map, material.id);
}

/* Returns the slot for id in a mirror array: its own, a slot an evicted
 * asset left (its id, the first field, is 0), or a new zeroed one. */
static int32_t slot(oak_map *map, void **arr, uint32_t *count, uint32_t *cap, size_t elem,
                    uint32_t id, uint32_t *free_slots) {
    int32_t i = find(map, id);
    if (i >= 0) return i;
    if (*free_slots) {
        for (uint32_t k = 0; k < *count; k++) {
            uint32_t sid;
            memcpy(&sid, (uint8_t *)*arr + (size_t)k * elem, sizeof sid);
            if (sid == 0 && oak_map_set(map, id, k) == OAK_OK) {
                (*free_slots)--;
                return (int32_t)k;
            }
        }
        *free_slots = 0;
    }
    if (!oak_grow(arr, cap, *count + 1, elem)) return -1;
    memset((uint8_t *)*arr + (size_t)*count * elem, 0, elem);
    if (oak_map_set(map, id, *count) != OAK_OK) return -1;
    return (int32_t)(*count)++;
}

typedef struct pose_job {
    cpu_mesh *m;
    const oak_mesh_data *d;
} pose_job;

/* Vertices of a mesh posed here: this pose's positions, normals and
   tangents (w kept) and the previous pose's positions, as the GPUs' skin
   pass poses them (asset/pose_rows.h _oak_pose_vertex). */
static void pose_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const pose_job *j = user;
    for (uint32_t v = begin; v < end; v++) {
        float *a = j->m->attr + (size_t)v * CPU_ATTR;
        _oak_pose_vertex(j->d, false, v, j->m->pos + (size_t)v * 3, a + CPU_ATTR_N, a + CPU_ATTR_T);
        _oak_pose_vertex(j->d, true, v, j->m->prev_pos + (size_t)v * 3, NULL, NULL);
    }
}

/* A mesh posed by palettes with morph targets or 8 influences: posed into
   the mirror on the job pool (fixed chunks) when its pose moved, then
   drawn as a mesh posed on the CPU (pos, prev_pos); the registry's
   vertices stay the rest pose and its version holds. */
static oak_result pose_here(cpu_mesh *m, const oak_mesh_data *d) {
    oak_free(m->palette);
    m->palette = NULL, m->palette_cap = 0;
    if (m->posed_here && m->pose_version == d->pose_version) return OAK_OK;
    if (!OAK_GROW(m->prev_pos, m->prev_cap, m->vertex_count * 3 + 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    pose_job job = {m, d};
    oak_parallel_for(m->vertex_count, 1024, pose_chunk, &job);
    m->has_prev = true;
    m->posed_here = true;
    m->pose_version = d->pose_version;
    m->bounds = d->bounds;
    return OAK_OK;
}

/* A mesh posed by its palette: the two generations and the bounds they
   give, copied when its pose moved (a few hundred floats, not vertices). */
static oak_result sync_palette(cpu_mesh *m, const oak_mesh_data *d) {
    if (d->palette && d->joints && (d->targets || d->joints1)) return pose_here(m, d);
    m->posed_here = false;
    if (!d->palette) {
        oak_free(m->palette);
        m->palette = NULL, m->palette_cap = 0;
        return OAK_OK;
    }
    if (m->palette && m->pose_version == d->pose_version) return OAK_OK;
    size_t floats = (size_t)d->joint_count * 24;
    if (!OAK_GROW(m->palette, m->palette_cap, floats + 1)) return OAK_ERROR_OUT_OF_MEMORY;
    m->palette[0] = (float)d->joint_count;
    memcpy(m->palette + 1, d->palette, floats * sizeof(float));
    m->pose_version = d->pose_version;
    m->bounds = d->bounds;
    return OAK_OK;
}

/* Each triangle's twin (cpu_mesh.twin): the first of the next CPU_TWIN_MAX
   triangles holding its three vertices in the other winding, not already
   another's twin. Such a pair has one set of points, so the set-up rejects
   both or neither for being off screen, of no area or between pixel
   centres, and with back faces culled keeps at most one. */
#define CPU_TWIN_MAX 8
static oak_result mesh_twins(const cpu_backend *b, cpu_mesh *m) {
    uint32_t tris = m->index_count / 3;
    if (!tris || b->no_twins) {
        oak_free(m->twin);
        m->twin = NULL;
        m->twin_cap = 0;
        return OAK_OK;
    }
    uint8_t taken[CPU_TWIN_MAX + 1] = {0}; /* ring: triangle t + k already a twin */
    uint32_t pairs = 0;
    for (uint32_t t = 0; t < tris; t++) {
        taken[t % (CPU_TWIN_MAX + 1)] = 0; /* the slot now stands for t + CPU_TWIN_MAX + 1 */
        const uint32_t *a = m->indices + (size_t)t * 3;
        for (uint32_t k = 1; k <= CPU_TWIN_MAX && t + k < tris; k++) {
            const uint32_t *c = m->indices + (size_t)(t + k) * 3;
            bool rev = (c[0] == a[0] && c[1] == a[2] && c[2] == a[1]) ||
                       (c[0] == a[2] && c[1] == a[1] && c[2] == a[0]) ||
                       (c[0] == a[1] && c[1] == a[0] && c[2] == a[2]);
            if (rev && !taken[(t + k) % (CPU_TWIN_MAX + 1)]) {
                if (!pairs) { /* the table only for a mesh that has twins */
                    if (!OAK_GROW(m->twin, m->twin_cap, tris)) return OAK_ERROR_OUT_OF_MEMORY;
                    memset(m->twin, 0, tris);
                }
                m->twin[t] = (uint8_t)k;
                taken[(t + k) % (CPU_TWIN_MAX + 1)] = 1;
                pairs++;
                break;
            }
        }
    }
    if (!pairs) {
        oak_free(m->twin);
        m->twin = NULL;
        m->twin_cap = 0;
    }
    return OAK_OK;
}

static oak_result sync_mesh(cpu_backend *b, oak_mesh h) {
    const oak_mesh_data *d = oak_mesh_get(h);
    if (!d) return oak_error(OAK_ERROR_NOT_FOUND, "cpu backend: mesh %u is not live", h.id);
    int32_t i = slot(&b->mesh_map, (void **)&b->meshes, &b->mesh_count, &b->mesh_cap,
                     sizeof(cpu_mesh), h.id, &b->mesh_free);
    if (i < 0) return OAK_ERROR_OUT_OF_MEMORY;
    cpu_mesh *m = &b->meshes[i];
    if (m->id == h.id && m->version == d->version) return sync_palette(m, d);
    uint32_t vc = d->vertex_count, ic = d->index_count - d->index_count % 3;
    /* a mesh reposed in place (oak_mesh_update_vertices: the meadow's water
       every frame) keeps its index list: already checked, copied and
       paired into twins, which depend on it alone */
    bool kept = m->id == h.id && ic && m->vertex_count == vc && m->index_count == ic &&
                !memcmp(m->indices, d->indices, (size_t)ic * sizeof(uint32_t));
    for (uint32_t k = 0; k < ic && !kept; k++)
        if (d->indices[k] >= vc)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "cpu backend: mesh %u index %u is %u, past %u vertices", h.id, k,
                             d->indices[k], vc);
    if (!OAK_GROW(m->pos, m->pos_cap, vc * 3 + 1) ||
        !OAK_GROW(m->attr, m->attr_cap, vc * CPU_ATTR + 1) ||
        !OAK_GROW(m->indices, m->index_cap, ic + 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    if (vc) memcpy(m->pos, d->positions, (size_t)vc * 3 * sizeof(float));
    bool prev = vc && d->prev_positions;
    if (prev && !OAK_GROW(m->prev_pos, m->prev_cap, vc * 3)) return OAK_ERROR_OUT_OF_MEMORY;
    if (prev) memcpy(m->prev_pos, d->prev_positions, (size_t)vc * 3 * sizeof(float));
    m->has_prev = prev;
    bool skin = vc && d->joints && d->weights;
    if (skin && (!OAK_GROW(m->joints, m->joint_cap, vc * 4) ||
                 !OAK_GROW(m->weights, m->weight_cap, vc * 4)))
        return OAK_ERROR_OUT_OF_MEMORY;
    if (skin) {
        memcpy(m->joints, d->joints, (size_t)vc * 4 * sizeof(uint16_t));
        memcpy(m->weights, d->weights, (size_t)vc * 4 * sizeof(float));
    } else {
        oak_free(m->joints), oak_free(m->weights);
        m->joints = NULL, m->weights = NULL, m->joint_cap = m->weight_cap = 0;
    }
    for (uint32_t v = 0; v < vc; v++) {
        float *a = m->attr + (size_t)v * CPU_ATTR;
        for (int k = 0; k < 3; k++) a[CPU_ATTR_N + k] = d->normals ? d->normals[v * 3 + k] : 0;
        for (int k = 0; k < 4; k++)
            a[CPU_ATTR_T + k] = d->tangents ? d->tangents[v * 4 + k] : (k == 0 || k == 3);
        for (int k = 0; k < 2; k++) {
            a[CPU_ATTR_UV0 + k] = d->uv0 ? d->uv0[v * 2 + k] : 0;
            a[CPU_ATTR_UV1 + k] = d->uv1 ? d->uv1[v * 2 + k] : 0;
        }
        for (int k = 0; k < 4; k++) a[CPU_ATTR_C + k] = d->colors ? d->colors[v * 4 + k] : 1;
        a[15] = 0;
    }
    if (ic && !kept) memcpy(m->indices, d->indices, (size_t)ic * sizeof(uint32_t));
    m->vertex_count = vc;
    m->index_count = ic;
    m->bounds = d->bounds;
    m->id = h.id;
    m->version = d->version;
    m->pose_version = 0;
    oak_result r = _oak_cpu_mesh_meshlets(m, h, d);
    if (!r && !kept) r = mesh_twins(b, m);
    if (r) return r;
    return sync_palette(m, d);
}

static float decode(oak_format f, uint8_t v) {
    return f == OAK_FORMAT_RGBA8_SRGB ? oak_srgb_to_linear(v / 255.0f) : v / 255.0f;
}

static oak_result sync_texture(cpu_backend *b, uint32_t id, int32_t *out) {
    *out = -1;
    if (!id) return OAK_OK;
    const oak_texture_data *d = oak_texture_get((oak_texture){id});
    if (!d) return oak_error(OAK_ERROR_NOT_FOUND, "cpu backend: texture %u is not live", id);
    int32_t i = slot(&b->texture_map, (void **)&b->textures, &b->texture_count, &b->texture_cap,
                     sizeof(cpu_texture), id, &b->texture_free);
    if (i < 0) return OAK_ERROR_OUT_OF_MEMORY;
    *out = i;
    cpu_texture *t = &b->textures[i];
    if (t->id == id && t->version == d->version) return OAK_OK;
    uint32_t levels = d->mip_count ? d->mip_count : 1;
    if (levels > OAK_MAX_MIPS) levels = OAK_MAX_MIPS;
    size_t total = 0;
    for (uint32_t l = 0; l < levels; l++) {
        if (!d->mips[l] || !d->mip_width[l] || !d->mip_height[l]) {
            levels = l;
            break;
        }
        t->offset[l] = total;
        t->mw[l] = d->mip_width[l];
        t->mh[l] = d->mip_height[l];
        total += (size_t)d->mip_width[l] * d->mip_height[l];
    }
    if (!levels)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: texture %u has no pixels", id);
    if (total * 4 > t->cap) {
        float *p = oak_realloc(t->texels, total * 4 * sizeof(float));
        if (!p) return OAK_ERROR_OUT_OF_MEMORY;
        t->texels = p;
        t->cap = total * 4;
        _oak_cpu_huge_pages(b, p, total * 4 * sizeof(float));
    }
    /* sRGB decode once per byte value, not per texel */
    float lut[256];
    for (int v = 0; v < 256; v++) lut[v] = decode(d->format, (uint8_t)v);
    for (uint32_t l = 0; l < levels; l++) {
        size_t n = (size_t)t->mw[l] * t->mh[l];
        float *dst = t->texels + t->offset[l] * 4;
        if (d->format == OAK_FORMAT_RGBA32F) {
            memcpy(dst, d->mips[l], n * 4 * sizeof(float));
        } else {
            const uint8_t *src = d->mips[l];
            for (size_t k = 0; k < n; k++) {
                dst[k * 4 + 0] = lut[src[k * 4 + 0]];
                dst[k * 4 + 1] = lut[src[k * 4 + 1]];
                dst[k * 4 + 2] = lut[src[k * 4 + 2]];
                dst[k * 4 + 3] = src[k * 4 + 3] / 255.0f; /* alpha is never sRGB */
            }
        }
    }
    t->width = t->mw[0];
    t->height = t->mh[0];
    t->mip_count = levels;
    t->id = id;
    t->version = d->version;
    return OAK_OK;
}

static void resolve_ref(cpu_tex_ref *r, const oak_texture_ref *src) {
    r->sampler = src->sampler;
    r->uv_set = src->uv_set > 1 ? 1 : src->uv_set;
    float sx = src->scale[0] != 0 ? src->scale[0] : 1, sy = src->scale[1] != 0 ? src->scale[1] : 1;
    float c = cosf(src->rotation), s = sinf(src->rotation);
    /* KHR_texture_transform: translation * rotation * scale, its rotation
       being the column-major mat3(cos, sin, 0, -sin, cos, 0, 0, 0, 1) */
    r->m[0] = c * sx;
    r->m[1] = -s * sy;
    r->m[2] = s * sx;
    r->m[3] = c * sy;
    r->off[0] = src->offset[0];
    r->off[1] = src->offset[1];
}

static oak_result sync_material(cpu_backend *b, oak_material h) {
    const oak_material_data *d = oak_material_get(h);
    if (!d) return oak_error(OAK_ERROR_NOT_FOUND, "cpu backend: material %u is not live", h.id);
    int32_t i = slot(&b->material_map, (void **)&b->materials, &b->material_count, &b->material_cap,
                     sizeof(cpu_material), h.id, &b->material_free);
    if (i < 0) return OAK_ERROR_OUT_OF_MEMORY;
    cpu_material *m = &b->materials[i];
    if (m->id != h.id || m->version != d->version) {
        m->desc = d->desc;
        if (m->desc.alpha_cutoff == 0) m->desc.alpha_cutoff = (float)OAK_ALPHA_CUTOFF_DEFAULT;
        if (m->desc.emissive_strength == 0) m->desc.emissive_strength = 1;
        if (m->desc.normal_scale == 0) m->desc.normal_scale = 1;
        if (m->desc.occlusion_strength == 0) m->desc.occlusion_strength = 1;
        const oak_texture_ref *refs[CPU_TEX_COUNT] = {
            &d->desc.base_color_tex, &d->desc.metallic_roughness_tex, &d->desc.normal_tex,
            &d->desc.occlusion_tex, &d->desc.emissive_tex};
        m->textured = m->uv1 = false;
        for (int k = 0; k < CPU_TEX_COUNT; k++) {
            m->tex_ids[k] = refs[k]->texture.id;
            resolve_ref(&m->tex[k], refs[k]);
            m->textured |= m->tex_ids[k] != 0;
            m->uv1 |= m->tex_ids[k] != 0 && m->tex[k].uv_set == 1;
        }
        m->normal_map = m->tex_ids[CPU_TEX_NORMAL] != 0;
        const oak_material_fx *x = &m->desc.fx;
        m->fx_map = m->textured && (x->triplanar > 0 || x->breakup > 0 || x->detail > 0);
        m->lobe_textured = false;
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) {
            const oak_texture_ref *lr = &d->desc.lobes.tex[k];
            m->lobe_tex_ids[k] = lr->texture.id;
            resolve_ref(&m->lobe_tex[k], lr);
            m->lobe_textured |= lr->texture.id != 0;
            m->uv1 |= lr->texture.id != 0 && lr->uv_set == 1;
        }
        m->textured |= m->lobe_textured; /* the surface's uv, for them */
        const oak_material_lobes *sl = &m->desc.lobes;
        m->spec_tex = sl->specular && (m->lobe_tex_ids[OAK_LOBE_TEX_SPECULAR] ||
                                       m->lobe_tex_ids[OAK_LOBE_TEX_SPECULAR_COLOR]);
        float ir = oak_material_ior_f0(&m->desc); /* as gpu_records.c's lobe1.w .. lobe3.w */
        for (int k = 0; k < 3; k++) m->spec_rsc[k] = sl->specular ? ir * sl->specular_color[k] : ir;
        m->fx_vary = x->variation > 0;
        m->fx_slot_count = 0;
        for (int k = 0; k < CPU_TEX_COUNT; k++)
            if (m->tex_ids[k]) m->fx_slots[m->fx_slot_count++] = (uint8_t)k;
        m->fx_k = x->triplanar > 0 ? 1.0f / x->triplanar : 0;
        m->fx_inv_detail_distance = 1.0f / x->detail_distance;
        /* PLANE_MIN^(1 / sharpness), a little under so rounding cannot
           put a plane the full sum keeps below it */
        m->fx_plane_ratio = 0.999f * powf((float)OAK_FX_PLANE_MIN, 1.0f / x->triplanar_sharpness);
        m->f90 = oak_material_dielectric_f0(&m->desc, m->f0);
        const oak_material_lobes *lb = &m->desc.lobes;
        m->coat = lb->clearcoat > 0;
        m->sheen = lb->sheen_color[0] > 0 || lb->sheen_color[1] > 0 || lb->sheen_color[2] > 0;
        m->aniso = lb->anisotropy > 0;
        m->irid = lb->iridescence > 0;
        m->difftr = lb->diffuse_transmission > 0;
        m->coat_normal = m->coat && m->lobe_tex_ids[OAK_LOBE_TEX_CLEARCOAT_NORMAL] != 0;
        m->transmit = lb->transmission > 0;
        m->id = h.id;
        m->version = d->version;
    }
    /* textures are checked every time: their versions move on their own */
    for (int k = 0; k < CPU_TEX_COUNT; k++) {
        oak_result r = sync_texture(b, m->tex_ids[k], &m->tex[k].tex);
        if (r) return r;
    }
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) {
        oak_result r = sync_texture(b, m->lobe_tex_ids[k], &m->lobe_tex[k].tex);
        if (r) return r;
    }
    return OAK_OK;
}

static oak_result sync_list(cpu_backend *b, const oak_draw_list *l, const char *what) {
    if (l->count && (!l->mesh || !l->material || !l->world))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: view.%s has %u draws but no columns", what, l->count);
    for (uint32_t i = 0; i < l->count; i++) {
        oak_result r = sync_mesh(b, l->mesh[i]);
        if (!r) r = sync_material(b, l->material[i]);
        if (r) return r;
    }
    return OAK_OK;
}

/* Frees the mirrors of assets the registry no longer holds, so a long run
 * that streams assets in and out keeps only the live ones. */
static void evict_dead(cpu_backend *b) {
    for (uint32_t i = 0; i < b->mesh_count; i++) {
        cpu_mesh *m = &b->meshes[i];
        if (!m->id || oak_mesh_get((oak_mesh){m->id})) continue;
        oak_map_remove(&b->mesh_map, m->id);
        oak_free(m->pos);
        oak_free(m->prev_pos);
        oak_free(m->palette);
        oak_free(m->attr);
        oak_free(m->indices);
        oak_free(m->joints);
        oak_free(m->weights);
        oak_free(m->ml);
        oak_free(m->tri_ml);
        oak_free(m->ml_verts);
        oak_free(m->ml_end);
        oak_free(m->twin);
        memset(m, 0, sizeof *m);
        b->mesh_free++;
    }
    for (uint32_t i = 0; i < b->texture_count; i++) {
        cpu_texture *t = &b->textures[i];
        if (!t->id || oak_texture_get((oak_texture){t->id})) continue;
        oak_map_remove(&b->texture_map, t->id);
        oak_free(t->texels);
        memset(t, 0, sizeof *t);
        b->texture_free++;
    }
    for (uint32_t i = 0; i < b->material_count; i++) {
        cpu_material *m = &b->materials[i];
        if (!m->id || oak_material_get((oak_material){m->id})) continue;
        oak_map_remove(&b->material_map, m->id);
        memset(m, 0, sizeof *m);
        b->material_free++;
    }
}

oak_result _oak_cpu_sync(cpu_backend *b, const oak_render_view *view) {
    if ((++b->sync_count & (CPU_EVICT_PERIOD - 1)) == 0) evict_dead(b);
    oak_result r = sync_list(b, &view->draws, "draws");
    if (!r) r = sync_list(b, &view->casters, "casters");
    return r;
}

void _oak_cpu_mirrors_release(cpu_backend *b) {
    for (uint32_t i = 0; i < b->mesh_count; i++) {
        oak_free(b->meshes[i].pos);
        oak_free(b->meshes[i].prev_pos);
        oak_free(b->meshes[i].palette);
        oak_free(b->meshes[i].joints);
        oak_free(b->meshes[i].weights);
        oak_free(b->meshes[i].attr);
        oak_free(b->meshes[i].indices);
        oak_free(b->meshes[i].ml);
        oak_free(b->meshes[i].tri_ml);
        oak_free(b->meshes[i].ml_verts);
        oak_free(b->meshes[i].ml_end);
        oak_free(b->meshes[i].twin);
    }
    for (uint32_t i = 0; i < b->texture_count; i++) oak_free(b->textures[i].texels);
    oak_free(b->meshes);
    oak_free(b->textures);
    oak_free(b->materials);
    oak_map_release(&b->mesh_map);
    oak_map_release(&b->texture_map);
    oak_map_release(&b->material_map);
}
