/* oak's named sizes, counts and budgets: one header read by C and by GLSL.
 * Only #define lines live here, so the GLSL compiler can include it as is. */
#ifndef OAK_CONFIG_H
#define OAK_CONFIG_H

#define OAK_VERSION_MAJOR 0
#define OAK_VERSION_MINOR 1
#define OAK_VERSION_PATCH 0

#define OAK_HANDLE_INDEX_BITS 20 /* pool slots: 1,048,576 per pool */
#define OAK_HANDLE_GEN_BITS   12 /* generations before a slot id repeats */

#define OAK_TILE_SIZE           64           /* CPU raster tile edge in pixels */
#define OAK_MAX_MIPS            16           /* levels in a texture's chain (32768 px) */
#define OAK_MAX_TEXTURE_SIZE    16384        /* largest texture edge accepted */
/* Meshlets (asset/meshlets.c): meshoptimizer's limits for mesh shaders; 124,
   not PasVulkan's 126, as meshoptimizer wants a multiple of 4 */
#define OAK_MESHLET_VERTICES    64
#define OAK_MESHLET_TRIANGLES   124
#define OAK_MESHLET_CONE_WEIGHT 0.25f /* cluster size against cone culling */
#define OAK_MAX_OUTPUT_SIZE     16384        /* largest output edge accepted */
#define OAK_MAX_INPUT_FILE_SIZE (1u << 30)   /* bytes: largest file read as an input */
#define OAK_MAX_IMAGE_BYTES     (256u << 20) /* decoded image budget: 8192^2 RGBA8, 4096^2 HDR */
#define OAK_MAX_JPEG_SCANS      64           /* each scan decodes every block again */
#define OAK_MAX_CASCADES        4            /* sun shadow cascades a view may carry */
#define OAK_SHADOW_MAP_SIZE     2048  /* default edge of one cascade's map; the atlas is 2x2 */
#define OAK_SUN_DISC_MAX        0.5   /* largest angular radius a sun disc may be given, radians */
#define OAK_AERIAL_LUX_MAX      1e6   /* largest aerial_lux a scene file may give (the sun above the air: 128,000) */
#define OAK_SHADOW_DISTANCE     160.0 /* metres of view the sun's cascades cover */
#define OAK_SHADOW_CASTER_REACH 400.0 /* metres towards the sun casters are kept */
#define OAK_CASCADE_MOVER_PLANES 8    /* planes a cascade's movers' rule takes (backend.h) */
#define OAK_MAX_LIGHTS          4096  /* lights in one view, after culling to the frustum */
#define OAK_LIGHT_GRID_X        16    /* lamp clusters across the picture */
#define OAK_LIGHT_GRID_Y        9     /* ... down it */
#define OAK_LIGHT_GRID_Z        24    /* ... in depth, logarithmic between the two below */
#define OAK_LIGHT_GRID_NEAR     1.0   /* metres: slice 1 starts here (slice 0 from znear) */
#define OAK_LIGHT_GRID_FAR      250.0 /* metres: the last slice starts here, runs to zfar */
#define OAK_LIGHT_GRID_CELLS    (OAK_LIGHT_GRID_X * OAK_LIGHT_GRID_Y * OAK_LIGHT_GRID_Z)
#define OAK_LIGHT_CELL_MAX      128  /* lamps listed per cell; more are counted as overflow */
#define OAK_DEBUG_HEAT_MAX      64   /* --debug clusters: this many lamps in a cell shows red */
#define OAK_LAMP_FLOOR          0.01 /* irradiance x exposure where a lamp without a range stops reaching */
#define OAK_MAX_UV_SETS         2    /* texture coordinate sets per vertex */

/* Limits on input a frame can honour (docs/INPUT.md): past them, OAK_ERROR_LIMIT. */
#define OAK_MAX_OUTPUT_PIXELS        33177600 /* width x height: 7680x4320, 1.3 GB on the CPU */
#define OAK_MAX_POLYGON_CORNERS      1024     /* corners of one OBJ face (fan-triangulated) */
#define OAK_MAX_SHAPE_SEGMENTS       1024     /* segments (and rings) of a procedural shape */
/* The fuzz build (fuzz/CMakeLists.txt) sets the two shape budgets lower so a
   valid scene of giant heightfields costs milliseconds, not seconds, a run:
   the same checks, met sooner. */
#ifndef OAK_MAX_SHAPE_VERTICES
#define OAK_MAX_SHAPE_VERTICES 1048576 /* vertices of one procedural shape */
#endif
#ifndef OAK_MAX_SCENE_SHAPE_VERTICES
#define OAK_MAX_SCENE_SHAPE_VERTICES 2097152 /* a scene file's shapes together */
#endif
#define OAK_MAX_RECIPE_OCTAVES       16       /* fBm octaves of a heightfield recipe */

/* The sun's cascades (docs/SHADING.md "Shadow"); biases in texels of the
 * cascade read, laterally (metres = texels * texel_world). */
