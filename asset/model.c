/* oak_model: what file loaders hand back. The handles belong to the registry;
 * releasing a model frees only its arrays. */
#include <string.h>

#include "registry.h"

void oak_model_release(oak_model *model) {
    if (!model) return;
    oak_free(model->meshes);
    oak_free(model->mesh_materials);
    oak_free(model->materials);
    memset(model, 0, sizeof *model);
}
