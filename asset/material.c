/* Materials in the registry: metallic-roughness PBR descs resolved (glTF
 * defaults), their texture handles checked against the registry, the name
 * copied so the caller's string may go. */
#include <math.h>
#include <string.h>

#include "registry.h"

void _oak_material_data_free(oak_material_data *m) {
    if (!m) return;
    oak_free(m->name);
    memset(m, 0, sizeof *m);
}

static void resolve_ref(oak_texture_ref *t) {
    oak_sampler *s = &t->sampler;
    if (s->wrap_u == OAK_WRAP_DEFAULT) s->wrap_u = OAK_WRAP_REPEAT;
    if (s->wrap_v == OAK_WRAP_DEFAULT) s->wrap_v = OAK_WRAP_REPEAT;
    if (s->mag == OAK_FILTER_DEFAULT) s->mag = OAK_FILTER_LINEAR;
    if (s->min == OAK_FILTER_DEFAULT) s->min = OAK_FILTER_LINEAR;
    if (s->mip == OAK_FILTER_DEFAULT) s->mip = OAK_FILTER_LINEAR;
    if (t->scale[0] == 0) t->scale[0] = 1;
    if (t->scale[1] == 0) t->scale[1] = 1;
}

oak_material_desc oak_material_desc_defaults(const oak_material_desc *desc) {
    oak_material_desc d;
    if (desc) {
        d = *desc;
    } else {
        d = (oak_material_desc){0};
        for (int i = 0; i < 4; i++) d.base_color[i] = 1.0f;
        d.metallic = 1.0f;
        d.roughness = 1.0f;
    }
    if (d.emissive_strength == 0) d.emissive_strength = 1.0f;
    if (d.normal_scale == 0) d.normal_scale = 1.0f;
    if (d.lobes.clearcoat_normal_scale == 0) d.lobes.clearcoat_normal_scale = 1.0f;
    if (d.occlusion_strength == 0) d.occlusion_strength = 1.0f;
    if (d.alpha_mode == OAK_ALPHA_DEFAULT) d.alpha_mode = OAK_ALPHA_OPAQUE;
    /* light through it is read from the opaque frame: the forward pass's */
    if (d.lobes.transmission > 0) d.alpha_mode = OAK_ALPHA_BLEND;
    if (d.alpha_cutoff == 0) d.alpha_cutoff = (float)OAK_ALPHA_CUTOFF_DEFAULT;
    if (d.fx.triplanar_sharpness == 0) d.fx.triplanar_sharpness = (float)OAK_FX_SHARPNESS_DEFAULT;
    if (d.fx.variation_scale == 0) d.fx.variation_scale = (float)OAK_FX_VARIATION_SCALE_DEFAULT;
    if (d.fx.detail_distance == 0) d.fx.detail_distance = (float)OAK_FX_DETAIL_DISTANCE_DEFAULT;
    resolve_ref(&d.base_color_tex);
    resolve_ref(&d.metallic_roughness_tex);
    resolve_ref(&d.normal_tex);
    resolve_ref(&d.occlusion_tex);
    resolve_ref(&d.emissive_tex);
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) resolve_ref(&d.lobes.tex[k]);
    return d;
}

static bool same_ref(const oak_texture_ref *a, const oak_texture_ref *b) {
    const oak_sampler *x = &a->sampler, *y = &b->sampler;
    return a->texture.id == b->texture.id && a->uv_set == b->uv_set && x->wrap_u == y->wrap_u &&
           x->wrap_v == y->wrap_v && x->mag == y->mag && x->min == y->min && x->mip == y->mip &&
           a->offset[0] == b->offset[0] && a->offset[1] == b->offset[1] &&
           a->rotation == b->rotation && a->scale[0] == b->scale[0] && a->scale[1] == b->scale[1];
}

uint32_t oak_material_lobe_slots(const oak_material_desc *d, int slot[OAK_LOBE_TEX_COUNT]) {
    const oak_texture_ref *t = d->lobes.tex;
    uint32_t n = 0;
    int first[OAK_LOBE_TEX_COUNT];
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) {
        slot[k] = -1;
        if (!t[k].texture.id) continue;
        for (uint32_t j = 0; j < n && slot[k] < 0; j++)
            if (same_ref(&t[first[j]], &t[k])) slot[k] = (int)j;
        if (slot[k] < 0) first[n] = k, slot[k] = (int)n++;
    }
    return n;
}

