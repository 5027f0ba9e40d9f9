/* Radiance HDR (RGBE) scanlines, decoded by oak rather than stb: every read
 * is checked against the input's size, so a truncated or hostile file ends
 * in an error instead of a loop (the system stb spins on a 52-byte file).
 * Results match stb's: RGB times 2^(E-136), E = 0 is black, alpha 1. */
#include <math.h>

#include "image_format.h"

static void rgbe_to_float(float *out, const uint8_t *rgbe) {
    float f = rgbe[3] ? ldexpf(1.0f, rgbe[3] - (128 + 8)) : 0.0f;
    out[0] = rgbe[0] * f;
    out[1] = rgbe[1] * f;
    out[2] = rgbe[2] * f;
    out[3] = 1.0f;
}

/* Flat texels from `at` to the end of the image, starting at texel `first`. */
static oak_result flat(float *rgba, size_t texels, size_t first, const uint8_t *d, size_t n,
                       size_t at, const char *name) {
    if ((n - at) / 4 < texels - first)
        return oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR ends after texel %zu of %zu", name,
                         first + (n - at) / 4, texels);
    for (size_t i = first; i < texels; i++, at += 4) rgbe_to_float(rgba + i * 4, d + at);
    return OAK_OK;
}

oak_result _oak_hdr_decode(float *rgba, const _oak_image_info *info, const uint8_t *d, size_t n,
                           const char *name) {
    uint32_t w = info->width, h = info->height;
    size_t at = info->pixels_at, texels = (size_t)w * h;
    if (w < 8 || w >= 32768) return flat(rgba, texels, 0, d, n, at, name); /* never run-length */
    uint8_t *line = oak_alloc((size_t)w * 4);
    if (!line) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for a scanline", name);
    oak_result r = OAK_OK;
    for (uint32_t y = 0; y < h && !r; y++) {
        if (n - at < 4) {
            r = oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR ends at scanline %u of %u", name, y,
                          h);
            break;
        }
        const uint8_t *s = d + at;
        if (s[0] != 2 || s[1] != 2 || (s[2] & 0x80)) {
            /* Not run-length: only the first scanline may say so, and then
               the whole image is flat texels (as stb reads it). */
            if (y == 0) {
                r = flat(rgba, texels, 0, d, n, at, name);
            } else {
                r = oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR scanline %u has no RLE header",
                              name, y);
            }
            break;
        }
        if ((uint32_t)(s[2] << 8 | s[3]) != w) {
            r = oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR scanline %u is %u texels, not %u",
                          name, y, (unsigned)(s[2] << 8 | s[3]), w);
            break;
        }
        at += 4;
        for (int c = 0; c < 4 && !r; c++) {
            uint32_t x = 0;
            while (x < w) {
                if (at >= n) {
                    r = oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR ends inside scanline %u", name,
                                  y);
                    break;
                }
                uint32_t count = d[at++];
                bool run = count > 128;
                if (run) count -= 128;
                if (at + (run ? 1 : count) > n) {
                    r = oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR ends inside scanline %u", name,
                                  y);
                    break;
                }
                /* a zero count would never advance: refused, like an overlong one */
                if (!count || count > w - x) {
                    r = oak_error(OAK_ERROR_PARSE,
                                  "%s: Radiance HDR scanline %u: bad run of %u at byte %zu", name,
                                  y, count, at - 1);
                    break;
                }
                for (uint32_t k = 0; k < count; k++, x++) line[x * 4 + c] = d[run ? at : at + k];
                at += run ? 1 : count;
            }
        }
        for (uint32_t x = 0; x < w && !r; x++)
            rgbe_to_float(rgba + ((size_t)y * w + x) * 4, line + x * 4);
    }
    oak_free(line);
    return r;
}
