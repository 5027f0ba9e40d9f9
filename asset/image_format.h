/* Private to the asset layer: image formats chosen by their signature, with
 * sizes read from oak's own header parse and checked against the limits
 * before any decoder runs; the bounded Radiance HDR reader. */
#ifndef OAK_ASSET_IMAGE_FORMAT_H
#define OAK_ASSET_IMAGE_FORMAT_H

#include <oak/asset.h>

typedef enum _oak_image_kind {
    _OAK_IMAGE_UNKNOWN = 0,
    _OAK_IMAGE_PNG,
    _OAK_IMAGE_JPEG,
    _OAK_IMAGE_HDR,
    _OAK_IMAGE_WEBP, /* decoded by libwebp (EXT_texture_webp and image files) */
} _oak_image_kind;

typedef struct _oak_image_info {
    _oak_image_kind kind;
    uint32_t width, height;
    size_t pixels_at; /* HDR: where the scanlines start */
} _oak_image_info;

/* Names the format by its first bytes, reads its header and checks the edge
 * limit (OAK_MAX_TEXTURE_SIZE), the decoded budget (OAK_MAX_IMAGE_BYTES)
 * and that the file is large enough to hold what the header claims. One
 * line naming `name` on failure: formats oak does not read are named. */
oak_result _oak_image_probe(_oak_image_info *out, const uint8_t *data, size_t size,
                            const char *name);
/* Bytes of the decoded RGBA8 (RGBA32F for HDR) image. */
size_t _oak_image_decoded_bytes(const _oak_image_info *info);
/* Inflates a probed PNG's IDAT stream into a buffer of the size its header
 * implies (so a truncated stream cannot grow stb's output without end) and
 * checks that it fills it exactly; run before stb decodes the file. */
oak_result _oak_png_check_stream(const _oak_image_info *info, const uint8_t *data, size_t size,
                                 const char *name);
/* Decodes a probed Radiance HDR to RGBA32F (alpha 1) into rgba, which holds
 * width*height*4 floats; every read is bounded by size. */
oak_result _oak_hdr_decode(float *rgba, const _oak_image_info *info, const uint8_t *data,
                           size_t size, const char *name);

/* Decodes a probed WebP to RGBA8 into rgba (width*height*4 bytes). */
oak_result _oak_webp_decode(uint8_t *rgba, const _oak_image_info *info, const uint8_t *data,
                            size_t size, const char *name);

#endif