#define OAK_SHADOW_SPLIT_LOG     0.75 /* split distances: this much logarithmic, the rest uniform */
#define OAK_SHADOW_BLEND         0.1  /* last fraction of a slice blended into the next cascade */
#define OAK_SHADOW_BORDER        4    /* texels of map kept around a slice's sphere for the taps */
#define OAK_SHADOW_PCF_SIZE      4    /* PCF: size^2 bilinear taps over (size+1)^2 texels */
#define OAK_SHADOW_NORMAL_OFFSET 0.5  /* receiver moved along its normal: texels times sin */
#define OAK_SHADOW_CONST_BIAS    0.5  /* depth bias, texels */
#define OAK_SHADOW_SLOPE_BIAS    0.5  /* depth bias, texels times tan(angle to the sun) */
#define OAK_SHADOW_MAX_SLOPE     8.0  /* tan ceiling for the slope terms (grazing light) */

/* Shadow caching (docs/SHADING.md "Cascade caching"): each cascade's map
 * covers its slice's sphere widened by this fraction of its radius, and
 * keeps its centre until the sphere leaves that square, so a moving camera
 * reuses the static layer; the texel grows by the same fraction. */
#define OAK_SHADOW_CACHE_MARGIN 0.25
/* A map re-centred more than once in this many frames lists its static
 * casters as tightly as its movers (its layer is redrawn most frames). */
#define OAK_SHADOW_CACHE_WINDOW 8
/* A cascade whose matrix holds and whose static casters changed redraws only
 * the texels the changed casters cover, old and new bounds (docs/
 * ARCHITECTURE.md "Shadow cascades"), as at most this many rectangles... */
#define OAK_SHADOW_DIRTY_RECTS 4
/* ... unless they cover more than this share of the map: then all of it. */
#define OAK_SHADOW_DIRTY_SHARE 0.5
/* A still stream whose LOD follows the eye keys the static layers by each
 * record's LOD band, not by the eye, up to this many records (past it: by
 * the eye, every step of which redraws the layers). */
#define OAK_SHADOW_LOD_KEY_MAX 65536
/* A caster reposed in place (a terrain tile's LOD morph) whose vertices have
 * moved less than this many of its cascade's texels in all since the layer
 * drew it stays as drawn (under the 0.5-texel depth bias); past it, the
 * triangles that moved are redrawn. 0: every morph redraws. */
#define OAK_SHADOW_MORPH_SLACK 0.25
/* Lamp shadows (docs/SHADING.md "Lamp shadows"): spot tiles and point-light
 * cube faces in one depth atlas; biases in face texels at the receiver's
 * distance from the lamp. */
#define OAK_LAMP_SHADOW_FACE          512  /* texels across one face (a tile of the atlas) */
#define OAK_LAMP_ATLAS_TILES          8    /* tiles across the atlas: 8 x 8 faces, 4096 texels */
#define OAK_LAMP_ATLAS_FACES          64   /* OAK_LAMP_ATLAS_TILES squared */
#define OAK_LAMP_SHADOW_MAX           16   /* shadowed lamps a frame (faces permitting) */
#define OAK_LAMP_SHADOW_NEAR          0.3  /* metres: nearer the lamp casts nothing (its fitting) */
#define OAK_LAMP_SPOT_MAX_CONE        1.05 /* radians: a wider spot is shadowed as a cube */
#define OAK_LAMP_SHADOW_BORDER        2    /* texels a face reaches past its 90 deg (or cone) */
#define OAK_LAMP_SHADOW_FADE          0.2  /* last fraction of its reach a shadow fades over */
#define OAK_LAMP_SHADOW_PCF_SIZE      2    /* PCF: size^2 bilinear taps over (size+1)^2 texels */
#define OAK_LAMP_SHADOW_NORMAL_OFFSET 1.0  /* receiver moved along its normal: texels */
#define OAK_LAMP_SHADOW_BIAS          1.0  /* depth bias, texels */

/* Ground-truth ambient occlusion (docs/SHADING.md "Ambient occlusion"): a
 * view-depth mip chain, a horizon search in a few screen directions per
 * pixel, a 5 x 5 plane-aware denoise. It darkens only the indirect light. */
#define OAK_GTAO_DEFAULT_ON  0      /* oak_post.ao left at default: 1 on, 0 off */
#define OAK_GTAO_RADIUS      1.0    /* metres: default reach of the horizon search */
#define OAK_GTAO_SLICES      2      /* screen directions per pixel, each searched both ways */
#define OAK_GTAO_STEPS       6      /* depth reads per direction and side */
#define OAK_GTAO_FALLOFF     0.6    /* occluders count fully up to this fraction of the radius */
#define OAK_GTAO_MIN_STEP    1.3    /* pixels: the nearest read is at least this far out */
#define OAK_GTAO_MIPS        5      /* levels of the view-depth chain (1 to 1/16) */
#define OAK_GTAO_MIP_OFFSET  3.3    /* a step s pixels out reads level floor(log2(s) - this) */
#define OAK_GTAO_MIP_FALLOFF 0.25   /* mip filter: radii behind a block's nearest that weigh 0 */
#define OAK_GTAO_DENOISE     2      /* denoise half-width: (2 * 2 + 1)^2 = 5 x 5 pixels */
#define OAK_GTAO_PLANE_TOL   0.02   /* denoise: off the pixel's plane by this x depth weighs 0 */
#define OAK_GTAO_SKY_DEPTH   1.0e30 /* view depth written where there is no surface */

