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

// A record's world matrix: render/stream_cull.c _oak_instance_matrix's
// maths in its order (translate * rotate * uniform scale), so the CPU's
// expanded draws and these agree as closely as float allows.
mat4 oak_instance_world(oak_gpu_instance r) {
    vec4 q = r.rotation;
    float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(n > 0.0)) {
        q = vec4(0.0, 0.0, 0.0, 1.0);
        n = 1.0;
    }
    float k = 2.0 / n, s = r.position_scale.w;
    float x = q.x, y = q.y, z = q.z, w = q.w;
    return mat4(vec4((1.0 - k * (y * y + z * z)) * s, k * (x * y + z * w) * s,
                     k * (x * z - y * w) * s, 0.0),
                vec4(k * (x * y - z * w) * s, (1.0 - k * (x * x + z * z)) * s,
                     k * (y * z + x * w) * s, 0.0),
                vec4(k * (x * z + y * w) * s, k * (y * z - x * w) * s,
                     (1.0 - k * (x * x + y * y)) * s, 0.0),
                vec4(r.position_scale.xyz, 1.0));
}

// Stream s's instance record `rec` drawn at LOD `lod` as a draw record: the
// normal matrix of a uniformly scaled rotation R s is R / s (its inverse
// transpose); column 3 carries the instance's colour as for plain draws.
oak_gpu_draw oak_instance_draw(uint rec, uint s, uint lod) {
    oak_gpu_instance r = stream_records[rec];
    oak_gpu_draw d;
    d.world = oak_instance_world(r);
    // no motion for a native instance yet: its last record is not on the GPU
    d.prev_world = d.world;
    float s2 = r.position_scale.w * r.position_scale.w;
    d.normal = mat4(vec4(d.world[0].xyz / s2, 0.0), vec4(d.world[1].xyz / s2, 0.0),
                    vec4(d.world[2].xyz / s2, 0.0), vec4(r.color_phase.xyz, 1.0));
    uint cmd = stream_heads[s].info.w + lod * 5u;
    d.info = uvec4(stream_heads[s].draw.x, stream_words[cmd + 2u], stream_words[cmd + 3u],
                   stream_heads[s].draw.y);
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

uint oak_id_triangle(uvec2 id) {
    return oak_id_is_instance(id) ? id.y & OAK_GPU_ID_TRIANGLE_MASK : id.y;
}
#endif
