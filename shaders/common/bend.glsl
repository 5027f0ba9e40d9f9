// An instance record's world matrix with its stream's wind, benders and sink
// (docs/WORLD.md "Grass"): render/stream_cull.c _oak_instance_matrix's maths
// step by step in its order, so the CPU's expanded draws and the natively
// drawn instances agree as closely as float allows. The includer names its
// oak_gpu_instcull array OAK_BEND_HEADS (instcull's heads, draw.glsl's
// stream_heads) before including this.
#ifndef OAK_BEND_GLSL
#define OAK_BEND_GLSL

// The travelling wind field at (x, z) at `time` (stream_cull.c shear_at).
vec2 oak_wind_at(vec4 wind, vec4 gust, float time, float x, float z) {
    float along = x * wind.x + z * wind.y;
    float across = z * wind.x - x * wind.y;
    float u = (along - gust.y * time) / gust.x;
    u = u - floor(u);
    float v = across / (2.3 * gust.x);
    v = v - floor(v);
    float p = 0.7 * sin(6.28318530718 * u) + 0.3 * sin(6.28318530718 * (2.0 * u + v));
    float m = wind.z * (1.0 + wind.w * p);
    return vec2(m * wind.x, m * wind.y);
}

// Stream s's record r at wind time `time`: translate * rotate * bend * scale.
mat4 oak_bent_instance(oak_gpu_instance r, uint s, float time) {
    vec4 q = r.rotation;
    float n = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(n > 0.0)) {
        q = vec4(0.0, 0.0, 0.0, 1.0);
        n = 1.0;
    }
    float k = 2.0 / n, sc = r.position_scale.w;
    float x = q.x, y = q.y, z = q.z, w = q.w;
    vec3 r0 = vec3(1.0 - k * (y * y + z * z), k * (x * y + z * w), k * (x * z - y * w));
    vec3 r1 = vec3(k * (x * y - z * w), 1.0 - k * (x * x + z * z), k * (y * z + x * w));
    vec3 r2 = vec3(k * (x * z + y * w), k * (y * z - x * w), 1.0 - k * (x * x + y * y));
    vec3 p = r.position_scale.xyz;
    float a = 0.0, c = 0.0, f = 1.0;
    vec4 wind = OAK_BEND_HEADS[s].bend_wind, sink = OAK_BEND_HEADS[s].bend_sink;
    if (wind.z != 0.0 || sink.y > 0.0 || sink.w > 0.0) {
        vec2 sh = oak_wind_at(wind, OAK_BEND_HEADS[s].bend_gust, time, p.x, p.z);
        uint benders = uint(sink.w);
        for (uint i = 0u; i < benders; i++) {
            vec4 b = OAK_BEND_HEADS[s].benders[i];
            float dx = p.x - b.x, dy = p.y - b.y, dz = p.z - b.z;
            float d = sqrt(dx * dx + dy * dy + dz * dz);
            if (!(d < b.w)) continue;
            float t = 1.0 - d / b.w;
            float h = sqrt(dx * dx + dz * dz);
            if (h > 1e-4) {
                sh.x = sh.x + dx / h * (t * float(OAK_BEND_PUSH));
                sh.y = sh.y + dz / h * (t * float(OAK_BEND_PUSH));
            }
            f = f * (1.0 - float(OAK_BEND_FLATTEN) * t);
        }
        if (sink.y > 0.0) {
            vec4 e = OAK_BEND_HEADS[s].eye;
            float ex = p.x - e.x, ey = p.y - e.y, ez = p.z - e.z;
            float t = (sink.x - sqrt(ex * ex + ey * ey + ez * ez)) / sink.y;
            t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
            p.y = p.y - (1.0 - t) * sink.z;
            f = f * t;
        }
        a = r0.x * sh.x + r0.z * sh.y;
        c = r2.x * sh.x + r2.z * sh.y;
    }
    float fs = f * sc;
    return mat4(vec4(r0 * sc, 0.0), vec4((r1 + a * r0 + c * r2) * fs, 0.0), vec4(r2 * sc, 0.0),
                vec4(p, 1.0));
}
#endif
