/* The .oakm baked model cache: a versioned, size-checked and hashed binary
 * image of a loaded glTF (post-processed meshes, materials, decoded images,
 * nodes, skins, clips, cameras, lights). One visitor walks the model for both
 * writing and reading, so the two cannot drift apart; every count read is
 * checked against the bytes left before memory is taken for it, and the
 * result is validated like a parsed file before anything uses it. */
#include <string.h>

#include "gltf_internal.h"

/* header: magic[8], u32 version, u32 header size, u64 total size, u64 hash of the body */
#define OAKM_HEADER 32

typedef struct ser {
    bool reading;
    uint8_t *buf;
    size_t size, cap, at;
    oak_arena *arena;
    const char *file;
    oak_result err;
} ser;

static void s_fail(ser *s, oak_result code, const char *what) {
    if (!s->err) s->err = oak_error(code, "%s: byte %zu: %s", s->file, s->at, what);
}

static void s_raw(ser *s, void *p, size_t n) {
    if (s->err || !n) return;
    if (s->reading) {
        if (n > s->size - s->at) {
            s_fail(s, OAK_ERROR_PARSE, "the cache ends early");
            return;
        }
        memcpy(p, s->buf + s->at, n);
    } else {
        if (s->at + n > s->cap) {
            size_t cap = s->cap ? s->cap : 4096;
            while (cap < s->at + n) cap *= 2;
            uint8_t *nb = oak_realloc(s->buf, cap);
            if (!nb) {
                s_fail(s, OAK_ERROR_OUT_OF_MEMORY, "out of memory");
                return;
            }
            s->buf = nb;
            s->cap = cap;
        }
        memcpy(s->buf + s->at, p, n);
    }
    s->at += n;
}

static void s_u32(ser *s, uint32_t *v) {
    s_raw(s, v, 4);
}
static void s_i32(ser *s, int32_t *v) {
    s_raw(s, v, 4);
}
static void s_f32(ser *s, float *v, size_t n) {
    s_raw(s, v, 4 * n);
}
static void s_bool(ser *s, bool *v) {
    uint32_t b = *v;
    s_u32(s, &b);
    *v = b != 0;
}
static void s_enum(ser *s, void *v) { /* enums are int-sized in C */
    int32_t e;
    memcpy(&e, v, 4);
    s_i32(s, &e);
    memcpy(v, &e, 4);
}

/* An array of count * elem bytes behind *p, NULL kept as NULL. Arrays sit
 * at 16-byte offsets so a read points into the cache's bytes, no copy. */
static void s_array(ser *s, void **p, size_t elem, size_t count) {
    uint32_t present = *p != NULL;
    s_u32(s, &present);
    if (s->err || !present) {
        if (s->reading) *p = NULL;
        return;
    }
    static const uint8_t pad[16];
    size_t gap = (16 - (s->at & 15)) & 15;
    if (s->reading) {
        if (gap > s->size - s->at) {
            s_fail(s, OAK_ERROR_PARSE, "the cache ends early");
            return;
        }
        s->at += gap;
    } else {
        s_raw(s, (void *)pad, gap);
    }
    size_t n = elem * count;
    if (s->reading) {
        if (count && n / count != elem) {
            s_fail(s, OAK_ERROR_PARSE, "an array size overflows");
            return;
        }
        if (n > s->size - s->at) {
            s_fail(s, OAK_ERROR_PARSE, "an array runs past the end of the cache");
            return;
        }
        *p = s->buf + s->at;
        s->at += n;
        return;
    }
    s_raw(s, *p, n);
}
#define S_ARRAY(s, ptr, count) s_array((s), (void **)&(ptr), sizeof(*(ptr)), (count))

