#version 450
// Visibility buffer: writes (draw + 1, triangle) and depth; masked materials
// discard below their cutoff (opaque pipelines skip the test via the mode).
// A draw culled by meshlets is drawn from the meshcull pass's expanded
// indices: its triangle is found in that pass's map (oak_gpu_draw.prev.z).
#extension GL_GOOGLE_include_directive : require
#include "common/mask.glsl"

OAK_SSBO(OAK_B_MESHCULL) readonly buffer MeshcullMap { uint meshcull_map[]; };

layout(location = 0) out uvec2 o_id;

void main() {
    if (oak_masked_out()) discard;
    uint tri = uint(gl_PrimitiveID), map = draws[v_draw].prev.z;
    // the bound (Vulkan): the lamp atlas draws through this shader with
    // records whose prev is not written (their ids are never stored).
    // llvmpipe's GL compiler did not finish a draw with length() here.
#if defined(OAK_VULKAN_GLSL)
    if (map != 0u && map - 1u + tri < uint(meshcull_map.length())) tri = meshcull_map[map - 1u + tri];
#else
    if (map != 0u) tri = meshcull_map[map - 1u + tri];
#endif
    o_id = uvec2(v_draw + 1u, tri);
}
