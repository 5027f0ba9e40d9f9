/* glTF 2.0 loading: the .glb container, the JSON root and its extensions,
 * materials, textures and samplers, nodes (TRS or matrix) and their
 * hierarchy, scenes, skins, animations, cameras and punctual lights. Meshes,
 * images and registry assets are in their own files. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gltf_internal.h"

static const char *const g_supported_ext[] = {
    "KHR_mesh_quantization",      "KHR_texture_transform",
    "KHR_materials_unlit",        "KHR_materials_emissive_strength",
    "KHR_lights_punctual",        "EXT_meshopt_compression",
    "EXT_texture_webp",           "KHR_draco_mesh_compression",
    "KHR_node_visibility",        "KHR_animation_pointer",
    "KHR_materials_variants",     "KHR_materials_pbrSpecularGlossiness",
    "EXT_mesh_gpu_instancing",    "MSFT_lod",
    "KHR_materials_ior",          "KHR_materials_specular",
    "KHR_materials_clearcoat",    "KHR_materials_sheen",
    "KHR_materials_transmission", "KHR_materials_volume",
    "KHR_materials_dispersion",
};

static bool ext_supported(const char *name) {
    for (size_t i = 0; i < sizeof g_supported_ext / sizeof g_supported_ext[0]; i++)
        if (strcmp(name, g_supported_ext[i]) == 0) return true;
    return false;
}

static oak_result check_extensions(gltf_ctx *c) {
    const cJSON *arr;
    uint32_t n;
    oak_result r = _oak_gltf_array(c, c->root, "", "extensionsRequired", &arr, &n);
    if (r) return r;
    uint32_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
        if (!cJSON_IsString(e))
            return oak_error(OAK_ERROR_PARSE, "%s: extensionsRequired[%u] must be a string",
                             c->file, i);
        if (!ext_supported(e->valuestring))
            return oak_error(OAK_ERROR_UNSUPPORTED,
                             "%s: extensionsRequired[%u] \"%.64s\" is not supported by oak",
                             c->file, i, e->valuestring);
        i++;
    }
    if ((r = _oak_gltf_array(c, c->root, "", "extensionsUsed", &arr, &n))) return r;
    i = 0;
    cJSON_ArrayForEach(e, arr) {
        if (!cJSON_IsString(e))
            return oak_error(OAK_ERROR_PARSE, "%s: extensionsUsed[%u] must be a string", c->file,
                             i);
        if (!ext_supported(e->valuestring))
            oak_log_info("%s: optional extension %s is ignored", c->file, e->valuestring);
        i++;
    }
    const cJSON *asset;
    if ((r = _oak_gltf_object(c, c->root, "", "asset", &asset))) return r;
    const char *version = NULL;
    if (asset && (r = _oak_gltf_string(c, asset, "asset", "version", &version))) return r;
    if (!version) return oak_error(OAK_ERROR_PARSE, "%s: asset.version is missing", c->file);
    if (version[0] != '2' || (version[1] != '.' && version[1] != 0))
        return oak_error(OAK_ERROR_UNSUPPORTED, "%s: asset.version \"%.16s\" is not glTF 2",
                         c->file, version);
    return OAK_OK;
}

/* ---- materials ---------------------------------------------------------------- */

static oak_result load_textures(gltf_ctx *c, tex_info **out) {
    const cJSON *samplers, *textures;
    uint32_t ns, nt;
    oak_result r;
    if ((r = _oak_gltf_array(c, c->root, "", "samplers", &samplers, &ns))) return r;
    if ((r = _oak_gltf_array(c, c->root, "", "textures", &textures, &nt))) return r;
    c->g->texture_count = nt;
    tex_info *t = _oak_gltf_scratch(c, sizeof(tex_info) * (nt ? nt : 1));
    if (!t) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[64];
    cJSON_ArrayForEach(o, textures) {
        snprintf(path, sizeof path, "textures[%u]", i);
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        int32_t s;
        if ((r = _oak_gltf_index(c, o, path, "source", c->g->image_count, "images", &t[i].image)))
            return r;
        if ((r = _oak_gltf_index(c, o, path, "sampler", ns, "samplers", &s))) return r;
        /* EXT_texture_webp: oak reads WebP, so its source wins over the fallback */
        const cJSON *ext, *wp = NULL;
        if ((r = _oak_gltf_object(c, o, path, "extensions", &ext))) return r;
        if (ext && (r = _oak_gltf_object(c, ext, path, "EXT_texture_webp", &wp))) return r;
        if (wp) {
            char wpath[96];
            int32_t img;
            snprintf(wpath, sizeof wpath, "%s.extensions.EXT_texture_webp", path);
            if ((r = _oak_gltf_index(c, wp, wpath, "source", c->g->image_count, "images", &img)))
                return r;
            if (img >= 0) t[i].image = img;
        }
        if (t[i].image < 0)
            oak_log_warn("%s: %s has no source oak can read (extension image?); left out", c->file,
                         path);
        if (s >= 0) {
            char sp[64];
            snprintf(sp, sizeof sp, "samplers[%d]", s);
            const cJSON *so = cJSON_GetArrayItem(samplers, s);
            if (!cJSON_IsObject(so))
                return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, sp);
            uint32_t mag, min, ws, wt;
            if ((r = _oak_gltf_uint(c, so, sp, "magFilter", false, 9729, &mag))) return r;
            if ((r = _oak_gltf_uint(c, so, sp, "minFilter", false, 9987, &min))) return r;
            if ((r = _oak_gltf_uint(c, so, sp, "wrapS", false, 10497, &ws))) return r;
            if ((r = _oak_gltf_uint(c, so, sp, "wrapT", false, 10497, &wt))) return r;
            oak_sampler *sm = &t[i].sampler;
            sm->mag = mag == 9728 ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
            sm->min = (min == 9728 || min == 9984 || min == 9986) ? OAK_FILTER_NEAREST
                                                                  : OAK_FILTER_LINEAR;
            sm->mip = (min == 9984 || min == 9985) ? OAK_FILTER_NEAREST : OAK_FILTER_LINEAR;
            sm->wrap_u = ws == 33071   ? OAK_WRAP_CLAMP
                         : ws == 33648 ? OAK_WRAP_MIRROR
                                       : OAK_WRAP_REPEAT;
            sm->wrap_v = wt == 33071   ? OAK_WRAP_CLAMP
                         : wt == 33648 ? OAK_WRAP_MIRROR
                                       : OAK_WRAP_REPEAT;
        }
        i++;
    }
    *out = t;
    return OAK_OK;
}

oak_result _oak_gltf_tex_ref(gltf_ctx *c, const cJSON *mat, const char *mpath, const char *key,
                             const tex_info *tex, oak_texture_ref *ref, int32_t *image,
                             float *scale_out, const char *scale_key) {
    const cJSON *o;
    oak_result r = _oak_gltf_object(c, mat, mpath, key, &o);
    *image = -1;
    if (r || !o) return r;
    char path[128];
    snprintf(path, sizeof path, "%s.%s", mpath, key);
    int32_t t;
    uint32_t uv;
    if ((r = _oak_gltf_index(c, o, path, "index", c->g->texture_count, "textures", &t))) return r;
    if (t < 0) return oak_error(OAK_ERROR_PARSE, "%s: %s.index is missing", c->file, path);
    if ((r = _oak_gltf_uint(c, o, path, "texCoord", false, 0, &uv))) return r;
    if (scale_key && (r = _oak_gltf_float(c, o, path, scale_key, 1.0f, scale_out))) return r;
    const cJSON *ext, *tt = NULL;
    if ((r = _oak_gltf_object(c, o, path, "extensions", &ext))) return r;
    if (ext && (r = _oak_gltf_object(c, ext, path, "KHR_texture_transform", &tt))) return r;
    ref->scale[0] = ref->scale[1] = 1;
    if (tt) {
        char tp[192];
        snprintf(tp, sizeof tp, "%s.extensions.KHR_texture_transform", path);
        if ((r = _oak_gltf_floats(c, tt, tp, "offset", 2, ref->offset))) return r;
        if ((r = _oak_gltf_floats(c, tt, tp, "scale", 2, ref->scale))) return r;
        if ((r = _oak_gltf_float(c, tt, tp, "rotation", 0, &ref->rotation))) return r;
        if ((r = _oak_gltf_uint(c, tt, tp, "texCoord", false, uv, &uv))) return r;
    }
    if (uv >= OAK_MAX_UV_SETS) {
        oak_log_warn("%s: %s.texCoord %u: oak has %d sets; set 0 is used", c->file, path, uv,
                     OAK_MAX_UV_SETS);
        uv = 0;
    }
    ref->uv_set = uv;
    ref->sampler = tex[t].sampler;
    *image = tex[t].image;
    return OAK_OK;
}