static void s_str(ser *s, char **p) {
    uint32_t n = *p ? (uint32_t)strlen(*p) + 1 : 0;
    s_u32(s, &n);
    if (s->err) return;
    if (!s->reading) {
        s_raw(s, *p, n);
        return;
    }
    *p = NULL;
    if (!n) return;
    if (n > s->size - s->at) {
        s_fail(s, OAK_ERROR_PARSE, "a string runs past the end of the cache");
        return;
    }
    if (s->buf[s->at + n - 1] != 0) {
        s_fail(s, OAK_ERROR_PARSE, "a string is unterminated");
        return;
    }
    *p = (char *)s->buf + s->at;
    s->at += n;
}

static void s_bounds(ser *s, oak_bounds *b) {
    s_f32(s, b->min, 3);
    s_f32(s, b->max, 3);
    s_f32(s, b->center, 3);
    s_f32(s, &b->radius, 1);
}

static void s_texref(ser *s, oak_texture_ref *t) {
    s_enum(s, &t->sampler.wrap_u);
    s_enum(s, &t->sampler.wrap_v);
    s_enum(s, &t->sampler.mag);
    s_enum(s, &t->sampler.min);
    s_enum(s, &t->sampler.mip);
    s_u32(s, &t->uv_set);
    s_f32(s, t->offset, 2);
    s_f32(s, &t->rotation, 1);
    s_f32(s, t->scale, 2);
    if (s->reading) t->texture.id = 0;
}

/* Allocates count items of a struct array when reading (zeroed). */
static void s_items(ser *s, void **p, size_t elem, uint32_t count) {
    if (!s->reading || s->err) return;
    /* Each item costs at least 4 bytes in the file: a cheap bound on count. */
    if ((size_t)count > (s->size - s->at) / 4 + 1) {
        s_fail(s, OAK_ERROR_PARSE, "a count is larger than the cache could hold");
        *p = NULL;
        return;
    }
    *p = oak_arena_alloc(s->arena, elem * count + 1, 16);
    if (!*p)
        s_fail(s, OAK_ERROR_OUT_OF_MEMORY, "out of memory");
    else
        memset(*p, 0, elem * count + 1);
}
#define S_ITEMS(s, ptr, count) s_items((s), (void **)&(ptr), sizeof(*(ptr)), (count))

/* Levels in a full chain and bytes of levels 1.. (RGBA8), as the registry makes them. */
static uint32_t chain_levels(uint32_t w, uint32_t h) {
    uint32_t big = w > h ? w : h, levels = 1;
    while ((big >> levels) && levels < OAK_MAX_MIPS) levels++;
    return levels;
}

static size_t chain_bytes(uint32_t w, uint32_t h, uint32_t levels) {
    size_t total = 0;
    for (uint32_t i = 1; i < levels; i++)
        total += (size_t)(w >> i ? w >> i : 1) * (h >> i ? h >> i : 1) * 4;
    return total;
}

/* Packs a registry texture's levels 1.. for the cache; NULL if it has none. */
static uint8_t *pack_chain(oak_texture tex, uint32_t *levels) {
    const oak_texture_data *t = oak_texture_get(tex);
    if (!t || t->mip_count < 2 || t->bytes_per_pixel != 4 ||
        t->mip_count != chain_levels(t->width, t->height))
        return NULL;
    uint8_t *out = oak_alloc(chain_bytes(t->width, t->height, t->mip_count) + 1);
    if (!out) return NULL;
    size_t at = 0;
    for (uint32_t i = 1; i < t->mip_count; i++) {
        size_t n = (size_t)t->mip_width[i] * t->mip_height[i] * 4;
        memcpy(out + at, t->mips[i], n);
        at += n;
    }
    *levels = t->mip_count;
    return out;
}

/* A primitive's meshlets: written from its mesh (cut now if it had none),
   read in place and checked against the primitive's vertices and indices. */
static void s_meshlets(ser *s, oak_gltf_primitive *p) {
    oak_meshlets m = {0};
    const oak_meshlets *have = NULL;
    if (!s->reading && p->mode == 4 && p->mesh.id && !oak_mesh_meshlets(p->mesh, &have)) m = *have;
    s_u32(s, &m.count);
    s_u32(s, &m.vertex_total);
    s_u32(s, &m.triangle_bytes);
    S_ARRAY(s, m.meshlets, m.count);
    S_ARRAY(s, m.vertices, m.vertex_total);
    S_ARRAY(s, m.triangles, m.triangle_bytes);
    if (!s->reading || s->err) return;
    const char *bad =
        oak_meshlets_problem(&m, p->vertex_count, p->indices ? p->index_count : p->vertex_count);
    if (bad) {
        s_fail(s, OAK_ERROR_PARSE, bad);
        return;
    }
    p->meshlets = m;
}

