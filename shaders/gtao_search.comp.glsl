#version 450
// gtao step 3: the horizon search (Jimenez et al. 2016). Per pixel,
// OAK_GTAO_SLICES screen directions turned by the pixel's place in a fixed
// 4 x 4 pattern; along each, both ways, OAK_GTAO_STEPS reads spaced
// quadratically out to the radius, each from the depth level its pixel
// distance picks; the highest horizon on each side (occluders fading out
// past OAK_GTAO_FALLOFF of the radius), then the cosine-weighted visible
// arc about the normal projected into the slice. The raw visibility goes
// to the ao buffer's second part.
#extension GL_GOOGLE_include_directive : require
#include "common/gtao.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.size.x, H = view.size.y;
    if (px.x >= int(W) || px.y >= int(H)) return;
    uint i = uint(px.y) * W + uint(px.x), n = oak_ao_n();
    float z = ao_words[oak_ao_level_offset(0) + i];
    if (z >= float(OAK_GTAO_SKY_DEPTH)) {
        ao_words[n + i] = 1.0;
        return;
    }
    vec2 pc = vec2(px) + 0.5;
    vec3 P = oak_ao_view_pos(pc, z);
    vec3 N = vec3(ao_words[2u * n + 3u * i], ao_words[2u * n + 3u * i + 1u],
                  ao_words[2u * n + 3u * i + 2u]);
    vec3 V = oak_ao_view_dir(P);
    float R = view.ao_params.x;
    // pixels per metre across the screen at this depth
    float ppm = 0.5 * float(W) * view.ao_proj.x / (view.ao_proj2.z != 0.0 ? 1.0 : z);
    float Rpx = R * ppm, minStep = float(OAK_GTAO_MIN_STEP);
    float fade = 1.0 / max(R * (1.0 - float(OAK_GTAO_FALLOFF)), 1e-6);
    uint b = oak_ao_pattern(px);
    float rot = (float(b) + 0.5) / 16.0;
    float jit = (float((b * 7u + 3u) & 15u) + 0.5) / 16.0;
    uint d0 = oak_ao_level_offset(0);
    // slices turn evenly about V (not about the screen's axis): over open
    // ground their visibilities then average to exactly 1 at any angle
    vec3 T1 = normalize(vec3(V.z, 0.0, -V.x)), T2 = cross(V, T1);
    bool ortho = view.ao_proj2.z != 0.0;
    float vis = 0.0;
    OAK_DONT_UNROLL for (int s = 0; s < OAK_GTAO_SLICES; s++) {
        float phi = (float(s) + rot) * OAK_GTAO_PI / float(OAK_GTAO_SLICES);
        vec3 orthoDir = cos(phi) * T1 + sin(phi) * T2;
        // where moving P along orthoDir goes on the screen
        vec2 sd = ortho ? orthoDir.xy : -P.z * orthoDir.xy + P.xy * orthoDir.z;
        float sl = length(sd);
        sd = sl > 0.0 ? sd / sl : vec2(1.0, 0.0);
        vec3 axis = normalize(cross(orthoDir, V));
        vec3 projN = N - axis * dot(N, axis);
        float pl = length(projN);
        float cosN = clamp(dot(projN, V) / max(pl, 1e-6), -1.0, 1.0);
        float nang = (dot(orthoDir, projN) < 0.0 ? -1.0 : 1.0) * acos(cosN);
        float low0 = cos(nang + 0.5 * OAK_GTAO_PI), low1 = cos(nang - 0.5 * OAK_GTAO_PI);
        float hc0 = low0, hc1 = low1;
        vec2 step_dir = vec2(sd.x, -sd.y); // screen rows run down
        OAK_DONT_UNROLL for (int j = 0; j < OAK_GTAO_STEPS; j++) {
            float t = (float(j) + jit) / float(OAK_GTAO_STEPS);
            float off = minStep + t * t * max(Rpx - minStep, 0.0);
            int l = clamp(int(floor(log2(off) - float(OAK_GTAO_MIP_OFFSET))), 0, OAK_GTAO_MIPS - 1);
            for (int side = 0; side < 2; side++) {
                vec2 q = pc + (side == 0 ? off : -off) * step_dir;
                if (q.x < 0.0 || q.y < 0.0 || q.x >= float(W) || q.y >= float(H)) continue;
                uvec2 tq = uvec2(q) >> uint(l);
                uvec2 sl = oak_ao_level_size(l);
                float zs = ao_words[(l == 0 ? d0 : oak_ao_level_offset(l)) + tq.y * sl.x + tq.x];
                if (zs >= float(OAK_GTAO_SKY_DEPTH)) continue;
                vec2 qc = (vec2(tq) + 0.5) * float(1u << uint(l));
                vec3 delta = oak_ao_view_pos(qc, zs) - P;
                float dist = length(delta);
                if (!(dist > 1e-6)) continue;
                float hc = dot(delta, V) / dist;
                float w = clamp((R - dist) * fade, 0.0, 1.0);
                if (side == 0)
                    hc0 = max(hc0, mix(low0, hc, w));
                else
                    hc1 = max(hc1, mix(low1, hc, w));
            }
        }
        float h0 = -acos(clamp(hc1, -1.0, 1.0)), h1 = acos(clamp(hc0, -1.0, 1.0));
        h0 = nang + clamp(h0 - nang, -0.5 * OAK_GTAO_PI, 0.5 * OAK_GTAO_PI);
        h1 = nang + clamp(h1 - nang, -0.5 * OAK_GTAO_PI, 0.5 * OAK_GTAO_PI);
        float sn = sin(nang);
        float a0 = (cosN + 2.0 * h0 * sn - cos(2.0 * h0 - nang)) * 0.25;
        float a1 = (cosN + 2.0 * h1 * sn - cos(2.0 * h1 - nang)) * 0.25;
        vis += pl * (a0 + a1);
    }
    // not clamped to 1 yet: a slice pair over open ground may sum past 1,
    // and only the average over the pattern's turns is 1 (the denoise's)
    ao_words[n + i] = vis / float(OAK_GTAO_SLICES);
}