/* Factors outside the ranges glTF gives them, clamped with a warning: a
   metallic of 1.0000001 from an exporter's float round trip means 1. */
static void clamp_material(gltf_ctx *c, const char *path, const char *pp, oak_gltf_material *gm) {
    oak_material_desc *d = &gm->desc;
    char key[32];
    for (int k = 0; k < 4; k++) {
        snprintf(key, sizeof key, "baseColorFactor[%d]", k);
        _oak_gltf_clamp(c, pp, key, &d->base_color[k], 0, 1);
    }
    _oak_gltf_clamp(c, pp, "metallicFactor", &d->metallic, 0, 1);
    _oak_gltf_clamp(c, pp, "roughnessFactor", &d->roughness, 0, 1);
    for (int k = 0; k < 3; k++) {
        snprintf(key, sizeof key, "emissiveFactor[%d]", k);
        _oak_gltf_clamp(c, path, key, &d->emissive[k], 0, 1);
    }
    _oak_gltf_clamp(c, path, "alphaCutoff", &d->alpha_cutoff, 0, 1e30f);
    _oak_gltf_clamp(c, path, "occlusionTexture.strength", &d->occlusion_strength, 0, 1);
}

/* KHR_materials_pbrSpecularGlossiness: read now, converted by
   gltf_specgloss.c (factors here, textures once the images are decoded). */
static oak_result load_specgloss(gltf_ctx *c, const cJSON *ext, const char *path,
                                 const tex_info *tex, oak_gltf_material *gm, uint32_t i) {
    const cJSON *o;
    char ep[160];
    snprintf(ep, sizeof ep, "%s.extensions", path);
    oak_result r = _oak_gltf_object(c, ext, ep, "KHR_materials_pbrSpecularGlossiness", &o);
    if (r || !o) return r;
    snprintf(ep, sizeof ep, "%s.extensions.KHR_materials_pbrSpecularGlossiness", path);
    if (!c->specgloss) {
        c->specgloss = _oak_gltf_scratch(c, sizeof(_oak_specgloss) * (c->g->material_count + 1));
        if (!c->specgloss) return _oak_gltf_oom(c);
        memset(c->specgloss, 0, sizeof(_oak_specgloss) * (c->g->material_count + 1));
    }
    _oak_specgloss *sg = &c->specgloss[i];
    *sg = (_oak_specgloss){.used = true,
                           .diffuse = {1, 1, 1, 1},
                           .specular = {1, 1, 1},
                           .glossiness = 1,
                           .diffuse_image = -1,
                           .sg_image = -1};
    if ((r = _oak_gltf_floats(c, o, ep, "diffuseFactor", 4, sg->diffuse)) ||
        (r = _oak_gltf_floats(c, o, ep, "specularFactor", 3, sg->specular)) ||
        (r = _oak_gltf_float(c, o, ep, "glossinessFactor", 1, &sg->glossiness)) ||
        (r = _oak_gltf_tex_ref(c, o, ep, "diffuseTexture", tex, &sg->diffuse_ref,
                               &sg->diffuse_image, NULL, NULL)) ||
        (r = _oak_gltf_tex_ref(c, o, ep, "specularGlossinessTexture", tex, &sg->sg_ref,
                               &sg->sg_image, NULL, NULL)))
        return r;
    for (int k = 0; k < 4; k++) _oak_gltf_clamp(c, ep, "diffuseFactor", &sg->diffuse[k], 0, 1);
    for (int k = 0; k < 3; k++) _oak_gltf_clamp(c, ep, "specularFactor", &sg->specular[k], 0, 1);
    _oak_gltf_clamp(c, ep, "glossinessFactor", &sg->glossiness, 0, 1);
    /* the extension replaces pbrMetallicRoughness where both are given */
    _oak_specgloss_factors(gm, sg);
    gm->image[0] = gm->image[1] = -1;
    return OAK_OK;
}

static oak_result load_materials(gltf_ctx *c) {
    oak_gltf *g = c->g;
    tex_info *tex = NULL;
    oak_result r = load_textures(c, &tex);
    if (r) return r;
    const cJSON *arr;
    if ((r = _oak_gltf_array(c, c->root, "", "materials", &arr, &g->material_count))) return r;
    g->materials = _oak_gltf_alloc(c, sizeof(oak_gltf_material) * g->material_count);
    g->material_handles = _oak_gltf_alloc(c, sizeof(oak_material) * g->material_count);
    if (!g->materials || !g->material_handles) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *m;
    char path[64], pp[96];
    cJSON_ArrayForEach(m, arr) {
        snprintf(path, sizeof path, "materials[%u]", i);
        snprintf(pp, sizeof pp, "%s.pbrMetallicRoughness", path);
        oak_gltf_material *gm = &g->materials[i++];
        if (!cJSON_IsObject(m))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        oak_material_desc *d = &gm->desc;
        memset(d, 0, sizeof *d); /* factors below are glTF's defaults */
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) gm->lobe_image[k] = -1;
        d->base_color[0] = d->base_color[1] = d->base_color[2] = d->base_color[3] = 1;
        d->metallic = d->roughness = 1;
        d->emissive[0] = d->emissive[1] = d->emissive[2] = 0;
        const char *name, *alpha;
        const cJSON *pbr, *ext;
        if ((r = _oak_gltf_string(c, m, path, "name", &name))) return r;
        gm->name = _oak_gltf_strdup(c, name);
        if (!gm->name) return _oak_gltf_oom(c);
        if ((r = _oak_gltf_object(c, m, path, "pbrMetallicRoughness", &pbr))) return r;
        if (pbr) {
            if ((r = _oak_gltf_floats(c, pbr, pp, "baseColorFactor", 4, d->base_color))) return r;
            if ((r = _oak_gltf_float(c, pbr, pp, "metallicFactor", 1, &d->metallic))) return r;
            if ((r = _oak_gltf_float(c, pbr, pp, "roughnessFactor", 1, &d->roughness))) return r;
            if ((r = _oak_gltf_tex_ref(c, pbr, pp, "baseColorTexture", tex, &d->base_color_tex,
                                       &gm->image[0], NULL, NULL)))
                return r;
            if ((r = _oak_gltf_tex_ref(c, pbr, pp, "metallicRoughnessTexture", tex,
                                       &d->metallic_roughness_tex, &gm->image[1], NULL, NULL)))
                return r;
        } else {
            gm->image[0] = gm->image[1] = -1;
        }
        if ((r = _oak_gltf_tex_ref(c, m, path, "normalTexture", tex, &d->normal_tex, &gm->image[2],
                                   &d->normal_scale, "scale")))
            return r;
        if ((r = _oak_gltf_tex_ref(c, m, path, "occlusionTexture", tex, &d->occlusion_tex,
                                   &gm->image[3], &d->occlusion_strength, "strength")))
            return r;
        if ((r = _oak_gltf_tex_ref(c, m, path, "emissiveTexture", tex, &d->emissive_tex,
                                   &gm->image[4], NULL, NULL)))
            return r;
        if ((r = _oak_gltf_floats(c, m, path, "emissiveFactor", 3, d->emissive))) return r;
        if ((r = _oak_gltf_string(c, m, path, "alphaMode", &alpha))) return r;
        if (!alpha || strcmp(alpha, "OPAQUE") == 0)
            d->alpha_mode = OAK_ALPHA_OPAQUE;
        else if (strcmp(alpha, "MASK") == 0)
            d->alpha_mode = OAK_ALPHA_MASK;
        else if (strcmp(alpha, "BLEND") == 0)
            d->alpha_mode = OAK_ALPHA_BLEND;
        else
            return oak_error(OAK_ERROR_PARSE,
                             "%s: %s.alphaMode \"%.16s\" is not OPAQUE, MASK or BLEND", c->file,
                             path, alpha);
        if ((r = _oak_gltf_float(c, m, path, "alphaCutoff", 0.5f, &d->alpha_cutoff))) return r;
        clamp_material(c, path, pp, gm);
        if ((r = _oak_gltf_bool(c, m, path, "doubleSided", &d->double_sided))) return r;
        if ((r = _oak_gltf_object(c, m, path, "extensions", &ext))) return r;
        if (ext) {
            const cJSON *es;
            char ep[128];
            snprintf(ep, sizeof ep, "%s.extensions", path);
            d->unlit = cJSON_GetObjectItemCaseSensitive(ext, "KHR_materials_unlit") != NULL;
            if ((r = _oak_gltf_object(c, ext, ep, "KHR_materials_emissive_strength", &es)))
                return r;
            snprintf(ep, sizeof ep, "%s.extensions.KHR_materials_emissive_strength", path);
            if (es &&
                (r = _oak_gltf_float(c, es, ep, "emissiveStrength", 1, &d->emissive_strength)))
                return r;
            if (es) _oak_gltf_clamp(c, ep, "emissiveStrength", &d->emissive_strength, 0, 1e30f);
            if ((r = load_specgloss(c, ext, path, tex, gm, i - 1))) return r;
            if ((r = _oak_gltf_load_lobes(c, ext, path, tex, gm))) return r;
        }
    }
    return OAK_OK;
}

