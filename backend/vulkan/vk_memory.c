/* Device memory: a few large blocks per memory type, carved by first-fit free
 * lists (no allocation per resource); buffers and images placed in them;
 * retirement of objects the GPU may still read until their frame is done. */
#include <string.h>

#include "vk_internal.h"

/* ---- ranges ------------------------------------------------------------ */

void _oak_vk_ranges_init(_oak_vk_ranges *r, uint64_t total) {
    memset(r, 0, sizeof *r);
    r->total = total;
    if (total && OAK_GROW(r->free, r->capacity, 1)) r->free[r->count++] = (_oak_vk_range){0, total};
}

void _oak_vk_ranges_release(_oak_vk_ranges *r) {
    oak_free(r->free);
    memset(r, 0, sizeof *r);
}

uint64_t _oak_vk_ranges_alloc(_oak_vk_ranges *r, uint64_t size, uint64_t align) {
    if (!size) size = 1;
    if (!align) align = 1;
    for (uint32_t i = 0; i < r->count; i++) {
        _oak_vk_range *f = &r->free[i];
        uint64_t start = (f->offset + align - 1) / align * align;
        if (start + size > f->offset + f->size) continue;
        uint64_t head = start - f->offset, tail = f->offset + f->size - (start + size);
        if (head && tail) { /* split: keep the head here, the tail after it */
            if (!OAK_GROW(r->free, r->capacity, r->count + 1)) return UINT64_MAX;
            f = &r->free[i];
            memmove(&r->free[i + 2], &r->free[i + 1], (r->count - i - 1) * sizeof *f);
            r->free[i + 1] = (_oak_vk_range){start + size, tail};
            r->count++;
            f->size = head;
        } else if (head) {
            f->size = head;
        } else if (tail) {
            f->offset = start + size;
            f->size = tail;
        } else {
            memmove(&r->free[i], &r->free[i + 1], (r->count - i - 1) * sizeof *f);
            r->count--;
        }
        r->used += size;
        return start;
    }
    return UINT64_MAX;
}

bool _oak_vk_ranges_free(_oak_vk_ranges *r, uint64_t offset, uint64_t size) {
    if (!size) size = 1;
    uint32_t i = 0;
    while (i < r->count && r->free[i].offset < offset) i++;
    bool merge_prev = i > 0 && r->free[i - 1].offset + r->free[i - 1].size == offset;
    bool merge_next = i < r->count && offset + size == r->free[i].offset;
    r->used -= size;
    if (merge_prev && merge_next) {
        r->free[i - 1].size += size + r->free[i].size;
        memmove(&r->free[i], &r->free[i + 1], (r->count - i - 1) * sizeof *r->free);
        r->count--;
    } else if (merge_prev) {
        r->free[i - 1].size += size;
    } else if (merge_next) {
        r->free[i].offset = offset;
        r->free[i].size += size;
    } else {
        if (!OAK_GROW(r->free, r->capacity, r->count + 1)) return false;
        memmove(&r->free[i + 1], &r->free[i], (r->count - i) * sizeof *r->free);
        r->free[i] = (_oak_vk_range){offset, size};
        r->count++;
    }
    return true;
}

bool _oak_vk_ranges_grow(_oak_vk_ranges *r, uint64_t new_total) {
    if (new_total <= r->total) return true;
    uint64_t old = r->total;
    r->total = new_total;
    r->used += new_total - old; /* free() below takes it back off */
    return _oak_vk_ranges_free(r, old, new_total - old);
}

/* ---- blocks ------------------------------------------------------------ */

static int _oak_vk_find_type(_oak_vk *vk, uint32_t bits, VkMemoryPropertyFlags need,
                             VkMemoryPropertyFlags want) {
    for (int pass = 0; pass < 2; pass++) {
        VkMemoryPropertyFlags f = pass == 0 ? need | want : need;
        for (uint32_t i = 0; i < vk->mem_props.memoryTypeCount; i++)
            if ((bits & (1u << i)) && (vk->mem_props.memoryTypes[i].propertyFlags & f) == f)
                return (int)i;
    }
    return -1;
}

/* Sub-allocates from blocks of one memory type, taking a new block when
 * none has room. */
