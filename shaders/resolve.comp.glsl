#version 450
// Visibility buffer resolve: shades each pixel once from its (draw, triangle)
// id (common/surface.glsl), the sky where no geometry is.
#extension GL_GOOGLE_include_directive : require
#include "common/gtao.glsl"
// the indirect light times this frame's gtao term, when the pass ran for it
float oak_gtao_at(ivec2 px) {
    return view.ao_params.w != 0.0 ? ao_words[uint(px.y) * view.size.x + uint(px.x)] : 1.0;
}
#define OAK_GTAO_AT(px) oak_gtao_at(px)
#define OAK_SSR_OUT 1
// before surface.glsl, whose include of it (the forward pass's) the GL
// loader would take as this one
#define OAK_SSR_WRITE 1
#include "common/ssr.glsl"
#include "common/surface.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_BINDING(OAK_B_IDS) uniform usampler2D ids;
OAK_IMAGE(OAK_B_HDR, rgba32f) uniform writeonly image2D hdr;

// the ssr pass's mirror buffer (weather.z: it runs this frame), written
// whole: 0 where there is no mirror
void oak_ssr_store(ivec2 px) {
    if (view.weather.z == 0.0) return;
    uint i = uint(px.y) * view.size.x + uint(px.x);
    vec2 e = oak_ssr_w != vec3(0.0) ? oak_ssr_oct(oak_ssr_dir) : vec2(0.0);
    ssr_texels[2u * i] = vec4(oak_ssr_w, e.x);
    ssr_texels[2u * i + 1u] = vec4(oak_ssr_r, e.y);
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.size.x, H = view.size.y;
    if (px.x >= int(W) || px.y >= int(H)) return;
    oak_ssr_store(px); // none yet: the sky and the debug views hold no mirror
    vec3 atlas;
    if ((view.flags.y & OAK_GPU_DEBUG_ATLAS) != 0u && oak_lamp_atlas_debug(px, atlas)) {
        imageStore(hdr, px, vec4(atlas, 1.0));
        return;
    }
    if ((view.flags.y & OAK_GPU_DEBUG_AO) != 0u) { // --debug ao: the term as grey
        imageStore(hdr, px, vec4(vec3(ao_words[uint(px.y) * W + uint(px.x)]), 1.0));
        return;
    }
    uvec2 id = texelFetch(ids, px, 0).xy;
    if (id.x == 0u) {
        if ((view.flags.y & OAK_GPU_CHANNEL_MASK) != 0u) { // a channel: no surface here
            imageStore(hdr, px, vec4(0.0, 0.0, 0.0, 1.0));
            return;
        }
        // NDC of the pixel centre less TAA's jitter; row 0 is clip y = +1.
        vec2 ndc = vec2((float(px.x) + 0.5 - view.taa.x) / float(W) * 2.0 - 1.0,
                        1.0 - (float(px.y) + 0.5 - view.taa.y) / float(H) * 2.0);
        vec4 far = view.inv_view_proj * vec4(ndc, 0.5, 1.0);
        vec4 near = view.inv_view_proj * vec4(ndc, 1.0, 1.0);
        vec3 dir = normalize(far.xyz / far.w - near.xyz / near.w);
        // under the water the sky is seen through it (docs/SHADING.md "Water")
        vec3 sky = oak_eye_under_water() ? oak_water_sky_below(dir) : oak_sky(dir);
        if (view.fog.grid.w != 0u) sky = oak_fog_apply_sky(px, sky);
        imageStore(hdr, px, vec4(sky, 1.0));
        return;
    }
    vec3 c = oak_shade_draw(oak_fetch_draw(id), oak_id_triangle(id), px).rgb;
    imageStore(hdr, px, vec4(c, 1.0));
    if (oak_ssr_w != vec3(0.0)) oak_ssr_store(px);
}
