/* Placing a loaded model in a scene: one entity for the model and one child
 * per mesh, each with a mesh renderer holding the mesh's material. */
#include <stdio.h>

#include "scene_internal.h"

oak_entity oak_scene_add_model(oak_scene *scene, const oak_model *model, oak_entity parent,
                               const char *name) {
    if (!scene || !model || (model->mesh_count && !model->meshes)) {
        oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_add_model: no scene or model");
        return (oak_entity){0};
    }
    oak_entity root = oak_scene_create(scene, name);
    if (!root.id) return root;
    if (parent.id && oak_scene_set_parent(scene, root, parent)) {
        oak_scene_destroy_entity(scene, root);
        return (oak_entity){0};
    }
    for (uint32_t i = 0; i < model->mesh_count; i++) {
        const oak_mesh_data *md = oak_mesh_get(model->meshes[i]);
        char fallback[64];
        const char *child_name = md && md->name && *md->name ? md->name : NULL;
        if (!child_name) {
            snprintf(fallback, sizeof fallback, "%s.%u", name && *name ? name : "mesh", i);
            child_name = fallback;
        }
        oak_entity child = oak_scene_create(scene, child_name);
        if (!child.id || oak_scene_set_parent(scene, child, root)) {
            oak_scene_destroy_entity(scene, root);
            return (oak_entity){0};
        }
        oak_mesh_renderer mr = {
            model->meshes[i], model->mesh_materials ? model->mesh_materials[i] : (oak_material){0},
            0};
        oak_scene_set_mesh_renderer(scene, child, &mr);
    }
    return root;
}
