#version 450
// Visibility raster of instance streams, drawn from the instcull pass's
// lists: each (stream, LOD) command's firstInstance is where its list starts,
// so the list word at OAK_INSTANCE_INDEX names the instance (instance |
// stream << 24 | LOD << 30). Snaps (with TAA's jitter) as vis.vert does;
// writes the instance's visibility id (oak_gpu.h "Visibility ids") and, for
// the cutout, the stream's material slot.
#extension GL_GOOGLE_include_directive : require
#include "common/draw.glsl"
#include "common/snap.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw; // the material slot (vis_stream.frag's mask)
layout(location = 1) out vec4 v_uv;
layout(location = 2) out float v_alpha;
layout(location = 3) flat out uvec2 v_id;

void main() {
    uint word = stream_words[uint(OAK_INSTANCE_INDEX)];
    uint s = (word >> OAK_GPU_ID_STREAM_SHIFT) & (OAK_STREAM_MAX_PER_VIEW - 1u);
    uint lod = word >> OAK_GPU_ID_LOD_SHIFT;
    uint rec = stream_heads[s].info.z + (word & OAK_GPU_ID_TRIANGLE_MASK);
    mat4 world = oak_instance_world(stream_records[rec], s);
    vec4 P = positions[OAK_VERTEX_INDEX];
    if (oak_stream_posed(s)) { // common/pose.glsl: the vertex's index inside its LOD mesh
        uint first = stream_words[stream_heads[s].info.w + lod * 5u + 3u];
        vec4 r0, r1, r2; // the bank's skinning, or an impostor card's turn
        oak_stream_rows(s, lod, uint(OAK_VERTEX_INDEX) - first, rec, r0, r1, r2);
        P = oak_pose_apply(r0, r1, r2, P);
    }
    vec4 c = view.view_proj * (world * P);
    c = oak_snap(c, vec2(view.size.xy), vec2(view.taa.x, -view.taa.y));
    gl_Position = c;
    v_draw = oak_stream_material(s, lod);
    v_id = uvec2(OAK_GPU_ID_INSTANCE | rec,
                 (s << OAK_GPU_ID_STREAM_SHIFT) | (lod << OAK_GPU_ID_LOD_SHIFT));
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv + vec4(oak_impostor_uv(s, lod, rec), 0.0, 0.0); // a card's cell
    v_alpha = a.color.a;
}