/* Bloom (docs/SHADING.md "Bloom"): a pyramid of OAK_BLOOM_LEVELS levels from
 * half size, 13-tap downsamples (the first one's four-texel boxes averaged by
 * brightness), tent upsamples, mixed into the frame before the tone curve. */
#define OAK_BLOOM_DEFAULT_ON 0       /* oak_post.bloom left at default: 1 on, 0 off */
#define OAK_BLOOM_LEVELS     6       /* half, quarter ... 1/64 of the output */
#define OAK_BLOOM_STRENGTH   0.04    /* default share of the blurred frame in the mix */
#define OAK_BLOOM_MAX        65504.0 /* radiance above this (and inf, NaN) is clamped first */

/* Depth of field (docs/SHADING.md "Depth of field"): a thin lens from the
 * physical camera, the frame gathered at half size over 48 taps with a near
 * field that spreads over what is behind it, mixed back by each pixel's own
 * circle of confusion. */
#define OAK_DOF_FNUMBER       2.8   /* the lens's f-number when oak_post.aperture is 0 */
#define OAK_DOF_SENSOR_HEIGHT 0.024 /* metres: with the vertical field of view, the focal length */
#define OAK_DOF_MAX_RADIUS    24.0  /* the largest circle of confusion, half-size pixels */
#define OAK_DOF_TILE          8     /* half-size pixels a side of a near-field tile */
#define OAK_DOF_TAP_COUNT     48    /* gather taps on rings of 8, 16, 24 at radius 1/3, 2/3, 1 */
/* Temporal anti-aliasing (docs/SHADING.md "Temporal anti-aliasing"): the
 * raster jittered by Halton(2, 3) over OAK_TAA_SAMPLES frames, the history
 * reprojected by motion vectors, clamped to the 3 x 3 neighbourhood in YCoCg
 * and blended with the frame in 1 / (1 + luma) weighted colour. */
#define OAK_TAA_DEFAULT_ON  0    /* oak_post.taa left at default: 1 on, 0 off */
#define OAK_TAA_SAMPLES     8    /* jitter positions before the sequence repeats */
#define OAK_TAA_WEIGHT      0.1  /* the current frame's share once the history is full */
#define OAK_TAA_MOTION_VIEW 32.0 /* --debug motion: pixels of motion at full colour */
/* TAA upsampling a scaled frame: render samples within this many output
 * pixels of an output pixel are gathered, weighed (1 - d^2 / r^2)^2 */
#define OAK_TAA_UP_RADIUS   0.6
/* oak_post.taa_sharpen left at 0: off (the resolve untouched); 0.5 is a
 * light sharpen (docs/SHADING.md "Temporal anti-aliasing") */
#define OAK_TAA_SHARPEN_DEFAULT 0.0
/* Render scale (docs/SHADING.md "Render scale"): the passes run at the
 * output size times oak_post.render_scale, clamped to this range. */
#define OAK_RENDER_SCALE_MIN 0.25
#define OAK_RENDER_SCALE_MAX 1.0

/* Sky light (docs/SHADING.md "Sky and sky light"): the sky captured into
 * octahedral maps (RGBA32F texels in one buffer, laid out by
 * shaders/common/oak_gpu.h), captured again only when the environment changes. */
#define OAK_SKY_CAPTURE_SIZE     128  /* capture level 0, texels across; mipped down to 1 */
#define OAK_SKY_CAPTURE_MIPS     8    /* log2(OAK_SKY_CAPTURE_SIZE) + 1 */
#define OAK_SKY_CAPTURE_TAPS     8    /* a mip texel averages at most this squared sky points */
#define OAK_SKY_IRRADIANCE_SIZE  64   /* irradiance map, texels across (for bilinear reads) */
#define OAK_SKY_IRRADIANCE_LEVEL 3    /* the capture mip it convolves: 128 >> 3 = 16 across */
#define OAK_SKY_SPECULAR_SIZE    64   /* GGX prefilter level 0 (roughness 0), texels across */
#define OAK_SKY_SPECULAR_MIN     8    /* no prefiltered level smaller than this */
#define OAK_SKY_SPECULAR_LEVELS  6    /* roughness 0, 0.2, ... 1 */
#define OAK_SKY_SPECULAR_SAMPLES 48   /* GGX importance samples per texel, mip-filtered */
#define OAK_SKY_BRDF_SIZE        32   /* split-sum table: NdotV across, roughness down */
#define OAK_SKY_BRDF_SAMPLES     256  /* GGX samples per table texel (built once) */
#define OAK_SKY_IMAGE_WIDTH      1024 /* a sky image is read from its first mip level */
#define OAK_SKY_IMAGE_HEIGHT     512  /* ... that fits in this */

/* The fly camera (include/oak/fly.h): a sphere kept out of static geometry */
#define OAK_FLY_RADIUS     0.2    /* metres */
#define OAK_FLY_SPEED      5.0    /* metres a second at full key */
#define OAK_FLY_ITERATIONS 5      /* surfaces one frame's move may slide along */
#define OAK_FLY_SKIN       0.001  /* metres kept clear of a surface met */
#define OAK_FLY_GRID       32     /* cells a side of a mesh's triangle grid (XZ) */

