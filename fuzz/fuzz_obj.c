/* libFuzzer target for the OBJ and MTL loaders: the input is an OBJ, and
 * whatever follows a line "#%MTL" is written beside it as m.mtl, so an
 * input saying "mtllib m.mtl" fuzzes both. Any crash, leak or sanitizer
 * report is a bug. */
#include <stdint.h>
#include <string.h>

#include <oak/oak.h>

#include "fuzz_init.h"

#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init_once();
    static const char mark[] = "\n#%MTL\n";
    size_t obj = size;
    for (size_t i = 0; i + sizeof mark - 1 <= size; i++)
        if (memcmp(data + i, mark, sizeof mark - 1) == 0) {
            obj = i + 1;
            break;
        }
    size_t skip = obj < size ? obj + sizeof mark - 2 : size;
    fuzz_write("m.mtl", data + skip, size - skip);
    const char *path = fuzz_write("in.obj", data, obj);
    oak_model m;
    if (oak_load_obj(&m, path) == OAK_OK) {
        for (uint32_t i = 0; i < m.mesh_count; i++) oak_destroy_mesh(m.meshes[i]);
        for (uint32_t i = 0; i < m.material_count; i++) oak_destroy_material(m.materials[i]);
        oak_model_release(&m);
    }
    return 0;
}
