/* The GPU data oak's shaders and C share: buffer records (view, lights, draws,
 * vertices, materials) and binding numbers, written once for both languages.
 * Binding-model specifics (Vulkan sets, GL's flat bindings) sit behind macros. */
#ifndef OAK_GPU_H
#define OAK_GPU_H

#include "oak/config.h"

#ifdef __STDC_VERSION__ /* C */
#include <stdint.h>
#define OAK_STRUCT(name) typedef struct name
#define OAK_END(name)    name
#define OAK_F4(n)        float n[4]
#define OAK_U4(n)        uint32_t n[4]
#define OAK_M4(n)        float n[16]
#else /* GLSL */
#define OAK_STRUCT(name) struct name
#define OAK_END(name)
#define OAK_F4(n) vec4 n
#define OAK_U4(n) uvec4 n
#define OAK_M4(n) mat4 n
#if defined(OAK_VULKAN_GLSL)
#define OAK_UBO(b)                            layout(set = 0, binding = b, std140)
#define OAK_SSBO(b)                           layout(set = 0, binding = b, std430)
#define OAK_BINDING(b)                        layout(set = 0, binding = b)
#define OAK_IMAGE(b, fmt)                     layout(set = 0, binding = b, fmt)
#define OAK_SPEC_CONST(id, type, name, value) layout(constant_id = id) const type name = value;
#define OAK_VERTEX_INDEX                      gl_VertexIndex
#define OAK_INSTANCE_INDEX                    gl_InstanceIndex
#define OAK_VERTEX_INPUTS
/* Keeps loops rolled (lavapipe compiles a variant per unrolled tap). */
#extension GL_EXT_control_flow_attributes : require
#define OAK_DONT_UNROLL [[dont_unroll]]
#else /* OpenGL 4.5 (backend/gl): flat binding points per kind */
#define OAK_UBO(b)        layout(binding = b, std140)
#define OAK_SSBO(b)       layout(binding = b, std430)
#define OAK_BINDING(b)    layout(binding = b)
/* Image units are few (8 guaranteed); the passes' images start at OAK_B_HDR. */
#define OAK_IMAGE(b, fmt) layout(binding = (b)-OAK_B_HDR, fmt)
/* No specialization constants: the GL program builder #defines `name`. */
#define OAK_SPEC_CONST(id, type, name, value)
/* gl_VertexID includes the base vertex as gl_VertexIndex does; GL 4.5's
   gl_InstanceID lacks the base instance, so the draw index comes from a
   per-instance attribute (divisor 1) reading 0, 1, 2, ... */
#define OAK_VERTEX_INDEX   gl_VertexID
#define OAK_INSTANCE_INDEX int(oak_draw_index)
#define OAK_VERTEX_INPUTS  layout(location = 0) in uint oak_draw_index;
/* GL has no loop attributes (GL_EXT_control_flow_attributes is Vulkan's). */
#define OAK_DONT_UNROLL
#endif
/* a[k] = v for a small array a written in a rolled loop (OAK_GET: read so):
   on GL with constant indices only, since NVIDIA's GL compiler keeps an
   array indexed by a variable in local memory (the resolve ran 3 times
   slower); glslc's SPIR-V keeps either in registers, and the selects cost
   the Vulkan resolve 15%. */
#if defined(OAK_VULKAN_GLSL)
#define OAK_PUT3(a, k, v) a[k] = (v)
#define OAK_PUT4(a, k, v) a[k] = (v)
#define OAK_PUT5(a, k, v) a[k] = (v)
#define OAK_GET3(a, k) a[k]
#define OAK_GET4(a, k) a[k]
#define OAK_GET5(a, k) a[k]
#else
#define OAK_PUT3(a, k, v) if ((k) == 0) a[0] = (v); else if ((k) == 1) a[1] = (v); else a[2] = (v)
#define OAK_PUT4(a, k, v) if ((k) < 3) { OAK_PUT3(a, k, v); } else a[3] = (v)
#define OAK_PUT5(a, k, v) if ((k) < 3) { OAK_PUT3(a, k, v); } else if ((k) == 3) a[3] = (v); else a[4] = (v)
#define OAK_GET3(a, k) ((k) == 0 ? a[0] : (k) == 1 ? a[1] : a[2])
#define OAK_GET4(a, k) ((k) < 3 ? OAK_GET3(a, k) : a[3])
#define OAK_GET5(a, k) ((k) < 3 ? OAK_GET3(a, k) : (k) == 3 ? a[3] : a[4])
#endif
#endif

/* Binding numbers (one set in Vulkan). */
#define OAK_B_VIEW              0  /* uniform oak_gpu_view */
#define OAK_B_LIGHTS            1  /* oak_gpu_light[] */
#define OAK_B_DRAWS             2  /* oak_gpu_draw[]: the view's draws, then the casters */
#define OAK_B_MATERIALS         3  /* oak_gpu_material[] by material asset slot */
#define OAK_B_POSITIONS         4  /* vec4[] vertex pool positions (w = 1) */
#define OAK_B_ATTRIBUTES        5  /* oak_gpu_vertex[] vertex pool attributes */
#define OAK_B_INDICES           6  /* uint[] index pool (relative to the mesh's first vertex) */
#define OAK_B_SHADOW            7  /* sampler2D: key light map, reversed-Z depth */
#define OAK_B_IDS               8  /* uimage2D rg32ui: (draw + 1, triangle), 0 = sky */
#define OAK_B_HDR               9  /* image2D rgba32f: shaded linear colour */
#define OAK_B_LDR               10 /* uint[]: RGBA8 after tone mapping and dither */
#define OAK_B_OUTPUT            11 /* uint[]: RGBA8 after FXAA */
#define OAK_B_TEXTURES          12 /* sampler2DArray[OAK_GPU_TEXTURE_CLASSES], one per size class */
#define OAK_GPU_TEXTURE_CLASSES 16
#define OAK_B_LIGHT_GRID        28 /* oak_gpu_light_grid, then counts and lists (lightgrid.comp) */
#define OAK_B_LAMP_ATLAS        29 /* sampler2D: the lamp shadow atlas, reversed-Z depth */
#define OAK_B_LAMP_SHADOWS      30 /* oak_gpu_lamp_shadows: the budget's slots and faces */
#define OAK_B_AO                31 /* float[]: the gtao pass's AO, raw AO, normals, depth mips */
#define OAK_B_SKY               32 /* vec4[]: the sky light maps, laid out as OAK_GPU_SKY_* says */
#define OAK_B_PROBES            33 /* vec4[]: the probes in view and their maps, as OAK_GPU_PROBE_* says */
#define OAK_B_TAA               34 /* vec4[]: the taa pass's two histories (render/taa.h) */
#define OAK_B_EXPOSURE          35 /* eye adaptation: state, then the histogram (OAK_GPU_EXPOSURE_*) */
#define OAK_B_BLOOM             36 /* vec4[]: the bloom pyramid's down, then up levels (bloom.glsl) */
#define OAK_B_INSTANCES         37 /* oak_gpu_instance[]: instance records (streams) */
#define OAK_B_INSTANCE_OUT      38 /* visible lists and indirect args (streams' instcull) */
#define OAK_B_HIZ               39 /* uint[]: two-pass Hi-Z's head, candidates, commands (oak_gpu_hiz_head) */
#define OAK_B_DEPTH             40 /* sampler2D: the main view's depth (reversed-Z), read by dof */
#define OAK_B_DOF               41 /* vec4[]: depth of field's half-size images and tiles (dof.glsl) */
#define OAK_B_CLOUDS            42 /* vec4[]: the clouds' shadow map, noise table, march (clouds.glsl) */
#define OAK_B_FOG               43 /* vec4[]: the fog's froxels, injected then integrated (fog.glsl) */
#define OAK_B_HIZ_KEEP          44 /* uint[]: two-pass Hi-Z's visible bits, then its pyramid */
#define OAK_B_OPAQUE            45 /* vec4[]: the opaque frame's copy and its mips (opaque.glsl) */
#define OAK_B_SSR               46 /* vec4[]: per pixel a mirror's split-sum weight and its reflection (ssr.glsl) */
#define OAK_B_SKIN              47 /* uvec4[]: the skin pass's jobs, then their palettes (skin.comp) */
#define OAK_B_CRASTER           48 /* uvec4[]: the compute raster's head, then its bands (oak_gpu.h "Compute rasterization") */
#define OAK_B_CRASTER_DEPTH     49 /* uint64 per pixel: depth bits << 32 | item, the compute raster's target */
#define OAK_B_CRASTER_SHADOW    50 /* uint per texel: the shadow compute raster's depth bits, a region per cascade and kind */
#define OAK_B_MESHLETS          51 /* uvec4[]: meshlet records and their triangles, per mesh (oak_gpu_meshlet) */
#define OAK_B_MESHCULL          52 /* uint[]: the meshcull pass's head, jobs, commands, maps, indices */
#define OAK_B_AERIAL            53 /* vec4[OAK_AERIAL_TEXELS]: the aerial perspective volume (render/aerial.h, aerial.glsl) */
#define OAK_B_COUNT             54
/* sampler2D[]: Vulkan's bindless textures (textures.glsl), last as a variable count needs */
#define OAK_B_BINDLESS          OAK_B_COUNT

