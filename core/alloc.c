/* Heap hooks, the doubling grow helper and the per-frame arena. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void *sys_alloc(void *u, size_t s) {
    (void)u;
    return malloc(s);
}
static void *sys_realloc(void *u, void *p, size_t s) {
    (void)u;
    return realloc(p, s);
}
static void sys_free(void *u, void *p) {
    (void)u;
    free(p);
}

static oak_allocator g_alloc = {sys_alloc, sys_realloc, sys_free, NULL};

void _oak_alloc_configure(const oak_allocator *a) {
    if (a && a->alloc && a->realloc && a->free)
        g_alloc = *a;
    else
        g_alloc = (oak_allocator){sys_alloc, sys_realloc, sys_free, NULL};
}

void *oak_alloc(size_t size) {
    void *p = g_alloc.alloc(g_alloc.user, size ? size : 1);
    if (!p) oak_error(OAK_ERROR_OUT_OF_MEMORY, "out of memory allocating %zu bytes", size);
    return p;
}

void *oak_calloc(size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) {
        oak_error(OAK_ERROR_OUT_OF_MEMORY, "allocation of %zu x %zu bytes overflows", count, size);
        return NULL;
    }
    void *p = oak_alloc(count * size);
    if (p) memset(p, 0, count * size);
    return p;
}

void *oak_realloc(void *ptr, size_t size) {
    void *p = g_alloc.realloc(g_alloc.user, ptr, size ? size : 1);
    if (!p) oak_error(OAK_ERROR_OUT_OF_MEMORY, "out of memory growing to %zu bytes", size);
    return p;
}

void oak_free(void *ptr) {
    if (ptr) g_alloc.free(g_alloc.user, ptr);
}

char *oak_strdup(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = oak_alloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

bool oak_grow(void **array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity) return true;
    uint64_t cap = *capacity ? *capacity : 16;
    while (cap < need) cap *= 2;
    if (cap > UINT32_MAX) cap = UINT32_MAX;
    if (cap < need || cap * elem > SIZE_MAX / 2) {
        oak_error(OAK_ERROR_OUT_OF_MEMORY, "array of %u items of %zu bytes is too large", need,
                  elem);
        return false;
    }
    void *p = oak_realloc(*array, (size_t)cap * elem);
    if (!p) return false;
    *array = p;
    *capacity = (uint32_t)cap;
    return true;
}

/* ---- arena ------------------------------------------------------------ */

typedef struct overflow_block {
    struct overflow_block *next;
    size_t size;
} overflow_block;

oak_result oak_arena_init(oak_arena *arena, size_t capacity) {
    memset(arena, 0, sizeof *arena);
    if (!capacity) capacity = OAK_FRAME_ARENA_SIZE;
    arena->base = oak_alloc(capacity);
    if (!arena->base) return OAK_ERROR_OUT_OF_MEMORY;
    arena->capacity = capacity;
    return OAK_OK;
}

static void free_overflow(oak_arena *arena) {
    overflow_block *b = arena->overflow;
    while (b) {
        overflow_block *next = b->next;
        oak_free(b);
        b = next;
    }
    arena->overflow = NULL;
    arena->overflow_size = 0;
}

void oak_arena_release(oak_arena *arena) {
    free_overflow(arena);
    oak_free(arena->base);
    memset(arena, 0, sizeof *arena);
}

void *oak_arena_alloc(oak_arena *arena, size_t size, size_t align) {
    if (align < 16) align = 16;
    size_t at = (arena->used + align - 1) & ~(align - 1);
    if (arena->base && at + size <= arena->capacity) {
        arena->used = at + size;
        if (arena->used + arena->overflow_size > arena->peak)
            arena->peak = arena->used + arena->overflow_size;
        return arena->base + at;
    }
    /* Overflow: a block of its own for this frame; reset folds it in. */
    size_t total = sizeof(overflow_block) + align + size;
    overflow_block *b = oak_alloc(total);
    if (!b) return NULL;
    b->next = arena->overflow;
    b->size = total;
    arena->overflow = b;
    arena->overflow_size += total;
    if (arena->used + arena->overflow_size > arena->peak)
        arena->peak = arena->used + arena->overflow_size;
    uintptr_t p = ((uintptr_t)(b + 1) + align - 1) & ~(uintptr_t)(align - 1);
    return (void *)p;
}

void oak_arena_reset(oak_arena *arena) {
    if (arena->overflow) {
        size_t want = arena->peak + arena->peak / 4;
        free_overflow(arena);
        void *nb = oak_alloc(want);
        if (nb) {
            oak_free(arena->base);
            arena->base = nb;
            arena->capacity = want;
        }
    }
    arena->used = 0;
}
