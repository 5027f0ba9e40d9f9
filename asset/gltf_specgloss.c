/* KHR_materials_pbrSpecularGlossiness, converted at load to the
 * metallic-roughness oak shades: the factors at once, and where the
 * material has textures, a base colour image and a metal-rough image baked
 * from its diffuse and specular-glossiness images once they are decoded.
 * The conversion is the one Khronos's glTF tools use: metallic solved from
 * the diffuse and specular brightness against a 4% dielectric, the base
 * colour blended between what the diffuse and the specular say by
 * metallic squared, roughness = 1 - glossiness. */
#include <math.h>
#include <string.h>

#include "gltf_internal.h"

#define DIELECTRIC 0.04f

static float brightness(const float *c) {
    return sqrtf(0.299f * c[0] * c[0] + 0.587f * c[1] * c[1] + 0.114f * c[2] * c[2]);
}

static float clamp01(float v) {
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

void _oak_specgloss_convert(const float diffuse[3], const float specular[3], float glossiness,
                            float base[3], float *metallic, float *roughness) {
    float spec_max = fmaxf(specular[0], fmaxf(specular[1], specular[2]));
    float one_minus = 1 - spec_max;
    float d = brightness(diffuse), s = brightness(specular), m = 0;
    if (s >= DIELECTRIC) { /* a * m^2 + b * m + c = 0 */
        float a = DIELECTRIC, b = d * one_minus / (1 - DIELECTRIC) + s - 2 * DIELECTRIC,
              c = DIELECTRIC - s;
        float disc = b * b - 4 * a * c;
        m = clamp01((-b + sqrtf(fmaxf(disc, 0))) / (2 * a));
    }
    for (int k = 0; k < 3; k++) {
        float from_diffuse = diffuse[k] * one_minus / (1 - DIELECTRIC) / fmaxf(1 - m, 1e-4f);
        float from_specular = (specular[k] - DIELECTRIC * (1 - m)) / fmaxf(m, 1e-4f);
        base[k] = clamp01(from_diffuse + (from_specular - from_diffuse) * m * m);
    }
    *metallic = m;
    *roughness = clamp01(1 - glossiness);
}

void _oak_specgloss_factors(oak_gltf_material *gm, const _oak_specgloss *sg) {
    oak_material_desc *d = &gm->desc;
    float base[3];
    _oak_specgloss_convert(sg->diffuse, sg->specular, sg->glossiness, base, &d->metallic,
                           &d->roughness);
    memcpy(d->base_color, base, 12);
    d->base_color[3] = clamp01(sg->diffuse[3]);
}

static float to_linear(uint8_t v) {
    float c = v / 255.0f;
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

static uint8_t to_srgb8(float c) {
    c = clamp01(c);
    float s = c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1 / 2.4f) - 0.055f;
    return (uint8_t)(s * 255 + 0.5f);
}

/* Texel (x, y) of an n-texel-wide output read from an image, nearest. */
static const uint8_t *texel(const oak_gltf_image *im, uint32_t x, uint32_t y, uint32_t w,
                            uint32_t h) {
    uint32_t sx = (uint32_t)(((uint64_t)x * im->width) / w);
    uint32_t sy = (uint32_t)(((uint64_t)y * im->height) / h);
    return im->rgba + 4 * ((size_t)sy * im->width + sx);
}

oak_result _oak_specgloss_bake(gltf_ctx *c) {
    oak_gltf *g = c->g;
    if (!c->specgloss || c->desc->no_images) return OAK_OK;
    uint32_t extra = 0;
    for (uint32_t i = 0; i < g->material_count; i++)
        extra += c->specgloss[i].used &&
                         (c->specgloss[i].diffuse_image >= 0 || c->specgloss[i].sg_image >= 0)
                     ? 2
                     : 0;
    if (!extra) return OAK_OK;
    oak_gltf_image *images = _oak_gltf_alloc(c, sizeof *images * (g->image_count + extra));
    if (!images) return _oak_gltf_oom(c);
    if (g->image_count) memcpy(images, g->images, sizeof *images * g->image_count);
    g->images = images;
    for (uint32_t i = 0; i < g->material_count; i++) {
        const _oak_specgloss *sg = &c->specgloss[i];
        if (!sg->used || (sg->diffuse_image < 0 && sg->sg_image < 0)) continue;
        const oak_gltf_image *di = sg->diffuse_image >= 0 ? &g->images[sg->diffuse_image] : NULL;
        const oak_gltf_image *si = sg->sg_image >= 0 ? &g->images[sg->sg_image] : NULL;
        if (di && !di->rgba) di = NULL; /* an image left out: its factor alone */
        if (si && !si->rgba) si = NULL;
        const oak_gltf_image *size = di ? di : si;
        oak_gltf_material *gm = &g->materials[i];
        if (!size) continue;
        uint32_t w = size->width, h = size->height;
        size_t texels = (size_t)w * h;
        uint8_t *base = _oak_gltf_alloc(c, texels * 4), *mr = _oak_gltf_alloc(c, texels * 4);
        if (!base || !mr) return _oak_gltf_oom(c);
        for (uint32_t y = 0; y < h; y++)
            for (uint32_t x = 0; x < w; x++) {
                float diffuse[4], spec[3], gloss = sg->glossiness;
                memcpy(diffuse, sg->diffuse, 16);
                memcpy(spec, sg->specular, 12);
                if (di) {
                    const uint8_t *t = texel(di, x, y, w, h);
                    for (int k = 0; k < 3; k++) diffuse[k] *= to_linear(t[k]);
                    diffuse[3] *= t[3] / 255.0f;
                }
                if (si) { /* specular in sRGB, glossiness linear in alpha */
                    const uint8_t *t = texel(si, x, y, w, h);
                    for (int k = 0; k < 3; k++) spec[k] *= to_linear(t[k]);
                    gloss *= t[3] / 255.0f;
                }
                float b[3], metal, rough;
                _oak_specgloss_convert(diffuse, spec, gloss, b, &metal, &rough);
                uint8_t *o = base + 4 * ((size_t)y * w + x), *q = mr + 4 * ((size_t)y * w + x);
                for (int k = 0; k < 3; k++) o[k] = to_srgb8(b[k]);
                o[3] = (uint8_t)(clamp01(diffuse[3]) * 255 + 0.5f);
                q[0] = 0, q[1] = (uint8_t)(rough * 255 + 0.5f),
                q[2] = (uint8_t)(metal * 255 + 0.5f);
                q[3] = 255;
            }
        uint32_t at = g->image_count;
        g->images[at] = (oak_gltf_image){
            .name = "specular-glossiness base colour", .width = w, .height = h, .rgba = base};
        g->images[at + 1] = (oak_gltf_image){
            .name = "specular-glossiness metal-rough", .width = w, .height = h, .rgba = mr};
        g->image_count += 2;
        /* the textures hold the whole answer now; both read as the diffuse
           texture did (its UV set, transform and sampler) */
        oak_material_desc *d = &gm->desc;
        const oak_texture_ref *ref = di ? &sg->diffuse_ref : &sg->sg_ref;
        d->base_color[0] = d->base_color[1] = d->base_color[2] = d->base_color[3] = 1;
        d->metallic = d->roughness = 1;
        d->base_color_tex = *ref;
        d->metallic_roughness_tex = *ref;
        gm->image[0] = (int32_t)at;
        gm->image[1] = (int32_t)at + 1;
        if (di && si &&
            (sg->diffuse_ref.uv_set != sg->sg_ref.uv_set ||
             memcmp(sg->diffuse_ref.offset, sg->sg_ref.offset, 8) ||
             memcmp(sg->diffuse_ref.scale, sg->sg_ref.scale, 8) ||
             sg->diffuse_ref.rotation != sg->sg_ref.rotation))
            _oak_gltf_warn(c,
                           "%s: materials[%u]: the specular-glossiness texture is read with the "
                           "diffuse texture's coordinates",
                           c->file, i);
    }
    return OAK_OK;
}
