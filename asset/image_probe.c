/* Which image a file holds, by signature (never by a decoder's guess), and
 * its size from oak's own reading of the PNG, JPEG or Radiance header, held
 * to the limits before anything is decoded or allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <webp/decode.h>

#include "image_format.h"

static uint32_t be16(const uint8_t *p) {
    return (uint32_t)p[0] << 8 | p[1];
}
static uint32_t be32(const uint8_t *p) {
    return be16(p) << 16 | be16(p + 2);
}

/* Formats stb_image would read but oak does not, named in the refusal. */
static const char *foreign_format(const uint8_t *d, size_t n) {
    if (n >= 4 && !memcmp(d, "GIF8", 4)) return "GIF";
    if (n >= 2 && !memcmp(d, "BM", 2)) return "BMP";
    if (n >= 4 && !memcmp(d, "8BPS", 4)) return "PSD";
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '7') return "PNM (PPM/PGM/PBM)";
    if (n >= 4 && !memcmp(d, "DDS ", 4)) return "DDS";
    if (n >= 4 && !memcmp(d, "\x53\x80\xf6\x34", 4)) return "PIC";
    if (n >= 18 && d[1] <= 1 && (d[2] & ~8u) <= 3 && (d[2] & 3)) return "TGA"; /* no signature */
    return NULL;
}

static oak_result png_header(_oak_image_info *out, uint64_t *need, const uint8_t *d, size_t n,
                             const char *name) {
    if (n < 33 || be32(d + 8) != 13 || memcmp(d + 12, "IHDR", 4))
        return oak_error(OAK_ERROR_PARSE, "%s: PNG without its IHDR header (%zu bytes)", name, n);
    out->width = be32(d + 16);
    out->height = be32(d + 20);
    uint32_t depth = d[24], colour = d[25];
    static const uint8_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
    if (d[26] || d[27] || d[28] > 1)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: PNG compression, filter or interlace method is not 0/1", name);
    if (colour > 6 || !channels[colour] || !depth || depth > 16 || (depth & (depth - 1)))
        return oak_error(OAK_ERROR_PARSE, "%s: PNG colour type %u at depth %u is not valid", name,
                         colour, depth);
    /* Deflate packs at most 1032 bytes into one (a 258-byte match in two
       bits), so a file smaller than its rows / 1032 cannot hold them. Sizes
       past the limits may wrap here: the limits are checked first. */
    uint64_t row = ((uint64_t)out->width * channels[colour] * depth + 7) / 8 + 1;
    *need = row * out->height / 1032;
    return OAK_OK;
}

/* The frame header (SOFn) gives the size; markers before it are skipped by
   their lengths, every step bounded by n. */
static oak_result jpeg_header(_oak_image_info *out, uint64_t *need, const uint8_t *d, size_t n,
                              const char *name) {
    size_t at = 2;
    for (;;) {
        while (at < n && d[at] == 0xff) at++; /* fill bytes */
        if (at >= n)
            return oak_error(OAK_ERROR_PARSE, "%s: JPEG ends before its frame header", name);
        if (d[at - 1] != 0xff)
            return oak_error(OAK_ERROR_PARSE, "%s: JPEG has no marker at byte %zu", name, at);
        uint8_t m = d[at];
        if (m == 0xd9 || m == 0xda)
            return oak_error(OAK_ERROR_PARSE, "%s: JPEG has no frame header before its data", name);
        size_t len = at + 3 <= n ? be16(d + at + 1) : 0;
        if (len < 2 || at + 1 + len > n)
            return oak_error(OAK_ERROR_PARSE, "%s: JPEG marker %02X at byte %zu runs past the end",
                             name, m, at);
        bool sof = m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
        if (sof) {
            if (len < 8)
                return oak_error(OAK_ERROR_PARSE, "%s: JPEG frame header is too short", name);
            out->height = be16(d + at + 4);
            out->width = be16(d + at + 6);
            break;
        }
        at += 1 + len;
    }
    /* Each scan walks every block of its components again, so a few bytes
       per scan header would multiply the decode: count them. Entropy-coded
       bytes never hold 0xFF followed by anything but 0x00 or a restart. */
    uint32_t scans = 0;
    for (at += 1 + be16(d + at + 1); at + 1 < n;) {
        if (d[at] != 0xff || d[at + 1] == 0x00 || d[at + 1] == 0xff ||
            (d[at + 1] >= 0xd0 && d[at + 1] <= 0xd7)) {
            at++;
            continue;
        }
        uint8_t m = d[at + 1];
        if (m == 0xd9 || at + 4 > n) break;
        if (m == 0xda && ++scans > OAK_MAX_JPEG_SCANS)
            return oak_error(OAK_ERROR_LIMIT,
                             "%s: JPEG has more than %d scans (OAK_MAX_JPEG_SCANS)", name,
                             OAK_MAX_JPEG_SCANS);
        at += 2 + be16(d + at + 2);
    }
    /* Every 8x8 block of the first component costs at least one bit. */
    *need = ((uint64_t)out->width + 7) / 8 * (((uint64_t)out->height + 7) / 8) / 8;
    return OAK_OK;
}

/* One header line of at most 256 bytes starting at *at; false at the end. */
static bool hdr_line(char *line, const uint8_t *d, size_t n, size_t *at) {
    size_t k = 0;
    while (*at < n && d[*at] != '\n') {
        if (k < 255) line[k++] = (char)d[*at];
        (*at)++;
    }
    line[k] = 0;
    if (*at >= n) return false;
    (*at)++;
    return true;
}