/* The sky buffer (OAK_B_SKY; the CPU backend keeps the same floats), in vec4
 * texels: a head, then the octahedral capture's mips (level 0 first, each
 * square and half the last, down to 1), the irradiance map, the split-sum
 * BRDF table (NdotV across, roughness down; A, B), the GGX-prefiltered
 * levels (max(OAK_SKY_SPECULAR_SIZE >> l, OAK_SKY_SPECULAR_MIN) across) and
 * the equirectangular sky image, top row first (render/skylight.h).
 * Head texels: 0 zenith radiance, w image width (0: the gradient);
 * 1 horizon radiance, w image height; 2 the diffuse sky light's scale, w 1
 * when the ground colour replaces the sky below the horizon; 3 that ground
 * radiance, w 1 when the BRDF table is to be built (GPU); 4 the flat
 * diffuse sky light added where the sky has none of a channel to scale,
 * w the image's brightness; 5 x the image's pull toward grey (overcast). */
/* (no line continuations here: the GL embedding reads these one line each) */
#define OAK_GPU_SKY_HEAD           8
#define OAK_GPU_SKY_CAPTURE_AT     OAK_GPU_SKY_HEAD
#define OAK_GPU_SKY_CAPTURE_TEXELS ((4 * OAK_SKY_CAPTURE_SIZE * OAK_SKY_CAPTURE_SIZE - 1) / 3)
#define OAK_GPU_SKY_IRR_AT         (OAK_GPU_SKY_CAPTURE_AT + OAK_GPU_SKY_CAPTURE_TEXELS)
#define OAK_GPU_SKY_IRR_TEXELS     (OAK_SKY_IRRADIANCE_SIZE * OAK_SKY_IRRADIANCE_SIZE)
#define OAK_GPU_SKY_BRDF_AT        (OAK_GPU_SKY_IRR_AT + OAK_GPU_SKY_IRR_TEXELS)
#define OAK_GPU_SKY_SPEC_AT        (OAK_GPU_SKY_BRDF_AT + OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE)
#define OAK_GPU_SKY_SPEC_TEXELS    5568 /* 64^2 + 32^2 + 16^2 + 3 * 8^2 (render/skylight.c checks) */
#define OAK_GPU_SKY_IMAGE_AT       (OAK_GPU_SKY_SPEC_AT + OAK_GPU_SKY_SPEC_TEXELS)
#define OAK_GPU_SKY_IMAGE_TEXELS   (OAK_SKY_IMAGE_WIDTH * OAK_SKY_IMAGE_HEIGHT)
#define OAK_GPU_SKY_TEXELS         (OAK_GPU_SKY_IMAGE_AT + OAK_GPU_SKY_IMAGE_TEXELS)
/* a reflection probe's map: the GGX-prefiltered levels alone, laid out as the
   sky's from OAK_GPU_SKY_SPEC_AT (render/probe.h) */
#define OAK_GPU_PROBE_MAP_TEXELS OAK_GPU_SKY_SPEC_TEXELS
/* The probes buffer (OAK_B_PROBES; the CPU reads the same floats), in vec4
   texels: texel 0 x the probes in view; then OAK_PROBE_MAX_VIEW records of
   oak_gpu_probe (3 texels each), the view's order; then each record's map at
   OAK_GPU_PROBE_MAPS_AT + slot * OAK_GPU_PROBE_MAP_TEXELS (slot: lo.w). */
#define OAK_GPU_PROBE_RECORDS_AT 1
#define OAK_GPU_PROBE_MAPS_AT    (OAK_GPU_PROBE_RECORDS_AT + 3 * OAK_PROBE_MAX_VIEW)
#define OAK_GPU_PROBE_TEXELS     (OAK_GPU_PROBE_MAPS_AT + OAK_PROBE_MAX_VIEW * OAK_GPU_PROBE_MAP_TEXELS)
/* the filter pass's work: irradiance texels, then the prefiltered ones */
#define OAK_GPU_SKY_FILTER_TEXELS (OAK_GPU_SKY_IRR_TEXELS + OAK_GPU_SKY_SPEC_TEXELS)

/* The exposure buffer (OAK_B_EXPOSURE; the CPU backend keeps the same
   state), in 32-bit words: the state vec4 (x the camera's EV100 now, y the
   multiplier post applies, z the EV100 metered from the last frame, w the
   target it steered to), then OAK_METER_BINS histogram counts, which the
   step kernel leaves at zero for the next frame (shaders/common/exposure.glsl). */
#define OAK_GPU_EXPOSURE_HIST_AT 4
#define OAK_GPU_EXPOSURE_WORDS   (OAK_GPU_EXPOSURE_HIST_AT + OAK_METER_BINS)

#define OAK_GPU_GROUP 8 /* compute passes run 8 x 8 pixel groups */
/* the opaque frame's copy (OAK_B_OPAQUE, render/opaque_copy.h): the frame,
   then levels 1 .. OAK_GPU_OPAQUE_LEVELS - 1, each ceil(w / 2) x ceil(h / 2)
   of the one above, a 2 x 2 box of it */
#define OAK_GPU_OPAQUE_LEVELS 8

/* the clouds buffer (OAK_B_CLOUDS): where its parts start, in vec4 texels */
#define OAK_GPU_CLOUD_NOISE_AT     (OAK_CLOUD_SHADOW_SIZE * OAK_CLOUD_SHADOW_SIZE)
#define OAK_GPU_CLOUD_NOISE_SLICE  (OAK_CLOUD_NOISE_SIZE * OAK_CLOUD_NOISE_SIZE)
#define OAK_GPU_CLOUD_NOISE_TEXELS (OAK_GPU_CLOUD_NOISE_SLICE * OAK_CLOUD_NOISE_SIZE)
#define OAK_GPU_CLOUD_MARCH_AT     (OAK_GPU_CLOUD_NOISE_AT + OAK_GPU_CLOUD_NOISE_TEXELS)

/* oak_gpu_view.flags.y */
#define OAK_GPU_POST_NO_TONEMAP 1u
#define OAK_GPU_POST_NO_DITHER  2u
#define OAK_GPU_POST_NO_FXAA    4u
#define OAK_GPU_DEBUG_CASCADES  8u   /* --debug cascades */
#define OAK_GPU_DEBUG_CLUSTERS  16u  /* --debug clusters: lamps per cell as a heat map */
#define OAK_GPU_DEBUG_ATLAS     32u  /* --debug lamp-shadows: the lamp shadow atlas */
#define OAK_GPU_DEBUG_AO        64u  /* --debug ao: the AO term as grey */
#define OAK_GPU_DEBUG_PROBES    128u /* reserved for a probes debug view */

#define OAK_GPU_POST_TONE_NEUTRAL 512u  /* camera: Khronos PBR Neutral instead of ACES */
#define OAK_GPU_POST_ADAPT        1024u /* post shows the exposure pass's camera (OAK_B_EXPOSURE) */
#define OAK_GPU_POST_SETTLE       2048u /* the exposure pass jumps to its target (first frame) */
#define OAK_GPU_DEBUG_MOTION      4096u /* --debug motion: the taa pass shows the motion vectors */
/* capture channels (docs/SHADING.md "Capture channels"): the resolve writes
   the surface's albedo, normal or view depth instead of its light; the taa
   pass's motion view writes pixels unscaled */
#define OAK_GPU_CHANNEL_ALBEDO 8192u
#define OAK_GPU_CHANNEL_NORMAL 16384u
#define OAK_GPU_CHANNEL_DEPTH  32768u
#define OAK_GPU_CHANNEL_MOTION 65536u
#define OAK_GPU_CHANNEL_MASK   (8192u | 16384u | 32768u)
/* the resolve and blend read the aerial perspective volume (OAK_B_AERIAL) */
#define OAK_GPU_AERIAL         131072u

