/* Registry assets for a loaded glTF: one mesh per drawn primitive, one
 * texture per (image, colour or data) pair a material uses, one material
 * per glTF material plus glTF's default one. Streams the registry generates
 * (tangents, and normals it computes) are copied back into the primitive so
 * skinning, morphing and the cache see exactly what is drawn. */
#include <string.h>

#include "gltf_internal.h"
#include "registry.h"

static oak_result image_texture(oak_gltf *g, int32_t image, bool srgb, oak_texture *out) {
    out->id = 0;
    if (image < 0 || !g->images[image].rgba) return OAK_OK;
    oak_texture *slot = srgb ? &g->image_textures[image] : &g->image_data_textures[image];
    if (!slot->id) {
        const oak_gltf_image *im = &g->images[image];
        oak_texture_desc d = {.width = im->width,
                              .height = im->height,
                              .format = srgb ? OAK_FORMAT_RGBA8_SRGB : OAK_FORMAT_RGBA8,
                              .pixels = im->rgba,
                              .name = im->name,
                              .mip_count = im->mip_count,
                              .mip_chain = srgb ? im->srgb_chain : im->data_chain};
        oak_result r = oak_make_texture(slot, &d);
        if (r) return oak_error(r, "%s: images[%d]: %s", g->path, image, oak_last_error());
    }
    *out = *slot;
    return OAK_OK;
}

static void *arena_copy(oak_gltf *g, const void *src, size_t size) {
    void *p = oak_arena_alloc(g->internal_, size ? size : 1, 16);
    if (p) memcpy(p, src, size);
    return p;
}

static oak_result make_primitive(oak_gltf *g, oak_gltf_mesh *m, uint32_t mi, uint32_t pi,
                                 uint32_t source_index) {
    oak_gltf_primitive *p = &m->primitives[pi];
    if (!p->index_count || !p->vertex_count) return OAK_OK;
    size_t n = p->vertex_count;
    uint16_t *joints = NULL;
    float *weights = NULL;
    if (p->influence_count > 4) { /* the registry holds the first set; skinning uses all */
        joints = oak_alloc(n * 4 * sizeof(uint16_t));
        weights = oak_alloc(n * 4 * sizeof(float));
        if (!joints || !weights) {
            oak_free(joints);
            oak_free(weights);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path);
        }
        for (size_t v = 0; v < n; v++) {
            memcpy(joints + 4 * v, p->joints + v * p->influence_count, 8);
            memcpy(weights + 4 * v, p->weights + v * p->influence_count, 16);
        }
    }
    char name[160];
    snprintf(name, sizeof name, "%s/%u", m->name && *m->name ? m->name : "mesh", pi);
    oak_mesh_desc d = {.vertex_count = p->vertex_count,
                       .index_count = p->index_count,
                       .positions = p->positions,
                       .normals = p->normals,
                       .tangents = p->tangents,
                       .uv0 = p->uv0,
                       .uv1 = p->uv1,
                       .colors = p->colors,
                       .joints = joints ? joints : p->joints,
                       .weights = weights ? weights : p->weights,
                       .indices = p->indices,
                       .name = name};
    oak_result r = oak_make_mesh(&p->mesh, &d);
    oak_free(joints);
    oak_free(weights);
    if (r)
        return oak_error(r, "%s: meshes[%u].primitives[%u]: %s", g->path, mi, pi, oak_last_error());
    oak_mesh_set_source(p->mesh, g->path, source_index);
    if (p->meshlets.count && (r = _oak_mesh_adopt_meshlets(p->mesh, &p->meshlets)))
        return oak_error(r, "%s: meshes[%u].primitives[%u]: %s", g->path, mi, pi, oak_last_error());
    const oak_mesh_data *md = oak_mesh_get(p->mesh);
    if (!p->normals) p->normals = arena_copy(g, md->normals, n * 12);
    if (!p->tangents) p->tangents = arena_copy(g, md->tangents, n * 16);
    if (!p->normals || !p->tangents)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path);
    return OAK_OK;
}

