/* Keeps Vulkan driver and layer libraries mapped once the loader has opened them.
 * The loader unloads a driver when its instance goes; anything the driver
 * never freed then points into an unmapped module, which LeakSanitizer can
 * neither name nor suppress (tests/lsan.supp lists drivers by module). It
 * also spares a second device start the driver's reload. */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "vk_internal.h"

static int pin_one(struct dl_phdr_info *info, size_t size, void *user) {
    (void)size, (void)user;
    const char *name = info->dlpi_name;
    const char *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name;
    /* ICDs are named libvulkan_<driver>.so (Mesa) — the loader is libvulkan.so.1;
       layers libVkLayer_<name>.so (the validation layer keeps global tables,
       and a window's run makes three instances one after another) */
    if (base && (strncmp(base, "libvulkan_", 10) == 0 || strncmp(base, "libVkLayer_", 11) == 0)) {
        void *h = dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (h) dlclose(h); /* NODELETE keeps it mapped after this close */
    }
    return 0;
}

void _oak_vk_pin_drivers(void) {
    dl_iterate_phdr(pin_one, NULL);
}
