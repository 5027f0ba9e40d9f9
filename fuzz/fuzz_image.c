/* libFuzzer target for image decoding: the input is an image file decoded
 * from memory through oak_image_load_memory, so the signature check, oak's
 * PNG/JPEG/HDR header parse with its limits, the bounded Radiance HDR reader
 * and stb's PNG and JPEG decoders behind them all see it. Seeds:
 * tests/data/images (good) and tests/data/bad/images (bad). Any crash, leak,
 * sanitizer report or hang is a bug. */
#include <stdint.h>
#include <stdlib.h>

#include <oak/oak.h>

#include "fuzz_init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init_once();
    uint32_t w, h;
    bool is_float;
    void *pixels = NULL;
    if (oak_image_load_memory(&w, &h, &is_float, &pixels, data, size, "fuzz") == OAK_OK) {
        /* Touch the last texel, so a short buffer would show. */
        size_t texel = is_float ? 16 : 4;
        volatile uint8_t last = ((const uint8_t *)pixels)[(size_t)w * h * texel - 1];
        (void)last;
        oak_free(pixels);
    } else if (pixels) {
        abort(); /* a failure must leave nothing */
    }
    return 0;
}