oak_result _oak_gltf_make_assets(oak_gltf *g) {
    oak_arena *arena = g->internal_;
    size_t ni = g->image_count ? g->image_count : 1;
    g->image_textures = oak_arena_alloc(arena, sizeof(oak_texture) * ni, 16);
    g->image_data_textures = oak_arena_alloc(arena, sizeof(oak_texture) * ni, 16);
    if (!g->image_textures || !g->image_data_textures)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", g->path);
    memset(g->image_textures, 0, sizeof(oak_texture) * ni);
    memset(g->image_data_textures, 0, sizeof(oak_texture) * ni);
    oak_result r;
    for (uint32_t i = 0; i < g->material_count; i++) {
        oak_gltf_material *gm = &g->materials[i];
        oak_material_desc d = gm->desc;
        oak_texture_ref *refs[5] = {&d.base_color_tex, &d.metallic_roughness_tex, &d.normal_tex,
                                    &d.occlusion_tex, &d.emissive_tex};
        for (int k = 0; k < 5; k++)
            if ((r = image_texture(g, gm->image[k], k == 0 || k == 4, &refs[k]->texture))) return r;
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
            if ((r = image_texture(g, gm->lobe_image[k],
                                   k == OAK_LOBE_TEX_SHEEN_COLOR ||
                                       k == OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR ||
                                       k == OAK_LOBE_TEX_SPECULAR_COLOR,
                                   &d.lobes.tex[k].texture)))
                return r;
        /* more distinct lobe textures than a material holds: the later ones left out */
        int slot[OAK_LOBE_TEX_COUNT];
        oak_material_desc rd = oak_material_desc_defaults(&d);
        oak_material_lobe_slots(&rd, slot);
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
            if (slot[k] >= OAK_LOBE_TEX_DISTINCT) {
                oak_log_warn("%s: materials[%u]: more than %d distinct lobe textures; lobe "
                             "texture %d is not read, its factor alone",
                             g->path, i, OAK_LOBE_TEX_DISTINCT, k);
                d.lobes.tex[k].texture.id = 0;
            }
        d.name = gm->name;
        gm->desc = d; /* keep the handles for tools */
        if ((r = oak_make_material(&g->material_handles[i], &d)))
            return oak_error(r, "%s: materials[%u]: %s", g->path, i, oak_last_error());
    }
    oak_material_desc def = oak_material_desc_defaults(NULL);
    def.name = "glTF default";
    if ((r = oak_make_material(&g->default_material, &def))) return r;
    uint32_t source = 0;
    for (uint32_t m = 0; m < g->mesh_count; m++)
        for (uint32_t p = 0; p < g->meshes[m].primitive_count; p++)
            if ((r = make_primitive(g, &g->meshes[m], m, p, source++))) return r;
    return OAK_OK;
}

void _oak_gltf_destroy_assets(oak_gltf *g) {
    if (!oak_is_initialized()) return;
    for (uint32_t m = 0; m < g->mesh_count && g->meshes; m++)
        for (uint32_t p = 0; p < g->meshes[m].primitive_count && g->meshes[m].primitives; p++)
            if (g->meshes[m].primitives[p].mesh.id)
                oak_destroy_mesh(g->meshes[m].primitives[p].mesh);
    for (uint32_t i = 0; i < g->material_count && g->material_handles; i++)
        if (g->material_handles[i].id) oak_destroy_material(g->material_handles[i]);
    if (g->default_material.id) oak_destroy_material(g->default_material);
    /* A cache that failed half-read has counts without arrays: no arrays, no
       loop (4 billion empty turns took 36 s under the fuzzer). */
    for (uint32_t i = 0; i < g->image_count && (g->image_textures || g->image_data_textures); i++) {
        if (g->image_textures && g->image_textures[i].id) oak_destroy_texture(g->image_textures[i]);
        if (g->image_data_textures && g->image_data_textures[i].id)
            oak_destroy_texture(g->image_data_textures[i]);
    }
}
