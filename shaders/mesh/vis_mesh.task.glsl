#version 450
// The mesh path's task shader (docs/ARCHITECTURE.md "Mesh shaders"): a
// workgroup per chunk of a job (common/mesh_path.glsl), a lane per meshlet,
// makes meshcull.comp's verdict (oak_meshcull_verdict: the cut, the frustum,
// the cone) and adds the same counters to the head, then launches a mesh
// workgroup per 32 triangles of each kept meshlet, in meshlet order. GROUP
// (a specialization constant) is the vis group the pipeline draws. Not
// under two-pass Hi-Z: the expanded path takes such frames.
#extension GL_EXT_mesh_shader : require
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/meshcull.glsl"
#include "common/mesh_path.glsl"

layout(local_size_x = OAK_GPU_MESHCULL_GROUP) in;

OAK_SPEC_CONST(2, uint, GROUP, 0u)


taskPayloadSharedEXT oak_mesh_payload payload;

// per lane: its parts (then its first payload item), its verdict (4: no
// meshlet) and its kept triangles. Three barriers and no loop around one:
// lavapipe compiles a barrier as a coroutine suspend, and a scan's dozen
// took it minutes to compile (meshcull.comp's is a compute pass).
shared uint s_n[OAK_GPU_MESHCULL_GROUP], s_t[OAK_GPU_MESHCULL_GROUP],
    s_tris[OAK_GPU_MESHCULL_GROUP];
shared uint s_total;

void main() {
    uint lane = gl_LocalInvocationID.x;
    // the table follows the kernel's jobs (the shadows', head word 4 counts them)
    uint table = OAK_GPU_MESHCULL_HEAD_WORDS + mc[4] * OAK_GPU_MESHCULL_JOB_WORDS;
    uint chunk = mc[table + GROUP] + gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    bool live = chunk < mc[table + GROUP + 1u];
    // a chunk's job word (a lane past the chunks reads the first's: a
    // real job, no meshlet of it tested)
    uint c = live ? chunk : 0u;
    uint j = mc[table + OAK_MESH_PATH_GROUPS + 1u + 2u * c];
    uint m0 = mc[table + OAK_MESH_PATH_GROUPS + 2u + 2u * c];
    vec4 planes[5];
    vec3 view_eye;
    float lod_px, znear;
    bool ortho;
    oak_meshcull_head_view(planes, view_eye, lod_px, znear, ortho); // common/meshcull.glsl
    uint draw = mc[j], rec0 = mc[j + 1], count = live ? mc[j + 2] & 0xffffu : 0u;
    bool cone = (mc[j + 2] >> 31) != 0u;
    bool uncut = ((mc[j + 2] >> 30) & 1u) != 0u;
    uint finest = mc[j + 9];
    vec3 eye = uintBitsToFloat(uvec3(mc[j + 4], mc[j + 5], mc[j + 6]));
    float scale = uintBitsToFloat(mc[j + 7]);
    mat4 world = draws[draw].world;
    uint m = m0 + lane, parts = 0u, t = 4u, tris = 0u;
    if (m < count) {
        uint at = rec0 + m * OAK_GPU_MESHLET_UVEC4;
        oak_gpu_meshlet ml = oak_meshlet_unpack(ml_pool[at], ml_pool[at + 1], ml_pool[at + 2],
                                                ml_pool[at + 3], ml_pool[at + 4], ml_pool[at + 5],
                                                ml_pool[at + 6]);
        t = oak_meshcull_verdict(planes, world, scale, cone, eye, false, uncut, m, finest,
                                 view_eye, lod_px, znear, ortho, ml);
        if (t == OAK_MESHCULL_KEEP) {
            tris = ml.offsets.y;
            parts = (tris + OAK_MESH_PATH_TRIS - 1u) / OAK_MESH_PATH_TRIS;
        }
    }
    s_n[lane] = parts;
    s_t[lane] = t;
    s_tris[lane] = tris;
    barrier();
    if (lane == 0u) {
        // the lanes' first items in meshlet order, and the counters
        uint at = 0u, fr = 0u, co = 0u, lo = 0u, tr = 0u, tested = 0u;
        for (uint i = 0u; i < OAK_GPU_MESHCULL_GROUP; i++) {
            uint p = s_n[i], v = s_t[i];
            s_n[i] = at;
            at += p;
            tested += v != 4u ? 1u : 0u;
            fr += v == OAK_MESHCULL_FRUSTUM ? 1u : 0u;
            co += v == OAK_MESHCULL_CONE ? 1u : 0u;
            lo += v == OAK_MESHCULL_LOD ? 1u : 0u;
            tr += s_tris[i];
        }
        s_total = at;
        payload.job = j;
        if (live) {
            // the head's counters as meshcull.comp adds them (no Hi-Z here)
            atomicAdd(mc[0], tested);
            atomicAdd(mc[1], fr);
            atomicAdd(mc[2], co);
            atomicAdd(mc[3], tr);
            atomicAdd(mc[7], lo);
        }
    }
    barrier();
    uint first = s_n[lane];
    for (uint p = 0u; p < parts; p++) payload.items[first + p] = (m << 8) | p;
    barrier();
    EmitMeshTasksEXT(s_total, 1u, 1u);
}