/* ---- nodes and scenes ---------------------------------------------------------- */

static void decompose(const float *m16, oak_gltf_node *n) {
    mat4 m;
    memcpy(m, m16, 64);
    n->translation[0] = m[3][0], n->translation[1] = m[3][1], n->translation[2] = m[3][2];
    float s[3];
    for (int i = 0; i < 3; i++) s[i] = glm_vec3_norm(m[i]);
    if (glm_mat4_det(m) < 0) s[0] = -s[0];
    mat4 rot = GLM_MAT4_IDENTITY_INIT;
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) rot[i][k] = s[i] != 0 ? m[i][k] / s[i] : (i == k);
    versor q;
    glm_mat4_quat(rot, q);
    glm_quat_normalize(q);
    memcpy(n->rotation, q, 16);
    memcpy(n->scale, s, 12);
}

/* EXT_mesh_gpu_instancing: TRANSLATION, ROTATION and SCALE accessors of one
   count (any may be absent; rotations may be normalized integers, as the
   extension allows), read into the node's placements. */
static oak_result load_instancing(gltf_ctx *c, const cJSON *gi, const char *path,
                                  oak_gltf_node *n) {
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    static const uint32_t widths[3] = {3, 4, 3};
    char ip[128], ap[160];
    snprintf(ip, sizeof ip, "%s.extensions.EXT_mesh_gpu_instancing", path);
    const cJSON *attr;
    oak_result r = _oak_gltf_object(c, gi, ip, "attributes", &attr);
    if (r) return r;
    if (!attr) return oak_error(OAK_ERROR_PARSE, "%s: %s has no attributes", c->file, ip);
    snprintf(ap, sizeof ap, "%s.attributes", ip);
    float *v[3] = {NULL, NULL, NULL};
    uint32_t count = 0;
    bool any = false;
    for (int a = 0; a < 3; a++) {
        int32_t acc;
        if ((r = _oak_gltf_index(c, attr, ap, names[a], c->accessor_count, "accessors", &acc)))
            return r;
        if (acc < 0) continue;
        uint32_t n_a, comps;
        char where[200];
        snprintf(where, sizeof where, "%s.%s", ap, names[a]);
        if ((r = _oak_gltf_read_floats(c, (uint32_t)acc, where, GLTF_COMPS(widths[a]), &v[a], &n_a,
                                       &comps)))
            return r;
        if (any && n_a != count)
            return oak_error(OAK_ERROR_PARSE, "%s: %s has %u placements where the others have %u",
                             c->file, where, n_a, count);
        count = n_a;
        any = true;
    }
    if (!any) return oak_error(OAK_ERROR_PARSE, "%s: %s names no attribute", c->file, ap);
    if (n->mesh < 0) {
        _oak_gltf_warn(c, "%s: %s on a node without a mesh places nothing", c->file, ip);
        return OAK_OK;
    }
    n->instances = count ? _oak_gltf_alloc(c, sizeof(oak_gltf_trs) * count) : NULL;
    if (count && !n->instances) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < count; i++) {
        oak_gltf_trs *t = &n->instances[i];
        *t = (oak_gltf_trs){{0, 0, 0}, {0, 0, 0, 1}, {1, 1, 1}};
        if (v[0]) memcpy(t->translation, v[0] + (size_t)i * 3, 12);
        if (v[2]) memcpy(t->scale, v[2] + (size_t)i * 3, 12);
        if (v[1]) {
            const float *q = v[1] + (size_t)i * 4;
            float len = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
            if (!(len > 1e-6f))
                return oak_error(OAK_ERROR_PARSE, "%s: %s.ROTATION[%u] is not a unit quaternion",
                                 c->file, ap, i);
            for (int k = 0; k < 4; k++) t->rotation[k] = q[k] / len;
        }
    }
    n->instance_count = count;
    return OAK_OK;
}