static oak_result _oak_vk_alloc_typed(_oak_vk *vk, const VkMemoryRequirements *req, int type,
                                      _oak_vk_alloc *out, void **mapped) {
    bool host =
        (vk->mem_props.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) != 0;
    /* First fit in an existing block of this type; host-visible and device
       blocks of one type are the same memory, so they share blocks. */
    for (uint32_t i = 0; i < vk->block_count; i++) {
        _oak_vk_block *b = &vk->blocks[i];
        if (!b->memory || b->type != (uint32_t)type) continue;
        uint64_t off = _oak_vk_ranges_alloc(&b->ranges, req->size, req->alignment);
        if (off == UINT64_MAX) continue;
        b->live++;
        vk->live_allocs++;
        *out = (_oak_vk_alloc){i + 1, off, req->size};
        if (mapped) *mapped = b->mapped ? (uint8_t *)b->mapped + off : NULL;
        return OAK_OK;
    }
    /* A new block: the usual size, or exactly this big for a huge resource. */
    uint64_t size = vk->block_size;
    if (req->size > size) size = req->size;
    uint32_t slot = vk->block_count;
    for (uint32_t i = 0; i < vk->block_count; i++)
        if (!vk->blocks[i].memory) {
            slot = i;
            break;
        }
    if (slot == vk->block_count) {
        if (!OAK_GROW(vk->blocks, vk->block_capacity, vk->block_count + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: block table");
        vk->block_count++;
    }
    _oak_vk_block *b = &vk->blocks[slot];
    memset(b, 0, sizeof *b);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = size,
                               .memoryTypeIndex = (uint32_t)type};
    VkResult r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    if (vk->fail_alloc_in <= 0 || --vk->fail_alloc_in > 0)
        r = vkAllocateMemory(vk->device, &ai, NULL, &b->memory);
    if (r != VK_SUCCESS) {
        b->memory = VK_NULL_HANDLE;
        return _oak_vk_fail(vk, r, "vkAllocateMemory", __FILE__, __LINE__);
    }
    if (host) {
        r = vkMapMemory(vk->device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped);
        if (r != VK_SUCCESS) {
            vkFreeMemory(vk->device, b->memory, NULL);
            b->memory = VK_NULL_HANDLE;
            return _oak_vk_fail(vk, r, "vkMapMemory", __FILE__, __LINE__);
        }
    }
    b->size = size;
    b->type = (uint32_t)type;
    _oak_vk_ranges_init(&b->ranges, size);
    vk->device_bytes += size;
    uint64_t off = _oak_vk_ranges_alloc(&b->ranges, req->size, req->alignment);
    if (off == UINT64_MAX) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: block ranges");
    b->live++;
    vk->live_allocs++;
    *out = (_oak_vk_alloc){slot + 1, off, req->size};
    if (mapped) *mapped = b->mapped ? (uint8_t *)b->mapped + off : NULL;
    return OAK_OK;
}

oak_result _oak_vk_memory_alloc(_oak_vk *vk, const VkMemoryRequirements *req, _oak_vk_mem_use use,
                                _oak_vk_alloc *out, void **mapped) {
    VkMemoryPropertyFlags need = 0, want = 0;
    switch (use) {
    case OAK_VK_MEM_DEVICE:
        want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    case OAK_VK_MEM_UPLOAD:
        need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        break;
    case OAK_VK_MEM_READBACK:
    case OAK_VK_MEM_STAGING:
        need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        want = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
        break;
    }
    int type = _oak_vk_find_type(vk, req->memoryTypeBits, need, want);
    if (type < 0)
        return oak_error(OAK_ERROR_DEVICE, "vulkan: no memory type for bits 0x%x",
                         req->memoryTypeBits);
    oak_result r = _oak_vk_alloc_typed(vk, req, type, out, mapped);
    /* A preferred heap that is full (a small BAR heap without resizable BAR,
       say) falls back to any type that meets the needs. */
    int other = want ? _oak_vk_find_type(vk, req->memoryTypeBits & ~(1u << type), need, 0) : -1;
    if (r == OAK_ERROR_OUT_OF_MEMORY && other >= 0 && !vk->lost) {
        oak_log_warn("vulkan: memory type %d is full, using type %d", type, other);
        r = _oak_vk_alloc_typed(vk, req, other, out, mapped);
    }
    return r;
}

/* An emptied block goes back to the driver unless it is the last of its type,
 * so steady churn does not allocate device memory again and again. */
void _oak_vk_memory_free(_oak_vk *vk, _oak_vk_alloc *a) {
    if (!a->block) return;
    _oak_vk_block *b = &vk->blocks[a->block - 1];
    _oak_vk_ranges_free(&b->ranges, a->offset, a->size);
    b->live--;
    vk->live_allocs--;
    if (!b->live) {
        uint32_t same = 0;
        for (uint32_t i = 0; i < vk->block_count; i++)
            same += vk->blocks[i].memory && vk->blocks[i].type == b->type;
        if (same > 1) {
            vkFreeMemory(vk->device, b->memory, NULL);
            vk->device_bytes -= b->size;
            _oak_vk_ranges_release(&b->ranges);
            memset(b, 0, sizeof *b);
        }
    }
    memset(a, 0, sizeof *a);
}

void _oak_vk_memory_release_all(_oak_vk *vk) {
    for (uint32_t i = 0; i < vk->block_count; i++) {
        _oak_vk_block *b = &vk->blocks[i];
        if (b->memory) {
            vkFreeMemory(vk->device, b->memory, NULL);
            vk->device_bytes -= b->size;
        }
        _oak_vk_ranges_release(&b->ranges);
    }
    oak_free(vk->blocks);
    vk->blocks = NULL;
    vk->block_count = vk->block_capacity = 0;
}

/* ---- buffers and images ------------------------------------------------ */

oak_result _oak_vk_buffer_create(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                                 VkBufferUsageFlags usage, _oak_vk_mem_use use) {
    memset(b, 0, sizeof *b);
    VkBufferCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size ? size : 16,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    OAK_VK_TRY(vk, vkCreateBuffer(vk->device, &ci, NULL, &b->buffer));
    vk->live_buffers++;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(vk->device, b->buffer, &req);
    oak_result res = _oak_vk_memory_alloc(vk, &req, use, &b->alloc, &b->mapped);
    if (res) {
        _oak_vk_buffer_destroy(vk, b);
        return res;
    }
    _oak_vk_block *blk = &vk->blocks[b->alloc.block - 1];
    VkResult r = vkBindBufferMemory(vk->device, b->buffer, blk->memory, b->alloc.offset);
    if (r != VK_SUCCESS) {
        _oak_vk_buffer_destroy(vk, b);
        return _oak_vk_fail(vk, r, "vkBindBufferMemory", __FILE__, __LINE__);
    }
    b->size = ci.size;
    return OAK_OK;
}

void _oak_vk_buffer_destroy(_oak_vk *vk, _oak_vk_buffer *b) {
    if (b->buffer) {
        vkDestroyBuffer(vk->device, b->buffer, NULL);
        vk->live_buffers--;
    }
    _oak_vk_memory_free(vk, &b->alloc);
    memset(b, 0, sizeof *b);
}

oak_result _oak_vk_image_create(_oak_vk *vk, _oak_vk_image *img, VkFormat format, uint32_t w,
                                uint32_t h, uint32_t layers, uint32_t mips, VkImageUsageFlags usage,
                                bool array) {
    memset(img, 0, sizeof *img);
    VkImageCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                            .imageType = VK_IMAGE_TYPE_2D,
                            .format = format,
                            .extent = {w, h, 1},
                            .mipLevels = mips,
                            .arrayLayers = layers,
                            .samples = VK_SAMPLE_COUNT_1_BIT,
                            .tiling = VK_IMAGE_TILING_OPTIMAL,
                            .usage = usage,
                            .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    OAK_VK_TRY(vk, vkCreateImage(vk->device, &ci, NULL, &img->image));
    vk->live_images++;
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(vk->device, img->image, &req);
    oak_result res = _oak_vk_memory_alloc(vk, &req, OAK_VK_MEM_DEVICE, &img->alloc, NULL);
    if (res) {
        _oak_vk_image_destroy(vk, img);
        return res;
    }
    _oak_vk_block *blk = &vk->blocks[img->alloc.block - 1];
    VkResult r = vkBindImageMemory(vk->device, img->image, blk->memory, img->alloc.offset);
    if (r != VK_SUCCESS) {
        _oak_vk_image_destroy(vk, img);
        return _oak_vk_fail(vk, r, "vkBindImageMemory", __FILE__, __LINE__);
    }
    bool depth = format == VK_FORMAT_D32_SFLOAT;
    VkImageViewCreateInfo vi = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = img->image,
        .viewType = array ? VK_IMAGE_VIEW_TYPE_2D_ARRAY : VK_IMAGE_VIEW_TYPE_2D,
        .format = format,
        .subresourceRange = {depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0, mips,
                             0, layers}};
    r = vkCreateImageView(vk->device, &vi, NULL, &img->view);
    if (r != VK_SUCCESS) {
        img->view = VK_NULL_HANDLE;
        _oak_vk_image_destroy(vk, img);
        return _oak_vk_fail(vk, r, "vkCreateImageView", __FILE__, __LINE__);
    }
    vk->live_views++;
    img->format = format;
    img->width = w;
    img->height = h;
    img->layers = layers;
    img->mips = mips;
    img->layout = VK_IMAGE_LAYOUT_UNDEFINED;
    return OAK_OK;
}

