#version 450
// Shadow atlas raster of instance streams, drawn from the instcull pass's
// cascade lists: the list word at OAK_INSTANCE_INDEX names the instance (as
// vis_stream.vert), and which list it lies in names the cascade (lists go
// view by view, the camera's first). Projected, snapped and clipped to the
// cascade's tile as shadow.vert does.
#extension GL_GOOGLE_include_directive : require
#include "common/draw.glsl"
#define OAK_SNAP_CASCADE_TILE
#include "common/snap.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw; // the material slot (shadow_stream_masked.frag)
layout(location = 1) out vec4 v_uv;
layout(location = 2) out float v_alpha;

void main() {
    uint idx = uint(OAK_INSTANCE_INDEX);
    uint word = stream_words[idx];
    uint s = (word >> OAK_GPU_ID_STREAM_SHIFT) & (OAK_STREAM_MAX_PER_VIEW - 1u);
    uvec4 info = stream_heads[s].info;
    uint list = (idx - info.w - uint(OAK_GPU_INSTCULL_HEAD_WORDS)) / info.x;
    int cascade = int(list / uint(OAK_STREAM_LODS)) - 1;
    uint rec = info.z + (word & OAK_GPU_ID_TRIANGLE_MASK);
    mat4 world = oak_instance_world(stream_records[rec], s);
    vec4 P = positions[OAK_VERTEX_INDEX];
    uint lod = word >> OAK_GPU_ID_LOD_SHIFT;
    if (oak_stream_posed(s)) { // common/pose.glsl, as vis_stream.vert
        uint first = stream_words[info.w + lod * 5u + 3u];
        vec4 r0, r1, r2;
        oak_stream_rows(s, lod, uint(OAK_VERTEX_INDEX) - first, rec, r0, r1, r2);
        P = oak_pose_apply(r0, r1, r2, P);
    }
    vec4 c = view.shadow_view_proj[cascade] * (world * P);
    c = oak_cascade_tile(c, cascade);
    gl_Position = c;
    v_draw = oak_stream_material(s, lod);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv + vec4(oak_impostor_uv(s, lod, rec), 0.0, 0.0); // a card's cell
    v_alpha = a.color.a;
}
