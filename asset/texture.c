/* Textures in the registry: level 0 copied, the full mip chain made with an
 * area-weighted box filter (2x2 for even sizes, fractional weights for odd
 * ones; sRGB averaged in linear light; alpha optionally scaled to keep an
 * alpha test's coverage), and a cache so the same (path, format) loads once. */
#include <math.h>
#include <string.h>

#include "registry.h"

#define ROWS_PER_JOB 16

void _oak_texture_data_free(oak_texture_data *t) {
    if (!t) return;
    oak_free(t->mips[0]); /* every level lives in one block */
    oak_free(t->name);
    memset(t, 0, sizeof *t);
}

static uint32_t format_bpp(oak_format f) {
    return f == OAK_FORMAT_RGBA32F ? 16u : 4u;
}

/* One axis of the filter: the source texels a destination texel covers and
   how much of each, normalised to sum 1. A ratio of at most 3 (3 -> 1) needs
   no more than 4 taps. */
typedef struct taps {
    uint32_t first[4];
    float weight[4];
    uint32_t count;
} taps;

static void make_taps(taps *out, uint32_t src, uint32_t dst, uint32_t x) {
    double lo = (double)x * src / dst, hi = (double)(x + 1) * src / dst;
    out->count = 0;
    for (uint32_t s = (uint32_t)floor(lo); s < src && (double)s < hi && out->count < 4; s++) {
        double a = s > lo ? s : lo, b = s + 1.0 < hi ? s + 1.0 : hi;
        if (b <= a) continue;
        out->first[out->count] = s;
        out->weight[out->count] = (float)((b - a) / (hi - lo));
        out->count++;
    }
}

typedef struct mip_job {
    const uint8_t *src;
    uint8_t *dst;
    uint32_t sw, sh, dw, dh;
    oak_format format;
    const float *lut; /* sRGB byte -> linear */
} mip_job;

static uint8_t to_byte(float v) {
    v = v < 0 ? 0 : (v > 1 ? 1 : v);
    return (uint8_t)(v * 255.0f + 0.5f);
}

static void mip_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const mip_job *j = user;
    for (uint32_t y = begin; y < end; y++) {
        taps ty;
        make_taps(&ty, j->sh, j->dh, y);
        for (uint32_t x = 0; x < j->dw; x++) {
            taps tx;
            make_taps(&tx, j->sw, j->dw, x);
            float acc[4] = {0, 0, 0, 0};
            for (uint32_t b = 0; b < ty.count; b++)
                for (uint32_t a = 0; a < tx.count; a++) {
                    float w = tx.weight[a] * ty.weight[b];
                    size_t at = (size_t)ty.first[b] * j->sw + tx.first[a];
                    if (j->format == OAK_FORMAT_RGBA32F) {
                        const float *p = (const float *)j->src + 4 * at;
                        for (int c = 0; c < 4; c++) acc[c] += w * p[c];
                    } else if (j->format == OAK_FORMAT_RGBA8_SRGB) {
                        const uint8_t *p = j->src + 4 * at;
                        for (int c = 0; c < 3; c++) acc[c] += w * j->lut[p[c]];
                        acc[3] += w * (float)p[3] * (1.0f / 255.0f);
                    } else {
                        const uint8_t *p = j->src + 4 * at;
                        for (int c = 0; c < 4; c++) acc[c] += w * (float)p[c] * (1.0f / 255.0f);
                    }
                }
            size_t out = (size_t)y * j->dw + x;
            if (j->format == OAK_FORMAT_RGBA32F) {
                memcpy((float *)j->dst + 4 * out, acc, sizeof acc);
            } else {
                uint8_t *q = j->dst + 4 * out;
                for (int c = 0; c < 3; c++)
                    q[c] = to_byte(j->format == OAK_FORMAT_RGBA8_SRGB ? oak_linear_to_srgb(acc[c])
                                                                      : acc[c]);
                q[3] = to_byte(acc[3]);
            }
        }
    }
}

/* Share of 8-bit alpha values (a histogram) that pass the alpha test at
   cutoff once scaled by k, as stored (rounded to a byte). */
