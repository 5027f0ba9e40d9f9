#version 450
// The mesh path's mesh shader (docs/ARCHITECTURE.md "Mesh shaders"): a
// workgroup per part of a kept meshlet (common/mesh_path.glsl), a lane per
// triangle. Each triangle's vertices are pulled and placed as vis.vert
// places them (the same expression, the same snap) and its primitive id is
// its index in the mesh's own list, so vis.frag writes the same id and
// depth as the expanded path (whose id comes through the triangle map:
// these draws' records keep prev.z 0, so vis.frag takes gl_PrimitiveID).
#extension GL_EXT_mesh_shader : require
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/snap.glsl"
#include "common/mesh_path.glsl"

layout(local_size_x = OAK_MESH_PATH_TRIS) in;
layout(triangles, max_vertices = 96, max_primitives = 32) out;

OAK_SSBO(OAK_B_MESHLETS) readonly buffer MeshletPool { uvec4 ml_pool[]; };
OAK_SSBO(OAK_B_MESHCULL) readonly buffer MeshcullBlock { uint mc[]; };

taskPayloadSharedEXT oak_mesh_payload payload;

// only what is written: the whole built-in blocks would declare the
// shading rate, point size and clip distances (capabilities the device
// need not have)
out gl_MeshPerVertexEXT {
    vec4 gl_Position;
} gl_MeshVerticesEXT[];
perprimitiveEXT out gl_MeshPerPrimitiveEXT {
    int gl_PrimitiveID;
} gl_MeshPrimitivesEXT[];

layout(location = 0) flat out uint v_draw[];
layout(location = 1) out vec4 v_uv[];    // uv0, uv1 (masked materials)
layout(location = 2) out float v_alpha[]; // vertex colour alpha

void main() {
    uint item = payload.items[gl_WorkGroupID.x];
    uint m = item >> 8, part = item & 0xffu;
    uint j = payload.job; // the job's first word
    uint draw = mc[j], rec0 = mc[j + 1];
    uvec4 off = ml_pool[rec0 + m * OAK_GPU_MESHLET_UVEC4 + 6u]; // the record's offsets
    uint t0 = part * OAK_MESH_PATH_TRIS;
    uint n = min(off.y - t0, OAK_MESH_PATH_TRIS);
    SetMeshOutputsEXT(3u * n, n);
    uint k = gl_LocalInvocationID.x;
    if (k >= n) return;
    uint tw = off.x + t0 + k;
    uint orig = ml_pool[tw >> 2][tw & 3u];
    mat4 world = draws[draw].world;
    uvec4 info = draws[draw].info; // material, first index, first vertex, flags
    uint src = info.y + 3u * orig;
    for (uint c = 0u; c < 3u; c++) {
        uint vi = indices[src + c] + info.z, o = 3u * k + c;
        vec4 p = view.view_proj * (world * positions[vi]);
        gl_MeshVerticesEXT[o].gl_Position = oak_snap(p, vec2(view.size.xy), vec2(view.taa.x, -view.taa.y));
        v_draw[o] = draw;
        oak_gpu_vertex a = attributes[vi];
        v_uv[o] = a.uv;
        v_alpha[o] = a.color.a;
    }
    gl_PrimitiveTriangleIndicesEXT[k] = uvec3(3u * k, 3u * k + 1u, 3u * k + 2u);
    gl_MeshPrimitivesEXT[k].gl_PrimitiveID = int(orig);
}
