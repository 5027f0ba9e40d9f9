// Hi-Z per meshlet (docs/ARCHITECTURE.md "Meshlet culling", "Two-pass Hi-Z
// on the GPUs"): what meshcull.comp keeps of a meshlet that passed the
// frustum and its cone when the view runs two-pass Hi-Z. One function,
// oak_meshcull_hiz, called in one place. Included after common/meshcull.glsl's
// MeshcullBlock (it reads the head and a job's words, and counts).
//
// Each meshlet of a job has a word in OAK_B_HIZ_KEEP (after the streams'
// bits: head word OAK_MC_HIZ_BASE holds that first word + 1, 0 when Hi-Z is
// off, and the job's word OAK_MC_JOB_BITS its meshlets' first word after
// it, placed by the draw's key on the host, backend/gpu/meshcull_hiz.c)
// saying whether it was visible last frame.
//   EARLY (the meshcull pass, before pass 1): kept when its word says
//         visible and the frame is no camera cut.
//   LATE  (after the pyramid, before pass 2): its sphere through the draw's
//         world against the pyramid (hiz_visible_span, the draws' and stream
//         instances' test at a finer level); its word becomes the answer; kept only when
//         visible and EARLY did not keep it (the same test on the same word,
//         read before this writes it), so no meshlet is drawn twice and none
//         newly visible is missed.
// Any word gives the picture without culling; a wrong one costs time only.
// Vulkan and GL run the same code: the step is common/hiz.glsl's
// OAK_HIZ_STEP (a specialization constant on Vulkan, a uniform set per
// dispatch on GL). Without Hi-Z (head word 36 is 0) the function is the
// identity and reads nothing of Hi-Z's buffers.
#ifndef OAK_MESHCULL_HIZ_GLSL
#define OAK_MESHCULL_HIZ_GLSL

// head words (oak_gpu.h OAK_B_MESHCULL): the bits' first word + 1, the
// meshlets LATE found hidden, then EARLY's own four counters (tested,
// frustum, cone, triangles: only its triangles are read)
#define OAK_MC_HIZ_BASE   36u
#define OAK_MC_HIZ_HIDDEN 37u
#define OAK_MC_EARLY      40u
// a job's word: its meshlets' first bit word after the base
#define OAK_MC_JOB_BITS 11u

// A meshlet's rectangle is read at the level where it spans at most this
// many texels each way (up to 5 x 5 reads): at 2 x 2, as the draws', a read
// reaches up to a texel as wide as the rectangle past each side, and in
// test_meshcull_hiz 12 of the 51 meshlets wholly behind the wall were kept.
#define OAK_MC_HIZ_SPAN 4u

#include "common/hiz.glsl"

// Where this step adds the head's counters: EARLY (under Hi-Z) to its own,
// so LATE's count each meshlet once.
uint oak_meshcull_counters() {
    return mc[OAK_MC_HIZ_BASE] != 0u && OAK_HIZ_STEP == OAK_GPU_HIZ_STEP_EARLY ? OAK_MC_EARLY : 0u;
}

// Whether this step leaves a job alone: a shadow job (its map's cut) is
// made by EARLY, the step every frame runs, and LATE passes it by.
bool oak_meshcull_skips(bool shadow) {
    return shadow && OAK_HIZ_STEP != OAK_GPU_HIZ_STEP_EARLY;
}

// kept: the frustum and cone's answer for meshlet m of the job at word j.
bool oak_meshcull_hiz(bool kept, uint j, uint m, mat4 world, float scale, oak_gpu_meshlet ml) {
    uint base = mc[OAK_MC_HIZ_BASE];
    if (base == 0u || !kept) return kept;
    uint at = base - 1u + mc[j + OAK_MC_JOB_BITS] + m;
    bool early = hw[H_CUT] == 0u && keep[at] != 0u;
    if (OAK_HIZ_STEP == OAK_GPU_HIZ_STEP_EARLY) return early;
    vec3 c = ml.sphere.xyz;
    vec3 w = (world * vec4(c, 1.0)).xyz;
    bool vis = hiz_visible_span(w, ml.sphere.w * scale, OAK_MC_HIZ_SPAN);
    keep[at] = vis ? 1u : 0u;
    if (!vis) atomicAdd(mc[OAK_MC_HIZ_HIDDEN], 1u);
    return vis && !early;
}

#endif