static void s_primitive(ser *s, oak_gltf_primitive *p, uint32_t variants) {
    s_i32(s, &p->material);
    S_ARRAY(s, p->variant_material, variants);
    s_u32(s, &p->mode);
    s_u32(s, &p->vertex_count);
    s_u32(s, &p->index_count);
    size_t n = p->vertex_count;
    S_ARRAY(s, p->positions, n * 3);
    S_ARRAY(s, p->normals, n * 3);
    S_ARRAY(s, p->tangents, n * 4);
    S_ARRAY(s, p->uv0, n * 2);
    S_ARRAY(s, p->uv1, n * 2);
    S_ARRAY(s, p->colors, n * 4);
    S_ARRAY(s, p->indices, p->index_count);
    s_u32(s, &p->influence_count);
    S_ARRAY(s, p->joints, n * p->influence_count);
    S_ARRAY(s, p->weights, n * p->influence_count);
    s_u32(s, &p->max_joint);
    s_u32(s, &p->target_count);
    S_ITEMS(s, p->targets, p->target_count);
    for (uint32_t t = 0; !s->err && t < p->target_count; t++) {
        S_ARRAY(s, p->targets[t].positions, n * 3);
        S_ARRAY(s, p->targets[t].normals, n * 3);
        S_ARRAY(s, p->targets[t].tangents, n * 3);
    }
    s_bounds(s, &p->bounds);
    s_meshlets(s, p);
    if (s->reading) p->mesh.id = 0;
}