/* oak_gpu_material.mode.y */
#define OAK_GPU_MAT_DOUBLE_SIDED 1u
#define OAK_GPU_MAT_UNLIT        2u
#define OAK_GPU_MAT_WATER        4u
#define OAK_GPU_MAT_COAT         8u  /* KHR_materials_clearcoat: lobe1.xy */
#define OAK_GPU_MAT_SHEEN        16u /* KHR_materials_sheen: lobe2, lobe1.z */
#define OAK_GPU_MAT_ANISO        32u /* KHR_materials_anisotropy: lobe3.xyz */
#define OAK_GPU_MAT_IRID         64u /* KHR_materials_iridescence: lobe4.xyz */
#define OAK_GPU_MAT_DIFFTR       128u /* KHR_materials_diffuse_transmission: lobe5 */
#define OAK_GPU_MAT_TRANSMIT     256u /* KHR_materials_transmission (+ _volume, _dispersion): lobe6, lobe7 */
#define OAK_GPU_MAT_ADDITIVE     512u /* BLEND: added to what is behind (src * a + dst) */
/* oak_gpu_material.emissive.w: a BLEND material's softness in metres (0: hard) */

/* oak_gpu_texref.a.w packing: mips | wrap_u << 8 | wrap_v << 10 | mag << 12 |
 * min << 14 | mip << 16 | uv_set << 18 | srgb << 19 (wraps and filters are
 * the resolved oak_wrap / oak_filter values). */
#define OAK_GPU_TEX_SRGB (1u << 19)

/* Volumetric clouds this frame (render/clouds.c _oak_clouds_fill; docs/
 * SHADING.md "Volumetric clouds"). The OAK_B_CLOUDS buffer holds, in vec4
 * texels: the shadow map (OAK_CLOUD_SHADOW_SIZE squared, x the key light's
 * transmittance through the layer from the layer's base at that texel's
 * XZ), the noise table (OAK_CLOUD_NOISE_SIZE cubed: x Perlin-Worley, y
 * Worley detail) and the march: two slots by frame parity (steps.z the one
 * written, the other last frame's), each size.x by size.y texels of rgb
 * light and a transmittance, then as many of the transmittance-weighted
 * distance (m) and the device depth the ray was clipped at. */
OAK_STRUCT(oak_gpu_clouds) {
    OAK_F4(shape);   /* coverage, type, extinction per metre at full density, 1 when clouds run */
    OAK_F4(layer);   /* base, top (metres), drift x, z (metres the wind carried them) */
    OAK_F4(shadow);  /* the map's texel 0 corner x, z (metres), metres per texel, 1 / that */
    OAK_F4(sun);     /* unit direction toward the key light (0: none), multiple-scattering gain */
    OAK_F4(light);   /* the key light's illuminance rgb (lux as linear colour), the type's variation per place (0: none) */
    OAK_F4(ambient); /* times the sky's irradiance straight up: the sky light (1 / pi), rgb */
    OAK_U4(size);    /* the march's width, height, steps, the frame (the dither's hash) */
    OAK_U4(steps);   /* downscale (pixels a side per march texel), 1 to blend the history, slot written, the partial march block side (0: every texel marched) */
}
OAK_END(oak_gpu_clouds);

/* Froxel volumetric fog this frame (render/fog.c _oak_fog_fill; docs/
 * SHADING.md "Volumetric fog"). The OAK_B_FOG buffer holds three grids of
 * grid.x * grid.y * grid.z vec4 texels, froxel (i, j, k) at (k grid.y + j)
 * grid.x + i: the inject's (rgb light scattered toward the eye per metre,
 * a extinction per metre), then the integrated (rgb light in-scattered
 * from the eye to slice k's far boundary, a transmittance to it), then a
 * second inject grid: the main view's inject alternates between the two
 * (one is last frame's history), a view keeping no history injects into
 * the integrated grid and integrates it in place (then the frames held: fog.h). */
OAK_STRUCT(oak_gpu_fog) {
    OAK_U4(grid);   /* froxels across, down, slices; 1 when the fog pass runs (0: none) */
    OAK_F4(slices); /* far (view depth, m), n (OAK_FOG_SLICE_NEAR), N / ln(1 + far / n), 0 */
    OAK_F4(height); /* extinction per metre at base, base height, falloff per metre, g */
    OAK_F4(albedo); /* the height fog's rgb albedo, 0 */
    OAK_F4(sun);    /* unit direction toward the key light, 1 when there is one */
    OAK_F4(light);  /* the key light's illuminance rgb, 1 when it casts cascades */
    OAK_F4(vol_center[OAK_FOG_VOLUMES]); /* xyz; w shape (oak_fog_shape, 0: none) */
    OAK_F4(vol_size[OAK_FOG_VOLUMES]);   /* half size xyz; w extinction per metre */
    OAK_F4(vol_albedo[OAK_FOG_VOLUMES]); /* rgb albedo, 0 */
    OAK_F4(prev_depth); /* last frame's view depth of P = dot(prev_depth, vec4(P, 1)) */
    OAK_F4(history);    /* the inject's offset in its froxel: depth (0 .. 1), the rejection factor (fog.h OAK_FOG_REJECT), x, y (0 .. 1) */
    OAK_U4(grids);      /* texel the inject writes from, texel history is read from, 1 when read, 0 */
}
OAK_END(oak_gpu_fog);

OAK_STRUCT(oak_gpu_view) {
    OAK_M4(view_proj);
    OAK_M4(inv_view_proj);
    OAK_M4(shadow_view_proj[OAK_MAX_CASCADES]); /* the key light's cascades */
    OAK_F4(camera_pos);                         /* w: fog density */
    OAK_F4(sky_zenith);                         /* w: exposure */
    OAK_F4(sky_horizon);                        /* w: eye adaptation's dt (seconds) */
    OAK_F4(fog_color);                          /* w: exposure compensation (stops) */
    OAK_F4(ambient_sky);
    OAK_F4(ambient_ground);
    OAK_U4(size);  /* width, height, light count, key light + 1 (0: none) */
    OAK_U4(flags); /* cascade count (0: no shadow), post bits, one cascade's map edge, draws */
    /* per cascade: */
    OAK_F4(shadow_split); /* the view depth its slice ends at */
    OAK_F4(shadow_texel); /* metres per texel */
    OAK_F4(shadow_depth); /* metres from its map's near plane to its far */
    OAK_U4(shadow_first); /* its first caster's draw record (the shadow pass's cascade) */
    OAK_F4(view_depth);   /* view depth of P = dot(view_depth, vec4(P, 1)) */
    OAK_F4(shadow_start); /* x: view depth cascade 0 starts at (znear), y: PCF taps a side */
    /* the gtao pass (shaders/common/gtao.glsl) */
    OAK_F4(ao_proj);   /* the projection's P00, P11, P20, P21 (column, row) */
    OAK_F4(ao_proj2);  /* P30, P31, 1 when orthographic, 0 */
    OAK_F4(ao_view_x); /* world to view: rows x and y (view_depth is -z) */
    OAK_F4(ao_view_y);
    OAK_F4(ao_params);   /* radius (m), exponent, 0, 1 when the resolve reads the AO */
    OAK_F4(post_params); /* bloom strength (0: no bloom), the sun disc's cos(radius) (0: no
                            disc), 1 / its solid angle, render scale (texture derivatives
                            times it: mip bias log2 of it) */
    OAK_F4(dof_params);  /* circle of confusion in half-size pixels = x + y * depth (signed:
                            near < 0), z its largest radius, w 1 when depth of field runs */
    OAK_F4(dof_taps[OAK_DOF_TAP_COUNT]); /* the gather's taps: x, y on the unit disc, z radius */
    /* the sheen's albedo table (common/sheen.h), four entries a vec4: a
       buffer, because NVIDIA's GL compiler copies a const array indexed at
       run time into local memory for every invocation (4 ms of the resolve
       at 1920x1080 on the H200) */
    OAK_F4(sheen_e[16]);
    /* the water's volume (docs/SHADING.md "Water") */
    OAK_F4(water);         /* level, shore foam depth, 1 when there is water, caustics time */
    OAK_F4(water_extent);  /* scene min x, min z, max x, max z */
    OAK_F4(water_absorb);  /* per metre, rgb */
    OAK_F4(water_scatter); /* deep water's radiance, rgb */
    OAK_F4(water_foam);    /* shore foam's radiance, rgb */
    /* temporal AA (shaders/taa.comp.glsl) */
    OAK_M4(prev_view_proj); /* last frame's unjittered view_proj */
    OAK_F4(taa);            /* jitter x, y (pixels, y down), 1 on a history reset, parity */
    oak_gpu_clouds clouds;  /* volumetric clouds (shape.w 0: none, no shadow read) */
    /* the size the taa pass writes and the passes after it run at: size.xy
       unless TAA upsamples a scaled frame to the output; z the sharpen's
       strength (float bits, 0: off), w always 0: shaders add it to a loop's
       count so the compiler cannot unroll (and inline again) a posing path */
    OAK_U4(out_size);
    oak_gpu_fog fog; /* volumetric fog (grid.w 0: none, the exp2 fog as before) */
    OAK_F4(weather); /* wetness, snow, 1 when the ssr pass runs (the resolve writes OAK_B_SSR), 1 when either is on */
    OAK_F4(ripples); /* rain on the puddles, its clock (s, wrapped), 0, 0 */
    /* device depth d to view depth (metres) for soft particles (blend.frag):
       the projection's P22, P32 and 1 when orthographic, 0. Perspective
       P32 / (d + P22), orthographic (P32 - d) / P22 */
    OAK_F4(depth_proj);
}
OAK_END(oak_gpu_view);

