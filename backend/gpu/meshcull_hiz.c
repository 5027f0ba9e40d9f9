/* Hi-Z per meshlet on the GPUs (meshcull_hiz.h): the placement of each
 * meshcull job's "visible last frame" words, made on the host before the
 * meshcull pass (Vulkan's vk_hiz.c, GL's gl_meshcull.c). */
#include "meshcull_hiz.h"

#include <stdbool.h>
#include <string.h>

#include <oak/core.h>

#include "shaders/common/oak_gpu.h"

/* head word 36 (base + 1) and job word 11: common/meshcull_hiz.glsl's
   OAK_MC_HIZ_BASE and OAK_MC_JOB_BITS */
#define HEAD_BASE_WORD 36
#define JOB_BITS_WORD  11

oak_result _oak_meshcull_hiz_place(_oak_meshcull_hiz_keys *k, uint32_t *w, uint32_t jobs,
                                   const oak_render_view *v, uint64_t base, uint64_t *words,
                                   const char *who) {
    *words = 0;
    if (!jobs) return OAK_OK;
    if (base + 1 >= UINT32_MAX)
        return oak_error(OAK_ERROR_LIMIT, "%s: Hi-Z's meshlet bits past 2^32 words", who);
    uint32_t keys = v->draws.key ? v->occ_keys : 0;
    if (keys > k->cap) {
        uint32_t cap = k->cap, c1 = cap, c2 = cap, c3 = cap;
        if (!OAK_GROW(k->at, c1, keys) || !OAK_GROW(k->mesh, c2, keys) ||
            !OAK_GROW(k->count, c3, keys) || !OAK_GROW(k->frame, cap, keys))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: Hi-Z's meshlet keys", who);
        for (uint32_t i = k->cap; i < cap; i++) k->at[i] = UINT32_MAX;
        memset(k->frame + k->cap, 0, (cap - k->cap) * sizeof(uint64_t));
        k->cap = cap;
    }
    const uint64_t stamp = k->stamp += 2; /* place 0's mark, then place 1's */
    uint64_t fresh = 0, all = 0;
    for (int place = 0; place < 2; place++) {
        /* the first round counts the new words; a reset (out of words, a
           cut) then places every key again; the second places them */
        for (uint32_t job = 0; job < jobs; job++) {
            uint32_t *jw =
                w + OAK_GPU_MESHCULL_HEAD_WORDS + (size_t)job * OAK_GPU_MESHCULL_JOB_WORDS;
            uint32_t d = jw[0], count = jw[2] & 0x7fffffffu;
            uint32_t key = keys ? v->draws.key[d] : UINT32_MAX, id = v->draws.mesh[d].id;
            bool keyed = key < keys && k->frame[key] != stamp + (uint64_t)place;
            bool same = keyed && !v->occ_cut && k->at[key] != UINT32_MAX && k->mesh[key] == id &&
                        k->count[key] == count;
            if (!place) {
                all += count;
                if (!same) fresh += count;
                if (keyed) k->frame[key] = stamp; /* met: a second meeting is fresh */
                continue;
            }
            if (keyed) k->frame[key] = stamp + 1;
            if (!same) {
                if (keyed) k->at[key] = k->next, k->mesh[key] = id, k->count[key] = count;
                jw[JOB_BITS_WORD] = k->next;
                k->next += count;
            } else {
                jw[JOB_BITS_WORD] = k->at[key];
            }
        }
        if (!place && (v->occ_cut || (uint64_t)k->next + fresh > k->words)) {
            for (uint32_t i = 0; i < k->cap; i++) k->at[i] = UINT32_MAX;
            k->next = 0;
            if (k->words < 2 * all) k->words = (uint32_t)(2 * all > 4096 ? 2 * all : 4096);
        }
    }
    w[HEAD_BASE_WORD] = (uint32_t)base + 1; /* oak_gpu.h: the head's Hi-Z words from 36 */
    *words = k->words;
    return OAK_OK;
}

void _oak_meshcull_hiz_keys_free(_oak_meshcull_hiz_keys *k) {
    oak_free(k->at);
    oak_free(k->mesh);
    oak_free(k->count);
    oak_free(k->frame);
    memset(k, 0, sizeof *k);
}
