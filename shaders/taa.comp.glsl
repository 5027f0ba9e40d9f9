#version 450
// The taa pass (docs/SHADING.md "Temporal anti-aliasing"), two steps. Step
// 0: per pixel the motion vector from its (draw, triangle), the history
// (image `parity` of OAK_B_TAA) read bilinearly where it points, clamped to
// the frame's 3 x 3 neighbourhood in YCoCg, blended with the frame in
// 1 / (1 + luma) weighted colour into the other image; --debug motion writes
// the vector there instead. Step 1 copies that image into the HDR frame.
// Under a render scale with out_size larger, step 0 upsamples (upsample())
// into output-sized histories and step 1 fills the HDR image's output size.
// backend/cpu/cpu_pass_taa.c is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/draw.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_BINDING(OAK_B_IDS) uniform usampler2D ids;
OAK_IMAGE(OAK_B_HDR, rgba32f) uniform image2D hdr;
OAK_SSBO(OAK_B_TAA) buffer TaaBlock { vec4 history[]; };

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_TAA_STEP, 0u)
#else
layout(location = 0) uniform uint oak_taa_step; // GL: set per dispatch
#define OAK_TAA_STEP oak_taa_step
#endif

float luma(vec3 c) {
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}
// Karis: colour over (1 + luma), so a bright texel cannot outweigh the rest
vec3 weigh(vec3 c) {
    return c / (1.0 + luma(c));
}
// back from the weighed space; a corner of the YCoCg clamp's box may leave
// it (negative channels, luma of 1 or more), which would speckle the frame
// black and white: the same guard as cpu_pass_taa.c's
vec3 unweigh(vec3 t) {
    vec3 p = max(t, vec3(0.0));
    return p / max(1.0 - luma(p), 1.0 / 65536.0);
}
// The history's YCoCg point y pulled toward the neighbourhood's mean until it
// lies in the box [lo, hi]: a point between two colours of the weighed space,
// so still one (a per-channel clamp can leave it at the box's corners);
// cpu_pass_taa.c's clip_box, the same bits.
vec3 clip_box(vec3 lo, vec3 hi, vec3 mean, vec3 y) {
    vec3 d = y - mean;
    float s = 1.0;
    for (int k = 0; k < 3; k++) {
        float q = s;
        if (d[k] > 0.0) q = (hi[k] - mean[k]) / d[k];
        else if (d[k] < 0.0) q = (lo[k] - mean[k]) / d[k];
        s = q < s ? q : s;
    }
    s = s > 0.0 ? s : 0.0;
    return mean + d * s;
}
vec3 to_ycocg(vec3 c) {
    return vec3(0.25 * c.r + 0.5 * c.g + 0.25 * c.b, 0.5 * c.r - 0.5 * c.b,
                -0.25 * c.r + 0.5 * c.g - 0.25 * c.b);
}
vec3 from_ycocg(vec3 y) {
    return vec3(y.x + y.y - y.z, y.x + y.z, y.x - y.y - y.z);
}
// the frame's radiance, NaN and negatives as 0, the rest clamped
vec3 frame_texel(ivec2 p) {
    vec3 c = imageLoad(hdr, p).rgb;
    for (int k = 0; k < 3; k++) c[k] = c[k] >= 0.0 ? min(c[k], 65504.0) : 0.0;
    return c;
}
// a clip-space point's pixel (x right, y down); false behind the eye
bool to_pixel(vec4 c, out vec2 p) {
    p = vec2(0.0);
    if (!(c.w > 0.0)) return false;
    p = vec2((c.x / c.w * 0.5 + 0.5) * float(view.size.x),
             (0.5 - c.y / c.w * 0.5) * float(view.size.y));
    return true;
}

