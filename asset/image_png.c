/* A PNG's compressed rows, inflated once into a buffer of exactly the size
 * its header implies before stb decodes it: the stb this builds against
 * (2.27) reads zero bits past the end of a truncated deflate stream and
 * grows its output up to 2 GiB, so a few bytes could cost gigabytes. A
 * fixed buffer bounds that work by the image's own size. */
#include <stdint.h>
#include <string.h>

#include <stb/stb_image.h>

#include "image_format.h"

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Bytes of filtered rows (a filter byte each) of one w x h pass. */
static uint64_t rows(uint64_t w, uint64_t h, uint64_t bits) {
    return w && h ? h * (1 + (w * bits + 7) / 8) : 0;
}

static uint64_t raw_size(uint32_t w, uint32_t h, uint64_t bits, bool adam7) {
    if (!adam7) return rows(w, h, bits);
    static const uint32_t x0[7] = {0, 4, 0, 2, 0, 1, 0}, y0[7] = {0, 0, 4, 0, 2, 0, 1};
    static const uint32_t dx[7] = {8, 8, 4, 4, 2, 2, 1}, dy[7] = {8, 8, 8, 4, 4, 2, 2};
    uint64_t total = 0;
    for (int p = 0; p < 7; p++) {
        uint64_t pw = w > x0[p] ? (w - x0[p] + dx[p] - 1) / dx[p] : 0;
        uint64_t ph = h > y0[p] ? (h - y0[p] + dy[p] - 1) / dy[p] : 0;
        total += rows(pw, ph, bits);
    }
    return total;
}

oak_result _oak_png_check_stream(const _oak_image_info *info, const uint8_t *d, size_t n,
                                 const char *name) {
    static const uint8_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
    uint64_t bits = (uint64_t)channels[d[25]] * d[24]; /* the probe checked both */
    uint64_t want = raw_size(info->width, info->height, bits, d[28] != 0);
    size_t idat = 0;
    for (size_t at = 8; at + 12 <= n;) {
        uint32_t len = be32(d + at);
        if (len > n - at - 12)
            return oak_error(OAK_ERROR_PARSE, "%s: PNG chunk at byte %zu runs past the end", name,
                             at);
        if (!memcmp(d + at + 4, "CgBI", 4))
            return oak_error(OAK_ERROR_UNSUPPORTED, "%s: Apple's CgBI PNG variant", name);
        if (!memcmp(d + at + 4, "IDAT", 4)) idat += len;
        if (!memcmp(d + at + 4, "IEND", 4)) break;
        at += 12 + (size_t)len;
    }
    if (!idat) return oak_error(OAK_ERROR_PARSE, "%s: PNG without image data (IDAT)", name);
    if (want > INT32_MAX || idat > INT32_MAX)
        return oak_error(OAK_ERROR_LIMIT, "%s: PNG rows of %llu bytes, more than the decoder takes",
                         name, (unsigned long long)want);
    uint8_t *packed = oak_alloc(idat), *out = oak_alloc((size_t)want + 1);
    oak_result r = OAK_OK;
    if (!packed || !out) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory to check its rows", name);
    } else {
        size_t k = 0;
        for (size_t at = 8; at + 12 <= n && k < idat;) {
            uint32_t len = be32(d + at);
            if (!memcmp(d + at + 4, "IDAT", 4)) memcpy(packed + k, d + at + 8, len), k += len;
            at += 12 + (size_t)len;
        }
        /* one byte of room: a stream that fills it holds more than the rows */
        int got =
            stbi_zlib_decode_buffer((char *)out, (int)want + 1, (const char *)packed, (int)idat);
        if (got < 0 || (uint64_t)got != want)
            r = oak_error(OAK_ERROR_PARSE,
                          "%s: PNG data inflates to %s, not the %llu bytes of %ux%u rows", name,
                          got < 0 ? "an error or too much" : "too little", (unsigned long long)want,
                          info->width, info->height);
    }
    oak_free(packed);
    oak_free(out);
    return r;
}