static void s_model(ser *s, oak_gltf *g) {
    s_u32(s, &g->node_count);
    s_u32(s, &g->mesh_count);
    s_u32(s, &g->material_count);
    s_u32(s, &g->image_count);
    s_u32(s, &g->texture_count);
    s_u32(s, &g->skin_count);
    s_u32(s, &g->clip_count);
    s_u32(s, &g->camera_count);
    s_u32(s, &g->light_count);
    s_u32(s, &g->scene_count);
    s_u32(s, &g->variant_count);
    S_ITEMS(s, g->variant_names, g->variant_count);
    for (uint32_t i = 0; !s->err && i < g->variant_count; i++) s_str(s, &g->variant_names[i]);
    s_u32(s, &g->root_count);
    s_u32(s, &g->primitive_count);
    s_bounds(s, &g->bounds);
    S_ARRAY(s, g->roots, g->root_count);

    S_ITEMS(s, g->nodes, g->node_count);
    for (uint32_t i = 0; !s->err && i < g->node_count; i++) {
        oak_gltf_node *n = &g->nodes[i];
        s_str(s, &n->name);
        s_i32(s, &n->parent);
        s_u32(s, &n->child_count);
        S_ARRAY(s, n->children, n->child_count);
        s_i32(s, &n->mesh);
        s_i32(s, &n->skin);
        s_i32(s, &n->camera);
        s_i32(s, &n->light);
        s_f32(s, n->translation, 3);
        s_f32(s, n->rotation, 4);
        s_f32(s, n->scale, 3);
        s_u32(s, &n->weight_count);
        S_ARRAY(s, n->weights, n->weight_count);
        s_str(s, &n->extras);
        s_bool(s, &n->visible);
        s_u32(s, &n->instance_count);
        S_ARRAY(s, n->instances, n->instance_count);
        s_u32(s, &n->lod_count);
        S_ARRAY(s, n->lod_nodes, n->lod_count);
        s_u32(s, &n->lod_coverage_count);
        S_ARRAY(s, n->lod_coverage, n->lod_coverage_count);
    }
    S_ITEMS(s, g->meshes, g->mesh_count);
    for (uint32_t i = 0; !s->err && i < g->mesh_count; i++) {
        oak_gltf_mesh *m = &g->meshes[i];
        s_str(s, &m->name);
        s_u32(s, &m->primitive_count);
        S_ITEMS(s, m->primitives, m->primitive_count);
        for (uint32_t p = 0; !s->err && p < m->primitive_count; p++)
            s_primitive(s, &m->primitives[p], g->variant_count);
        s_u32(s, &m->weight_count);
        S_ARRAY(s, m->weights, m->weight_count);
    }
    S_ITEMS(s, g->materials, g->material_count);
    S_ITEMS(s, g->material_handles, g->material_count);
    for (uint32_t i = 0; !s->err && i < g->material_count; i++) {
        oak_gltf_material *m = &g->materials[i];
        oak_material_desc *d = &m->desc;
        s_str(s, &m->name);
        s_f32(s, d->base_color, 4);
        s_f32(s, &d->metallic, 1);
        s_f32(s, &d->roughness, 1);
        s_f32(s, d->emissive, 3);
        s_f32(s, &d->emissive_strength, 1);
        s_f32(s, &d->normal_scale, 1);
        s_f32(s, &d->occlusion_strength, 1);
        s_enum(s, &d->alpha_mode);
        s_f32(s, &d->alpha_cutoff, 1);
        s_bool(s, &d->double_sided);
        s_bool(s, &d->unlit);
        s_f32(s, &d->lobes.ior, 1);
        s_bool(s, &d->lobes.specular);
        s_f32(s, &d->lobes.specular_factor, 1);
        s_f32(s, d->lobes.specular_color, 3);
        s_f32(s, &d->lobes.clearcoat, 1);
        s_f32(s, &d->lobes.clearcoat_roughness, 1);
        s_f32(s, &d->lobes.clearcoat_normal_scale, 1);
        s_f32(s, d->lobes.sheen_color, 3);
        s_f32(s, &d->lobes.sheen_roughness, 1);
        s_f32(s, &d->lobes.anisotropy, 1);
        s_f32(s, &d->lobes.anisotropy_rotation, 1);
        s_f32(s, &d->lobes.iridescence, 1);
        s_f32(s, &d->lobes.iridescence_ior, 1);
        s_f32(s, &d->lobes.iridescence_thickness, 1);
        s_f32(s, &d->lobes.iridescence_thickness_min, 1);
        s_f32(s, &d->lobes.diffuse_transmission, 1);
        s_f32(s, d->lobes.diffuse_transmission_color, 3);
        s_f32(s, &d->lobes.transmission, 1);
        s_f32(s, &d->lobes.thickness, 1);
        s_f32(s, d->lobes.attenuation_color, 3);
        s_f32(s, &d->lobes.attenuation_distance, 1);
        s_f32(s, &d->lobes.dispersion, 1);
        s_texref(s, &d->base_color_tex);
        s_texref(s, &d->metallic_roughness_tex);
        s_texref(s, &d->normal_tex);
        s_texref(s, &d->occlusion_tex);
        s_texref(s, &d->emissive_tex);
        for (int k = 0; k < 5; k++) s_i32(s, &m->image[k]);
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) {
            s_texref(s, &d->lobes.tex[k]);
            s_i32(s, &m->lobe_image[k]);
        }
        if (s->reading) d->name = m->name;
    }
    S_ITEMS(s, g->images, g->image_count);
    for (uint32_t i = 0; !s->err && i < g->image_count; i++) {
        oak_gltf_image *im = &g->images[i];
        s_str(s, &im->name);
        s_u32(s, &im->width);
        s_u32(s, &im->height);
        if (s->reading && (im->width > OAK_MAX_TEXTURE_SIZE || im->height > OAK_MAX_TEXTURE_SIZE)) {
            s_fail(s, OAK_ERROR_PARSE, "an image is larger than oak allows");
            return;
        }
        S_ARRAY(s, im->rgba, (size_t)im->width * im->height * 4);
        s_u32(s, &im->mip_count);
        if (s->reading && im->mip_count && im->mip_count != chain_levels(im->width, im->height)) {
            s_fail(s, OAK_ERROR_PARSE, "an image's mip count does not fit its size");
            return;
        }
        size_t chain = chain_bytes(im->width, im->height, im->mip_count);
        S_ARRAY(s, im->srgb_chain, chain);
        S_ARRAY(s, im->data_chain, chain);
    }
    S_ITEMS(s, g->skins, g->skin_count);
    for (uint32_t i = 0; !s->err && i < g->skin_count; i++) {
        oak_gltf_skin *k = &g->skins[i];
        s_str(s, &k->name);
        s_u32(s, &k->joint_count);
        S_ARRAY(s, k->joints, k->joint_count);
        S_ARRAY(s, k->inverse_bind, (size_t)k->joint_count * 16);
        s_i32(s, &k->skeleton);
    }
    S_ITEMS(s, g->clips, g->clip_count);
    for (uint32_t i = 0; !s->err && i < g->clip_count; i++) {
        oak_gltf_clip *c = &g->clips[i];
        s_str(s, &c->name);
        s_u32(s, &c->channel_count);
        s_u32(s, &c->sampler_count);
        S_ARRAY(s, c->channels, c->channel_count);
        S_ITEMS(s, c->samplers, c->sampler_count);
        for (uint32_t k = 0; !s->err && k < c->sampler_count; k++) {
            oak_anim_sampler *sm = &c->samplers[k];
            s_u32(s, &sm->key_count);
            s_u32(s, &sm->width);
            s_enum(s, &sm->interp);
            size_t nv =
                (size_t)sm->key_count * sm->width * (sm->interp == OAK_INTERP_CUBICSPLINE ? 3 : 1);
            s_array(s, (void **)&sm->times, 4, sm->key_count);
            s_array(s, (void **)&sm->values, 4, nv);
        }
        s_f32(s, &c->start, 1);
        s_f32(s, &c->end, 1);
    }
    S_ITEMS(s, g->cameras, g->camera_count);
    for (uint32_t i = 0; !s->err && i < g->camera_count; i++) {
        oak_gltf_camera *c = &g->cameras[i];
        s_str(s, &c->name);
        s_bool(s, &c->orthographic);
        s_f32(s, &c->yfov, 1);
        s_f32(s, &c->aspect, 1);
        s_f32(s, &c->xmag, 1);
        s_f32(s, &c->ymag, 1);
        s_f32(s, &c->znear, 1);
        s_f32(s, &c->zfar, 1);
    }
    S_ITEMS(s, g->lights, g->light_count);
    for (uint32_t i = 0; !s->err && i < g->light_count; i++) {
        oak_gltf_light *l = &g->lights[i];
        s_str(s, &l->name);
        s_enum(s, &l->type);
        s_f32(s, l->color, 3);
        s_f32(s, &l->intensity, 1);
        s_f32(s, &l->range, 1);
        s_f32(s, &l->inner_cone, 1);
        s_f32(s, &l->outer_cone, 1);
        if (s->reading && (uint32_t)l->type > OAK_GLTF_LIGHT_SPOT)
            s_fail(s, OAK_ERROR_PARSE, "a light has an unknown type");
    }
}

