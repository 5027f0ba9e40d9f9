/* The Vulkan pipeline cache kept on disk: read when the device starts (the
 * driver checks the header's vendor, device and cache UUID and ignores data
 * not its own), written back when the renderer is destroyed, through a
 * temporary file and a rename so a crash never leaves half a file. Where:
 * _oak_cache_dir (core/cache_dir.c: $OAK_CACHE_DIR, else $XDG_CACHE_HOME/oak,
 * else $HOME/.cache/oak); one file per device. No folder to write to means
 * no cache, said at info level. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "vk_internal.h"

/* Large enough for every pipeline oak makes many times over. */
#define OAK_VK_CACHE_MAX_BYTES (64u << 20)

static bool cache_path(const _oak_vk *vk, char *out, size_t size) {
    char dir[1024];
    if (!_oak_cache_dir(dir, sizeof dir)) return false;
    char uuid[2 * VK_UUID_SIZE + 1];
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++)
        snprintf(uuid + 2 * i, 3, "%02x", vk->props.pipelineCacheUUID[i]);
    int n = snprintf(out, size, "%s/vulkan-%04x-%04x-%s.bin", dir, vk->props.vendorID,
                     vk->props.deviceID, uuid);
    return n > 0 && (size_t)n < size;
}

oak_result _oak_vk_pipeline_cache_open(_oak_vk *vk) {
    vk->pipeline_cache_loaded = 0;
    char path[1200];
    void *data = NULL;
    size_t size = 0;
    if (cache_path(vk, path, sizeof path)) {
        FILE *f = fopen(path, "rb");
        if (f) {
            if (fseek(f, 0, SEEK_END) == 0) {
                long len = ftell(f);
                if (len > 0 && (unsigned long)len <= OAK_VK_CACHE_MAX_BYTES &&
                    fseek(f, 0, SEEK_SET) == 0 && (data = oak_alloc((size_t)len)) &&
                    fread(data, 1, (size_t)len, f) == (size_t)len)
                    size = (size_t)len;
            }
            fclose(f);
        }
    } else {
        oak_log_info(
            "vulkan: no folder for a pipeline cache (OAK_CACHE_DIR, XDG_CACHE_HOME, HOME)");
    }
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = size,
                                    .pInitialData = size ? data : NULL};
    VkResult vr = vkCreatePipelineCache(vk->device, &ci, NULL, &vk->pipeline_cache);
    if (vr != VK_SUCCESS && size) { /* data the driver refuses outright: start empty */
        ci.initialDataSize = 0, ci.pInitialData = NULL;
        vr = vkCreatePipelineCache(vk->device, &ci, NULL, &vk->pipeline_cache);
        size = 0;
    }
    oak_free(data);
    if (vr != VK_SUCCESS) {
        vk->pipeline_cache = VK_NULL_HANDLE; /* pipelines are made without one */
        return OAK_OK;
    }
    vk->pipeline_cache_loaded = size;
    if (size) oak_log_info("vulkan: pipeline cache: %zu bytes from %s", size, path);
    return OAK_OK;
}

void _oak_vk_pipeline_cache_close(_oak_vk *vk) {
    if (!vk->pipeline_cache) return;
    char path[1200], tmp[1300];
    size_t size = 0;
    void *data = NULL;
    if (!vk->lost && cache_path(vk, path, sizeof path) &&
        vkGetPipelineCacheData(vk->device, vk->pipeline_cache, &size, NULL) == VK_SUCCESS && size &&
        size <= OAK_VK_CACHE_MAX_BYTES && (data = oak_alloc(size)) &&
        vkGetPipelineCacheData(vk->device, vk->pipeline_cache, &size, data) == VK_SUCCESS) {
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
        FILE *f = fopen(tmp, "wb");
        bool ok = f && fwrite(data, 1, size, f) == size;
        if (f && fclose(f) != 0) ok = false;
        if (!ok || rename(tmp, path) != 0) {
            remove(tmp);
            oak_log_info("vulkan: the pipeline cache could not be written to %s", path);
        }
    }
    oak_free(data);
    vkDestroyPipelineCache(vk->device, vk->pipeline_cache, NULL);
    vk->pipeline_cache = VK_NULL_HANDLE;
}
