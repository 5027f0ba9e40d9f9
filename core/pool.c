/* Generational pools: fixed-size items addressed by ids that go stale when the
 * item is freed, so a dangling handle is caught instead of aliasing. */
#include <string.h>

#include "internal.h"

#define INDEX_MASK ((1u << OAK_HANDLE_INDEX_BITS) - 1u)
#define GEN_MASK   ((1u << OAK_HANDLE_GEN_BITS) - 1u)
#define LIVE_BIT   0x80000000u
#define MAX_SLOTS  (INDEX_MASK - 1u)

oak_result oak_pool_init(oak_pool *pool, uint32_t item_size, uint32_t capacity) {
    memset(pool, 0, sizeof *pool);
    pool->item_size = item_size ? item_size : 1;
    if (!capacity) capacity = 64;
    pool->items = oak_calloc(capacity, pool->item_size);
    pool->generations = oak_calloc(capacity, sizeof(uint32_t));
    pool->free_slots = oak_calloc(capacity, sizeof(uint32_t));
    if (!pool->items || !pool->generations || !pool->free_slots) {
        oak_pool_release(pool);
        return OAK_ERROR_OUT_OF_MEMORY;
    }
    pool->capacity = capacity;
    return OAK_OK;
}

void oak_pool_release(oak_pool *pool) {
    oak_free(pool->items);
    oak_free(pool->generations);
    oak_free(pool->free_slots);
    memset(pool, 0, sizeof *pool);
}

static bool pool_grow(oak_pool *pool) {
    uint32_t cap = pool->capacity ? pool->capacity * 2 : 64;
    if (cap > MAX_SLOTS) cap = MAX_SLOTS;
    if (cap <= pool->capacity) {
        oak_error(OAK_ERROR_LIMIT, "pool is full at %u items (OAK_HANDLE_INDEX_BITS)",
                  pool->capacity);
        return false;
    }
    uint8_t *items = oak_realloc(pool->items, (size_t)cap * pool->item_size);
    if (!items) return false;
    pool->items = items;
    uint32_t *gens = oak_realloc(pool->generations, cap * sizeof(uint32_t));
    if (!gens) return false;
    pool->generations = gens;
    uint32_t *fs = oak_realloc(pool->free_slots, cap * sizeof(uint32_t));
    if (!fs) return false;
    pool->free_slots = fs;
    memset(pool->generations + pool->capacity, 0, (cap - pool->capacity) * sizeof(uint32_t));
    pool->capacity = cap;
    return true;
}

/* The free slots are a binary min-heap, so an alloc takes the lowest free
   slot: the same allocations after the same frees get the same slots,
   whatever order the frees came in. Slot indices order things (the
   frontend sorts draws by their material's and mesh's: triangle ids, and
   with them the winner of a depth tie), so a world built again in the same
   process (its assets freed, made anew) draws the same bytes; a last-freed-
   first stack handed the slots out reversed. */
static void heap_push(uint32_t *h, uint32_t n, uint32_t v) {
    while (n) {
        uint32_t up = (n - 1) / 2;
        if (h[up] <= v) break;
        h[n] = h[up];
        n = up;
    }
    h[n] = v;
}
static uint32_t heap_pop(uint32_t *h, uint32_t n) { /* n: the count before */
    uint32_t top = h[0], last = h[n - 1], i = 0;
    n--;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (last <= h[c]) break;
        h[i] = h[c];
        i = c;
    }
    if (n) h[i] = last;
    return top;
}

uint32_t oak_pool_alloc(oak_pool *pool) {
    uint32_t slot;
    if (pool->free_count) {
        slot = heap_pop(pool->free_slots, pool->free_count--);
    } else {
        if (pool->high_water == pool->capacity && !pool_grow(pool)) return OAK_INVALID_ID;
        slot = pool->high_water++;
    }
    uint32_t gen = ((pool->generations[slot] & GEN_MASK) + 1) & GEN_MASK;
    if (!gen) gen = 1;
    pool->generations[slot] = gen | LIVE_BIT;
    pool->live++;
    memset(pool->items + (size_t)slot * pool->item_size, 0, pool->item_size);
    return (gen << OAK_HANDLE_INDEX_BITS) | (slot + 1);
}

static bool slot_of(const oak_pool *pool, uint32_t id, uint32_t *slot) {
    uint32_t idx = id & INDEX_MASK;
    if (!idx || idx > pool->high_water) return false;
    uint32_t g = pool->generations[idx - 1];
    if (!(g & LIVE_BIT) || (g & GEN_MASK) != (id >> OAK_HANDLE_INDEX_BITS)) return false;
    *slot = idx - 1;
    return true;
}

bool oak_pool_valid(const oak_pool *pool, uint32_t id) {
    uint32_t s;
    return slot_of(pool, id, &s);
}

void *oak_pool_get(const oak_pool *pool, uint32_t id) {
    uint32_t s;
    return slot_of(pool, id, &s) ? pool->items + (size_t)s * pool->item_size : NULL;
}

void oak_pool_free(oak_pool *pool, uint32_t id) {
    uint32_t s;
    if (!slot_of(pool, id, &s)) return;
    pool->generations[s] &= ~LIVE_BIT;
    heap_push(pool->free_slots, pool->free_count++, s);
    pool->live--;
}

uint32_t oak_pool_slot_id(const oak_pool *pool, uint32_t slot) {
    if (slot >= pool->high_water) return OAK_INVALID_ID;
    uint32_t g = pool->generations[slot];
    if (!(g & LIVE_BIT)) return OAK_INVALID_ID;
    return ((g & GEN_MASK) << OAK_HANDLE_INDEX_BITS) | (slot + 1);
}