static oak_result load_nodes(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "nodes", &arr, &g->node_count);
    if (r) return r;
    g->nodes = _oak_gltf_alloc(c, sizeof(oak_gltf_node) * g->node_count);
    if (!g->nodes) return _oak_gltf_oom(c);
    for (uint32_t i = 0; i < g->node_count; i++) g->nodes[i].parent = -1;
    uint32_t i = 0;
    const cJSON *o;
    char path[64];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "nodes[%u]", i);
        oak_gltf_node *n = &g->nodes[i];
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name;
        const cJSON *children, *ext, *extras;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        n->name = _oak_gltf_strdup(c, name);
        if (!n->name) return _oak_gltf_oom(c);
        if ((r = _oak_gltf_index(c, o, path, "mesh", g->mesh_count, "meshes", &n->mesh))) return r;
        if ((r = _oak_gltf_index(c, o, path, "skin", g->skin_count, "skins", &n->skin))) return r;
        if ((r = _oak_gltf_index(c, o, path, "camera", g->camera_count, "cameras", &n->camera)))
            return r;
        n->light = -1;
        n->visible = true;
        if ((r = _oak_gltf_object(c, o, path, "extensions", &ext))) return r;
        if (ext) {
            const cJSON *lp;
            char ep[128];
            snprintf(ep, sizeof ep, "%s.extensions", path);
            if ((r = _oak_gltf_object(c, ext, ep, "KHR_lights_punctual", &lp))) return r;
            snprintf(ep, sizeof ep, "%s.extensions.KHR_lights_punctual", path);
            if (lp && (r = _oak_gltf_index(c, lp, ep, "light", g->light_count,
                                           "KHR_lights_punctual.lights", &n->light)))
                return r;
            if (n->light >= 0 && c->light_skipped[n->light]) n->light = -1;
            const cJSON *nv, *vis;
            snprintf(ep, sizeof ep, "%s.extensions", path);
            if ((r = _oak_gltf_object(c, ext, ep, "KHR_node_visibility", &nv))) return r;
            vis = nv ? cJSON_GetObjectItemCaseSensitive(nv, "visible") : NULL;
            if (vis && !cJSON_IsBool(vis))
                return oak_error(OAK_ERROR_PARSE,
                                 "%s: %s.KHR_node_visibility.visible must be true or false",
                                 c->file, ep);
            if (vis) n->visible = cJSON_IsTrue(vis);
            const cJSON *gi;
            if ((r = _oak_gltf_object(c, ext, ep, "EXT_mesh_gpu_instancing", &gi))) return r;
            if (gi && (r = load_instancing(c, gi, path, n))) return r;
        }
        float t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
        if ((r = _oak_gltf_floats(c, o, path, "translation", 3, t))) return r;
        if ((r = _oak_gltf_floats(c, o, path, "rotation", 4, q))) return r;
        if ((r = _oak_gltf_floats(c, o, path, "scale", 3, s))) return r;
        memcpy(n->translation, t, 12);
        memcpy(n->rotation, q, 16);
        memcpy(n->scale, s, 12);
        float qn = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        if (qn < 1e-6f)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.rotation is not a unit quaternion", c->file,
                             path);
        for (int k = 0; k < 4; k++) n->rotation[k] /= qn;
        if (cJSON_GetObjectItemCaseSensitive(o, "matrix")) {
            float m[16];
            if ((r = _oak_gltf_floats(c, o, path, "matrix", 16, m))) return r;
            decompose(m, n);
        }
        if (n->skin >= 0 && n->mesh < 0)
            oak_log_info("%s: %s has a skin but no mesh", c->file, path);
        if (n->mesh >= 0) {
            const oak_gltf_mesh *gm = &g->meshes[n->mesh];
            if (n->skin >= 0) {
                const oak_gltf_skin *sk = &g->skins[n->skin];
                for (uint32_t p = 0; p < gm->primitive_count; p++)
                    if (gm->primitives[p].influence_count &&
                        gm->primitives[p].max_joint >= sk->joint_count)
                        return oak_error(OAK_ERROR_PARSE,
                                         "%s: %s: meshes[%d].primitives[%u] uses joint %u, past "
                                         "skins[%d]'s %u joints",
                                         c->file, path, n->mesh, p, gm->primitives[p].max_joint,
                                         n->skin, sk->joint_count);
            }
            uint32_t nt = gm->weight_count;
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "weights");
            if (nt) {
                n->weight_count = nt;
                n->weights = _oak_gltf_alloc(c, sizeof(float) * nt);
                if (!n->weights) return _oak_gltf_oom(c);
                memcpy(n->weights, gm->weights, sizeof(float) * nt);
                if (w && (r = _oak_gltf_floats(c, o, path, "weights", nt, n->weights))) return r;
            }
        }
        if ((r = _oak_gltf_array(c, o, path, "children", &children, &n->child_count))) return r;
        n->children = _oak_gltf_alloc(c, sizeof(uint32_t) * n->child_count);
        if (!n->children) return _oak_gltf_oom(c);
        uint32_t k = 0;
        const cJSON *ch;
        cJSON_ArrayForEach(ch, children) {
            double d = cJSON_IsNumber(ch) ? ch->valuedouble : -1;
            if (d < 0 || d >= g->node_count || d != floor(d))
                return oak_error(OAK_ERROR_PARSE, "%s: %s.children[%u] is not a node index",
                                 c->file, path, k);
            uint32_t child = (uint32_t)d;
            if (child == i || g->nodes[child].parent >= 0)
                return oak_error(OAK_ERROR_PARSE, "%s: %s.children[%u] = %u already has a parent",
                                 c->file, path, k, child);
            g->nodes[child].parent = (int32_t)i;
            n->children[k++] = child;
        }
        extras = cJSON_GetObjectItemCaseSensitive(o, "extras");
        if (extras) {
            char *text = cJSON_PrintUnformatted(extras);
            if (!text) return _oak_gltf_oom(c);
            n->extras = _oak_gltf_strdup(c, text);
            cJSON_free(text);
            if (!n->extras) return _oak_gltf_oom(c);
        }
        i++;
    }
    /* cycles among single parents: _oak_gltf_validate, after the load */
    return OAK_OK;
}

static oak_result load_scenes(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "scenes", &arr, &g->scene_count);
    if (r) return r;
    int32_t scene;
    if ((r = _oak_gltf_index(c, c->root, "", "scene", g->scene_count, "scenes", &scene))) return r;
    if (scene < 0 && g->scene_count) scene = 0;
    if (scene < 0) { /* no scenes: every root node */
        g->roots = _oak_gltf_alloc(c, sizeof(uint32_t) * (g->node_count + 1));
        if (!g->roots) return _oak_gltf_oom(c);
        for (uint32_t i = 0; i < g->node_count; i++)
            if (g->nodes[i].parent < 0) g->roots[g->root_count++] = i;
        return OAK_OK;
    }
    char path[64];
    snprintf(path, sizeof path, "scenes[%d]", scene);
    const cJSON *s = cJSON_GetArrayItem(arr, scene), *nodes;
    if (!cJSON_IsObject(s))
        return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
    if ((r = _oak_gltf_array(c, s, path, "nodes", &nodes, &g->root_count))) return r;
    uint32_t listed_count = g->root_count;
    g->roots = _oak_gltf_alloc(c, sizeof(uint32_t) * (listed_count + 1));
    uint32_t *list = _oak_gltf_scratch(c, sizeof(uint32_t) * (listed_count + 1));
    /* marks per node: 1 listed by the scene, 2 a root already taken; so 10^5
       entries stay linear */
    uint8_t *mark = _oak_gltf_scratch(c, g->node_count + 1);
    if (!g->roots || !list || !mark) return _oak_gltf_oom(c);
    uint32_t k = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, nodes) {
        double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (d < 0 || d >= g->node_count || d != floor(d))
            return oak_error(OAK_ERROR_PARSE, "%s: %s.nodes[%u] is not a node index", c->file, path,
                             k);
        list[k++] = (uint32_t)d;
        mark[(uint32_t)d] |= 1;
    }
    /* Forgiving: exporters list child nodes (and repeat nodes) in a scene;
       each is drawn once, under its parent (docs/GLTF.md). */
    g->root_count = 0;
    for (k = 0; k < listed_count; k++) {
        uint32_t n = list[k], top = n, steps = 0;
        int32_t listed_above = -1;
        while (g->nodes[top].parent >= 0 && steps++ <= g->node_count) {
            top = (uint32_t)g->nodes[top].parent;
            if (listed_above < 0 && (mark[top] & 1)) listed_above = (int32_t)top;
        }
        if (steps > g->node_count) continue; /* a cycle: the validator names it */
        if (listed_above >= 0) {
            _oak_gltf_warn(c, "%s: %s.nodes[%u] = %u has a parent; drawn once, under node %d",
                           c->file, path, k, n, listed_above);
            continue;
        }
        if (top != n)
            _oak_gltf_warn(c,
                           "%s: %s.nodes[%u] = %u has a parent; drawn under it, from its root "
                           "node %u",
                           c->file, path, k, n, top);
        if (mark[top] & 2) {
            if (top == n)
                _oak_gltf_warn(c, "%s: %s.nodes[%u] repeats node %u; drawn once", c->file, path, k,
                               n);
            continue;
        }
        mark[top] |= 2;
        g->roots[g->root_count++] = top;
    }
    return OAK_OK;
}

/* ---- skins, cameras, lights ------------------------------------------------------ */