/* Terrain (world/terrain*.c, docs/WORLD.md): quadtree tiles of a noise
 * heightfield around the eye, level 0 the finest. */
#define OAK_TERRAIN_TILE_SIZE       32.0   /* metres a side of a finest tile (desc default) */
#define OAK_TERRAIN_CELLS           16     /* grid cells a side of every tile (default) */
#define OAK_TERRAIN_MAX_CELLS       128    /* most cells a side a desc may ask for */
#define OAK_TERRAIN_LEVELS          7      /* levels, finest to coarsest (default) */
#define OAK_TERRAIN_MAX_LEVELS      16     /* most levels a desc may ask for */
#define OAK_TERRAIN_LOD_FACTOR      2.0    /* a tile splits when the eye is nearer than this times its size */
#define OAK_TERRAIN_VIEW_DISTANCE   6000.0 /* metres of terrain drawn around the eye (default) */
#define OAK_TERRAIN_MAX_VIEW        200000.0 /* largest view distance, and largest tile, a desc may ask for */
#define OAK_TERRAIN_BUILD_BUDGET    8      /* tiles built per update (default) */
#define OAK_TERRAIN_CACHE_TILES     768    /* tiles kept built; past it the least recently shown go */
#define OAK_TERRAIN_MAX_ROOTS       4096   /* coarsest tiles one update may pick (view / root size) */
#define OAK_TERRAIN_REBASE_DISTANCE 2048.0 /* metres the eye may stray from the scene origin (x or z) */
#define OAK_TERRAIN_MORPH_MARGIN    0.05   /* tile sizes between a finer neighbour's farthest vertex and the morph's start */
#define OAK_TERRAIN_MORPH_STEP      0.25   /* a level's morph follows the eye in steps of this share of its cell */
#define OAK_TERRAIN_MORPH_EPSILON   0.001  /* a tile's mesh is rewritten when a vertex's blend moved more */
#define OAK_TERRAIN_MORPH_CHUNK     4      /* shown tiles one job of the morph takes */
#define OAK_TERRAIN_MAX_OCTAVES     16     /* fBm and ridged octaves a desc may ask for */
#define OAK_TERRAIN_MAX_FREQUENCY   1000.0 /* per metre: the finest octave a desc may ask for */
#define OAK_TERRAIN_FX_SHARPNESS       8.0  /* the ground's material tricks (docs/WORLD.md): triplanar blend exponent */
#define OAK_TERRAIN_FX_DETAIL          8.0  /* the grain again this many times finer ... */
#define OAK_TERRAIN_FX_DETAIL_DISTANCE 24.0 /* ... fading out over this many metres */
#define OAK_TERRAIN_MAX_WORLD       1.0e9  /* metres from the world origin an eye or a query may be */

/* Water (world/water.c, docs/WORLD.md "Water"): a sum of Gerstner waves,
 * its CPU queries, floating boxes and the camera-centred grid it is drawn as. */
#define OAK_WATER_WAVES          8      /* Gerstner waves in the sum */
#define OAK_WATER_GRAVITY        9.81   /* m/s^2, for deep-water dispersion w = sqrt(g k) */
#define OAK_WATER_DENSITY        1000.0 /* kg/m^3, what floaters displace */
#define OAK_WATER_SOLVE_STEPS    8      /* Newton steps of the height query at most */
#define OAK_WATER_SOLVE_EPSILON  1.0e-9 /* metres of horizontal miss where the query stops */
#define OAK_WATER_GRID_CELLS     128    /* cells a side of the drawn grid (default; even) */
#define OAK_WATER_GRID_CORE      8      /* cells each side of the centre at the finest spacing */
#define OAK_WATER_GRID_SPACING   0.5    /* metres between the finest grid lines (default) */
#define OAK_WATER_GRID_EXTENT    2500.0 /* metres from the grid's centre to its edge (default) */
#define OAK_WATER_FLOAT_STEP     (1.0 / 120.0) /* seconds per step of a floater's integration */
#define OAK_WATER_F0             0.02   /* Schlick's F0 of water, ((1.33 - 1) / (1.33 + 1))^2 */
#define OAK_WATER_FOAM_ALBEDO    0.85   /* foam's diffuse albedo */
#define OAK_WATER_IOR            1.33   /* water's refractive index: Snell's window from below */
#define OAK_WATER_ROUGHNESS      0.06   /* the default material's; the sky's window seen from below */
#define OAK_WATER_REFRACT_DEPTH  1.5    /* metres below the surface its refraction offset is taken at */
#define OAK_WATER_CREST_FOAM     0.55   /* Jacobian below which crests foam fully ... */
#define OAK_WATER_CREST_CLEAR    0.85   /* ... and above which they do not */
#define OAK_WATER_CAUSTIC_STRENGTH 0.8  /* caustics' brightest lines add this share under a high sun */
#define OAK_WATER_CAUSTIC_SCALE  1.2    /* radians of the pattern per metre */
#define OAK_WATER_CAUSTIC_FADE   0.3    /* per metre of depth: the caustics blur out deeper */
#define OAK_WATER_CAUSTIC_PERIOD 60.0   /* seconds after which the caustics repeat exactly */

