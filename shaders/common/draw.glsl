// The draw record behind a visibility id, whichever kind of draw made it:
// a plain draw's record (draws[id.x - 1]) or a stream instance's, built here
// from its record and its stream's head (oak_gpu.h "Visibility ids"). The
// resolve, the GTAO prefilter and the stream raster all read draws this way.
#ifndef OAK_DRAW_GLSL
#define OAK_DRAW_GLSL
#include "common/bindings.glsl"

OAK_SSBO(OAK_B_INSTANCES) readonly buffer StreamRecordBlock { oak_gpu_instance stream_records[]; };
OAK_SSBO(OAK_B_INSTANCE_OUT) readonly buffer StreamListBlock {
    oak_gpu_instcull stream_heads[OAK_STREAM_MAX_PER_VIEW];
    uint stream_words[];
};

#define OAK_BEND_HEADS stream_heads
#include "common/bend.glsl"
#include "common/pose.glsl"

// Stream s's record `r` as a world matrix this frame (common/bend.glsl).
mat4 oak_instance_world(oak_gpu_instance r, uint s) {
    return oak_bent_instance(r, s, stream_heads[s].bend_gust.z);
}

// Stream s's instance record `rec` drawn at LOD `lod` as a draw record: the
// normal matrix of a uniformly scaled rotation R s is R / s (its inverse
// transpose); column 3 carries the instance's colour as for plain draws.
oak_gpu_draw oak_instance_draw(uint rec, uint s, uint lod) {
    oak_gpu_instance r = stream_records[rec];
    oak_gpu_draw d;
    d.world = oak_instance_world(r, s);
    // last frame's: the record's last-frame copy under last frame's wind
    d.prev_world = oak_bent_instance(stream_records[rec + stream_heads[s].prev.x], s,
                                     stream_heads[s].bend_gust.w);
    // the inverse transpose: R / s for a plain R s; a bent one needs it whole
    float s2 = r.position_scale.w * r.position_scale.w;
    mat3 nm = mat3(d.world[0].xyz / s2, d.world[1].xyz / s2, d.world[2].xyz / s2);
    vec4 sink = stream_heads[s].bend_sink;
    if (stream_heads[s].bend_wind.z != 0.0 || sink.y > 0.0 || sink.w > 0.0)
        nm = transpose(inverse(mat3(d.world)));
    d.normal = mat4(vec4(nm[0], 0.0), vec4(nm[1], 0.0), vec4(nm[2], 0.0),
                    vec4(r.color_phase.xyz, 1.0));
    uint cmd = stream_heads[s].info.w + lod * 5u;
    d.info = uvec4(oak_stream_material(s, lod), stream_words[cmd + 2u], stream_words[cmd + 3u],
                   stream_heads[s].draw.y);
    // x 0: not a posed mesh's pool; a posed instance (pose.glsl): y 1, z its
    // record, w stream | LOD << 8, for oak_draw_point
    d.prev = uvec4(0u, oak_stream_posed(s) ? 1u : 0u, rec, s | (lod << 8));
    return d;
}

bool oak_id_is_instance(uvec2 id) {
    return (id.x & OAK_GPU_ID_INSTANCE) != 0u;
}

// id: a covered pixel's (not the sky's) visibility id.
oak_gpu_draw oak_fetch_draw(uvec2 id) {
    if (!oak_id_is_instance(id)) return draws[id.x - 1u];
    return oak_instance_draw(id.x & ~OAK_GPU_ID_INSTANCE,
                             (id.y >> OAK_GPU_ID_STREAM_SHIFT) & (OAK_STREAM_MAX_PER_VIEW - 1u),
                             id.y >> OAK_GPU_ID_LOD_SHIFT);
}

// Vertex v (an index inside the draw's mesh) of draw record d in mesh space:
// the pool's position, posed for a posed instance at this frame's phase
// (prev false) or last frame's (true).
vec4 oak_draw_point(oak_gpu_draw d, uint v, bool prev) {
    vec4 p = positions[v + d.info.z];
    if (d.prev.y == 0u) return p;
    uint s = d.prev.w & 0xffu, rec = d.prev.z + (prev ? stream_heads[s].prev.x : 0u);
    vec4 r0, r1, r2;
    oak_stream_rows(s, d.prev.w >> 8, v, rec, r0, r1, r2);
    return oak_pose_apply(r0, r1, r2, p);
}

uint oak_id_triangle(uvec2 id) {
    return oak_id_is_instance(id) ? id.y & OAK_GPU_ID_TRIANGLE_MASK : id.y;
}
#endif
