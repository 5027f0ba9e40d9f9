/* The material extensions that add lobes (docs/SHADING.md "Lobes"):
 * KHR_materials_ior, _specular, _clearcoat, _sheen, _anisotropy, _iridescence,
 * _diffuse_transmission, _transmission, _volume and _dispersion, read into a material's
 * oak_material_lobes. Their factors are shaded, and their textures (oak_lobe_tex), the
 * coat's normal map with its scale. */
#include <stdio.h>
#include <string.h>

#include "gltf_internal.h"

/* A texture oak reads: lobe texture k, its image into gm->lobe_image[k]. */
static oak_result lobe_texture(gltf_ctx *c, const cJSON *o, const char *ep, const char *key,
                               const tex_info *tex, oak_gltf_material *gm, oak_lobe_tex k) {
    return _oak_gltf_tex_ref(c, o, ep, key, tex, &gm->desc.lobes.tex[k], &gm->lobe_image[k], NULL,
                             NULL);
}

oak_result _oak_gltf_load_lobes(gltf_ctx *c, const cJSON *ext, const char *path,
                                const tex_info *tex, oak_gltf_material *gm) {
    oak_material_lobes *l = &gm->desc.lobes;
    const cJSON *o;
    char ep[192], xp[128];
    snprintf(xp, sizeof xp, "%s.extensions", path);
    oak_result r = _oak_gltf_object(c, ext, xp, "KHR_materials_ior", &o);
    if (r) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_ior", xp);
        if ((r = _oak_gltf_float(c, o, ep, "ior", 1.5f, &l->ior))) return r;
        /* glTF allows 0 as well as [1, inf): 0 is taken as its default here */
        if (l->ior != 0) _oak_gltf_clamp(c, ep, "ior", &l->ior, 1, 1e4f);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_specular", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_specular", xp);
        l->specular = true;
        l->specular_color[0] = l->specular_color[1] = l->specular_color[2] = 1;
        if ((r = _oak_gltf_float(c, o, ep, "specularFactor", 1, &l->specular_factor)) ||
            (r = _oak_gltf_floats(c, o, ep, "specularColorFactor", 3, l->specular_color)) ||
            (r = lobe_texture(c, o, ep, "specularTexture", tex, gm, OAK_LOBE_TEX_SPECULAR)) ||
            (r = lobe_texture(c, o, ep, "specularColorTexture", tex, gm,
                              OAK_LOBE_TEX_SPECULAR_COLOR)))
            return r;
        _oak_gltf_clamp(c, ep, "specularFactor", &l->specular_factor, 0, 1);
        for (int k = 0; k < 3; k++)
            _oak_gltf_clamp(c, ep, "specularColorFactor", &l->specular_color[k], 0, 1e4f);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_clearcoat", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_clearcoat", xp);
        if ((r = _oak_gltf_float(c, o, ep, "clearcoatFactor", 0, &l->clearcoat)) ||
            (r = _oak_gltf_float(c, o, ep, "clearcoatRoughnessFactor", 0,
                                 &l->clearcoat_roughness)) ||
            (r = lobe_texture(c, o, ep, "clearcoatTexture", tex, gm, OAK_LOBE_TEX_CLEARCOAT)) ||
            (r = lobe_texture(c, o, ep, "clearcoatRoughnessTexture", tex, gm,
                              OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS)) ||
            (r = _oak_gltf_tex_ref(c, o, ep, "clearcoatNormalTexture", tex,
                                   &l->tex[OAK_LOBE_TEX_CLEARCOAT_NORMAL],
                                   &gm->lobe_image[OAK_LOBE_TEX_CLEARCOAT_NORMAL],
                                   &l->clearcoat_normal_scale, "scale")))
            return r;
        _oak_gltf_clamp(c, ep, "clearcoatFactor", &l->clearcoat, 0, 1);
        _oak_gltf_clamp(c, ep, "clearcoatRoughnessFactor", &l->clearcoat_roughness, 0, 1);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_sheen", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_sheen", xp);
        if ((r = _oak_gltf_floats(c, o, ep, "sheenColorFactor", 3, l->sheen_color)) ||
            (r = _oak_gltf_float(c, o, ep, "sheenRoughnessFactor", 0, &l->sheen_roughness)) ||
            (r = lobe_texture(c, o, ep, "sheenColorTexture", tex, gm, OAK_LOBE_TEX_SHEEN_COLOR)) ||
            (r = lobe_texture(c, o, ep, "sheenRoughnessTexture", tex, gm,
                              OAK_LOBE_TEX_SHEEN_ROUGHNESS)))
            return r;
        for (int k = 0; k < 3; k++)
            _oak_gltf_clamp(c, ep, "sheenColorFactor", &l->sheen_color[k], 0, 1);
        _oak_gltf_clamp(c, ep, "sheenRoughnessFactor", &l->sheen_roughness, 0, 1);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_anisotropy", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_anisotropy", xp);
        if ((r = _oak_gltf_float(c, o, ep, "anisotropyStrength", 0, &l->anisotropy)) ||
            (r = _oak_gltf_float(c, o, ep, "anisotropyRotation", 0, &l->anisotropy_rotation)) ||
            (r = lobe_texture(c, o, ep, "anisotropyTexture", tex, gm, OAK_LOBE_TEX_ANISOTROPY)))
            return r;
        _oak_gltf_clamp(c, ep, "anisotropyStrength", &l->anisotropy, 0, 1);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_iridescence", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_iridescence", xp);
        if ((r = _oak_gltf_float(c, o, ep, "iridescenceFactor", 0, &l->iridescence)) ||
            (r = _oak_gltf_float(c, o, ep, "iridescenceIor", 1.3f, &l->iridescence_ior)) ||
            (r = _oak_gltf_float(c, o, ep, "iridescenceThicknessMinimum", 100,
                                 &l->iridescence_thickness_min)) ||
            (r = _oak_gltf_float(c, o, ep, "iridescenceThicknessMaximum", 400,
                                 &l->iridescence_thickness)) ||
            (r = lobe_texture(c, o, ep, "iridescenceTexture", tex, gm, OAK_LOBE_TEX_IRIDESCENCE)) ||
            (r = lobe_texture(c, o, ep, "iridescenceThicknessTexture", tex, gm,
                              OAK_LOBE_TEX_IRIDESCENCE_THICKNESS)))
            return r;
        _oak_gltf_clamp(c, ep, "iridescenceThicknessMinimum", &l->iridescence_thickness_min, 0,
                        1e5f);
        _oak_gltf_clamp(c, ep, "iridescenceFactor", &l->iridescence, 0, 1);
        _oak_gltf_clamp(c, ep, "iridescenceIor", &l->iridescence_ior, 1, 10);
        _oak_gltf_clamp(c, ep, "iridescenceThicknessMaximum", &l->iridescence_thickness, 0, 1e5f);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_diffuse_transmission", &o))) return r;
    if (o) {
        float *dc = l->diffuse_transmission_color;
        snprintf(ep, sizeof ep, "%s.KHR_materials_diffuse_transmission", xp);
        dc[0] = dc[1] = dc[2] = 1;
        if ((r = _oak_gltf_float(c, o, ep, "diffuseTransmissionFactor", 0,
                                 &l->diffuse_transmission)) ||
            (r = _oak_gltf_floats(c, o, ep, "diffuseTransmissionColorFactor", 3, dc)) ||
            (r = lobe_texture(c, o, ep, "diffuseTransmissionTexture", tex, gm,
                              OAK_LOBE_TEX_DIFFUSE_TRANSMISSION)) ||
            (r = lobe_texture(c, o, ep, "diffuseTransmissionColorTexture", tex, gm,
                              OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR)))
            return r;
        _oak_gltf_clamp(c, ep, "diffuseTransmissionFactor", &l->diffuse_transmission, 0, 1);
        for (int k = 0; k < 3; k++)
            _oak_gltf_clamp(c, ep, "diffuseTransmissionColorFactor", &dc[k], 0, 1);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_transmission", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_transmission", xp);
        if ((r = _oak_gltf_float(c, o, ep, "transmissionFactor", 0, &l->transmission)) ||
            (r = lobe_texture(c, o, ep, "transmissionTexture", tex, gm, OAK_LOBE_TEX_TRANSMISSION)))
            return r;
        _oak_gltf_clamp(c, ep, "transmissionFactor", &l->transmission, 0, 1);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_volume", &o))) return r;
    if (o) {
        float *ac = l->attenuation_color;
        snprintf(ep, sizeof ep, "%s.KHR_materials_volume", xp);
        ac[0] = ac[1] = ac[2] = 1;
        /* glTF's default distance is infinity: 0 here (no attenuation) */
        if ((r = _oak_gltf_float(c, o, ep, "thicknessFactor", 0, &l->thickness)) ||
            (r = _oak_gltf_floats(c, o, ep, "attenuationColor", 3, ac)) ||
            (r = _oak_gltf_float(c, o, ep, "attenuationDistance", 0, &l->attenuation_distance)) ||
            (r = lobe_texture(c, o, ep, "thicknessTexture", tex, gm, OAK_LOBE_TEX_THICKNESS)))
            return r;
        _oak_gltf_clamp(c, ep, "thicknessFactor", &l->thickness, 0, 1e4f);
        for (int k = 0; k < 3; k++) _oak_gltf_clamp(c, ep, "attenuationColor", &ac[k], 0, 1);
        _oak_gltf_clamp(c, ep, "attenuationDistance", &l->attenuation_distance, 0, 1e9f);
    }
    if ((r = _oak_gltf_object(c, ext, xp, "KHR_materials_dispersion", &o))) return r;
    if (o) {
        snprintf(ep, sizeof ep, "%s.KHR_materials_dispersion", xp);
        if ((r = _oak_gltf_float(c, o, ep, "dispersion", 0, &l->dispersion))) return r;
        _oak_gltf_clamp(c, ep, "dispersion", &l->dispersion, 0, 100);
    }
    return OAK_OK;
}