static oak_result load_skins(gltf_ctx *c, uint32_t node_count) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "skins", &arr, &g->skin_count);
    if (r) return r;
    g->skins = _oak_gltf_alloc(c, sizeof(oak_gltf_skin) * g->skin_count);
    if (!g->skins) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[64];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "skins[%u]", i);
        oak_gltf_skin *s = &g->skins[i++];
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name;
        const cJSON *joints;
        int32_t ibm;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        s->name = _oak_gltf_strdup(c, name);
        if ((r = _oak_gltf_index(c, o, path, "skeleton", node_count, "nodes", &s->skeleton)))
            return r;
        if ((r = _oak_gltf_array(c, o, path, "joints", &joints, &s->joint_count))) return r;
        if (!s->joint_count)
            return oak_error(OAK_ERROR_PARSE, "%s: %s.joints is missing or empty", c->file, path);
        s->joints = _oak_gltf_alloc(c, sizeof(uint32_t) * s->joint_count);
        if (!s->name || !s->joints) return _oak_gltf_oom(c);
        uint32_t k = 0;
        const cJSON *e;
        cJSON_ArrayForEach(e, joints) {
            double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (d < 0 || d >= node_count || d != floor(d))
                return oak_error(OAK_ERROR_PARSE, "%s: %s.joints[%u] is not a node index", c->file,
                                 path, k);
            s->joints[k++] = (uint32_t)d;
        }
        if ((r = _oak_gltf_index(c, o, path, "inverseBindMatrices", c->accessor_count, "accessors",
                                 &ibm)))
            return r;
        if (ibm >= 0) {
            uint32_t count, comps;
            char where[96];
            snprintf(where, sizeof where, "%s.inverseBindMatrices", path);
            if ((r = _oak_gltf_read_floats(c, (uint32_t)ibm, where, GLTF_COMPS(16),
                                           &s->inverse_bind, &count, &comps)))
                return r;
            if (count < s->joint_count)
                return oak_error(OAK_ERROR_PARSE, "%s: %s has %u matrices for %u joints", c->file,
                                 where, count, s->joint_count);
        } else {
            s->inverse_bind = _oak_gltf_alloc(c, 64 * (size_t)s->joint_count);
            if (!s->inverse_bind) return _oak_gltf_oom(c);
            for (uint32_t j = 0; j < s->joint_count; j++)
                memcpy(s->inverse_bind + 16 * j, GLM_MAT4_IDENTITY, 64);
        }
    }
    return OAK_OK;
}

static oak_result load_cameras(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "cameras", &arr, &g->camera_count);
    if (r) return r;
    g->cameras = _oak_gltf_alloc(c, sizeof(oak_gltf_camera) * g->camera_count);
    if (!g->cameras) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[64], sp[96];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "cameras[%u]", i);
        oak_gltf_camera *cam = &g->cameras[i++];
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name, *type;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        if ((r = _oak_gltf_string(c, o, path, "type", &type))) return r;
        cam->name = _oak_gltf_strdup(c, name);
        if (!cam->name) return _oak_gltf_oom(c);
        bool ortho = type && strcmp(type, "orthographic") == 0;
        if (!type || (!ortho && strcmp(type, "perspective") != 0))
            return oak_error(OAK_ERROR_PARSE, "%s: %s.type must be perspective or orthographic",
                             c->file, path);
        const cJSON *p;
        if ((r = _oak_gltf_object(c, o, path, type, &p))) return r;
        if (!p) return oak_error(OAK_ERROR_PARSE, "%s: %s.%s is missing", c->file, path, type);
        snprintf(sp, sizeof sp, "%s.%s", path, type);
        cam->orthographic = ortho;
        if ((r = _oak_gltf_float(c, p, sp, "znear", 0.1f, &cam->znear))) return r;
        if ((r = _oak_gltf_float(c, p, sp, "zfar", 0, &cam->zfar))) return r;
        if (ortho) {
            if ((r = _oak_gltf_float(c, p, sp, "xmag", 1, &cam->xmag))) return r;
            if ((r = _oak_gltf_float(c, p, sp, "ymag", 1, &cam->ymag))) return r;
        } else {
            if ((r = _oak_gltf_float(c, p, sp, "yfov", 0, &cam->yfov))) return r;
            if ((r = _oak_gltf_float(c, p, sp, "aspectRatio", 0, &cam->aspect))) return r;
            if (!(cam->yfov > 0 && cam->yfov < OAK_PI))
                return oak_error(OAK_ERROR_PARSE, "%s: %s.yfov must be in (0, pi)", c->file, sp);
        }
    }
    return OAK_OK;
}

static oak_result load_lights(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *ext, *lp = NULL, *arr = NULL;
    oak_result r = _oak_gltf_object(c, c->root, "", "extensions", &ext);
    if (r) return r;
    if (ext && (r = _oak_gltf_object(c, ext, "extensions", "KHR_lights_punctual", &lp))) return r;
    if (lp && (r = _oak_gltf_array(c, lp, "extensions.KHR_lights_punctual", "lights", &arr,
                                   &g->light_count)))
        return r;
    g->lights = _oak_gltf_alloc(c, sizeof(oak_gltf_light) * g->light_count);
    c->light_skipped = _oak_gltf_scratch(c, g->light_count + 1);
    if (!g->lights || !c->light_skipped) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[96], sp[112];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "extensions.KHR_lights_punctual.lights[%u]", i);
        oak_gltf_light *l = &g->lights[i++];
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name, *type;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        if ((r = _oak_gltf_string(c, o, path, "type", &type))) return r;
        l->name = _oak_gltf_strdup(c, name);
        if (!l->name) return _oak_gltf_oom(c);
        if (type && strcmp(type, "directional") == 0)
            l->type = OAK_GLTF_LIGHT_DIRECTIONAL;
        else if (type && strcmp(type, "point") == 0)
            l->type = OAK_GLTF_LIGHT_POINT;
        else if (type && strcmp(type, "spot") == 0)
            l->type = OAK_GLTF_LIGHT_SPOT;
        else {
            /* kept (indices stay) but dark and placed by no node */
            _oak_gltf_warn(c, "%s: %s.type \"%.24s\" is not directional, point or spot; skipped",
                           c->file, path, type ? type : "");
            c->light_skipped[i - 1] = 1;
            l->type = OAK_GLTF_LIGHT_POINT;
            continue;
        }
        l->color[0] = l->color[1] = l->color[2] = 1;
        if ((r = _oak_gltf_floats(c, o, path, "color", 3, l->color))) return r;
        if ((r = _oak_gltf_float(c, o, path, "intensity", 1, &l->intensity))) return r;
        if ((r = _oak_gltf_float(c, o, path, "range", 0, &l->range))) return r;
        l->outer_cone = OAK_PI / 4;
        const cJSON *spot;
        if ((r = _oak_gltf_object(c, o, path, "spot", &spot))) return r;
        snprintf(sp, sizeof sp, "%s.spot", path);
        if (spot &&
            ((r = _oak_gltf_float(c, spot, sp, "innerConeAngle", 0, &l->inner_cone)) ||
             (r = _oak_gltf_float(c, spot, sp, "outerConeAngle", OAK_PI / 4, &l->outer_cone))))
            return r;
        _oak_gltf_clamp(c, path, "intensity", &l->intensity, 0, 1e30f);
        if (l->range < 0 || (l->range == 0 && cJSON_GetObjectItemCaseSensitive(o, "range"))) {
            _oak_gltf_warn(c, "%s: %s.range %g is not positive; the lamp's reach is used", c->file,
                           path, (double)l->range);
            l->range = 0;
        }
        if (spot) {
            _oak_gltf_clamp(c, sp, "outerConeAngle", &l->outer_cone, 1e-4f, OAK_PI / 2);
            _oak_gltf_clamp(c, sp, "innerConeAngle", &l->inner_cone, 0, l->outer_cone);
        }
    }
    return OAK_OK;
}

/* ---- animations -------------------------------------------------------------------- */

/* The target of a KHR_animation_pointer channel: *node is the index into
   the array the path names, or -1 (after a warning) for a property oak does
   not animate or one the asset does not define. */