/* Trees and forests (world/tree*.c, world/forest.c) */
#define OAK_TREE_MAX_VARIANTS  3      /* variants (seeds) of one species */
#define OAK_FOREST_CELL        64.0   /* metres a side of a placement cell */
#define OAK_FOREST_DENSITY     250.0  /* trees a hectare where the forest grows (default) */
#define OAK_FOREST_DISTANCE    2000.0 /* metres of forest kept and drawn around the eye (default) */
#define OAK_TREE_LEAF_KEEP     0.35   /* share of leaf cards the simplified LOD keeps */

/* Objects a scene destroys with itself (oak_scene_attach). */
#define OAK_SCENE_MAX_ATTACHMENTS 8

/* Instance streams (render/stream.c, render/stream_cull.c): one mesh or a
 * ladder of LOD meshes drawn at many places from a 12-float record. */
#define OAK_STREAM_LODS          4         /* LOD meshes one stream may switch between */
#define OAK_STREAM_MAX_INSTANCES (1u << 24) /* largest capacity one stream may ask for */
#define OAK_STREAM_MAX_PER_VIEW  64        /* streams one frame input may list */
/* LOD by projected size (render/frontend.c build_camera, docs/ARCHITECTURE.md
 * "Instance streams"): every stream's LOD switch distances (and the last,
 * gone one of a stream that sinks into the ground before it, as grass
 * does; any other's is a draw distance and stays) are multiplied by the
 * view's lod_scale, its pixels per radian (render height x P[1][1] / 2)
 * over those of
 * OAK_LOD_REFERENCE_HEIGHT lines at an OAK_LOD_REFERENCE_FOV_Y degree
 * vertical field of view, clamped to [OAK_LOD_SCALE_MIN, 1]: authored
 * distances are for 1080p and up, and a bigger render never pays for more
 * than authored. Orthographic views: 1. oak_camera.lod_scale pins it
 * (clamped to [OAK_LOD_SCALE_MIN, OAK_LOD_SCALE_PIN_MAX]). */
#define OAK_LOD_REFERENCE_HEIGHT 1080
#define OAK_LOD_REFERENCE_FOV_Y  60.0
#define OAK_LOD_SCALE_MIN        0.125
#define OAK_LOD_SCALE_PIN_MAX    8.0

/* Compute rasterization (docs/ARCHITECTURE.md "Compute rasterization"): a
 * native stream's LOD band whose triangles are this small on screen or
 * smaller (pixels across: the mesh's sphere diameter over the square root of
 * its triangle count, at the band's nearest distance) is rasterized in
 * compute where the GPU has 64-bit atomics. A first guess, to be measured;
 * OAK_CRASTER_PIXELS=<n> in the environment overrides it. */
#define OAK_CRASTER_PIXELS 4.0

/* Occlusion culling on the CPU (render/occlusion.c, docs/ARCHITECTURE.md
 * "Occlusion culling"): a coarse depth grid of the largest draws in view. */
#define OAK_OCC_TEXEL       8       /* pixels a side of one grid texel (8 x 8 = 64 sample bits) */
#define OAK_OCC_OCCLUDERS   64      /* draws rasterized into the grid at most */
#define OAK_OCC_TRIANGLES   8192    /* their triangles at most (larger meshes are left out) */
#define OAK_OCC_MIN_SIZE    0.05    /* smallest occluder: projected radius over the view's height */
#define OAK_OCC_EDGE_MARGIN 0.0625  /* px a sample keeps inside a silhouette edge (1/16 px snapping) */

/* Pose banks (scene/pose_bank.c): clips sampled once into joint palettes. */
#define OAK_POSE_BANK_RATE       120       /* frames a second a bank samples at by default */
#define OAK_POSE_BANK_MAX_CLIPS  16        /* clips one bank may hold */
#define OAK_POSE_OVERRIDES_MAX   4096      /* override palettes a write may hold (render.h) */
#define OAK_FOOT_IK_WINDOW       0.04      /* share of the height a planted sole may stand above its lowest */
#define OAK_FOOT_IK_MAX_DROP     0.25      /* share of a leg's reach the hips may drop */
#define OAK_POSE_BANK_CONTACT    0.02      /* a foot is planted this share of the height above its lowest */

/* The crowd's simulation (world/crowd_sim.c). */
#define OAK_CROWD_MAX       (1u << 20) /* figures one crowd may hold */
#define OAK_CROWD_MAX_CELLS (1u << 22) /* cells of its neighbour grid */
#define OAK_POSE_BANK_MAX_FLOATS (1u << 26) /* palette floats one bank may hold (256 MiB) */
#define OAK_STREAM_CULL_CHUNK    1024      /* instances per job of the cull-and-LOD kernel */

/* Wind and benders over swaying streams (render/stream_cull.c, shaders/common/bend.glsl;
 * docs/WORLD.md "Grass"). */