static uint64_t rotl64(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

static uint64_t body_hash(const uint8_t *p, size_t n) {
    const uint64_t k1 = 0x9E3779B185EBCA87ull, k2 = 0xC2B2AE3D27D4EB4Full;
    uint64_t lane[4] = {k1 + k2, k2, 0, (uint64_t)0 - k1};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t v;
            memcpy(&v, p + i + 8 * k, 8);
            lane[k] = rotl64(lane[k] + v * k2, 31) * k1;
        }
    uint64_t h =
        rotl64(lane[0], 1) + rotl64(lane[1], 7) + rotl64(lane[2], 12) + rotl64(lane[3], 18) + n;
    for (; i < n; i++) h = rotl64(h ^ (p[i] * k1), 11) * k2;
    h ^= h >> 33;
    h *= k2;
    h ^= h >> 29;
    return h;
}

uint64_t oak_gltf_cache_checksum(const void *data, size_t size) {
    return data ? body_hash(data, size) : 0;
}

static void put32(uint8_t *p, uint32_t v) {
    memcpy(p, &v, 4);
}
static void put64(uint8_t *p, uint64_t v) {
    memcpy(p, &v, 8);
}

oak_result oak_gltf_bake(const oak_gltf *g, const char *path) {
    if (!g || !path)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_gltf_bake: no model or path");
    ser s = {.reading = false, .file = path};
    uint8_t header[OAKM_HEADER] = {0};
    s_raw(&s, header, sizeof header);
    /* The images go out with the mip chains the registry made for them. */
    oak_gltf copy = *g;
    copy.images = oak_calloc(g->image_count + 1, sizeof(oak_gltf_image));
    if (!copy.images) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (uint32_t i = 0; i < g->image_count; i++) {
        oak_gltf_image *im = &copy.images[i];
        *im = g->images[i];
        im->mip_count = 0;
        im->srgb_chain = im->data_chain = NULL;
        uint32_t ls = 0, ld = 0;
        if (g->image_textures && g->image_data_textures && im->rgba) {
            im->srgb_chain = pack_chain(g->image_textures[i], &ls);
            im->data_chain = pack_chain(g->image_data_textures[i], &ld);
        }
        im->mip_count = ls ? ls : ld;
    }
    s_model(&s, &copy); /* writing only reads the model */
    for (uint32_t i = 0; i < g->image_count; i++) {
        oak_free(copy.images[i].srgb_chain);
        oak_free(copy.images[i].data_chain);
    }
    oak_free(copy.images);
    if (s.err) {
        oak_free(s.buf);
        return s.err;
    }
    memcpy(s.buf, OAK_OAKM_MAGIC, 8);
    put32(s.buf + 8, OAK_OAKM_VERSION);
    put32(s.buf + 12, OAKM_HEADER);
    put64(s.buf + 16, s.at);
    put64(s.buf + 24, body_hash(s.buf + OAKM_HEADER, s.at - OAKM_HEADER));
    oak_result r = oak_write_file(path, s.buf, s.at);
    oak_free(s.buf);
    return r;
}