void _oak_vk_image_destroy(_oak_vk *vk, _oak_vk_image *img) {
    if (img->view) {
        vkDestroyImageView(vk->device, img->view, NULL);
        vk->live_views--;
    }
    if (img->image) {
        vkDestroyImage(vk->device, img->image, NULL);
        vk->live_images--;
    }
    _oak_vk_memory_free(vk, &img->alloc);
    memset(img, 0, sizeof *img);
}

/* ---- retirement -------------------------------------------------------- */

static oak_result _oak_vk_retire(_oak_vk *vk, _oak_vk_garbage g) {
    _oak_vk_frame *f = &vk->frames[vk->slot];
    if (!OAK_GROW(f->garbage, f->garbage_capacity, f->garbage_count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: garbage list");
    f->garbage[f->garbage_count++] = g;
    return OAK_OK;
}

oak_result _oak_vk_buffer_retire(_oak_vk *vk, _oak_vk_buffer *b) {
    if (!b->buffer) return OAK_OK;
    oak_result r = _oak_vk_retire(vk, (_oak_vk_garbage){.buffer = b->buffer, .alloc = b->alloc});
    if (r) return r;
    memset(b, 0, sizeof *b);
    return OAK_OK;
}

oak_result _oak_vk_target_buffer_fit(_oak_vk *vk, _oak_vk_buffer *b, oak_target_id target,
                                     uint64_t bytes) {
    if (b->buffer && b->size >= bytes) return OAK_OK;
    oak_result r = _oak_vk_buffer_retire(vk, b);
    if (r) return r;
    _oak_vk_track_reset(vk, target);
    return _oak_vk_buffer_create(vk, b, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 OAK_VK_MEM_DEVICE);
}

oak_result _oak_vk_image_retire(_oak_vk *vk, _oak_vk_image *img) {
    if (!img->image) return OAK_OK;
    oak_result r = _oak_vk_retire(
        vk, (_oak_vk_garbage){.image = img->image, .view = img->view, .alloc = img->alloc});
    if (r) return r;
    memset(img, 0, sizeof *img);
    return OAK_OK;
}

void _oak_vk_garbage_collect(_oak_vk *vk, _oak_vk_frame *f) {
    for (uint32_t i = 0; i < f->garbage_count; i++) {
        _oak_vk_garbage *g = &f->garbage[i];
        if (g->view) {
            vkDestroyImageView(vk->device, g->view, NULL);
            vk->live_views--;
        }
        if (g->image) {
            vkDestroyImage(vk->device, g->image, NULL);
            vk->live_images--;
        }
        if (g->buffer) {
            vkDestroyBuffer(vk->device, g->buffer, NULL);
            vk->live_buffers--;
        }
        _oak_vk_memory_free(vk, &g->alloc);
    }
    f->garbage_count = 0;
}

oak_result _oak_vk_upload_reserve(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                                  VkBufferUsageFlags usage) {
    if (b->buffer && b->size >= size) return OAK_OK;
    uint64_t cap = b->size ? b->size : 4096;
    while (cap < size) cap *= 2;
    oak_result r = _oak_vk_buffer_retire(vk, b);
    if (r) return r;
    return _oak_vk_buffer_create(vk, b, cap, usage, OAK_VK_MEM_UPLOAD);
}

oak_result _oak_vk_buffer_grow(_oak_vk *vk, _oak_vk_buffer *b, uint64_t size,
                               VkBufferUsageFlags usage, _oak_vk_mem_use use, bool keep) {
    if (b->buffer && b->size >= size) return OAK_OK;
    uint64_t cap = b->size ? b->size : 4096;
    while (cap < size) cap *= 2;
    _oak_vk_buffer nb;
    oak_result r = _oak_vk_buffer_create(
        vk, &nb, cap, usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        use);
    if (r) return r;
    if (keep && b->buffer) {
        r = _oak_vk_frame_begin(vk);
        if (r) {
            _oak_vk_buffer_destroy(vk, &nb);
            return r;
        }
        VkCommandBuffer cmd = vk->frames[vk->slot].cmd;
        /* Earlier copies into the old buffer this frame must land first. */
        _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        VkBufferCopy region = {0, 0, b->size};
        vkCmdCopyBuffer(cmd, b->buffer, nb.buffer, 1, &region);
        _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    r = _oak_vk_buffer_retire(vk, b);
    if (r) {
        _oak_vk_buffer_destroy(vk, &nb);
        return r;
    }
    *b = nb;
    return OAK_OK;
}