#define OAK_BENDERS_MAX            8     /* bender spheres an environment carries */
#define OAK_WIND_GUST_WAVELENGTH   40.0  /* metres between gust fronts (default) */
#define OAK_WIND_GUST_SPEED        6.0   /* metres a second the fronts travel (default) */
#define OAK_BEND_PUSH              1.5   /* shear at a bender's centre: flattened */
#define OAK_BEND_FLATTEN           0.7   /* height lost at a bender's centre */
#define OAK_SINK_DEPTH             0.05  /* metres a fully sunk instance lies below its origin */

/* Grass and flowers (world/grass.c, docs/WORLD.md "Grass"). */
#define OAK_GRASS_PATCH            2.0   /* metres a side of one clump instance (a level-0 terrain cell) */
#define OAK_GRASS_BLADES           1024  /* blades of the nearest clump mesh; each LOD merges pairs */
#define OAK_GRASS_DISTANCE         1500.0 /* metres grass reaches (desc default) */
#define OAK_GRASS_BUDGET           8192  /* patches a grass update may evaluate (tiles past it wait) */
#define OAK_WORLD_PLANTS           0.1   /* meadow's default plants share: light for the cpu backend */
#define OAK_WORLD_PLANTS_DISTANCE  300.0 /* metres meadow's grass reaches at that default */

/* Particles (world/particles.c, docs/WORLD.md "Particles"). */
#define OAK_PARTICLE_KEYS      8          /* colour or size keys an emitter may have */
#define OAK_PARTICLE_BURSTS    4          /* scheduled bursts an emitter may have */
#define OAK_PARTICLE_FRAMES    16         /* flipbook frames an emitter may have (a stream each) */
#define OAK_PARTICLE_MAX       (1u << 20) /* particles one emitter may hold */
#define OAK_PARTICLE_STEP      (1.0 / 60.0) /* seconds of one simulation step */
#define OAK_PARTICLE_CHUNK     1024       /* particles per job of a step */
#define OAK_PARTICLE_CATCHUP_SECONDS 3600.0 /* seconds one update may step ahead */

/* Reflection probes (docs/SHADING.md "Reflection probes"): boxes each with a
 * map of GGX-prefiltered octahedral levels laid out as the sky light's. */
#define OAK_PROBE_MAX_VIEW 8   /* probes a view carries */
#define OAK_PROBE_MAX      64  /* probes one frame input may list (each keeps a baked map) */
#define OAK_PROBE_IMAGE_WIDTH 512 /* a bake resamples its six faces into an equirectangular image this wide, half as tall */

#define OAK_FRAME_ARENA_SIZE (4u << 20) /* first block of the per-frame arena */
#define OAK_JOB_MAX_THREADS  64         /* ceiling on job pool workers */

#define OAK_EXPOSURE_DEFAULT        1.0
#define OAK_ALPHA_CUTOFF_DEFAULT    0.5
/* material tricks (docs/SHADING.md "Material tricks", oak_material_fx) */
#define OAK_FX_SHARPNESS_DEFAULT       4.0   /* triplanar weights |n|^4 */
#define OAK_FX_VARIATION_SCALE_DEFAULT 8.0   /* metres across a variation patch */
#define OAK_FX_DETAIL_DISTANCE_DEFAULT 10.0  /* metres where the detail layer is gone */
#define OAK_FX_PLANE_MIN               0.02  /* a triplanar plane weighted less is not read */
#define OAK_FX_HEX_EXP                 7.0   /* breakup: barycentric weights to this power */
#define OAK_FX_HEX_CONTRAST            0.6   /* ... times mix(1, luminance, this) (Mikkelsen) */
#define OAK_FX_HEX_MIN                 0.02  /* a copy weighted less (before luminance) is not read */
#define OAK_FX_PERIOD                  64    /* hex cells and variation patches repeat after this many */
#define OAK_FXAA_EDGE_THRESHOLD     0.125 /* FXAA quality defaults */
#define OAK_FXAA_EDGE_THRESHOLD_MIN 0.0312

/* camera: physical exposure (docs/SHADING.md "Exposure"). A meter reads
 * the scene's mean luminance L as EV100 = log2(L * 100 / K); the sensor
 * saturates at 1.2 * 2^EV100 cd/m^2 (78 / (100 * 0.65), ISO 12232), which
 * post maps to 1 before the tone curve. */
#define OAK_EXPOSURE_SATURATION 1.2          /* exposure = 1 / (1.2 * 2^EV100) */
#define OAK_EXPOSURE_METER_K    12.5         /* reflected-light meter calibration */
#define OAK_CAMERA_SHUTTER      (1.0 / 125.0) /* seconds, when only the aperture is given */
#define OAK_CAMERA_ISO          100.0
#define OAK_EV100_MIN           (-16.0)      /* starlight is about -6; settings are clamped */
#define OAK_EV100_MAX           32.0         /* a welding arc is about 22 */
/* camera: the eye-adaptation meter and steering (render/exposure_adapt.c,
 * docs/SHADING.md "Eye adaptation"). The histogram's bins split log2 of a
 * pixel's luminance (cd/m^2) evenly from LOG_MIN up to LOG_MAX, and bin 0
 * holds what is darker (black, not metered). No unpaired square bracket
 * in this file: gl_embed.cmake reads it as a CMake list, where an open
 * bracket joins the lines after it. */