static oak_result pointer_target(gltf_ctx *c, const cJSON *target, const char *sp,
                                 oak_anim_path *path, int32_t *node) {
    *node = -1;
    const cJSON *ext, *ap;
    const char *ptr;
    char ep[192];
    oak_result r;
    if ((r = _oak_gltf_object(c, target, sp, "extensions", &ext))) return r;
    snprintf(ep, sizeof ep, "%s.extensions", sp);
    if (!ext || (r = _oak_gltf_object(c, ext, ep, "KHR_animation_pointer", &ap)) || !ap) {
        if (r) return r;
        _oak_gltf_warn(c, "%s: %s.path is \"pointer\" without KHR_animation_pointer; skipped",
                       c->file, sp);
        return OAK_OK;
    }
    snprintf(ep, sizeof ep, "%s.extensions.KHR_animation_pointer", sp);
    if ((r = _oak_gltf_string(c, ap, ep, "pointer", &ptr))) return r;
    if (!ptr) return oak_error(OAK_ERROR_PARSE, "%s: %s.pointer is missing", c->file, ep);
    const oak_gltf *g = c->g;
    uint32_t index, count;
    if (!_oak_gltf_pointer(ptr, g, path, &index, &count)) {
        _oak_gltf_warn(c, "%s: %s.pointer \"%.96s\" is not animated by oak; skipped", c->file, ep,
                       ptr);
        return OAK_OK;
    }
    if (index >= count)
        return oak_error(OAK_ERROR_PARSE, "%s: %s.pointer \"%.96s\" is past the %u it can name",
                         c->file, ep, ptr, count);
    /* properties without a default must be in the asset to be animated */
    const char *undefined = NULL;
    if (*path >= OAK_ANIM_PATH_CAMERA_YFOV) {
        const oak_gltf_camera *cam = &g->cameras[index];
        bool persp_ptr = strstr(ptr, "/perspective/") != NULL;
        if (persp_ptr == cam->orthographic) undefined = "names the other projection";
        if (*path == OAK_ANIM_PATH_CAMERA_ZFAR && cam->zfar == 0 && !cam->orthographic)
            undefined = "names a zfar the camera does not have";
        if (*path == OAK_ANIM_PATH_CAMERA_ASPECT && cam->aspect == 0)
            undefined = "names an aspectRatio the camera does not have";
    } else if (*path == OAK_ANIM_PATH_LIGHT_RANGE && g->lights[index].range == 0) {
        undefined = "names a range the light does not have";
    } else if ((*path == OAK_ANIM_PATH_LIGHT_INNER_CONE ||
                *path == OAK_ANIM_PATH_LIGHT_OUTER_CONE) &&
               g->lights[index].type != OAK_GLTF_LIGHT_SPOT) {
        undefined = "names a cone of a light that is not a spot";
    }
    if (undefined) {
        _oak_gltf_warn(c, "%s: %s.pointer \"%.96s\" %s; skipped", c->file, ep, ptr, undefined);
        return OAK_OK;
    }
    *node = (int32_t)index;
    return OAK_OK;
}

static oak_result load_clips(gltf_ctx *c) {
    oak_gltf *g = c->g;
    const cJSON *arr;
    oak_result r = _oak_gltf_array(c, c->root, "", "animations", &arr, &g->clip_count);
    if (r) return r;
    g->clips = _oak_gltf_alloc(c, sizeof(oak_gltf_clip) * g->clip_count);
    if (!g->clips) return _oak_gltf_oom(c);
    uint32_t i = 0;
    const cJSON *o;
    char path[64], cp[96], sp[128];
    cJSON_ArrayForEach(o, arr) {
        snprintf(path, sizeof path, "animations[%u]", i);
        oak_gltf_clip *clip = &g->clips[i++];
        if (!cJSON_IsObject(o))
            return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, path);
        const char *name;
        const cJSON *channels, *samplers;
        uint32_t nch;
        if ((r = _oak_gltf_string(c, o, path, "name", &name))) return r;
        clip->name = _oak_gltf_strdup(c, name);
        if ((r = _oak_gltf_array(c, o, path, "channels", &channels, &nch))) return r;
        if ((r = _oak_gltf_array(c, o, path, "samplers", &samplers, &clip->sampler_count)))
            return r;
        clip->channels = _oak_gltf_alloc(c, sizeof(oak_gltf_channel) * nch);
        clip->samplers = _oak_gltf_alloc(c, sizeof(oak_anim_sampler) * clip->sampler_count);
        if (!clip->name || !clip->channels || !clip->samplers) return _oak_gltf_oom(c);
        /* Channels first: they say each sampler's width (3, 4 or targets). */
        uint32_t *width = _oak_gltf_scratch(c, sizeof(uint32_t) * (clip->sampler_count + 1));
        uint32_t *kind = _oak_gltf_scratch(c, sizeof(uint32_t) * (clip->sampler_count + 1));
        if (!width || !kind) return _oak_gltf_oom(c);
        uint32_t k = 0;
        const cJSON *ch;
        cJSON_ArrayForEach(ch, channels) {
            snprintf(cp, sizeof cp, "%s.channels[%u]", path, k++);
            if (!cJSON_IsObject(ch))
                return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, cp);
            int32_t s, node;
            const cJSON *target;
            const char *tpath;
            if ((r = _oak_gltf_index(c, ch, cp, "sampler", clip->sampler_count, "samplers", &s)))
                return r;
            if ((r = _oak_gltf_object(c, ch, cp, "target", &target))) return r;
            if (s < 0 || !target)
                return oak_error(OAK_ERROR_PARSE, "%s: %s needs a sampler and a target", c->file,
                                 cp);
            snprintf(sp, sizeof sp, "%s.target", cp);
            if ((r = _oak_gltf_string(c, target, sp, "path", &tpath))) return r;
            if (!tpath) return oak_error(OAK_ERROR_PARSE, "%s: %s.path is missing", c->file, sp);
            oak_anim_path ap = OAK_ANIM_PATH_DEFAULT;
            uint32_t w;
            if (strcmp(tpath, "pointer") == 0) {
                if ((r = pointer_target(c, target, sp, &ap, &node))) return r;
                if (node < 0) continue; /* warned: a property oak does not animate */
            } else {
                if ((r = _oak_gltf_index(c, target, sp, "node", g->node_count, "nodes", &node)))
                    return r;
                for (int p = OAK_ANIM_PATH_TRANSLATION; p <= OAK_ANIM_PATH_WEIGHTS; p++)
                    if (strcmp(tpath, oak_anim_path_name((oak_anim_path)p)) == 0)
                        ap = (oak_anim_path)p;
                if (ap == OAK_ANIM_PATH_DEFAULT) {
                    oak_log_info("%s: %s.path \"%.32s\" is not animated by oak", c->file, sp,
                                 tpath);
                    continue;
                }
                if (node < 0) continue; /* an extension's target; nothing for oak */
            }
            oak_anim_path_target(ap, &w);
            if (ap == OAK_ANIM_PATH_WEIGHTS) {
                w = g->nodes[node].weight_count;
                if (!w)
                    return oak_error(
                        OAK_ERROR_PARSE,
                        "%s: %s animates weights of nodes[%d], which has no morph targets", c->file,
                        sp, node);
            }
            if (width[s] && (width[s] != w || kind[s] != (uint32_t)ap))
                return oak_error(OAK_ERROR_PARSE,
                                 "%s: %s shares samplers[%d] with a channel of another kind",
                                 c->file, cp, s);
            width[s] = w;
            kind[s] = (uint32_t)ap;
            clip->channels[clip->channel_count++] =
                (oak_gltf_channel){(uint32_t)node, (uint32_t)s, ap};
        }
        clip->start = INFINITY;
        clip->end = -INFINITY;
        k = 0;
        const cJSON *so;
        cJSON_ArrayForEach(so, samplers) {
            snprintf(sp, sizeof sp, "%s.samplers[%u]", path, k);
            oak_anim_sampler *s = &clip->samplers[k];
            uint32_t w = width[k++];
            if (!cJSON_IsObject(so))
                return oak_error(OAK_ERROR_PARSE, "%s: %s must be an object", c->file, sp);
            uint32_t in, out, count, comps, ocount;
            const char *interp;
            if ((r = _oak_gltf_uint(c, so, sp, "input", true, 0, &in))) return r;
            if ((r = _oak_gltf_uint(c, so, sp, "output", true, 0, &out))) return r;
            if ((r = _oak_gltf_string(c, so, sp, "interpolation", &interp))) return r;
            if (!interp || strcmp(interp, "LINEAR") == 0)
                s->interp = OAK_INTERP_LINEAR;
            else if (strcmp(interp, "STEP") == 0)
                s->interp = OAK_INTERP_STEP;
            else if (strcmp(interp, "CUBICSPLINE") == 0)
                s->interp = OAK_INTERP_CUBICSPLINE;
            else
                return oak_error(
                    OAK_ERROR_PARSE,
                    "%s: %s.interpolation \"%.16s\" is not STEP, LINEAR or CUBICSPLINE", c->file,
                    sp, interp);
            if (!w) continue; /* no channel uses it */
            if (kind[k - 1] == OAK_ANIM_PATH_VISIBLE && s->interp != OAK_INTERP_STEP) {
                if (s->interp == OAK_INTERP_CUBICSPLINE)
                    return oak_error(OAK_ERROR_PARSE,
                                     "%s: %s animates a boolean, so its interpolation must be STEP",
                                     c->file, sp);
                _oak_gltf_warn(c, "%s: %s animates a boolean with LINEAR; STEP is used", c->file,
                               sp);
                s->interp = OAK_INTERP_STEP;
            }
            char where[128];
            snprintf(where, sizeof where, "%s.input", sp);
            float *times, *values;
            if ((r = _oak_gltf_read_floats(c, in, where, GLTF_COMPS(1), &times, &count, &comps)))
                return r;
            for (uint32_t t = 0; t < count; t++)
                if (times[t] < 0 || (t && !(times[t] > times[t - 1])))
                    return oak_error(OAK_ERROR_PARSE,
                                     "%s: %s times must be >= 0 and strictly increase (key %u)",
                                     c->file, where, t);
            snprintf(where, sizeof where, "%s.output", sp);
            uint32_t want = kind[k - 1] == OAK_ANIM_PATH_WEIGHTS ? GLTF_COMPS(1) : GLTF_COMPS(w);
            if ((r = _oak_gltf_read_floats(c, out, where, want, &values, &ocount, &comps)))
                return r;
            uint64_t expect = (uint64_t)count * (s->interp == OAK_INTERP_CUBICSPLINE ? 3 : 1) * w;
            if ((uint64_t)ocount * comps != expect)
                return oak_error(OAK_ERROR_PARSE, "%s: %s has %u values for %u keys of width %u",
                                 c->file, where, ocount, count, w);
            s->key_count = count;
            s->width = w;
            s->times = times;
            s->values = values;
            if (times[0] < clip->start) clip->start = times[0];
            if (times[count - 1] > clip->end) clip->end = times[count - 1];
        }
        if (clip->start > clip->end) clip->start = clip->end = 0;
        /* A channel whose sampler was skipped above cannot happen: every
         * referenced sampler has a width. */
    }
    return OAK_OK;
}

