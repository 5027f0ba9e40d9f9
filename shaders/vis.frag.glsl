#version 450
// Visibility buffer: writes (draw + 1, triangle) and depth; masked materials
// discard below their cutoff (opaque pipelines skip the test via the mode).
// A draw culled by meshlets is drawn from the meshcull pass's expanded
// indices: its triangle is found in that pass's map (oak_gpu_draw.prev.z: its job).
#extension GL_GOOGLE_include_directive : require
#include "common/mask.glsl"

OAK_SSBO(OAK_B_MESHCULL) readonly buffer MeshcullMap { uint meshcull_map[]; };

layout(location = 0) out uvec2 o_id;

void main() {
    if (oak_masked_out()) discard;
    // a draw culled by meshlets: prev.z is 1 + its job's first word, whose
    // word 3 is its region's first triangle in the map (head word 6's), as
    // the meshcull pass placed it this frame (meshcull_scan.comp)
    uint tri = uint(gl_PrimitiveID), job = draws[v_draw].prev.z;
    // the bound (Vulkan): the lamp atlas draws through this shader with
    // records whose prev is not written (their ids are never stored).
    // llvmpipe's GL compiler did not finish a draw with length() here.
#if defined(OAK_VULKAN_GLSL)
    uint len = uint(meshcull_map.length());
    if (job != 0u && job + 2u < len && len > 6u) {
        uint at = meshcull_map[6] + meshcull_map[job + 2u] + tri;
        if (at < len) tri = meshcull_map[at];
    }
#else
    if (job != 0u) tri = meshcull_map[meshcull_map[6] + meshcull_map[job + 2u] + tri];
#endif
    o_id = uvec2(v_draw + 1u, tri);
}