OAK_STRUCT(oak_gpu_light) {
    OAK_F4(position);  /* w: oak_light_type */
    OAK_F4(direction); /* w: range */
    OAK_F4(color);     /* color * intensity */
    OAK_F4(cone);      /* cos(outer), cos(inner), lamp shadow slot + 1 (0: none) */
}
OAK_END(oak_gpu_light);

/* Lamp shadows (docs/SHADING.md "Lamp shadows"): per slot the lamp, per
 * face its matrices and atlas tile. Caster records of the lampshadow pass
 * carry their face in oak_gpu_draw.info.w >> 16. */
OAK_STRUCT(oak_gpu_lamp_slot) {
    OAK_F4(position); /* the lamp; w: near */
    OAK_F4(info);     /* far (its reach), tan(half fov), first face, face count */
}
OAK_END(oak_gpu_lamp_slot);
OAK_STRUCT(oak_gpu_lamp_face) {
    OAK_M4(view_proj);
    OAK_M4(view);
    OAK_U4(info); /* tile, 0, 0, 0 */
}
OAK_END(oak_gpu_lamp_face);
OAK_STRUCT(oak_gpu_lamp_shadows) {
    OAK_U4(head); /* slots, faces, 0, 0 */
    oak_gpu_lamp_slot slots[OAK_LAMP_SHADOW_MAX];
    oak_gpu_lamp_face faces[OAK_LAMP_ATLAS_FACES];
}
OAK_END(oak_gpu_lamp_shadows);

/* The lamp grid's head; the buffer goes on with OAK_LIGHT_GRID_CELLS counts
 * (cell x + 16 (y + 9 z), row y = 0 at the top) and then OAK_LIGHT_CELL_MAX
 * light indices per cell. The host writes the head, lightgrid.comp the rest. */
OAK_STRUCT(oak_gpu_light_grid) {
    OAK_M4(view);   /* world to view; the camera looks down -z */
    OAK_F4(proj);   /* the projection's P00, P11, P20, P21 (column, row) */
    OAK_F4(proj2);  /* P30, P31, 1 when orthographic, 0 */
    OAK_F4(slices); /* grid near g0, (OAK_LIGHT_GRID_Z - 2) / ln(g1 / g0), znear, zfar:
                       slice k in 1..Z-1 starts at g0 exp((k - 1) / slices.y) */
    OAK_U4(info);   /* first lamp (lights before it are directional), light count,
                       lamp listings dropped at the cap (overflow), 0 */
}
OAK_END(oak_gpu_light_grid);
#define OAK_GPU_LIGHT_GRID_HEAD_WORDS 32 /* sizeof(oak_gpu_light_grid) / 4 */
#define OAK_GPU_LIGHT_GRID_WORDS                                                                   \
    (OAK_GPU_LIGHT_GRID_HEAD_WORDS + OAK_LIGHT_GRID_CELLS * (1 + OAK_LIGHT_CELL_MAX))

OAK_STRUCT(oak_gpu_draw) {
    OAK_M4(world);
    /* inverse transpose of world's 3x3; column 3: the draw's colour and
       opacity (an instance's, white and 1 for plain draws), multiplying the
       vertex colour */
    OAK_M4(normal);
    OAK_U4(info);       /* material slot, first index, first vertex, oak_draw_flags */
    OAK_M4(prev_world); /* last frame's world (the taa pass's motion vectors) */
    /* x: how far after the first vertex (info.z) the positions pool holds
       this draw's vertices in last frame's pose (a posed mesh drawn with
       OAK_DRAW_PREV_POSE: its vertex count), 0 for the positions themselves;
       y 0 (common/draw.glsl makes it 1 for a posed stream instance), z 0,
       or for a draw culled by meshlets 1 + the first word of its triangle
       map in OAK_B_MESHCULL (vis.frag), w 0. The taa pass's
       motion reads the triangle there (224 bytes
       a record, 16 of them this) */
    OAK_U4(prev);
}
OAK_END(oak_gpu_draw);

/* One instance of a stream (include/oak/render.h oak_instance, the same 12
 * floats): position and uniform scale, rotation as a unit quaternion (x, y,
 * z, w), linear colour (multiplies the material's base colour) and phase (a
 * stream's own use; in a posed stream its clip and time: "Pose blocks"). */
OAK_STRUCT(oak_gpu_instance) {
    OAK_F4(position_scale);
    OAK_F4(rotation);
    OAK_F4(color_phase);
}
OAK_END(oak_gpu_instance);

/* Particles (world/particles.c, shaders/particles.comp.glsl, docs/WORLD.md
 * "Particles"): a particle's whole record at age a is a function of its
 * birth state and its emitter's constants, the flight dv/dt = g - k v in
 * closed form from the birth (never stepped), so the C evaluation and the
 * kernel compute the same thing from the same inputs.
 * oak_gpu_particle: p0_life xyz the birth position, w the life (seconds),
 * v0_size xyz the birth velocity, w the birth size (metres),
 * spin_age x the start angle, y the spin rate (radians a second),
 * z the age (seconds) at the time the block was written, w 0. */
OAK_STRUCT(oak_gpu_particle) {
    OAK_F4(p0_life);
    OAK_F4(v0_size);
    OAK_F4(spin_age);
}
OAK_END(oak_gpu_particle);

/* One emitter's constants for the particle kernel: gravity xyz with the
 * drag in w, the eye xyz with w 1 when there is one (else the quads keep
 * +y), shape x the lift, y the flipbook frames (1: none), z the colour keys,
 * w the size keys, time x the seconds added to every particle's age, y the
 * particle count, z the seconds back to last frame, the keys' t four to a
 * vec4 (key i at element i / 4, i % 4), the size keys' factors alike and
 * the colour keys' linear rgba. target x the first record's index in
 * OAK_B_PARTICLE_OUT, y the first of last frame's copies, z 1 when those
 * copies are written (each particle's record time.z seconds younger), w 1
 * when a flipbook's frames are scattered to their places (the head's
 * frame_first and frame_end), else 0 (all 0: the records from index 0, no
 * copies). */
OAK_STRUCT(oak_gpu_particle_emitter) {
    OAK_F4(gravity_drag);
    OAK_F4(eye);
    OAK_F4(shape);
    OAK_F4(time);
    OAK_F4(color_at[OAK_PARTICLE_KEYS / 4]);
    OAK_F4(size_at[OAK_PARTICLE_KEYS / 4]);
    OAK_F4(size_value[OAK_PARTICLE_KEYS / 4]);
    OAK_F4(color[OAK_PARTICLE_KEYS]);
    OAK_U4(target);
}
OAK_END(oak_gpu_particle_emitter);
#define OAK_GPU_PARTICLE_GROUP 64 /* the particle kernel's work group */
/* The block's head after the constants, in uints: the counts per flipbook
 * frame (atomics), then a flipbook's place per frame on the device, the
 * first record and the end (target.w 1: the kernel scatters each particle
 * to its frame's first plus its rank within the frame in particle order) */
#define OAK_GPU_PARTICLE_HEAD_UINTS (3 * OAK_PARTICLE_FRAMES)
/* The particle kernel's bindings: OAK_B_PARTICLE_IN, its own (the
 * particles pass binds one emitter's block at a time, in its own descriptor
 * set on Vulkan, bound and unbound around its dispatches on GL, so sharing
 * its number with OAK_B_CRASTER_SHADOW, which only the shadow pass binds), holds
 * the emitter block, its head of OAK_GPU_PARTICLE_HEAD_UINTS uints, then
 * the particles. It writes particle i's record at
 * target.x + i of the instance buffer, which the instcull pass reads. */
#define OAK_B_PARTICLE_IN  50
#define OAK_B_PARTICLE_OUT OAK_B_INSTANCES