static oak_result check(const oak_material_desc *d) {
    const char *name = d->name ? d->name : "(unnamed)";
    enum { REFS = 5 + OAK_LOBE_TEX_COUNT };
    const oak_texture_ref *refs[REFS] = {&d->base_color_tex, &d->metallic_roughness_tex,
                                         &d->normal_tex, &d->occlusion_tex, &d->emissive_tex};
    static const char *slots[REFS] = {"base colour",
                                      "metallic-roughness",
                                      "normal",
                                      "occlusion",
                                      "emissive",
                                      "lobes clearcoat",
                                      "lobes clearcoat roughness",
                                      "lobes sheen colour",
                                      "lobes sheen roughness",
                                      "lobes transmission",
                                      "lobes thickness",
                                      "lobes diffuse transmission",
                                      "lobes diffuse transmission colour",
                                      "lobes iridescence",
                                      "lobes iridescence thickness",
                                      "lobes specular",
                                      "lobes specular colour",
                                      "lobes anisotropy",
                                      "lobes clearcoat normal"};
    _Static_assert(OAK_LOBE_TEX_COUNT == 14, "name the lobe textures above");
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) refs[5 + k] = &d->lobes.tex[k];
    int lslot[OAK_LOBE_TEX_COUNT];
    uint32_t distinct = oak_material_lobe_slots(d, lslot);
    if (distinct > OAK_LOBE_TEX_DISTINCT)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "material '%s': %u distinct lobe textures (at most %d)", name, distinct,
                         OAK_LOBE_TEX_DISTINCT);
    for (int i = 0; i < REFS; i++) {
        if (refs[i]->texture.id && !oak_texture_get(refs[i]->texture))
            return oak_error(OAK_ERROR_NOT_FOUND, "material '%s': %s texture %#x is stale", name,
                             slots[i], refs[i]->texture.id);
        if (refs[i]->uv_set >= OAK_MAX_UV_SETS)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': %s uses uv set %u", name,
                             slots[i], refs[i]->uv_set);
        const oak_sampler *s = &refs[i]->sampler;
        if (s->wrap_u > OAK_WRAP_MIRROR || s->wrap_v > OAK_WRAP_MIRROR ||
            s->mag > OAK_FILTER_LINEAR || s->min > OAK_FILTER_LINEAR || s->mip > OAK_FILTER_LINEAR)
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': %s sampler out of range",
                             name, slots[i]);
    }
    if (d->alpha_mode > OAK_ALPHA_BLEND)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': unknown alpha mode %d", name,
                         (int)d->alpha_mode);
    const float *f[] = {d->base_color,   d->base_color + 1,    d->base_color + 2, d->base_color + 3,
                        &d->metallic,    &d->roughness,        d->emissive,       d->emissive + 1,
                        d->emissive + 2, &d->emissive_strength};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (!isfinite(*f[i]))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': a factor is not finite",
                             name);
    if (!(d->softness >= 0 && d->softness <= 1e4f))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': softness %g out of [0, 1e4]",
                         name, (double)d->softness);
    /* the tricks' numbers: finite, not negative, and in a range the shaders'
       float arithmetic holds (variation past 1 would turn albedo negative) */
    const oak_material_fx *x = &d->fx;
    const struct {
        const char *key;
        float v, max;
    } fx[] = {
        {"triplanar", x->triplanar, 1e4f}, {"triplanar_sharpness", x->triplanar_sharpness, 64},
        {"breakup", x->breakup, 1024},     {"breakup_rotation", x->breakup_rotation, 6.2831855f},
        {"variation", x->variation, 1},    {"variation_scale", x->variation_scale, 1e4f},
        {"detail", x->detail, 1024},       {"detail_distance", x->detail_distance, 1e5f}};
    for (size_t i = 0; i < sizeof fx / sizeof fx[0]; i++)
        if (!(fx[i].v >= 0 && fx[i].v <= fx[i].max))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT, "material '%s': fx.%s %g out of [0, %g]",
                             name, fx[i].key, (double)fx[i].v, (double)fx[i].max);
    /* the lobes: in glTF's ranges (ior past 1e4 is a mirror already) */
    const oak_material_lobes *l = &d->lobes;
    if (!(l->ior == 0 || (l->ior >= 1 && l->ior <= 1e4f)))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "material '%s': lobes.ior %g not 0 or in [1, 1e4]", name, (double)l->ior);
    const struct {
        const char *key;
        float v, max;
    } lo[] = {{"specular_factor", l->specular_factor, 1},
              {"specular_color", l->specular_color[0], 1e4f},
              {"specular_color", l->specular_color[1], 1e4f},
              {"specular_color", l->specular_color[2], 1e4f},
              {"clearcoat", l->clearcoat, 1},
              {"clearcoat_roughness", l->clearcoat_roughness, 1},
              {"sheen_color", l->sheen_color[0], 1},
              {"sheen_color", l->sheen_color[1], 1},
              {"sheen_color", l->sheen_color[2], 1},
              {"sheen_roughness", l->sheen_roughness, 1},
              {"anisotropy", l->anisotropy, 1},
              {"iridescence", l->iridescence, 1},
              {"iridescence_thickness", l->iridescence_thickness, 1e5f},
              {"iridescence_thickness_min", l->iridescence_thickness_min, 1e5f},
              {"diffuse_transmission", l->diffuse_transmission, 1},
              {"diffuse_transmission_color", l->diffuse_transmission_color[0], 1},
              {"diffuse_transmission_color", l->diffuse_transmission_color[1], 1},
              {"diffuse_transmission_color", l->diffuse_transmission_color[2], 1},
              {"transmission", l->transmission, 1},
              {"thickness", l->thickness, 1e4f},
              {"attenuation_color", l->attenuation_color[0], 1},
              {"attenuation_color", l->attenuation_color[1], 1},
              {"attenuation_color", l->attenuation_color[2], 1},
              {"attenuation_distance", l->attenuation_distance, 1e9f},
              {"dispersion", l->dispersion, 100}};
    for (size_t i = 0; i < sizeof lo / sizeof lo[0]; i++)
        if (!(lo[i].v >= 0 && lo[i].v <= lo[i].max))
            return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "material '%s': lobes.%s %g out of [0, %g]", name, lo[i].key,
                             (double)lo[i].v, (double)lo[i].max);
    if (!(l->iridescence_ior == 0 || (l->iridescence_ior >= 1 && l->iridescence_ior <= 10)))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "material '%s': lobes.iridescence_ior %g not 0 or in [1, 10]", name,
                         (double)l->iridescence_ior);
    if (!isfinite(l->anisotropy_rotation))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "material '%s': lobes.anisotropy_rotation is not finite", name);
    return OAK_OK;
}