static oak_result hdr_header(_oak_image_info *out, uint64_t *need, const uint8_t *d, size_t n,
                             const char *name) {
    size_t at = 0;
    char line[256];
    bool rgbe = false;
    hdr_line(line, d, n, &at); /* the signature */
    for (;;) {
        if (!hdr_line(line, d, n, &at))
            return oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR header never ends", name);
        if (!line[0]) break;
        if (!strncmp(line, "FORMAT=", 7)) {
            if (strcmp(line, "FORMAT=32-bit_rle_rgbe"))
                return oak_error(OAK_ERROR_UNSUPPORTED, "%s: Radiance HDR %s (oak reads only RGBE)",
                                 name, line);
            rgbe = true;
        }
    }
    if (!rgbe) return oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR header without FORMAT=", name);
    unsigned long w, h;
    char *end;
    if (!hdr_line(line, d, n, &at) || strncmp(line, "-Y ", 3))
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "%s: Radiance HDR resolution line is not \"-Y H +X W\"", name);
    h = strtoul(line + 3, &end, 10);
    if (strncmp(end, " +X ", 4))
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "%s: Radiance HDR resolution line is not \"-Y H +X W\"", name);
    w = strtoul(end + 4, &end, 10);
    if (*end)
        return oak_error(OAK_ERROR_PARSE, "%s: Radiance HDR resolution line ends in '%s'", name,
                         end);
    out->width = w > UINT32_MAX ? UINT32_MAX : (uint32_t)w;
    out->height = h > UINT32_MAX ? UINT32_MAX : (uint32_t)h;
    out->pixels_at = at;
    /* A run-length scanline takes at least 4 bytes plus two per 127 texels
       of each channel; a flat one 4 bytes a texel. */
    uint64_t per_row = w >= 8 && w < 32768 ? 4 + 8 * ((w + 126) / 127) : 4 * (uint64_t)w;
    *need = at + per_row * h;
    return OAK_OK;
}

size_t _oak_image_decoded_bytes(const _oak_image_info *info) {
    return (size_t)info->width * info->height * (info->kind == _OAK_IMAGE_HDR ? 16u : 4u);
}

oak_result _oak_image_probe(_oak_image_info *out, const uint8_t *d, size_t n, const char *name) {
    memset(out, 0, sizeof *out);
    static const char *const kinds[] = {"", "PNG", "JPEG", "Radiance HDR", "WebP"};
    oak_result r;
    uint64_t need = 0; /* the fewest bytes that can hold what the header claims */
    if (!n) return oak_error(OAK_ERROR_PARSE, "%s: empty file, not an image", name);
    if (n >= 8 && !memcmp(d, "\x89PNG\r\n\x1a\n", 8)) {
        out->kind = _OAK_IMAGE_PNG;
        r = png_header(out, &need, d, n, name);
    } else if (n >= 3 && d[0] == 0xff && d[1] == 0xd8 && d[2] == 0xff) {
        out->kind = _OAK_IMAGE_JPEG;
        r = jpeg_header(out, &need, d, n, name);
    } else if ((n >= 11 && !memcmp(d, "#?RADIANCE\n", 11)) ||
               (n >= 7 && !memcmp(d, "#?RGBE\n", 7))) {
        out->kind = _OAK_IMAGE_HDR;
        r = hdr_header(out, &need, d, n, name);
    } else if (n >= 12 && !memcmp(d, "RIFF", 4) && !memcmp(d + 8, "WEBP", 4)) {
        /* libwebp's header parse is bounded by n; the decoder checks the rest */
        int w = 0, h = 0;
        out->kind = _OAK_IMAGE_WEBP;
        r = WebPGetInfo(d, n, &w, &h) ? OAK_OK
                                      : oak_error(OAK_ERROR_PARSE,
                                                  "%s: WebP header unreadable "
                                                  "(%zu bytes)",
                                                  name, n);
        out->width = (uint32_t)w;
        out->height = (uint32_t)h;
    } else {
        const char *other = foreign_format(d, n);
        if (other)
            return oak_error(
                OAK_ERROR_UNSUPPORTED,
                "%s: a %s image, which oak does not read (PNG, JPEG, WebP or Radiance HDR)", name,
                other);
        return oak_error(
            OAK_ERROR_PARSE,
            "%s: not a PNG, JPEG, WebP or Radiance HDR image (it starts %02x %02x %02x %02x)", name,
            d[0], n > 1 ? d[1] : 0, n > 2 ? d[2] : 0, n > 3 ? d[3] : 0);
    }
    if (r) return r;
    const char *kind = kinds[out->kind];
    if (!out->width || !out->height)
        return oak_error(OAK_ERROR_PARSE, "%s: %s of zero size (%ux%u)", name, kind, out->width,
                         out->height);
    if (out->width > OAK_MAX_TEXTURE_SIZE || out->height > OAK_MAX_TEXTURE_SIZE)
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %s is %ux%u, over the %d-texel edge limit (OAK_MAX_TEXTURE_SIZE)",
                         name, kind, out->width, out->height, OAK_MAX_TEXTURE_SIZE);
    size_t bytes = _oak_image_decoded_bytes(out);
    if (bytes > OAK_MAX_IMAGE_BYTES)
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %s of %ux%u decodes to %zu MiB, over the %u MiB image budget "
                         "(OAK_MAX_IMAGE_BYTES)",
                         name, kind, out->width, out->height, bytes >> 20,
                         (unsigned)(OAK_MAX_IMAGE_BYTES >> 20));
    if (n < need)
        return oak_error(OAK_ERROR_PARSE,
                         "%s: %s claims %ux%u, which %zu bytes cannot hold (truncated?)", name,
                         kind, out->width, out->height, n);
    return OAK_OK;
}