/* The instcull pass (shaders/instcull.comp.glsl, render/stream_cull.c's
 * kernel in compute): OAK_B_INSTANCE_OUT holds OAK_STREAM_MAX_PER_VIEW of
 * these, then uint words. A stream draws into OAK_GPU_INSTCULL_VIEWS views:
 * the camera (v = 0; under two-pass Hi-Z its pass 1), then cascade v - 1,
 * then (v = OAK_GPU_INSTCULL_LATE) the camera's pass 2 under Hi-Z (the
 * instances the pyramid found newly visible), then (v =
 * OAK_GPU_INSTCULL_SMALL) the camera's instances small on screen in a band
 * the hardware draws (small_at), for the compute raster. Its words from info.w on are, per
 * (view v, LOD k), an indirect draw command at info.w + 5 (v LODS + k)
 * (index count, instance count = the instances in that view at that LOD,
 * first index, base vertex, base instance = where its list starts), then
 * the lists: (v, k)'s at info.w + OAK_GPU_INSTCULL_HEAD_WORDS +
 * (v LODS + k) info.x, a word per instance (oak_gpu.h "Visibility ids").
 * Memory: 48 bytes of record and 4 (3 + OAK_MAX_CASCADES) LODS = 112 bytes
 * of lists per instance (lists sized for the worst case, every instance in
 * every view at every LOD), e.g. 8.0 MB for 50,000 and 0.80 GB for 5 million;
 * under Hi-Z another word per instance of visible bits in OAK_B_HIZ_KEEP. */
OAK_STRUCT(oak_gpu_instcull) {
    OAK_U4(info);                    /* instances, LOD count, first record, first word */
    OAK_U4(draw);                    /* material slot, oak_draw_flags, native (1: drawn from
                                        the lists, not among the view's draws), cascades it
                                        casts into (0: none) */
    OAK_F4(lod_distance);            /* per LOD (OAK_STREAM_LODS = 4); the last 0: no limit;
                                        already times the view's lod_scale (backend.h) */
    OAK_F4(bounds[OAK_STREAM_LODS]); /* per LOD mesh: bounding sphere centre xyz, radius */
    OAK_F4(planes[6]);               /* the view frustum (oak_frustum_planes) */
    OAK_F4(eye);                     /* LOD distances are measured from here */
    /* per cascade OAK_CASCADE_MOVER_PLANES planes its casters are tested
       by: a stream that stands still, the map's volume (oak_frustum_planes
       of its view_proj, the box render/shadow_fit.c keeps a static caster
       by, and two that pass all), so the cached layer's list depends on the
       map alone; one that moved, the movers' rule (backend.h mover_planes) */
    OAK_F4(cascade_planes[OAK_MAX_CASCADES * OAK_CASCADE_MOVER_PLANES]);
    /* how its instances bend (backend.h oak_instance_bend; common/bend.glsl):
       wind: unit direction x, z, strength times sway, gust share; gust:
       wavelength, speed, time now, time last frame; sink: last LOD distance,
       band, depth, benders in use; benders: centre xyz, radius */
    OAK_F4(bend_wind);
    OAK_F4(bend_gust);
    OAK_F4(bend_sink);
    OAK_F4(benders[OAK_BENDERS_MAX]);
    /* x: how far after a record (OAK_B_INSTANCES) its last-frame copy lies,
       for motion vectors; y: two-pass Hi-Z (OAK_GPU_INSTCULL_HIZ_*); z: its
       first visible-bit word in OAK_B_HIZ_KEEP (one per instance); w: the
       impostor LOD's material slot (pose.w) */
    OAK_U4(prev);
    /* a stream posed from a pose bank (0 joints: not posed): x the pose
       block's first record in OAK_B_INSTANCES, y the bank's joints, z its
       clips, w the impostor card's LOD (0: none; render.h oak_stream_desc
       impostor_lod, the last LOD) ("Pose blocks" below) */
    OAK_U4(pose);
    /* per LOD: the first record of its mesh's skin weights (one per vertex) */
    OAK_U4(pose_lod);
    /* per LOD k: the compute raster's per-instance split (docs/ARCHITECTURE.md
       "Compute rasterization", backend/gpu/craster.c _oak_craster_split): a
       camera instance at that LOD is small, and joins the view
       OAK_GPU_INSTCULL_SMALL's list instead of the camera's, when its
       distance from the eye is at least small_at[k] x its scale and its
       sphere lies clear of the near plane by its radius + znear (eye.w);
       0: never (a band the hardware draws whole, or one already in compute) */
    OAK_F4(small_at);
}
OAK_END(oak_gpu_instcull);

/* Pose blocks (issue 15; common/pose.glsl, render/pose_stream.c): a posed
 * stream's bank goes to OAK_B_INSTANCES once, after every record and its
 * last-frame copy, as records of 12 floats. From pose.x on: per clip one
 * record (position_scale = first frame, frames, duration in seconds, 0);
 * then every frame's palette, frame-major, a record per joint (its 3 x 4
 * rows: position_scale, rotation, color_phase); then per LOD mesh a record
 * per vertex (position_scale = its 4 joint indices as floats, rotation =
 * their 4 weights). A posed instance's phase names clip and time: clip =
 * floor(phase / OAK_GPU_POSE_CLIP_SECONDS) (clamped to the bank's), time =
 * the rest, in seconds, wrapped into the clip (banks loop). The previous
 * pose (motion vectors) is the same instance at its last-frame record's
 * phase. A negative phase is a blend of two clips (no phase in use was
 * negative; a blend's float is an exact integer, so no rounding moves it):
 * -phase - 1 = ((a * OAK_GPU_POSE_BLEND_CLIPS + b) * OAK_GPU_POSE_BLEND_STEPS
 * + k) * OAK_GPU_POSE_BLEND_TIMES + n, 24 bits: clip a weighs 1 - k / (STEPS
 * - 1), clip b k / (STEPS - 1), and both stand at the same share n / TIMES
 * of their own duration (a gait cycle in step: the paws of a walk and a run
 * land together). Each clip's two frames are lerped, then the two palettes
 * joint by joint (oak_pose_bank_blend's order). A phase below -2^24 poses
 * from an override palette (render.h oak_stream_write_pose_overrides; foot
 * IK): -phase = 2^24 + 2 (slot + 1), exact (floats step by 2 there), and
 * the stream's 2 x pose_overrides slots lie after the bank's frames as
 * frames of their own (slot k is frame F + k, F = the last clip's first
 * frame + frames), before the LOD vertex records: the posing path reads
 * one frame at weight 0. */
#define OAK_GPU_POSE_OVERRIDE_BASE  16777216.0
#define OAK_GPU_POSE_CLIP_SECONDS   256.0
#define OAK_GPU_POSE_INFLUENCES     4
#define OAK_GPU_POSE_BLEND_CLIPS    16   /* clips a blend names (a bank's most) */
#define OAK_GPU_POSE_BLEND_STEPS    64   /* weight steps: k in 0 .. 63 */
#define OAK_GPU_POSE_BLEND_TIMES    1024 /* cycle steps: n in 0 .. 1023 */
#define OAK_GPU_INSTCULL_VIEWS      (3 + OAK_MAX_CASCADES)
#define OAK_GPU_INSTCULL_LATE       (1 + OAK_MAX_CASCADES) /* the camera's pass 2 */
/* the camera's small instances of a band the hardware draws (head small_at),
   which the compute raster draws; never under two-pass Hi-Z */
#define OAK_GPU_INSTCULL_SMALL      (2 + OAK_MAX_CASCADES)
#define OAK_GPU_INSTCULL_HEAD_WORDS (5 * OAK_STREAM_LODS * OAK_GPU_INSTCULL_VIEWS)
/* prev.y: how a stream takes two-pass Hi-Z (instcull.comp's steps EARLY and
   LATE = OAK_GPU_HIZ_STEP_EARLY / _LATE) */
#define OAK_GPU_INSTCULL_HIZ_OFF   0u /* not under Hi-Z: view 0 holds the camera's all */
#define OAK_GPU_INSTCULL_HIZ_ON    1u /* pass 1 from last frame's bits, pass 2 the rest */
#define OAK_GPU_INSTCULL_HIZ_EMPTY 2u /* its bits are stale (another stream, count or
                                         place): pass 1 draws none of it, pass 2 rewrites all */

/* The crowd's far tier (docs/WORLD.md "Crowds: the far tier"): an impostor
 * atlas of VIEWS angles (columns) x FRAMES walk frames (rows). */
#define OAK_IMPOSTOR_VIEWS  8
#define OAK_IMPOSTOR_FRAMES 8

