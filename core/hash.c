/* A stable 64-bit hash (FNV-1a folded through a 64-bit finalizer) and an
 * open-addressing map from 64-bit keys to 32-bit values. */
#include <string.h>

#include "internal.h"

static uint64_t mix64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

uint64_t oak_hash(const void *data, size_t size, uint64_t seed) {
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ mix64(seed + 0x9e3779b97f4a7c15ull);
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return mix64(h ^ size);
}

uint64_t oak_hash_str(const char *s) {
    return oak_hash(s, s ? strlen(s) : 0, 0);
}

/* Key 0 marks an empty slot; linear probing, deletion by backward shift so
   no tombstones pile up. */
static uint32_t slot_for(const oak_map *m, uint64_t key) {
    return (uint32_t)(mix64(key) & (m->capacity - 1));
}

static oak_result map_rehash(oak_map *m, uint32_t cap) {
    uint64_t *keys = oak_calloc(cap, sizeof(uint64_t));
    uint32_t *vals = oak_calloc(cap, sizeof(uint32_t));
    if (!keys || !vals) {
        oak_free(keys);
        oak_free(vals);
        return OAK_ERROR_OUT_OF_MEMORY;
    }
    oak_map old = *m;
    m->keys = keys;
    m->values = vals;
    m->capacity = cap;
    m->count = 0;
    for (uint32_t i = 0; i < old.capacity; i++)
        if (old.keys[i]) oak_map_set(m, old.keys[i], old.values[i]);
    oak_free(old.keys);
    oak_free(old.values);
    return OAK_OK;
}

void oak_map_release(oak_map *m) {
    oak_free(m->keys);
    oak_free(m->values);
    memset(m, 0, sizeof *m);
}

oak_result oak_map_set(oak_map *m, uint64_t key, uint32_t value) {
    if (!key) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "map key 0 is reserved");
    if ((m->count + 1) * 4 > m->capacity * 3) {
        oak_result r = map_rehash(m, m->capacity ? m->capacity * 2 : 16);
        if (r) return r;
    }
    for (uint32_t i = slot_for(m, key);; i = (i + 1) & (m->capacity - 1)) {
        if (m->keys[i] == key) {
            m->values[i] = value;
            return OAK_OK;
        }
        if (!m->keys[i]) {
            m->keys[i] = key;
            m->values[i] = value;
            m->count++;
            return OAK_OK;
        }
    }
}

bool oak_map_get(const oak_map *m, uint64_t key, uint32_t *value) {
    if (!m->capacity || !key) return false;
    for (uint32_t i = slot_for(m, key);; i = (i + 1) & (m->capacity - 1)) {
        if (m->keys[i] == key) {
            if (value) *value = m->values[i];
            return true;
        }
        if (!m->keys[i]) return false;
    }
}

bool oak_map_remove(oak_map *m, uint64_t key) {
    if (!m->capacity || !key) return false;
    uint32_t mask = m->capacity - 1, i = slot_for(m, key);
    while (m->keys[i] != key) {
        if (!m->keys[i]) return false;
        i = (i + 1) & mask;
    }
    /* Backward-shift: pull later entries of the run into the hole. */
    for (uint32_t j = (i + 1) & mask; m->keys[j]; j = (j + 1) & mask) {
        uint32_t home = slot_for(m, m->keys[j]);
        bool movable = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->values[i] = m->values[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->count--;
    return true;
}
