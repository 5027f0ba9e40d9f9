/* libFuzzer target for the glTF loader: the input is a .gltf, .glb or .oakm
 * image loaded from memory (external files refused, images not decoded:
 * stb is not ours to fuzz). Any crash, leak or sanitizer report is a bug. */
#include <stdint.h>
#include <stdlib.h>

#include <oak/gltf.h>
#include <oak/oak.h>

#include "fuzz_init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init_once();
    oak_gltf_desc desc = {.no_assets = true, .no_images = true};
    oak_gltf *g = NULL;
    if (oak_gltf_load_memory(&g, data, size, NULL, &desc) == OAK_OK) {
        /* Touch what a user would: the rest pose of the nodes. */
        /* Each call walks up its parents, so only the first nodes: a
           16,000-deep chain would cost 10^8 matrix products a run. */
        for (uint32_t i = 0; i < g->node_count && i < 256; i++) {
            mat4 m;
            oak_gltf_node_world(g, i, m);
        }
        oak_gltf_free(g);
    }
    return 0;
}
