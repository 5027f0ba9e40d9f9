// The mesh path (docs/ARCHITECTURE.md "Mesh shaders"): what the task shader
// (shaders/mesh/vis_mesh.task.glsl) hands each of its mesh workgroups
// (shaders/mesh/vis_mesh.mesh.glsl), and where the host's chunk table lies
// in OAK_B_MESHCULL (backend/vulkan/vk_meshcull.c writes it).
//
// The table follows the jobs meshcull.comp expands, the shadow jobs (from
// word OAK_GPU_MESHCULL_HEAD_WORDS + head word 4 x
// OAK_GPU_MESHCULL_JOB_WORDS): OAK_MESH_PATH_GROUPS + 1 words, each vis
// group's first chunk and then the chunk count, then two words a chunk: its
// job's first word (the view's jobs lie after the table) and its first
// meshlet (a chunk is up to OAK_GPU_MESHCULL_GROUP meshlets of one job, a
// task workgroup's). A kept meshlet is drawn by one
// mesh workgroup per OAK_MESH_PATH_TRIS of its triangles (a part), each
// triangle with its own three vertices: the pool keeps no meshlet-local
// vertex list, and 96 vertices and 32 primitives a workgroup are within
// every device's limits.
#ifndef OAK_MESH_PATH_GLSL
#define OAK_MESH_PATH_GLSL

#define OAK_MESH_PATH_GROUPS 4u // backend/vulkan/vk_internal.h OAK_VK_VIS_GROUPS
#define OAK_MESH_PATH_TRIS   32u
// parts of a meshlet at most: OAK_MESHLET_TRIANGLES (124) over 32, rounded up
#define OAK_MESH_PATH_PARTS 4u

// items: the meshlet's index in its job times 256 plus its part
struct oak_mesh_payload {
    uint job; // its first word
    uint items[OAK_GPU_MESHCULL_GROUP * OAK_MESH_PATH_PARTS];
};

#endif