/* Visibility ids (OAK_B_IDS, rg32ui; 0 = sky). A draw's: (draw + 1,
 * triangle). A stream instance's (common/draw.glsl oak_fetch_draw):
 * x = OAK_GPU_ID_INSTANCE | the record's index in OAK_B_INSTANCES,
 * y = triangle | stream << 24 | LOD << 30. The split gives each LOD mesh at
 * most 2^24 triangles, a view OAK_STREAM_MAX_PER_VIEW (64) streams of
 * OAK_STREAM_LODS (4) LODs and 2^31 records in all. A visible-list word is
 * instance | stream << 24 | LOD << 30, so a stream holds at most
 * OAK_STREAM_MAX_INSTANCES (2^24) instances. */
#define OAK_GPU_ID_INSTANCE          0x80000000u
#define OAK_GPU_ID_TRIANGLE_BITS     24
#define OAK_GPU_ID_TRIANGLE_MASK     0xffffffu
#define OAK_GPU_ID_STREAM_SHIFT      24
#define OAK_GPU_ID_LOD_SHIFT         30
#define OAK_GPU_STREAM_MAX_TRIANGLES (1u << OAK_GPU_ID_TRIANGLE_BITS)

/* Compute rasterization (docs/ARCHITECTURE.md "Compute rasterization",
 * shaders/craster.comp.glsl, craster_merge.frag.glsl). OAK_B_CRASTER, written
 * by the host each frame: a head (x bands, y the target's width, z its
 * height, w words added to every band's command word: 0, the camera's
 * lists; under two-pass Hi-Z the GPU sets it to OAK_GPU_CRASTER_LATE_WORDS
 * between the passes, so pass 2 rasterizes and merges the LATE lists), then
 * two uvec4 per band: (stream, LOD, its mesh's triangles, 0) and
 * (first index, base vertex, the word of its camera command in
 * OAK_B_INSTANCE_OUT, bit 0: single-sided, bit OAK_GPU_CRASTER_SPLIT: a
 * per-instance band, whose command is its OAK_GPU_INSTCULL_SMALL list's and
 * which draws with w = 0 only: pass 2 under Hi-Z skips it, its stream being
 * one without Hi-Z, whose LATE list is empty). A triangle's item is the
 * band's first item + list position x triangles + triangle, below 2^32;
 * the first items are the GPU's, from the lists' VISIBLE counts
 * (OAK_GPU_CRASTER_PLAN), not the host's whole record counts.
 * OAK_B_CRASTER_DEPTH: a uint64 per pixel, 0 where none was drawn, else
 * the nearest depth's float bits << 32 | item (reversed-Z: atomicMax keeps
 * the nearest, an exact tie the larger item). */
#define OAK_GPU_CRASTER_BANDS  (OAK_STREAM_MAX_PER_VIEW * OAK_STREAM_LODS)
#define OAK_GPU_CRASTER_SPLIT  2u /* a band's m.w bit: the per-instance (SMALL) list's */
/* most work groups of one band (a grid-stride loop over its visible items;
   OAK_GPU_CRASTER_PLAN sizes each band by its own count); 4096 measured
   best of 512, 2048, 4096 and 16384 on the H200 when every band's row was
   as wide as the widest band's worst case (meadow's first pose 4.05 ms GPU
   against 4.26 at 16384; stress unchanged; PERFORMANCE.md "Round 47 on the
   H200") */
#define OAK_GPU_CRASTER_GROUPS 4096u
#define OAK_GPU_CRASTER_GUARD  32768  /* pixels: a triangle with a vertex further off screen is dropped */
/* The cascades' compute raster (shaders/craster_shadow.comp.glsl) reads its
 * table from OAK_B_CRASTER too, from uvec4 OAK_GPU_CRASTER_SHADOW_TABLE
 * (after the camera's): a head (x bands, y a cascade map's edge), then
 * two uvec4 per band and
 * cascade: (stream, LOD, its mesh's triangles, region) and (first index,
 * base vertex, the word of its cascade command in OAK_B_INSTANCE_OUT,
 * cascade). OAK_B_CRASTER_SHADOW: a cascade map's texels (row 0 at clip
 * y = -1) per region, region = cascade x 2 + 1 for movers (0 for the
 * static layer's casters), 0 where none was drawn, else the nearest
 * depth's float bits (reversed-Z: atomicMax). */
#define OAK_GPU_CRASTER_SHADOW_TABLE (1 + 2 * OAK_GPU_CRASTER_BANDS)
/* the camera's pass-2 lists' commands, from its pass-1 ones (5 words a command) */
#define OAK_GPU_CRASTER_LATE_WORDS (OAK_GPU_INSTCULL_LATE * OAK_STREAM_LODS * 5u)
#define OAK_GPU_CRASTER_SHADOW_BANDS (OAK_GPU_CRASTER_BANDS * OAK_MAX_CASCADES)
/* The camera bands' work plan (shaders/craster_plan.comp.glsl), in
 * OAK_B_CRASTER from uvec4 OAK_GPU_CRASTER_PLAN (after the cascades'
 * table), written on the GPU before each pass's compute raster from the
 * lists' visible counts (the command's word 1, with the head's w): a
 * dispatch-indirect command (x: the groups to launch, at most
 * OAK_GPU_CRASTER_DISPATCH; y = z = 1 and w the groups' cap a band,
 * _oak_craster_group_cap, the host's), then (groups in all, items in all),
 * then per camera band (first item, first group, groups, items): the items
 * are its visible instances x triangles after those of the bands before
 * it, whole instances while the sum stays within OAK_GPU_CRASTER_ITEMS (those
 * past it are not drawn, in compute nor on the hardware); its groups ceil(items / 64) up to
 * the cap. A work group of craster.comp takes group g, g + x, ... of the
 * plan's, each in the band whose first group is the last at or below it;
 * the merge finds an item's band by its first item alike. */
#define OAK_GPU_CRASTER_PLAN (OAK_GPU_CRASTER_SHADOW_TABLE + 1 + 2 * OAK_GPU_CRASTER_SHADOW_BANDS)
#define OAK_GPU_CRASTER_TABLE_ROWS (OAK_GPU_CRASTER_PLAN + 2 + OAK_GPU_CRASTER_BANDS)
#define OAK_GPU_CRASTER_DISPATCH 65535u /* every API's least maxComputeWorkGroupCount */
#define OAK_GPU_CRASTER_ITEMS    0xffffff00u /* items a pass (or a cascade band) draws at most */

/* Two-pass Hi-Z occlusion culling (docs/ARCHITECTURE.md "Occlusion
 * culling", shaders/hiz_cull.comp.glsl). OAK_B_HIZ, written by the host each
 * frame, in 32-bit words: the head (OAK_GPU_HIZ_HEAD_WORDS), then
 * info.x candidates (the view's opaque and MASK draws inside the frustum,
 * group by group: OAK_GPU_HIZ_DRAW_WORDS each), then pass 1's commands and
 * pass 2's (info.x DrawElementsIndirect commands of 5 words each, group g's
 * from slot group_first[g]), then scratch for the compaction (a flag per
 * candidate and their info.x + 1 prefix sums). OAK_B_HIZ_KEEP, kept across frames: one word
 * per key (the draw's index in the frame input: 1 when it was visible last
 * frame), then the depth pyramid's levels as floats, level 0 the depth's
 * 2 x 2 minimum (reversed-Z: the farthest), each next level half the last
 * rounded up (an odd edge's last texel reads its one column or row twice,
 * so no texel is dropped), down to 1 x 1; then the natively drawn streams'
 * visible bits, a word per instance, stream after stream (instcull head
 * prev.z). */
