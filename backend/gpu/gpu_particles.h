/* The particles pass's blocks, laid out alike by both GPU backends
 * (backend/vulkan/vk_pass_particles.c, backend/gl/gl_pass_particles.c;
 * shaders/particles.comp.glsl). A flipbook's frames are streams sharing one
 * block: it goes up and runs once, at the first of them in the view. */
#ifndef OAK_GPU_PARTICLES_H
#define OAK_GPU_PARTICLES_H

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* the bytes before the particles: the constants, then the head's uints */
#define OAK_GPU_PARTICLE_HEAD_BYTES                                                                \
    (sizeof(oak_gpu_particle_emitter) + sizeof(uint32_t) * OAK_GPU_PARTICLE_HEAD_UINTS)

/* Stream s of the view's first ns holds a block no stream before it holds
   (each block runs once). */
bool _oak_gpu_particle_block_leads(const oak_render_view *v, uint32_t ns, uint32_t s);
/* The frames of the "over" flipbook whose frame stream rs is, sorted on
   the device (oak_render_stream.device_sort; each frame stream counts
   every particle, each frame's place holds particle i at i where it is in
   that frame, an empty record, scale -1, elsewhere); 1 for any other. */
uint32_t _oak_gpu_book_frames(const oak_render_stream *rs);
/* The particles in stream rs's block (its constants' time.y: every frame
   stream of a flipbook counts only its own records). */
uint32_t _oak_gpu_particle_count(const oak_render_stream *rs);
/* The head of leading stream s's block (OAK_GPU_PARTICLE_HEAD_BYTES into
   out): its constants with the view's dt and the targets (its records from
   `here`, last frame's copies `total` records on); a flipbook's frames'
   places from their streams' places in the view (a frame with no stream
   among the first ns gets none). The work groups to dispatch. */
uint32_t _oak_gpu_particle_head(const oak_render_view *v, uint32_t ns, uint32_t s, uint64_t here,
                                uint64_t total, uint8_t *out);

/* A BLEND stream whose draw records the device writes
   (oak_render_stream.device_blend): the slots of stream s among them, from
   the first slot on (stream order: the counts of those before s); s = ns
   gives them all. */
uint32_t _oak_gpu_blend_slot(const oak_render_view *v, uint32_t ns, uint32_t s);
/* The draw kernel's jobs (shaders/particles_draws.comp.glsl: two uvec4s
   each, at most OAK_STREAM_MAX_PER_VIEW) for the view's device BLEND
   streams whose one draw is among the view's draws: the template draw, the
   records from `here` (last frame's copies `total` records on), the slots
   from `slots_from` on. The jobs made; *most the largest count. */
uint32_t _oak_gpu_blend_jobs(const oak_render_view *v, uint32_t slots_from, uint32_t jobs[][8],
                             uint32_t *most);

/* The draw kernel's buffer opens with its jobs (two uvec4s a stream), then
   one uvec4 a job whose x the kernel writes for an "over" book's frame:
   the frame's own count (shaders/particles_draws.comp.glsl COUNTS_AT); the
   emitter blocks start past both. */
#define OAK_GPU_BOOK_COUNTS_AT      (OAK_STREAM_MAX_PER_VIEW * 8 * sizeof(uint32_t))
#define OAK_GPU_PARTICLE_JOBS_BYTES (OAK_GPU_BOOK_COUNTS_AT + OAK_STREAM_MAX_PER_VIEW * 16)
/* The "over" books' frame jobs among the draw kernel's n jobs (jobs[j][6]
   still the stream: before _oak_gpu_blend_jobs_sorted) and each one's
   BLEND command among the nb the blend pass draws (blend_draw[k] command
   k's draw, whose unit is the stream's): out[i] = {job, command, the
   frame}. The backend copies the count the kernel wrote for the job
   (OAK_GPU_BOOK_COUNTS_AT + 16 job bytes) into that command's instance
   count, so a frame draws its own particles alone. Returns how many. */
uint32_t _oak_gpu_book_count_cmds(const oak_render_view *v, const uint32_t jobs[][8], uint32_t n,
                                  const uint32_t *blend_draw, uint32_t nb, uint32_t out[][3]);

/* An "over" stream drawn far to near from the device's records
   (oak_render_stream.device_sort; shaders/particles_sort.comp.glsl): its
   sort block is one head every OAK_GPU_SORT_HEAD bytes (the keys' pass,
   then one per compare-and-swap stage), then the m pairs (m the count
   rounded up to a power of two), so each dispatch binds its own head at
   its own offset and every head finds the same pairs. */
#define OAK_GPU_SORT_HEAD 256u
/* the stages for OAK_PARTICLE_MAX (2^20) records: 20 x 21 / 2 */
#define OAK_GPU_SORT_MAX_STAGES 210u
/* The entries stream rs's sort block orders: its count, times the frames
   of an "over" book (_oak_gpu_book_frames: one entry per frame place; at
   most OAK_PARTICLE_MAX, world/particles.c's limit on such a book). */
uint32_t _oak_gpu_sort_entries(const oak_render_stream *rs);
/* Stream s's sort block (sort_at[s]) is sorted at s: not another frame's
   of the same book before it (a book's frames share one block). */
bool _oak_gpu_sort_leads(const uint64_t *sort_at, uint32_t s);
/* The stages of the network for n records (*m: n rounded up to a power of two). */
uint32_t _oak_gpu_sort_stages(uint32_t n, uint32_t *m);
/* The bytes of the sort block of n records, a multiple of OAK_GPU_SORT_HEAD;
 *pairs: where its pairs start in it. */
uint64_t _oak_gpu_sort_block_bytes(uint32_t n, uint64_t *pairs);
/* The heads of stream s's sort block into out (its first
   stages + 1 heads' bytes, zeros between): its records from record
   `first` of the instance buffer (an "over" book's from each frame's
   place among the view's first ns streams), the eye and direction the
   update sorted along. The stages; *m the network's size
   (_oak_gpu_sort_stages'). */
uint32_t _oak_gpu_sort_heads(const oak_render_view *v, uint32_t ns, uint32_t s, uint64_t first,
                             uint8_t *out, uint32_t *m);
/* The sort blocks laid out from byte `at` on: sort_at[s] for each of the
   ns streams sorted on the device (UINT64_MAX for the rest; an "over"
   book's frames all its first frame's block), firsts[s] its
   first record in the instance buffer. Returns the byte past the last
   block; *most the largest block (at least *most as given). */
uint64_t _oak_gpu_sort_plan(const oak_render_view *v, uint32_t ns, uint64_t at, uint64_t *sort_at,
                            uint64_t *firsts, uint64_t *most);
/* The draw kernel's jobs told where the sorted streams' pairs lie: stream
   s's sort block at sort_at[s] bytes of the buffer whose start holds the
   jobs (UINT64_MAX: not sorted). */
void _oak_gpu_blend_jobs_sorted(const oak_render_view *v, const uint64_t *sort_at,
                                uint32_t jobs[][8], uint32_t n);

#endif
