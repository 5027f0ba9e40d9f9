/* libFuzzer target for scene files: the input is a scene's JSON, loaded
 * from a private folder (mesh and texture paths resolve there), then its
 * transforms are updated as a frame would. Any crash, leak or sanitizer
 * report is a bug. */
#include <stdint.h>

#include <oak/oak.h>

#include "fuzz_file.h"
#include "fuzz_init.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init_once();
    oak_scene *scene = NULL;
    if (oak_scene_load(&scene, fuzz_write("scene.json", data, size)) == OAK_OK) {
        oak_scene_update_transforms(scene);
        oak_destroy_scene(scene);
        /* The scene's meshes, materials and textures stay in the registry;
           a fresh engine returns them, so memory stays flat across runs. */
        fuzz_shutdown();
    }
    return 0;
}