float oak_material_ior_f0(const oak_material_desc *d) {
    const oak_material_lobes *l = &d->lobes;
    /* 1.5 is glTF's default: exactly the 0.04 plain materials have always had */
    float r = 0.04f;
    if (l->ior != 0 && l->ior != 1.5f) {
        float q = (l->ior - 1.0f) / (l->ior + 1.0f);
        r = q * q;
    }
    return r;
}

float oak_material_dielectric_f0(const oak_material_desc *d, float f0[3]) {
    const oak_material_lobes *l = &d->lobes;
    float r = oak_material_ior_f0(d);
    if (!l->specular) {
        f0[0] = f0[1] = f0[2] = r;
        return 1.0f;
    }
    for (int k = 0; k < 3; k++) {
        float c = r * l->specular_color[k];
        f0[k] = (c < 1.0f ? c : 1.0f) * l->specular_factor;
    }
    return l->specular_factor;
}

static oak_result material_build(oak_material_data *m, const oak_material_desc *desc) {
    memset(m, 0, sizeof *m);
    oak_material_desc d = oak_material_desc_defaults(desc);
    oak_result r = check(&d);
    if (r) return r;
    if (d.name) {
        m->name = oak_strdup(d.name);
        if (!m->name) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "material '%s': no memory", d.name);
    }
    m->desc = d;
    m->desc.name = m->name;
    m->version = _oak_next_version();
    return OAK_OK;
}

oak_result oak_make_material(oak_material *out, const oak_material_desc *desc) {
    out->id = 0;
    _oak_registry *reg = _oak_registry_get();
    if (!reg) return OAK_ERROR_OUT_OF_MEMORY;
    oak_material_data built;
    oak_result r = material_build(&built, desc);
    if (r) return r;
    uint32_t id = oak_pool_alloc(&reg->materials);
    if (!id) {
        _oak_material_data_free(&built);
        return oak_error(OAK_ERROR_LIMIT, "material: the registry is full");
    }
    *(oak_material_data *)oak_pool_get(&reg->materials, id) = built;
    out->id = id;
    return OAK_OK;
}

oak_result oak_material_update(oak_material material, const oak_material_desc *desc) {
    _oak_registry *reg = _oak_registry_peek();
    oak_material_data *m = reg ? oak_pool_get(&reg->materials, material.id) : NULL;
    if (!m) return oak_error(OAK_ERROR_NOT_FOUND, "material update: stale handle %#x", material.id);
    oak_material_data built;
    oak_result r = material_build(&built, desc);
    if (r) return r;
    if (!built.name && m->name) { /* an update without a name keeps the old one */
        built.name = m->name;
        built.desc.name = built.name;
        m->name = NULL;
    }
    _oak_material_data_free(m);
    *m = built;
    return OAK_OK;
}

void oak_destroy_material(oak_material material) {
    _oak_registry *reg = _oak_registry_peek();
    oak_material_data *m = reg ? oak_pool_get(&reg->materials, material.id) : NULL;
    if (!m) return;
    _oak_material_data_free(m);
    oak_pool_free(&reg->materials, material.id);
}

const oak_material_data *oak_material_get(oak_material material) {
    _oak_registry *reg = _oak_registry_peek();
    return reg ? oak_pool_get(&reg->materials, material.id) : NULL;
}