static double covered_at(const uint64_t hist[256], uint64_t total, float cutoff, float k) {
    uint64_t pass = 0;
    for (int b = 0; b < 256; b++)
        if (hist[b] && (float)to_byte((float)b / 255.0f * k) / 255.0f >= cutoff) pass += hist[b];
    return total ? (double)pass / (double)total : 0;
}

/* Alpha histogram of the texels of cell (cx, cy) of a w x h level cut into
   cells[0] x cells[1] equal cells. */
static void alpha_histogram(const uint8_t *px, uint32_t w, uint32_t h, const uint32_t cells[2],
                            uint32_t cx, uint32_t cy, uint64_t hist[256]) {
    memset(hist, 0, 256 * sizeof *hist);
    uint32_t cw = w / cells[0], ch = h / cells[1];
    for (uint32_t y = cy * ch; y < (cy + 1) * ch; y++)
        for (uint32_t x = cx * cw; x < (cx + 1) * cw; x++) hist[px[4 * ((size_t)y * w + x) + 3]]++;
}

/* Castano's coverage-preserving mips: each cell's alpha scaled by the k
   whose coverage at the cutoff is nearest its target (the same cell's at
   level 0). Coverage only grows with k, so a bisection finds the step. */
static void keep_coverage(uint8_t *px, uint32_t w, uint32_t h, const uint32_t cells[2],
                          float cutoff, const double *target) {
    uint32_t cw = w / cells[0], ch = h / cells[1];
    for (uint32_t cy = 0; cy < cells[1]; cy++)
        for (uint32_t cx = 0; cx < cells[0]; cx++) {
            uint64_t hist[256], n = (uint64_t)cw * ch;
            double want = target[cy * cells[0] + cx];
            alpha_histogram(px, w, h, cells, cx, cy, hist);
            float lo = 0.0f, hi = 256.0f;
            for (int it = 0; it < 40; it++) {
                float mid = 0.5f * (lo + hi);
                if (covered_at(hist, n, cutoff, mid) < want)
                    lo = mid;
                else
                    hi = mid;
            }
            /* hi reaches the target, lo falls short: take the nearer */
            double chi = covered_at(hist, n, cutoff, hi), clo = covered_at(hist, n, cutoff, lo);
            float k = fabs(chi - want) <= fabs(want - clo) ? hi : lo;
            for (uint32_t y = cy * ch; y < (cy + 1) * ch; y++)
                for (uint32_t x = cx * cw; x < (cx + 1) * cw; x++) {
                    uint8_t *a = px + 4 * ((size_t)y * w + x) + 3;
                    *a = to_byte((float)*a / 255.0f * k);
                }
        }
}

static const char *tex_label(const oak_texture_desc *d) {
    return d->name ? d->name : "(unnamed)";
}

