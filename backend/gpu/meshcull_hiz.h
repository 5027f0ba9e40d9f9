/* Hi-Z per meshlet on the GPUs (docs/ARCHITECTURE.md "Occlusion per
 * meshlet"): where each meshcull job's "visible last frame" words lie in
 * OAK_B_HIZ_KEEP, placed by the draw's key so a draw finds its words again
 * next frame. One placement for Vulkan and GL, so both cull alike. */
#ifndef OAK_BACKEND_GPU_MESHCULL_HIZ_H
#define OAK_BACKEND_GPU_MESHCULL_HIZ_H

#include <stdint.h>

#include <oak/backend.h>

/* Per key its first word (UINT32_MAX: none), mesh id, meshlet count and
   the stamp of the placement that last met it; the next free word, the
   words the bits may take and the last stamp. Zero is empty. */
typedef struct _oak_meshcull_hiz_keys {
    uint32_t *at, *mesh, *count;
    uint64_t *frame, stamp;
    uint32_t cap;
    uint32_t next, words;
} _oak_meshcull_hiz_keys;

/* Places the words of the first `jobs` jobs of a meshcull buffer's host
   words `w` (head, then jobs; the jobs' draws index v->draws): writes each
   job's word 11 (its first word after the base) and the head's word 36
   (base + 1, base the first word after the streams' bits). A key keeps
   its words while its mesh and meshlet count stay; a new one takes the
   next free words; when they run out, or on a camera cut, every key is
   placed anew. No two jobs share a word (a key met twice, or a view
   without keys, takes fresh words): EARLY and LATE read a word before LATE
   writes it. A word another key left costs pass-1 or pass-2 draws only,
   never a wrong picture. *words: the words the bits may take after base.
   `who` names the backend in the one-line error. */
oak_result _oak_meshcull_hiz_place(_oak_meshcull_hiz_keys *k, uint32_t *w, uint32_t jobs,
                                   const oak_render_view *v, uint64_t base, uint64_t *words,
                                   const char *who);
/* Frees the keys and empties *k. */
void _oak_meshcull_hiz_keys_free(_oak_meshcull_hiz_keys *k);

#endif