#define OAK_GPU_HIZ_GROUPS     4  /* the vis groups: sidedness x cutout */
#define OAK_GPU_HIZ_MAX_LEVELS 16 /* 2^16 pixels across at most */
#define OAK_GPU_HIZ_STEP_EARLY    0u /* pass 1's set: last frame's visible draws */
#define OAK_GPU_HIZ_STEP_LATE     1u /* every candidate against the pyramid: bits, pass 2 */
#define OAK_GPU_HIZ_STEP_SCAN0    2u /* compaction in order: pass 1's flags scanned */
#define OAK_GPU_HIZ_STEP_SCATTER0 3u /* ... and its commands written */
#define OAK_GPU_HIZ_STEP_SCAN1    4u /* the same for pass 2 */
#define OAK_GPU_HIZ_STEP_SCATTER1 5u
#define OAK_GPU_HIZ_STEP_LEVEL    6u /* + k: the pyramid's level k */
#define OAK_GPU_HIZ_STEPS         (6 + OAK_GPU_HIZ_MAX_LEVELS)
#define OAK_GPU_HIZ_HEAD_WORDS 48
#define OAK_GPU_HIZ_DRAW_WORDS 12
OAK_STRUCT(oak_gpu_hiz_head) {
    /* candidates, cut (1: pass 1 draws nothing: a camera cut), compact (1:
       commands compacted in order and counted for an indirect-count draw;
       0: each in its candidate's slot, instance count 0 when not drawn), keys */
    OAK_U4(info);
    OAK_U4(group_first); /* each group's first candidate */
    OAK_U4(group_count);
    OAK_U4(size);      /* depth width, height, pyramid levels, 0 */
    OAK_M4(view_proj); /* unjittered */
    OAK_U4(early);     /* pass 1's commands per group (zero from the host) */
    OAK_U4(late);      /* pass 2's */
    OAK_U4(stats); /* candidates tested, hidden, native stream instances (the host's),
                      UINT32_MAX (a count capping nothing) */
    /* natively drawn stream instances (instcull.comp, zero from the host):
       tested against the pyramid (in the frustum and the LOD range), hidden,
       drawn in pass 1, drawn in pass 2 */
    OAK_U4(streams);
} OAK_END(oak_gpu_hiz_head);
OAK_STRUCT(oak_gpu_hiz_draw) {
    OAK_F4(sphere); /* world centre, radius */
    OAK_U4(cmd);    /* index count, first index, vertex offset, first instance (the draw) */
    OAK_U4(info);   /* group, key, 0, 0 */
} OAK_END(oak_gpu_hiz_draw);

OAK_STRUCT(oak_gpu_vertex) {
    OAK_F4(normal);  /* xyz */
    OAK_F4(tangent); /* xyz, w = bitangent sign */
    OAK_F4(uv);      /* uv0.xy, uv1.xy */
    OAK_F4(color);
}
OAK_END(oak_gpu_vertex);

/* The skin pass (skin.comp, asset.h oak_mesh_update_pose): meshes posed
 * by joint palettes (skinned by 4 or 8 influences, morphed, or both) are
 * posed on the GPU into their own range of the vertex pools, which holds
 * 2 x their n vertices plus n for a second set of joints and n per morph
 * target: positions 0 .. n-1 this pose and n .. 2n-1 the previous one
 * (oak_gpu_draw.prev.x = n, as for a mesh posed on the CPU), attributes
 * 0 .. n-1 this pose's normal and tangent (uv and colour as uploaded) and
 * n .. 2n-1 the rest pose as the skin reads it, one oak_gpu_vertex a
 * vertex taken as 4 uvec4 of bits:
 *   0: rest normal xyz, joints 0 | 1 << 16      1: rest tangent xyzw
 *   2: weights xyzw                              3: rest position xyz, joints 2 | 3 << 16
 * then, with 8 influences, n vertices of the second set (0: weights 4..7,
 * 1: joints 4 | 5 << 16, 6 | 7 << 16), then each morph target's n deltas,
 * dense (0: position xyz, 1: normal xyz, 2: tangent xyz, 0 where absent).
 * The extra vertices' positions are never read nor written.
 * OAK_B_SKIN: word 0's x the job count, then two uvec4 a job (first
 * vertex, vertex count, its palettes' first uvec4, joints), (1 with a
 * second set of joints, morph target count, its weights' first uvec4, 0),
 * then each job's palettes: joints x 3 rows this pose, then as many the
 * previous pose, and its morph weights: this pose's, then the previous
 * pose's (floats as bits, padded to a uvec4). One workgroup row
 * (gl_WorkGroupID.y) a job. */
#define OAK_GPU_SKIN_GROUP 64

OAK_STRUCT(oak_gpu_texref) {
    OAK_U4(a);     /* class + 1 (0: none), layer, width | height << 16, packed bits */
    OAK_F4(xform); /* offset.xy, cos(rotation), sin(rotation) */
    OAK_F4(scale); /* scale.xy (0 resolved to 1) */
}
OAK_END(oak_gpu_texref);

#define OAK_GPU_TEX_BASE      0
#define OAK_GPU_TEX_MR        1
#define OAK_GPU_TEX_NORMAL    2
#define OAK_GPU_TEX_OCCLUSION 3
#define OAK_GPU_TEX_EMISSIVE  4

/* the lobe textures (asset.h oak_lobe_tex, the same numbers) and the
   distinct refs a material holds (OAK_LOBE_TEX_DISTINCT) */
#define OAK_GPU_LOBE_TEX_COAT       0u /* R x clearcoat weight */
#define OAK_GPU_LOBE_TEX_COAT_ROUGH 1u /* G x its roughness */
#define OAK_GPU_LOBE_TEX_SHEEN      2u /* RGB (sRGB) x sheen colour */
#define OAK_GPU_LOBE_TEX_SHEEN_ROUGH 3u /* A x its roughness */
#define OAK_GPU_LOBE_TEX_TRANSMIT   4u /* R x transmission */
#define OAK_GPU_LOBE_TEX_THICKNESS  5u /* G x thickness */
#define OAK_GPU_LOBE_TEX_DIFFTR     6u /* A x diffuse transmission */
#define OAK_GPU_LOBE_TEX_DIFFTR_COLOR 7u /* RGB (sRGB) x its colour */
#define OAK_GPU_LOBE_TEX_IRID       8u /* R x iridescence */
#define OAK_GPU_LOBE_TEX_IRID_THICKNESS 9u /* G: mix(lobe4.w, lobe4.z, G) nm */
#define OAK_GPU_LOBE_TEX_SPECULAR   10u /* A x the specular factor (lobe0.w) */
#define OAK_GPU_LOBE_TEX_SPECULAR_COLOR 11u /* RGB (sRGB) x its colour (lobe1.w, lobe2.w, lobe3.w) */
#define OAK_GPU_LOBE_TEX_ANISO      12u /* RG direction (turned by lobe3.yz), B x strength */
#define OAK_GPU_LOBE_TEX_COAT_NORMAL 13u /* RGB the coat's normal (xy x mode.w) on Nv */
#define OAK_GPU_LOBE_TEX            4

OAK_STRUCT(oak_gpu_material) {
    OAK_F4(base_color);
    OAK_F4(emissive); /* emissive * emissive_strength */
    OAK_F4(params);   /* metallic, roughness, normal_scale, occlusion_strength */
    OAK_F4(mode);     /* alpha mode, flags (as floats), alpha cutoff, coat normal scale */
    oak_gpu_texref tex[5];
    OAK_F4(fx0);   /* triplanar repeats per metre (0: off), sharpness, breakup cells, rotation */
    OAK_F4(fx1);   /* variation, patches per metre, detail repeats (0: off), 1 / detail distance */
    OAK_F4(lobe0); /* the dielectric F0 (ior, specular; 0.04 plain), its F90 (1 plain) */
    /* w of lobe1, lobe2, lobe3: the ior's reflectance times the specular
       colour (rgb, before lobe0's clamp to 1), for the specular textures */
    OAK_F4(lobe1); /* clearcoat weight, its roughness, sheen roughness */
    OAK_F4(lobe2); /* sheen colour */
    OAK_F4(lobe3); /* anisotropy strength, cos and sin of its rotation */
    OAK_F4(lobe4); /* iridescence factor, the film's ior, thickness (nm) and its minimum (nm) */
    OAK_F4(lobe5); /* diffuse transmission's colour, its factor */
    OAK_F4(lobe6); /* transmission, thickness, attenuation distance (0: none), dispersion */
    OAK_F4(lobe7); /* attenuation colour (white when all 0), ior (1.5 when 0) */
    /* the lobes' textures (asset.h oak_lobe_tex; docs/SHADING.md "Lobes"):
       word k / 10 holds, per lobe texture k, at bits 3 (k % 10) .. + 2 its
       lobe_tex slot + 1 (0: none); equal refs share a slot; the rest 0 */
    OAK_U4(lobe_map);
    oak_gpu_texref lobe_tex[OAK_GPU_LOBE_TEX];
}
OAK_END(oak_gpu_material);

/* A reflection probe in view (render/probe.h): the capture point, the box it
 * stands for and the margin inside the box's faces across which it fades into
 * what lies outside (0: a hard edge). */
OAK_STRUCT(oak_gpu_probe) {
    OAK_F4(centre); /* capture point; w: blend margin in world units */
    OAK_F4(lo);     /* box minimum corner; w: the map's slot in OAK_B_PROBES */
    OAK_F4(hi);     /* box maximum corner */
}
OAK_END(oak_gpu_probe);