#define OAK_METER_BINS          64
#define OAK_METER_LOG_MIN       (-8.0)       /* 0.004 cd/m^2: starlight on grass */
#define OAK_METER_LOG_MAX       24.0         /* 16.8 Mcd/m^2: past the sun's glare on metal */
#define OAK_METER_CENTRE_WEIGHT 4            /* a pixel in the centre ellipse counts this often */
#define OAK_ADAPT_DOWN_S        0.4          /* time constant when the scene brightens */
#define OAK_ADAPT_UP_S          1.2          /* ... and when it darkens (eyes open slowly) */
#define OAK_ADAPT_NIGHT_EV      5.0          /* below this metered EV100 the camera ... */
#define OAK_ADAPT_NIGHT_KEEP    0.5          /* ... follows only this share of the drop */
#define OAK_ADAPT_EV_MIN        (-2.0)       /* the steered EV100 stays within these */
#define OAK_ADAPT_EV_MAX        20.0

/* sky: volumetric clouds (docs/SHADING.md "Volumetric clouds"; render/clouds.c,
 * shaders/common/clouds.glsl). A flat layer (no earth curvature) between a
 * base and a top altitude; density is a weather map of coverage over world
 * XZ, shaped by a baked Perlin-Worley table and eroded by its Worley detail. */
#define OAK_CLOUD_BASE          1500.0 /* metres above y = 0, when oak_clouds.base is 0 */
#define OAK_CLOUD_TOP           4000.0 /* metres, when oak_clouds.top is 0 */
#define OAK_CLOUD_TYPE          0.6    /* 0 flat stratus .. 1 tall cumulus, when type is 0 */
#define OAK_CLOUD_EXTINCTION    0.04   /* per metre at full density, when density is 0 */
#define OAK_CLOUD_NOISE_SIZE    32     /* the baked noise table's texels a side (a cube) */
#define OAK_CLOUD_SHAPE_PERIOD  6000.0 /* metres the shape table repeats over */
#define OAK_CLOUD_DETAIL_PERIOD 700.0  /* metres the detail (erosion) table repeats over */
#define OAK_CLOUD_WEATHER_CELL  5000.0 /* metres across the weather map's coarsest cell */
#define OAK_CLOUD_TYPE_CELL     9000.0 /* metres across the type channel's coarsest cell */
#define OAK_CLOUD_EROSION       0.45   /* the detail noise's bite at the edges */
#define OAK_CLOUD_STRATUS_TOP   0.3    /* type 0 fills this share of the layer (1: all) */
#define OAK_CLOUD_BASE_FADE     0.06   /* share of the layer over which the base rounds in */
#define OAK_CLOUD_MAX_DISTANCE  40000.0 /* metres a view ray is marched at most */
#define OAK_CLOUD_LIGHT_STEPS   6      /* steps toward the key light, each twice the last */
#define OAK_CLOUD_LIGHT_STEP    25.0   /* metres, the first of them */
#define OAK_CLOUD_G_FORWARD     0.8    /* the two Henyey-Greenstein lobes ... */
#define OAK_CLOUD_G_BACK        (-0.3)
#define OAK_CLOUD_BACK_SHARE    0.5    /* ... and the backward one's weight */
#define OAK_CLOUD_OCTAVES       3      /* multiple-scattering octaves (Wrenninge) */
#define OAK_CLOUD_MS_A          0.5    /* per octave: extinction times this, */
#define OAK_CLOUD_MS_B          0.5    /* its weight times this, */
#define OAK_CLOUD_MS_C          0.5    /* its lobes' g times this */
#define OAK_CLOUD_ALBEDO_THICK  0.9    /* a thick cloud's return of the key light, as a white card's */
#define OAK_CLOUD_POWDER        0.5    /* the powder term's darkening of thin cloud ... */
#define OAK_CLOUD_POWDER_DEPTH  1000.0 /* ... fading over this many metres at that density */
#define OAK_CLOUD_AMBIENT_BASE  0.5    /* sky light at the base, as a share of that at the top */
#define OAK_CLOUD_MIN_T         0.01   /* transmittance at which the march stops */
#define OAK_CLOUD_SHADOW_SIZE   256    /* the cloud shadow map's texels a side */
#define OAK_CLOUD_SHADOW_EXTENT 8192.0 /* metres it covers a side, around the eye */
#define OAK_CLOUD_SHADOW_STEPS  16     /* steps along the key light through the layer */
#define OAK_CLOUD_SUN_MIN_Y     0.05   /* a lower key light's ray is raised to this slope */
#define OAK_CLOUD_DEPTH_EDGE    0.1    /* the upsample's relative depth gap between surfaces */
#define OAK_CLOUD_HISTORY_WEIGHT 0.125 /* the march's new value's share when blended with the reprojected history */
#define OAK_CLOUD_MARCH_BLOCK   2      /* with a history, one march texel of each block this many a side is marched a frame (1: all, else 2 or 4) */
#define OAK_CLOUD_HISTORY_DRIFT 50.0   /* metres the wind's drift may jump in a frame before the history is dropped */
#define OAK_CLOUD_SKY_STEPS     8      /* steps of the sky light capture's march through the layer */
#define OAK_CLOUD_SKY_CELL      1000.0 /* metres: the capture point snaps to this grid in the drifting field */