static oak_result texture_build(oak_texture_data *t, const oak_texture_desc *desc) {
    memset(t, 0, sizeof *t);
    if (!desc) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "texture: no desc given");
    oak_format f = desc->format == OAK_FORMAT_DEFAULT ? OAK_FORMAT_RGBA8_SRGB : desc->format;
    if (f > OAK_FORMAT_RGBA32F)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "texture '%s': unknown format %d",
                         tex_label(desc), (int)f);
    if (!desc->width || !desc->height)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "texture '%s': zero size %ux%u",
                         tex_label(desc), desc->width, desc->height);
    if (desc->width > OAK_MAX_TEXTURE_SIZE || desc->height > OAK_MAX_TEXTURE_SIZE)
        return oak_error(OAK_ERROR_LIMIT, "texture '%s': %ux%u is over the %d limit",
                         tex_label(desc), desc->width, desc->height, OAK_MAX_TEXTURE_SIZE);
    if (!desc->pixels)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "texture '%s': no pixels", tex_label(desc));
    if ((desc->coverage_cells[0] && desc->width % desc->coverage_cells[0]) ||
        (desc->coverage_cells[1] && desc->height % desc->coverage_cells[1]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "texture '%s': %ux%u does not split into %ux%u coverage cells",
                         tex_label(desc), desc->width, desc->height, desc->coverage_cells[0],
                         desc->coverage_cells[1]);
    if (!(desc->coverage_cutoff >= 0 && desc->coverage_cutoff <= 1))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "texture '%s': coverage cutoff %g outside [0, 1]", tex_label(desc),
                         (double)desc->coverage_cutoff);

    uint32_t bpp = format_bpp(f), levels = 1;
    if (!desc->no_mips) {
        uint32_t big = desc->width > desc->height ? desc->width : desc->height;
        while ((big >> levels) && levels < OAK_MAX_MIPS) levels++;
    }
    size_t total = 0, offset[OAK_MAX_MIPS];
    for (uint32_t i = 0; i < levels; i++) {
        t->mip_width[i] = desc->width >> i ? desc->width >> i : 1;
        t->mip_height[i] = desc->height >> i ? desc->height >> i : 1;
        offset[i] = total;
        total += (size_t)t->mip_width[i] * t->mip_height[i] * bpp;
    }
    uint8_t *block = oak_alloc(total);
    char *name = desc->name ? oak_strdup(desc->name) : NULL;
    if (!block || (desc->name && !name)) {
        oak_free(block);
        oak_free(name);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "texture '%s': no memory for %ux%u",
                         tex_label(desc), desc->width, desc->height);
    }
    for (uint32_t i = 0; i < levels; i++) t->mips[i] = block + offset[i];
    memcpy(block, desc->pixels, (size_t)desc->width * desc->height * bpp);

    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = oak_srgb_to_linear((float)i / 255.0f);
    /* a chain made earlier (the glTF cache) is taken as is */
    bool given = desc->mip_chain && desc->mip_count == levels && levels > 1;
    if (given) memcpy(t->mips[1], desc->mip_chain, total - offset[1]);
    /* coverage-preserving mips: each cell's share passing the cutoff at level 0 */
    bool keep = desc->coverage_cutoff > 0 && f != OAK_FORMAT_RGBA32F;
    uint32_t cells[2] = {desc->coverage_cells[0] ? desc->coverage_cells[0] : 1,
                         desc->coverage_cells[1] ? desc->coverage_cells[1] : 1};
    static const uint32_t one[2] = {1, 1};
    double *target = NULL, whole = 0;
    if (keep) {
        target = oak_alloc((size_t)cells[0] * cells[1] * sizeof *target);
        if (!target) {
            oak_free(block);
            oak_free(name);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "texture '%s': no memory", tex_label(desc));
        }
        uint64_t hist[256];
        for (uint32_t cy = 0; cy < cells[1]; cy++)
            for (uint32_t cx = 0; cx < cells[0]; cx++) {
                alpha_histogram(t->mips[0], desc->width, desc->height, cells, cx, cy, hist);
                target[cy * cells[0] + cx] =
                    covered_at(hist, (uint64_t)(desc->width / cells[0]) * (desc->height / cells[1]),
                               desc->coverage_cutoff, 1.0f);
            }
        alpha_histogram(t->mips[0], desc->width, desc->height, one, 0, 0, hist);
        whole = covered_at(hist, (uint64_t)desc->width * desc->height, desc->coverage_cutoff, 1.0f);
    }
    for (uint32_t i = 1; i < levels && !given; i++) {
        mip_job job = {t->mips[i - 1],
                       t->mips[i],
                       t->mip_width[i - 1],
                       t->mip_height[i - 1],
                       t->mip_width[i],
                       t->mip_height[i],
                       f,
                       lut};
        oak_parallel_for(job.dh, ROWS_PER_JOB, mip_rows, &job);
        /* per cell while every cell still has whole texels, then the level as one */
        uint32_t w = t->mip_width[i], h = t->mip_height[i];
        bool split = w % cells[0] == 0 && h % cells[1] == 0 && w >= cells[0] && h >= cells[1];
        if (keep)
            keep_coverage(t->mips[i], w, h, split ? cells : one, desc->coverage_cutoff,
                          split ? target : &whole);
    }
    oak_free(target);
    t->width = desc->width;
    t->height = desc->height;
    t->mip_count = levels;
    t->format = f;
    t->bytes_per_pixel = bpp;
    t->name = name;
    t->version = _oak_next_version();
    return OAK_OK;
}