/* Grass (world/grass.c, shaders/grass.comp.glsl, docs/WORLD.md "Grass"):
 * one tile square's job for the grass kernel, which grows the square's
 * clumps into its slots of the two grass streams on the device, one work
 * group per square, one invocation per patch, in the C growth's order (a
 * scan over the grown flags). patches x, y: the square's first patch's world
 * index along x (low, high 32 bits), z, w: along z. slot x: the grass
 * slot's first record in OAK_B_GRASS_OUT, y: the flower slot's, z, w: the
 * slots' sizes (0 flowers: none). info x: the seed, y: patches a side, z:
 * the finest cells a side of the heights (at most OAK_GPU_GRASS_CELLS),
 * w: the flags OAK_GPU_GRASS_* below (a frame grows each stream's
 * slots on its own: one of the two skipped).
 * var_cell: the variation's two octaves' lattice cells at the square's
 * corner (x, z of octave 0 then of octave 1, two's complement), var_frac
 * the corner's fractions in those cells. corner x, z: the corner in scene
 * coordinates, y the plants share, w the metres between heights. water x:
 * the level plus margin under which nothing grows, y: 1 when only inside
 * the box, box: its low x, z and high x, z from the corner. rock x: how
 * many of rocks hold the footprints of the rocks that reach the square
 * (world/rocks_internal.h), each its centre's x and z from the corner,
 * its reach squared and 0: no patch whose centre lies inside one grows (at
 * most OAK_GPU_GRASS_ROCKS, the largest first). heights: the
 * finest heights (cells + 1) a side, row by row (z), four to a vec4. */
#define OAK_GPU_GRASS_CELLS      16
#define OAK_GPU_GRASS_HEIGHTS    (((OAK_GPU_GRASS_CELLS + 1) * (OAK_GPU_GRASS_CELLS + 1) + 3) / 4)
#define OAK_GPU_GRASS_GROUP      256 /* the grass kernel's work group: patches a pass */
#define OAK_GPU_GRASS_ROCKS      64  /* rock footprints a square keeps its patches off */
#define OAK_GPU_GRASS_WATER      1u
#define OAK_GPU_GRASS_NO_FLOWERS 2u
#define OAK_GPU_GRASS_SKIP_GRASS   4u /* the grass slot's records not written (counted alike) */
#define OAK_GPU_GRASS_SKIP_FLOWERS 8u /* the flower slot's records not written */
OAK_STRUCT(oak_gpu_grass_square) {
    OAK_U4(patches);
    OAK_U4(slot);
    OAK_U4(info);
    OAK_U4(var_cell);
    OAK_F4(var_frac);
    OAK_F4(corner);
    OAK_F4(water);
    OAK_F4(box);
    OAK_U4(rock);
    OAK_F4(rocks[OAK_GPU_GRASS_ROCKS]);
    OAK_F4(heights[OAK_GPU_GRASS_HEIGHTS]);
}
OAK_END(oak_gpu_grass_square);
/* The grass kernel's bindings: OAK_B_GRASS_IN, its own (bound only around
 * its dispatches, as the particle kernel's, whose number it shares), holds
 * the squares, OAK_B_GRASS_OUT the records it writes. */
#define OAK_B_GRASS_IN  50
#define OAK_B_GRASS_OUT OAK_B_INSTANCES

/* Per-meshlet culling on the GPUs (docs/ARCHITECTURE.md "Meshlet culling",
 * shaders/meshcull.comp.glsl). OAK_B_MESHLETS, uploaded with each mesh
 * whose draws are culled by meshlets, in uvec4: its meshlets' records
 * (OAK_GPU_MESHLET_UVEC4 each), then its triangles in meshlet order as the
 * index of each in the mesh's own list, four to a uvec4. A record's
 * offsets: the uvec4 of its first triangle word times 4 plus its place
 * (a word index), its triangle count, 0, 0. lod_sphere, parent_sphere,
 * lod_error and parent_error are cluster LOD's (0 and a huge
 * parent_error for a plain mesh's meshlets: always its own level). */
OAK_STRUCT(oak_gpu_meshlet) {
    OAK_F4(sphere);        /* centre xyz, radius, in mesh space */
    OAK_F4(cone_apex);     /* xyz, w the cutoff (1: the cone culls nothing) */
    OAK_F4(cone_axis);     /* xyz, w 0 */
    OAK_F4(lod_sphere);    /* cluster LOD: the sphere its error was measured over */
    OAK_F4(parent_sphere); /* ... and its parent group's */
    OAK_F4(error);         /* lod_error, parent_error, 0, 0 */
    OAK_U4(offsets);
} OAK_END(oak_gpu_meshlet);
#define OAK_GPU_MESHLET_UVEC4 7
/* OAK_B_MESHCULL, one per frame slot, in 32-bit words: the head
 * (OAK_GPU_MESHCULL_HEAD_WORDS): counters the kernel adds to, zero from
 * the host (meshlets tested, culled by the frustum, by cones, triangles
 * kept), the job count, the first word of the expanded indices, the
 * first word of the triangle map, the counter of meshlets out of the
 * cluster-LOD cut, then the left, right, bottom, top and near planes
 * (world space, as float bits) from word 8, then cluster LOD's view from
 * word 28: the eye (world), lod_px, znear (float bits), 1 when ortho, 0, 0,
 * then under two-pass Hi-Z (common/meshcull_hiz.glsl, else 0): word 36 the
 * meshlets' visible bits' first word in OAK_B_HIZ_KEEP plus 1, word 37 the
 * meshlets the pyramid hid, 38 and 39 zero, and words 40 to 43 pass 1's
 * own counters (as words 0 to 3).
 * Then a job per culled draw (OAK_GPU_MESHCULL_JOB_WORDS: the draw, the
 * uvec4 of its mesh's first meshlet record in OAK_B_MESHLETS, its meshlet
 * count with bit 31 set when cones cull and bit 30 when the world cannot
 * be culled by (its finest meshlets kept, no test), its region's first
 * triangle (the scan writes it), the eye in mesh space and its world's
 * largest axis scale as float bits, the word of its command, its finest
 * level's meshlet count (a cluster-LOD mesh's: the first ones), the first
 * of its meshlet words (one a meshlet: the triangles the count step kept
 * of it), under Hi-Z its meshlets' first bit word after word 36's, and
 * the triangles the count step kept of the job (the scan places it)).
 * Word 34 of the head counts kept triangles past the buffer's room. Then
 * the commands (DrawElementsIndirect, 5 words, the index count and first
 * index the scan's, in the vis groups' order), then the meshlet words,
 * then the triangle map (per region triangle the index in the mesh's own
 * list: vis.frag reads it from word 6 plus the region's first triangle,
 * job word 3 of the job whose first word is oak_gpu_draw.prev.z - 1, plus
 * gl_PrimitiveID), then the expanded indices, 3 a triangle. The room, the
 * triangles the map holds, is word 5 less word 6. Regions are placed
 * exactly in the frame (meshcull_scan.comp): kept meshlets first in
 * meshlet order, jobs one after the other, the shadow jobs first. */
#define OAK_GPU_MESHCULL_HEAD_WORDS 44
/* head word: kept triangles past the room (the scan adds) */
#define OAK_GPU_MESHCULL_OVERFLOW_WORD 34
#define OAK_GPU_MESHCULL_JOB_WORDS  15
/* A shadow job (job word 2's bit 29, bit 28 when its map is orthographic: a
 * cluster-LOD caster of a cascade, its map's cut alone, no frustum, cone or
 * Hi-Z, docs/ARCHITECTURE.md "Cluster LOD") takes its view from its own
 * words: the eye (world) in words 4 to 6, lod_px and znear (float bits) in
 * words 13 and 14. Its counters go to head words 35 (triangles kept, after
 * the clamp), 38 (meshlets out of the cut) and 39 (meshlets tested). */
#define OAK_GPU_MESHCULL_JOB_LOD_PX   13
#define OAK_GPU_MESHCULL_SHADOW_TRIS   35
#define OAK_GPU_MESHCULL_SHADOW_LOD    38
#define OAK_GPU_MESHCULL_SHADOW_TESTED 39
#define OAK_GPU_MESHCULL_GROUP      64

#ifdef __STDC_VERSION__
/* KHR_texture_transform packed for the shaders (the shader forms the same
 * products the CPU backend does), so every GPU backend fills it one way. */
#include <math.h>
static inline void oak_gpu_texref_transform(oak_gpu_texref *out, const float offset[2],
                                            float rotation, const float scale[2]) {
    out->xform[0] = offset[0], out->xform[1] = offset[1];
    out->xform[2] = cosf(rotation), out->xform[3] = sinf(rotation);
    out->scale[0] = scale[0] != 0 ? scale[0] : 1, out->scale[1] = scale[1] != 0 ? scale[1] : 1;
    out->scale[2] = out->scale[3] = 0;
}
#endif

#endif