/* ---- rest pose and bounds ---------------------------------------------------------- */

static void node_local(const oak_gltf_node *n, mat4 out) {
    /* cglm's SIMD paths want 16-byte aligned operands: copy to locals. */
    mat4 t, r, s;
    vec3 tv, sv;
    versor q;
    memcpy(tv, n->translation, 12);
    memcpy(q, n->rotation, 16);
    memcpy(sv, n->scale, 12);
    glm_translate_make(t, tv);
    glm_quat_mat4(q, r);
    glm_scale_make(s, sv);
    glm_mat4_mul(t, r, out);
    glm_mat4_mul(out, s, out);
}

void oak_gltf_node_world(const oak_gltf *g, uint32_t node, mat4 out) {
    glm_mat4_identity(out);
    if (!g || node >= g->node_count) return;
    for (int32_t n = (int32_t)node; n >= 0; n = g->nodes[n].parent) {
        mat4 l;
        node_local(&g->nodes[n], l);
        glm_mat4_mul(l, out, out);
    }
}

/* World matrices of the default scene's nodes, parents first: depth first
 * from the roots with an explicit stack, each node's matrix computed once
 * from its parent's (a 10^5-deep chain neither recurses nor goes quadratic). */
oak_result _oak_gltf_finish_bounds(oak_gltf *g) {
    oak_bounds_empty(&g->bounds);
    size_t n1 = (size_t)g->node_count + 1;
    mat4 *world = oak_alloc(sizeof(mat4) * n1);
    uint32_t *stack = oak_alloc(sizeof(uint32_t) * n1);
    if (!world || !stack) {
        oak_free(world);
        oak_free(stack);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory for %u node matrices",
                         g->path ? g->path : "glTF", g->node_count);
    }
    uint32_t top = 0;
    for (uint32_t r = 0; r < g->root_count; r++) {
        node_local(&g->nodes[g->roots[r]], world[g->roots[r]]);
        stack[top++] = g->roots[r];
    }
    /* Every node is pushed once at most (one parent each, no cycles), so the
       stack never holds more than node_count entries. */
    while (top) {
        uint32_t i = stack[--top];
        const oak_gltf_node *n = &g->nodes[i];
        for (uint32_t k = 0; k < n->child_count && top < g->node_count; k++) {
            uint32_t ch = n->children[k];
            mat4 l;
            node_local(&g->nodes[ch], l);
            glm_mat4_mul(world[i], l, world[ch]);
            stack[top++] = ch;
        }
        if (n->mesh < 0) continue;
        const oak_gltf_mesh *m = &g->meshes[n->mesh];
        for (uint32_t p = 0; p < m->primitive_count; p++) {
            const oak_gltf_primitive *pr = &m->primitives[p];
            if (!pr->vertex_count) continue;
            oak_bounds b;
            oak_bounds_transform(&b, &pr->bounds, world[i]);
            oak_bounds_add(&g->bounds, b.min);
            oak_bounds_add(&g->bounds, b.max);
        }
    }
    oak_free(world);
    oak_free(stack);
    if (g->bounds.min[0] > g->bounds.max[0])
        for (int k = 0; k < 3; k++) g->bounds.min[k] = g->bounds.max[k] = 0;
    oak_bounds_finish(&g->bounds);
    return OAK_OK;
}

void oak_gltf_summary(const oak_gltf *g, char *out, size_t size) {
    snprintf(out, size,
             "%s: %u nodes, %u meshes, %u primitives, %u materials, %u textures, %u skins, "
             "%u clips, %u warnings",
             g->path ? g->path : "model", g->node_count, g->mesh_count, g->primitive_count,
             g->material_count, g->texture_count, g->skin_count, g->clip_count, g->warning_count);
}

/* ---- entry points ------------------------------------------------------------------ */

static oak_result parse_json(gltf_ctx *c, const char *text, size_t len) {
    static const cJSON_Hooks hooks = {oak_alloc, oak_free};
    cJSON_InitHooks((cJSON_Hooks *)&hooks);
    const char *end = NULL;
    c->root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (!c->root) {
        size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
        if (!end) {
            const char *e = cJSON_GetErrorPtr();
            if (e >= text && e <= text + len) at = (size_t)(e - text);
        }
        uint32_t line = 1;
        for (size_t i = 0; i < at; i++) line += text[i] == '\n';
        return oak_error(OAK_ERROR_PARSE, "%s:%u: JSON syntax error (byte %zu)", c->file, line, at);
    }
    if (!cJSON_IsObject(c->root))
        return oak_error(OAK_ERROR_PARSE, "%s: the JSON root is not an object", c->file);
    return OAK_OK;
}

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static oak_result parse_glb(gltf_ctx *c, const uint8_t *d, size_t size) {
    if (size < 12) return oak_error(OAK_ERROR_PARSE, "%s: GLB header is cut short", c->file);
    uint32_t version = rd32(d + 4), length = rd32(d + 8);
    if (version != 2)
        return oak_error(OAK_ERROR_UNSUPPORTED, "%s: GLB version %u is not 2", c->file, version);
    if (length > size)
        return oak_error(OAK_ERROR_PARSE, "%s: GLB header says %u bytes but the file has %zu",
                         c->file, length, size);
    size_t at = 12;
    if (length < at + 8) return oak_error(OAK_ERROR_PARSE, "%s: GLB has no JSON chunk", c->file);
    uint32_t jlen = rd32(d + at), jtype = rd32(d + at + 4);
    if (jtype != 0x4E4F534Au)
        return oak_error(OAK_ERROR_PARSE, "%s: GLB chunk 0 at byte 12 is not JSON", c->file);
    if ((uint64_t)at + 8 + jlen > length)
        return oak_error(OAK_ERROR_PARSE, "%s: GLB JSON chunk (%u bytes) runs past the file's end",
                         c->file, jlen);
    const char *json = (const char *)d + at + 8;
    at += 8 + (size_t)jlen;
    at = (at + 3) & ~(size_t)3;
    while (at + 8 <= length) {
        uint32_t clen = rd32(d + at), ctype = rd32(d + at + 4);
        if ((uint64_t)at + 8 + clen > length)
            return oak_error(OAK_ERROR_PARSE,
                             "%s: GLB chunk at byte %zu (%u bytes) runs past the file's end",
                             c->file, at, clen);
        if (ctype == 0x004E4942u && !c->has_glb_bin) {
            c->has_glb_bin = true;
            c->glb_bin = d + at + 8;
            c->glb_bin_size = clen;
        }
        at += 8 + (size_t)clen;
        at = (at + 3) & ~(size_t)3;
    }
    return parse_json(c, json, jlen);
}