/* Froxel volumetric fog (docs/SHADING.md "Volumetric fog") */
#define OAK_FOG_VOLUMES     4     /* local fog volumes (boxes or ellipsoids) at most */
#define OAK_FOG_FAR         128.0 /* view depth in metres the froxels reach, when oak_fog.far is 0 */
#define OAK_FOG_SLICE_NEAR  4.0   /* metres: slice boundary b lies at n ((1 + far / n)^(b / N) - 1) */
#define OAK_FOG_MAX_FALLOFF 20.0  /* the height fog's exponent is clamped to this (no inf below) */
#define OAK_FOG_ALBEDO      0.9   /* the height fog's albedo when oak_fog.albedo is all 0 */
#define OAK_FOG_MIN_SIGMA   1e-6  /* extinction per metre below which a slice is taken as clear */
#define OAK_FOG_JITTER_PHASES 16   /* the inject's offsets in its slice: Halton base 2 at 1 + n % this */
#define OAK_FOG_HISTORY_MIN   0.0625 /* the newest frame's weight in the fog's history: 1 / (n + 1), at least this */

/* Weather (docs/SHADING.md "Weather", docs/WORLD.md "Weather") */
#define OAK_WET_UP_LO        0.5   /* normal.y where wetness starts ... */
#define OAK_WET_UP_HI        0.9   /* ... and where it is whole (smoothstep) */
#define OAK_WET_DARKEN       0.45  /* a soaked porous surface's albedo, times its dry one */
#define OAK_WET_ROUGHNESS    0.3   /* a soaked surface's roughness (rougher ones go down to it) */
#define OAK_WET_POROUS_LO    0.2   /* roughness of a surface that takes no water in ... */
#define OAK_WET_POROUS_HI    0.6   /* ... and of one that is fully porous (smoothstep) */
#define OAK_PUDDLE_SCALE     3.0   /* metres across one cell of the puddle noise */
#define OAK_PUDDLE_UP        0.95  /* normal.y above which water pools */
#define OAK_PUDDLE_COVER     0.45  /* share of level ground under puddles at wetness 1 */
#define OAK_PUDDLE_EDGE      0.08  /* noise over which a puddle's edge fades */
#define OAK_PUDDLE_ROUGHNESS 0.03  /* a puddle's roughness: a near mirror */
#define OAK_PUDDLE_DARKEN    0.25  /* albedo under a puddle, times the dry one */
/* screen-space reflections on puddles (docs/SHADING.md "Screen-space reflections") */
#define OAK_SSR_WETNESS      0.5   /* the ssr pass runs past this wetness (puddles lie) */
#define OAK_SSR_STEPS        32    /* linear steps along the reflected ray on screen */
#define OAK_SSR_HALVINGS     5     /* binary halvings between the last miss and the hit */
/* Water's own marches (its reflection from above, Snell's window's from
   below: the BLEND pass's fragment shader, which costs most where the lake
   fills the view, docs/PERFORMANCE.md "water43"): half the linear steps and
   one halving more, so the hit's precision is the same 1/1024 of the ray
   and only a surface thinner than 1/16 of the ray's screen path can be
   stepped over (the puddles' pass keeps OAK_SSR_STEPS) */
#define OAK_SSR_WATER_STEPS    16
#define OAK_SSR_WATER_HALVINGS 6
#define OAK_SSR_DISTANCE     24.0  /* metres the reflected ray is followed */
#define OAK_SSR_THICKNESS    0.6   /* metres behind a surface a hit still counts */
#define OAK_SSR_EDGE         0.1   /* share of the screen over which a hit fades at its edges */
#define OAK_SSR_FADE         0.5   /* share of the ray's length over which a far hit fades */
#define OAK_RIPPLE_CELL      0.5   /* metres a side of a ripple cell: one drop a period in each */
#define OAK_RIPPLE_PERIOD    0.8   /* seconds between a cell's drops, and a ring's life */
#define OAK_RIPPLE_SPEED     0.25  /* metres a second a ring spreads (0.2 m at the end of its life) */
#define OAK_RIPPLE_WIDTH     0.015 /* metres: the crest's width (a Gaussian's) */
#define OAK_RIPPLE_SLOPE     0.5   /* the crest's steepest tilt at rain 1, as the ring is born */
#define OAK_RIPPLE_WRAP      819.2 /* seconds (1024 periods) the ripple clock wraps at */
#define OAK_RIPPLE_NEAR      6.0   /* metres from the eye where the rings start to fade ... */
#define OAK_RIPPLE_FAR       12.0  /* ... and are gone (a crest is under a 1080p pixel there) */
#define OAK_SNOW_UP_LO       0.35  /* normal.y where snow starts to lie ... */
#define OAK_SNOW_UP_HI       0.75  /* ... and where it lies whole (smoothstep) */
#define OAK_SNOW_ALBEDO      0.85  /* fresh snow's albedo (grey) */
#define OAK_SNOW_ROUGHNESS   0.8
#endif
