/* libFuzzer target for the FBX / Collada / OBJ path (libassimp, then oak's
 * conversion into the glTF model): the first byte picks the format the rest
 * is read as; images are not decoded and external files are not read. Any
 * crash, or a leak in oak's own code, is a bug (tests/lsan.supp lists
 * assimp's own leaks on damaged files). */
#include <stdint.h>
#include <stdlib.h>

#include <oak/gltf.h>
#include <oak/oak.h>

#include "fuzz_init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const char *const names[] = {"fuzz.fbx", "fuzz.dae", "fuzz.obj", "fuzz.ply"};
    fuzz_init_once();
    if (!size) return 0;
    oak_gltf_desc desc = {.no_assets = true, .no_images = true};
    oak_gltf *g = NULL;
    if (oak_gltf_load_memory(&g, data + 1, size - 1, names[data[0] & 3], &desc) == OAK_OK) {
        for (uint32_t i = 0; i < g->node_count && i < 256; i++) {
            mat4 m;
            oak_gltf_node_world(g, i, m);
        }
        oak_gltf_free(g);
    }
    return 0;
}