static oak_result parse_all(gltf_ctx *c, const uint8_t *data, size_t size) {
    oak_result r;
    size_t lead = 0; /* JSON may open with a byte-order mark and white space */
    if (size >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) lead = 3;
    while (lead < size && strchr(" \t\r\n", data[lead]) && data[lead]) lead++;
    if (size >= 4 && memcmp(data, "glTF", 4) == 0)
        r = parse_glb(c, data, size);
    else if (lead < size && data[lead] == '{')
        r = parse_json(c, (const char *)data, size);
    else /* an OBJ, an image, a scene's text...: say what was expected */
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "%s: not a glTF model: expected a JSON object ('{'), GLB ('glTF') or "
                         ".oakm bytes at the start",
                         c->file);
    if (r) return r;
    if ((r = check_extensions(c))) return r;
    if ((r = _oak_gltf_load_buffers(c))) return r;
    oak_gltf *g = c->g;
    const cJSON *arr;
    if ((r = _oak_gltf_array(c, c->root, "", "images", &arr, &g->image_count))) return r;
    /* Counts other arrays' indices are checked against, before anything reads them. */
    if ((r = _oak_gltf_array(c, c->root, "", "nodes", &arr, &g->node_count))) return r;
    if ((r = load_materials(c))) return r;
    if ((r = _oak_gltf_load_variants(c))) return r;
    if ((r = _oak_gltf_load_meshes(c))) return r;
    if ((r = load_skins(c, g->node_count))) return r;
    if ((r = load_cameras(c))) return r;
    if ((r = load_lights(c))) return r;
    if ((r = load_nodes(c))) return r;
    if ((r = load_scenes(c))) return r;
    if ((r = _oak_gltf_load_lods(c))) return r;
    if ((r = load_clips(c))) return r;
    if ((r = _oak_gltf_load_images(c))) return r;
    if ((r = _oak_specgloss_bake(c))) return r;
    if ((r = _oak_gltf_validate(g, c->file))) return r;
    return _oak_gltf_finish_bounds(g);
}

/* Who owns the bytes handed to load(). */
typedef enum data_kind { DATA_BORROWED, DATA_HEAP, DATA_MAPPED } data_kind;

static void drop(void *data, size_t size, data_kind kind) {
    if (kind == DATA_HEAP) oak_free(data);
    if (kind == DATA_MAPPED) munmap(data, size);
}

/* Loads from data. A cache's arrays point into its bytes, so the model
 * keeps them: a heap buffer or a mapping it is given, else a copy. */
static oak_result load(oak_gltf **out, void *data, size_t size, data_kind kind, const char *name,
                       const oak_gltf_desc *desc) {
    *out = NULL;
    static const oak_gltf_desc no_desc = {0};
    if (!desc) desc = &no_desc;
    oak_result root_ok = oak_asset_root_check(desc->asset_root);
    if (root_ok) {
        drop(data, size, kind);
        return root_ok;
    }
    /* FBX, Collada...: parsed in a child process into cache bytes (a
       crash in assimp must not take the caller down), then loaded as one */
    if (!(size >= 8 && memcmp(data, OAK_OAKM_MAGIC, 8) == 0) && _oak_assimp_handles(name) &&
        !_oak_assimp_in_child()) {
        void *cache = NULL;
        size_t cache_size = 0;
        oak_result r = _oak_assimp_to_cache(name, data, size, desc, &cache, &cache_size);
        drop(data, size, kind);
        if (r) return r;
        data = cache, size = cache_size, kind = DATA_HEAP;
    }
    oak_gltf *g = oak_calloc(1, sizeof *g);
    _oak_gltf_mem *mem = oak_calloc(1, sizeof *mem);
    if (!g || !mem || oak_arena_init(&mem->arena, 64u << 10)) {
        oak_free(g);
        oak_free(mem);
        drop(data, size, kind);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", name ? name : "glTF");
    }
    g->internal_ = mem;
    gltf_ctx c = {
        .file = name ? name : "<memory>", .base = name, .desc = desc, .arena = &mem->arena, .g = g};
    oak_result r = oak_arena_init(&c.scratch, 64u << 10);
    if (!r) {
        g->path = _oak_gltf_strdup(&c, c.file);
        if (size >= 8 && memcmp(data, OAK_OAKM_MAGIC, 8) == 0) {
            if (kind == DATA_BORROWED) {
                void *copy = oak_alloc(size ? size : 1);
                if (copy) memcpy(copy, data, size);
                data = copy;
                kind = DATA_HEAP;
            }
            if (kind == DATA_HEAP)
                mem->owned = data;
            else
                mem->mapped = data, mem->mapped_size = size;
            kind = DATA_BORROWED; /* the model owns it now */
            r = data ? _oak_oakm_read(g, &mem->arena, data, size, c.file) : _oak_gltf_oom(&c);
        } else if (_oak_assimp_handles(name)) {
            r = _oak_assimp_parse(&c, data, size);
        } else {
            r = parse_all(&c, data, size);
        }
    }
    drop(data, size, kind);
    if (c.root) cJSON_Delete(c.root);
    oak_arena_release(&c.scratch);
    if (!r && !desc->no_assets) r = _oak_gltf_make_assets(g);
    if (r) {
        oak_gltf_free(g);
        return r;
    }
    *out = g;
    return OAK_OK;
}

oak_result oak_gltf_load_memory(oak_gltf **out, const void *data, size_t size, const char *name,
                                const oak_gltf_desc *desc) {
    if (!out || (!data && size))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_gltf_load_memory: no output or data");
    return load(out, (void *)data, size, DATA_BORROWED, name, desc);
}

/* A cache is mapped rather than read: its arrays are used in place, so the
 * page cache's pages serve them without a copy (copy-on-write if a user
 * writes). NULL when the file is not a cache or cannot be mapped; fd is an
 * input that oak_open_input let through (a regular file within the limit). */
static void *map_cache(int fd, size_t len) {
    char magic[8];
    if (len <= 8 || pread(fd, magic, 8, 0) != 8 || memcmp(magic, OAK_OAKM_MAGIC, 8) != 0)
        return NULL;
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

oak_result oak_gltf_load(oak_gltf **out, const char *path, const oak_gltf_desc *desc) {
    if (!out || !path)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_gltf_load: no output or path");
    *out = NULL;
    int fd;
    size_t size = 0;
    oak_result r = oak_open_input(&fd, &size, path);
    if (r) return r;
    void *mapped = map_cache(fd, size);
    close(fd);
    if (mapped) return load(out, mapped, size, DATA_MAPPED, path, desc);
    void *data;
    r = oak_read_file(path, &data, &size);
    if (r) return r;
    return load(out, data, size, DATA_HEAP, path, desc);
}

void oak_gltf_free(oak_gltf *g) {
    if (!g) return;
    _oak_gltf_destroy_assets(g);
    _oak_gltf_mem *mem = g->internal_;
    if (mem) {
        oak_arena_release(&mem->arena);
        oak_free(mem->owned);
        if (mem->mapped) munmap(mem->mapped, mem->mapped_size);
    }
    oak_free(mem);
    oak_free(g);
}
