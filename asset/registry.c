/* The asset registry: pools for meshes, textures and materials made on first
 * use and emptied by an oak_shutdown hook, so every asset is freed with the
 * engine; also slot iteration for backends that mirror the registry. */
#include "registry.h"

#include "core/internal.h"

static _oak_registry g_reg;
static bool g_reg_live;

static void registry_shutdown(void) {
    if (!g_reg_live) return;
    for (uint32_t s = 0; s < g_reg.meshes.high_water; s++) {
        uint32_t id = oak_pool_slot_id(&g_reg.meshes, s);
        if (id) _oak_mesh_data_free(oak_pool_get(&g_reg.meshes, id));
    }
    for (uint32_t s = 0; s < g_reg.textures.high_water; s++) {
        uint32_t id = oak_pool_slot_id(&g_reg.textures, s);
        if (id) _oak_texture_data_free(oak_pool_get(&g_reg.textures, id));
    }
    for (uint32_t s = 0; s < g_reg.materials.high_water; s++) {
        uint32_t id = oak_pool_slot_id(&g_reg.materials, s);
        if (id) _oak_material_data_free(oak_pool_get(&g_reg.materials, id));
    }
    oak_pool_release(&g_reg.meshes);
    oak_pool_release(&g_reg.textures);
    oak_pool_release(&g_reg.materials);
    oak_map_release(&g_reg.texture_cache);
    _oak_paint_shutdown();
    /* versions keep counting across engine restarts so a backend that
       outlives one never mistakes a new asset for an old one */
    uint32_t version = atomic_load(&g_reg.version);
    g_reg = (_oak_registry){0};
    atomic_store(&g_reg.version, version);
    g_reg_live = false;
}

_oak_registry *_oak_registry_get(void) {
    if (g_reg_live) return &g_reg;
    if (oak_pool_init(&g_reg.meshes, sizeof(oak_mesh_data), 64) ||
        oak_pool_init(&g_reg.textures, sizeof(_oak_texture_slot), 64) ||
        oak_pool_init(&g_reg.materials, sizeof(oak_material_data), 64)) {
        oak_pool_release(&g_reg.meshes);
        oak_pool_release(&g_reg.textures);
        oak_pool_release(&g_reg.materials);
        oak_error(OAK_ERROR_OUT_OF_MEMORY, "asset registry: cannot create its pools");
        return NULL;
    }
    g_reg_live = true;
    _oak_on_shutdown(registry_shutdown);
    return &g_reg;
}

_oak_registry *_oak_registry_peek(void) {
    return g_reg_live ? &g_reg : NULL;
}

/* Atomic: vertex updates of distinct meshes may run on several job workers
   at once (asset.h oak_mesh_update_vertices). 0 is skipped. */
uint32_t _oak_next_version(void) {
    uint32_t v = atomic_fetch_add(&g_reg.version, 1u) + 1u;
    return v ? v : atomic_fetch_add(&g_reg.version, 1u) + 1u;
}

uint32_t oak_mesh_slots(void) {
    return g_reg_live ? g_reg.meshes.high_water : 0;
}

oak_mesh oak_mesh_at_slot(uint32_t slot) {
    oak_mesh m = {0};
    if (g_reg_live) m.id = oak_pool_slot_id(&g_reg.meshes, slot);
    return m;
}
