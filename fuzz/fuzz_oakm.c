/* libFuzzer target for the .oakm reader's structural checks: the input is a
 * cache body (or a whole cache, whose header is dropped); the target writes
 * a header with the right size and checksum, so mutations reach the
 * structure behind the hash instead of dying at it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oak/gltf.h>
#include <oak/oak.h>

#include "fuzz_init.h"

#define HEADER 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init_once();
    if (size >= HEADER && memcmp(data, "OAKMODEL", 8) == 0) data += HEADER, size -= HEADER;
    uint8_t *cache = malloc(HEADER + size);
    if (!cache) return 0;
    uint32_t version = 1, header = HEADER;
    uint64_t total = HEADER + size, hash = oak_gltf_cache_checksum(data, size);
    memcpy(cache, "OAKMODEL", 8);
    memcpy(cache + 8, &version, 4);
    memcpy(cache + 12, &header, 4);
    memcpy(cache + 16, &total, 8);
    memcpy(cache + 24, &hash, 8);
    if (size) memcpy(cache + HEADER, data, size);
    oak_gltf_desc desc = {.no_assets = true, .no_images = true};
    oak_gltf *g = NULL;
    if (oak_gltf_load_memory(&g, cache, HEADER + size, NULL, &desc) == OAK_OK) {
        /* Each call walks up its parents, so only the first nodes: a
           16,000-deep chain would cost 10^8 matrix products a run. */
        for (uint32_t i = 0; i < g->node_count && i < 256; i++) {
            mat4 m;
            oak_gltf_node_world(g, i, m);
        }
        oak_gltf_free(g);
    }
    free(cache);
    return 0;
}
