// Visibility and shadow raster, vertex stage: pulls the vertex from the pool
// (gl_VertexID already includes the draw's base vertex) and the draw from
// the per-frame draw buffer through an instanced attribute (base instance =
// draw index, which works on 4.5 without ARB_shader_draw_parameters).
#include "gl_common.glsl"

layout(location = 0) in uint a_draw;

out gl_PerVertex {
    vec4 gl_Position;
    float gl_ClipDistance[1];
};
layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec2 v_uv;
layout(location = 2) out float v_alpha;

void main() {
    oak_draw d = oak_draws[a_draw];
    oak_vertex v = oak_vertices[gl_VertexID];
    vec4 wp = d.world * vec4(v.p0.xyz, 1.0);
#ifdef OAK_SHADOW
    gl_Position = oak_v.shadow_vp * wp;
#else
    gl_Position = oak_v.view_proj * wp;
#endif
    // Depth clamp is on, so only the near plane clips (clip z <= w is kept).
    gl_ClipDistance[0] = gl_Position.w - gl_Position.z;
    v_draw = a_draw;
    int uv_set = oak_materials[d.info.z].tex[0].mode.z;
    v_uv = uv_set == 1 ? v.uv1.xy : vec2(v.p0.w, v.p1.w);
    v_alpha = v.color.a;
}