// Where the point this pixel sampled was last frame, minus where it is now
// (both unjittered), in pixels; false when last frame's is behind the eye.
bool motion(ivec2 px, out vec2 m) {
    m = vec2(0.0);
    float W = float(view.size.x), H = float(view.size.y);
    vec2 at = vec2(px) + 0.5 - view.taa.xy; // the point the jittered raster sampled
    vec2 ndc = vec2(at.x / W * 2.0 - 1.0, 1.0 - at.y / H * 2.0);
    uvec2 id = texelFetch(ids, px, 0).xy;
    vec2 prev, now;
    if (id.x == 0u) { // the sky: the camera's turn alone
        vec4 far = view.inv_view_proj * vec4(ndc, 0.5, 1.0);
        vec4 near = view.inv_view_proj * vec4(ndc, 1.0, 1.0);
        vec3 fp = far.xyz / far.w, dir = fp - near.xyz / near.w;
        vec4 c = view.prev_view_proj * vec4(dir, 0.0);
        // orthographic: directions do not project; the far point does
        if (c.w == 0.0) c = view.prev_view_proj * vec4(fp, 1.0);
        if (!to_pixel(c, prev)) return false;
        m = prev - at;
        return true;
    }
    oak_gpu_draw d = oak_fetch_draw(id);
    uint base = d.info.y + oak_id_triangle(id) * 3u;
    // the triangle's corners now (k < 3) and, posed, last frame (k >= 3),
    // in one loop whose count the compiler cannot see: each oak_draw_point
    // inlines a posing path (bank, blend, card), and six copies of it made
    // llvmpipe's coroutine pass take minutes to compile this shader
    // (view.out_size.w is 0: adding it keeps the count from being folded)
    vec4 Po[3], Pp[3];
    uint corners = d.prev.y != 0u ? 6u : 3u;
    for (uint k = 0u; k < corners + view.out_size.w; k++) {
        vec4 q = oak_draw_point(d, indices[base + k % 3u], k >= 3u);
        if (k < 3u)
            Po[k] = q;
        else
            Pp[k - 3u] = q;
    }
    vec3 rows[3];
    for (int k = 0; k < 3; k++) rows[k] = (view.view_proj * (d.world * Po[k])).xyw;
    // homogeneous barycentrics, as the resolve's (common/surface.glsl)
    vec3 e0 = cross(rows[1], rows[2]), e1 = cross(rows[2], rows[0]), e2 = cross(rows[0], rows[1]);
    vec3 p = vec3(ndc, 1.0);
    vec3 E = vec3(dot(e0, p), dot(e1, p), dot(e2, p));
    float S = E.x + E.y + E.z;
    vec3 b = E / (S != 0.0 ? S : 1e-30);
    vec4 P = b.x * Po[0] + b.y * Po[1] + b.z * Po[2];
    if (!to_pixel(view.view_proj * (d.world * P), now)) return false;
    // a posed draw: the same barycentrics over last frame's pose
    if (d.prev.y != 0u) { // a posed instance: at last frame's phase
        P = b.x * Pp[0] + b.y * Pp[1] + b.z * Pp[2];
    } else if (d.prev.x != 0u) {
        uint at = d.info.z + d.prev.x;
        P = b.x * positions[indices[base] + at] + b.y * positions[indices[base + 1u] + at] +
            b.z * positions[indices[base + 2u] + at];
    }
    if (!to_pixel(view.prev_view_proj * (d.prev_world * P), prev)) return false;
    m = prev - now;
    return true;
}

// The history image at `first` (size.x wide, size.y high: the render size,
// or the output's when upsampling) read bilinearly at p, edges clamped.
vec4 history_at_size(uint first, vec2 p, ivec2 size) {
    vec2 q = p - 0.5;
    vec2 i0 = floor(q);
    vec2 f = q - i0;
    ivec2 a = clamp(ivec2(i0), ivec2(0), size - 1), c = clamp(ivec2(i0) + 1, ivec2(0), size - 1);
    uint w = uint(size.x);
    vec4 t00 = history[first + uint(a.y) * w + uint(a.x)];
    vec4 t10 = history[first + uint(a.y) * w + uint(c.x)];
    vec4 t01 = history[first + uint(c.y) * w + uint(a.x)];
    vec4 t11 = history[first + uint(c.y) * w + uint(c.x)];
    vec4 top = t00 + (t10 - t00) * f.x, bot = t01 + (t11 - t01) * f.x;
    return top + (bot - top) * f.y;
}

// Upsampling (view.out_size larger than view.size): output pixel o gathers
// the render samples of the 3 x 3 around the render pixel it falls in,
// each weighed (1 - d^2 / r^2)^2 by its jittered sample point's distance d
// in output pixels; the history (output-sized) is reprojected by that
// render pixel's motion, clamped to the same 3 x 3 box, and blended as a
// running mean weighted by the nearest sample's weight (its confidence).
// The render pixel output pixel o falls in.
ivec2 up_pixel(ivec2 o) {
    ivec2 R = ivec2(view.size.xy), O = ivec2(view.out_size.xy);
    float rx = (float(o.x) + 0.5) * (float(R.x) / float(O.x));
    float ry = (float(o.y) + 0.5) * (float(R.y) / float(O.y));
    return clamp(ivec2(int(floor(rx)), int(floor(ry))), ivec2(0), R - 1);
}