oak_result _oak_oakm_read(oak_gltf *g, oak_arena *arena, uint8_t *data, size_t size,
                          const char *file) {
    if (size < OAKM_HEADER)
        return oak_error(OAK_ERROR_PARSE, "%s: .oakm header is cut short (%zu bytes)", file, size);
    uint32_t version, header;
    uint64_t total, hash;
    memcpy(&version, data + 8, 4);
    memcpy(&header, data + 12, 4);
    memcpy(&total, data + 16, 8);
    memcpy(&hash, data + 24, 8);
    if (version != OAK_OAKM_VERSION)
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "%s: .oakm version %u, this oak reads version %u: bake it again", file,
                         version, OAK_OAKM_VERSION);
    if (header != OAKM_HEADER || total != size)
        return oak_error(OAK_ERROR_PARSE, "%s: .oakm says %llu bytes but the file has %zu", file,
                         (unsigned long long)total, size);
    if (body_hash(data + OAKM_HEADER, size - OAKM_HEADER) != hash)
        return oak_error(OAK_ERROR_PARSE, "%s: .oakm contents do not match their hash", file);
    ser s = {.reading = true,
             .buf = (uint8_t *)data,
             .size = size,
             .at = OAKM_HEADER,
             .arena = arena,
             .file = file};
    char *path = g->path;
    s_model(&s, g);
    g->path = path;
    if (s.err) return s.err;
    if (s.at != size)
        return oak_error(OAK_ERROR_PARSE, "%s: .oakm has %zu bytes after the model", file,
                         size - s.at);
    /* The same structural rules as a parsed file (gltf_validate.c). */
    return _oak_gltf_validate(g, file);
}
