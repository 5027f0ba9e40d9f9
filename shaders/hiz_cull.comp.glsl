#version 450
// Two-pass Hi-Z occlusion culling of the view's draws (docs/ARCHITECTURE.md
// "Occlusion culling"; the buffers as oak_gpu.h's oak_gpu_hiz_head says), one
// step per dispatch:
//   EARLY  per candidate: drawn in pass 1 when it was visible last frame
//          (its key's word) and the frame is no camera cut;
//   LATE   per candidate, after hiz_pyramid.comp: its sphere against the
//          pyramid (common/hiz.glsl hiz_visible, the test instcull.comp
//          puts stream instances to). Its key's word becomes that answer, for next frame,
//          and a visible one pass 1 did not draw is drawn in pass 2.
// Commands go group by group into pass 1's and pass 2's regions: compacted
// in the candidates' order by a flag, a scan (SCAN0/1, one work group) and a
// scatter (SCATTER0/1), for an indirect-count draw that reads the counts;
// or, without indirect counts, in the candidate's own slot with an instance
// count of 0 or 1.
#extension GL_GOOGLE_include_directive : require
#include "common/hiz.glsl"

layout(local_size_x = 64) in;

// Writes candidate j's command into pass `which`'s region (0: pass 1) at
// `slot`, with an instance count of 1 when drawn, else 0.
void write_command(uint j, uint which, uint slot, bool drawn) {
    uint n = hw[H_COUNT];
    uint c = cand(j) + 4u, at = cand(n) + which * n * 5u + slot * 5u;
    hw[at] = hw[c];                // index count
    hw[at + 1u] = drawn ? 1u : 0u; // instances
    hw[at + 2u] = hw[c + 1u];      // first index
    hw[at + 3u] = hw[c + 2u];      // vertex offset
    hw[at + 4u] = hw[c + 3u];      // first instance: the draw
}

// The scratch words after both regions: a flag per candidate, then their
// exclusive prefix sums (n + 1).
uint flags_at() {
    uint n = hw[H_COUNT];
    return cand(n) + 2u * n * 5u;
}

// Candidate j's answer for pass `which`: in place (no indirect counts), or
// its flag for the scan and scatter that follow, which keep the candidates'
// order (ties in depth then resolve as without culling).
void answer(uint j, uint which, bool drawn) {
    if (hw[H_COMPACT] == 0u) {
        write_command(j, which, j, drawn);
        if (drawn) atomicAdd(hw[(which == 0u ? H_EARLY : H_LATE) + hw[cand(j) + 8u]], 1u);
    } else {
        hw[flags_at() + j] = drawn ? 1u : 0u;
    }
}

// One work group: each invocation sums its run of flags, the runs' sums are
// scanned in shared memory, then each writes its run's prefixes; then each
// group's command count (the indirect count) is its share of the total.
shared uint run_sums[64];
void scan(uint which) {
    uint n = hw[H_COUNT], F = flags_at(), P = F + n, t = gl_LocalInvocationID.x;
    uint per = (n + 63u) / 64u, lo = min(t * per, n), hi = min(lo + per, n), sum = 0u;
    for (uint j = lo; j < hi; j++) sum += hw[F + j];
    run_sums[t] = sum;
    barrier();
    if (t == 0u) {
        uint acc = 0u;
        for (uint k = 0u; k < 64u; k++) {
            uint v = run_sums[k];
            run_sums[k] = acc;
            acc += v;
        }
        hw[P + n] = acc;
    }
    barrier();
    uint acc = run_sums[t];
    for (uint j = lo; j < hi; j++) {
        hw[P + j] = acc;
        acc += hw[F + j];
    }
    memoryBarrierBuffer();
    barrier();
    if (t < uint(OAK_GPU_HIZ_GROUPS)) {
        uint a = hw[H_FIRST + t], b = a + hw[H_FIRST + 4u + t];
        hw[(which == 0u ? H_EARLY : H_LATE) + t] = hw[P + b] - hw[P + a];
    }
}

// Each flagged candidate's command at its group's first slot plus the
// flagged ones before it in the group.
void scatter(uint j, uint which) {
    uint n = hw[H_COUNT], F = flags_at(), P = F + n;
    if (hw[F + j] == 0u) return;
    uint g = hw[cand(j) + 8u], first = hw[H_FIRST + g];
    write_command(j, which, first + hw[P + j] - hw[P + first], true);
}

bool drawn_early(uint j) {
    return hw[H_CUT] == 0u && keep[hw[cand(j) + 9u]] != 0u;
}

void main() {
    uint st = OAK_HIZ_STEP, j = gl_GlobalInvocationID.x;
    if (st == OAK_GPU_HIZ_STEP_SCAN0 || st == OAK_GPU_HIZ_STEP_SCAN1) {
        scan(st == OAK_GPU_HIZ_STEP_SCAN0 ? 0u : 1u);
        return;
    }
    if (j >= hw[H_COUNT]) return;
    if (st == OAK_GPU_HIZ_STEP_SCATTER0 || st == OAK_GPU_HIZ_STEP_SCATTER1) {
        scatter(j, st == OAK_GPU_HIZ_STEP_SCATTER0 ? 0u : 1u);
        return;
    }
    bool early = drawn_early(j);
    if (st == OAK_GPU_HIZ_STEP_EARLY) {
        answer(j, 0u, early);
        return;
    }
    uint c = cand(j);
    vec4 s = vec4(uintBitsToFloat(hw[c]), uintBitsToFloat(hw[c + 1u]), uintBitsToFloat(hw[c + 2u]),
                  uintBitsToFloat(hw[c + 3u]));
    bool vis = hiz_visible(s.xyz, s.w);
    keep[hw[c + 9u]] = vis ? 1u : 0u;
    if (!vis) atomicAdd(hw[H_STATS + 1u], 1u);
    answer(j, 1u, vis && !early);
}