// m and ok are motion() at up_pixel(o), taken by main: motion() has one
// call site, since each inlined copy of its posing path costs lavapipe's
// coroutine compile minutes.
void upsample(ivec2 o, uint src, uint dst, vec2 m, bool ok) {
    ivec2 R = ivec2(view.size.xy), O = ivec2(view.out_size.xy);
    float sx = float(R.x) / float(O.x), sy = float(R.y) / float(O.y);
    float rx = (float(o.x) + 0.5) * sx, ry = (float(o.y) + 0.5) * sy;
    ivec2 c = up_pixel(o);
    vec3 lo = vec3(1e30), hi = vec3(-1e30), sum = vec3(0.0), ysum = vec3(0.0);
    float taps = 0.0;
    float wsum = 0.0, wmax = 0.0, r2 = float(OAK_TAA_UP_RADIUS * OAK_TAA_UP_RADIUS);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            ivec2 q = c + ivec2(dx, dy);
            if (q.x < 0 || q.y < 0 || q.x >= R.x || q.y >= R.y) continue;
            vec3 t = weigh(frame_texel(q));
            vec3 y = to_ycocg(t);
            lo = min(lo, y);
            hi = max(hi, y);
            ysum += y;
            taps += 1.0;
            float ddx = (float(q.x) + 0.5 - view.taa.x - rx) / sx;
            float ddy = (float(q.y) + 0.5 - view.taa.y - ry) / sy;
            float u = 1.0 - (ddx * ddx + ddy * ddy) / r2;
            float w = u > 0.0 ? u * u : 0.0;
            sum += t * w;
            wsum += w;
            wmax = max(wmax, w);
        }
    vec3 cur = wsum > 0.0 ? sum / wsum : weigh(frame_texel(c));
    float hx = float(o.x) + 0.5 + m.x / sx, hy = float(o.y) + 0.5 + m.y / sy;
    float count = 0.0;
    vec3 past = cur;
    if (view.taa.z == 0.0 && ok && hx >= 0.0 && hy >= 0.0 && hx <= float(O.x) &&
        hy <= float(O.y)) {
        vec4 t = history_at_size(src, vec2(hx, hy), O);
        past = from_ycocg(clip_box(lo, hi, ysum / taps, to_ycocg(weigh(max(t.rgb, vec3(0.0))))));
        count = t.a;
    }
    float total = count + wmax;
    float a = total > 0.0 ? wmax / total : 1.0;
    vec3 outw = past + (cur - past) * a;
    history[dst] = vec4(unweigh(outw), min(total, 1.0 / float(OAK_TAA_WEIGHT)));
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.size.x, H = view.size.y;
    uint OW = view.out_size.x, OH = view.out_size.y;
    if (px.x >= int(OW) || px.y >= int(OH)) return;
    uint n = OW * OH, i = uint(px.y) * OW + uint(px.x);
    uint parity = uint(view.taa.w);
    uint dst = (1u - parity) * n + i;
    if (OAK_TAA_STEP == 1u) {
        vec3 c = history[dst].rgb;
        float s = uintBitsToFloat(view.out_size.z);
        if (s > 0.0) { // the sharpen: 5-tap unsharp, clamped to the taps' range
            uint first = (1u - parity) * n;
            ivec2 hi = ivec2(OW, OH) - 1;
            vec3 t0 = history[first + uint(px.y) * OW + uint(max(px.x - 1, 0))].rgb;
            vec3 t1 = history[first + uint(px.y) * OW + uint(min(px.x + 1, hi.x))].rgb;
            vec3 t2 = history[first + uint(max(px.y - 1, 0)) * OW + uint(px.x)].rgb;
            vec3 t3 = history[first + uint(min(px.y + 1, hi.y)) * OW + uint(px.x)].rgb;
            vec3 lo = min(min(min(t0, t1), min(t2, t3)), c), up = max(max(max(t0, t1), max(t2, t3)), c);
            vec3 d = c * 4.0 - ((t0 + t1) + (t2 + t3));
            c = clamp(c + d * (s * 0.25), lo, up);
        }
        imageStore(hdr, px, vec4(c, 1.0));
        return;
    }
    bool up = OW != W || OH != H;
    vec2 m;
    bool ok = motion(up ? up_pixel(px) : px, m);
    if (up) {
        upsample(px, parity * n, dst, m, ok);
        return;
    }
    if ((view.flags.y & OAK_GPU_CHANNEL_MOTION) != 0u) { // the channel: pixels, z valid
        history[dst] = ok ? vec4(m, 1.0, 0.0) : vec4(0.0);
        return;
    }
    if ((view.flags.y & OAK_GPU_DEBUG_MOTION) != 0u) {
        vec2 c = clamp(0.5 + m / (2.0 * float(OAK_TAA_MOTION_VIEW)), 0.0, 1.0);
        history[dst] = vec4(ok ? c : vec2(0.5), ok ? 0.5 : 0.0, 0.0);
        return;
    }
    vec3 lo = vec3(1e30), hi = vec3(-1e30), ysum = vec3(0.0);
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            ivec2 q = clamp(px + ivec2(dx, dy), ivec2(0), ivec2(W, H) - 1);
            vec3 y = to_ycocg(weigh(frame_texel(q)));
            lo = min(lo, y);
            hi = max(hi, y);
            ysum += y;
        }
    vec3 cur = weigh(frame_texel(px));
    vec2 h = vec2(px) + 0.5 + m;
    float count = 0.0;
    vec3 past = cur;
    if (view.taa.z == 0.0 && ok && h.x >= 0.0 && h.y >= 0.0 && h.x <= float(W) &&
        h.y <= float(H)) {
        vec4 t = history_at_size(parity * n, h, ivec2(view.size.xy));
        past = from_ycocg(clip_box(lo, hi, ysum / 9.0, to_ycocg(weigh(max(t.rgb, vec3(0.0))))));
        count = t.a;
    }
    // a running mean until the history holds 1 / OAK_TAA_WEIGHT frames
    float a = max(1.0 / (count + 1.0), float(OAK_TAA_WEIGHT));
    vec3 outw = past + (cur - past) * a;
    history[dst] = vec4(unweigh(outw), min(count + 1.0, 1.0 / float(OAK_TAA_WEIGHT)));
}