oak_result oak_make_texture(oak_texture *out, const oak_texture_desc *desc) {
    out->id = 0;
    _oak_registry *reg = _oak_registry_get();
    if (!reg) return OAK_ERROR_OUT_OF_MEMORY;
    oak_texture_data built;
    oak_result r = texture_build(&built, desc);
    if (r) return r;
    uint32_t id = oak_pool_alloc(&reg->textures);
    if (!id) {
        _oak_texture_data_free(&built);
        return oak_error(OAK_ERROR_LIMIT, "texture '%s': the registry is full", tex_label(desc));
    }
    _oak_texture_slot *slot = oak_pool_get(&reg->textures, id);
    slot->data = built;
    slot->cache_key = 0;
    out->id = id;
    return OAK_OK;
}

void oak_destroy_texture(oak_texture texture) {
    _oak_registry *reg = _oak_registry_peek();
    _oak_texture_slot *slot = reg ? oak_pool_get(&reg->textures, texture.id) : NULL;
    if (!slot) return;
    uint32_t cached;
    if (slot->cache_key && oak_map_get(&reg->texture_cache, slot->cache_key, &cached) &&
        cached == texture.id)
        oak_map_remove(&reg->texture_cache, slot->cache_key);
    _oak_texture_data_free(&slot->data);
    oak_pool_free(&reg->textures, texture.id);
}

const oak_texture_data *oak_texture_get(oak_texture texture) {
    _oak_registry *reg = _oak_registry_peek();
    _oak_texture_slot *slot = reg ? oak_pool_get(&reg->textures, texture.id) : NULL;
    return slot ? &slot->data : NULL;
}

/* Converts decoded pixels to the asked format: 8-bit files are sRGB-encoded
   colour when made float, float files are linear and get encoded for sRGB. */
static void *convert(void *pixels, uint32_t count, bool is_float, oak_format f) {
    bool want_float = f == OAK_FORMAT_RGBA32F;
    if (is_float == want_float) return pixels;
    void *out = oak_alloc((size_t)count * format_bpp(f));
    if (!out) return NULL;
    if (want_float) {
        const uint8_t *s = pixels;
        float *d = out;
        for (size_t i = 0; i < (size_t)count * 4; i++)
            d[i] = (i & 3) == 3 ? s[i] / 255.0f : oak_srgb_to_linear(s[i] / 255.0f);
    } else {
        const float *s = pixels;
        uint8_t *d = out;
        for (size_t i = 0; i < (size_t)count * 4; i++)
            d[i] = to_byte((i & 3) == 3 || f == OAK_FORMAT_RGBA8 ? s[i] : oak_linear_to_srgb(s[i]));
    }
    oak_free(pixels);
    return out;
}

oak_result oak_load_texture(oak_texture *out, const char *path, oak_format format) {
    out->id = 0;
    if (!path || !path[0]) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "load texture: no path");
    if (format == OAK_FORMAT_DEFAULT) format = OAK_FORMAT_RGBA8_SRGB;
    if (format > OAK_FORMAT_RGBA32F)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: unknown format %d", path, (int)format);
    _oak_registry *reg = _oak_registry_get();
    if (!reg) return OAK_ERROR_OUT_OF_MEMORY;
    uint64_t key = oak_hash(path, strlen(path), (uint64_t)format);
    if (!key) key = 1;
    uint32_t cached;
    if (oak_map_get(&reg->texture_cache, key, &cached) && oak_pool_valid(&reg->textures, cached)) {
        out->id = cached;
        return OAK_OK;
    }

    uint32_t w, h;
    bool is_float = false;
    void *pixels = NULL;
    oak_result r;
    if (strncmp(path, "oak://", 6) == 0) {
        r = _oak_paint(path + 6, &w, &h, (uint8_t **)&pixels);
    } else {
        r = oak_image_load(path, &w, &h, &is_float, &pixels);
    }
    if (r) return r;
    pixels = convert(pixels, w * h, is_float, format);
    if (!pixels) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory to convert", path);
    oak_texture_desc desc = {w, h, format, pixels, false, path};
    r = oak_make_texture(out, &desc);
    oak_free(pixels);
    if (r) return r;
    _oak_texture_slot *slot = oak_pool_get(&reg->textures, out->id);
    if (oak_map_set(&reg->texture_cache, key, out->id) == OAK_OK) slot->cache_key = key;
    return OAK_OK;
}
