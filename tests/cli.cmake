# Tests of the oak command line: each runs the binary through cli_run.cmake,
# which checks the exit status, the output and that stderr says the problem
# in one line. Drawing tests use small sizes to stay quick under ASan.
set(OAK_CLI_ENV
  "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_SOURCE_DIR}/lsan.supp:print_suppressions=0;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
set(OAK_CLI_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/cli)

# oak_cli_test(NAME ARGS a|b|c EXIT n [OUT re] [ERR re] [ERR_LINES n] [LAUNCH x|y])
# LAUNCH runs oak through another program (xvfb-run, cmake -E env ...).
function(oak_cli_test name)
  cmake_parse_arguments(T "" "ARGS;EXIT;OUT;NOT_OUT;ERR;ERR_LINES;LAUNCH" "" ${ARGN})
  if(DEFINED T_LAUNCH)
    string(REPLACE "|" ";" launch "${T_LAUNCH}")
    list(POP_FRONT launch launcher)
    list(JOIN launch "|" rest)
    set(defs -DOAK=${launcher} "-DARGS=${rest}|$<TARGET_FILE:oak_cli>|${T_ARGS}" -DEXIT=${T_EXIT})
  else()
    set(defs -DOAK=$<TARGET_FILE:oak_cli> "-DARGS=${T_ARGS}" -DEXIT=${T_EXIT})
  endif()
  foreach(key OUT NOT_OUT ERR ERR_LINES)
    if(DEFINED T_${key})
      list(APPEND defs "-D${key}=${T_${key}}")
    endif()
  endforeach()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${defs} -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_run.cmake
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${OAK_CLI_ENV}" TIMEOUT 300 LABELS cli)
  # xvfb-run -a picks a free display by looking, so two starting at once can
  # pick the same one: one Xvfb test at a time.
  if(T_LAUNCH MATCHES "xvfb-run")
    set_tests_properties(${name} PROPERTIES RESOURCE_LOCK xvfb)
  endif()
endfunction()

# ---- usage: exit 2, one line naming the problem --------------------------
# png_compare A B TOL: passes when two PNGs agree within TOL/255
add_executable(png_compare ${CMAKE_CURRENT_SOURCE_DIR}/png_compare.c)
target_link_libraries(png_compare PRIVATE oak_static)

oak_cli_test(cliRejectsNoCommand ARGS "" EXIT 2 ERR "usage: oak COMMAND")
oak_cli_test(cliRejectsUnknownCommand ARGS "paint" EXIT 2
             ERR "unknown command 'paint'" ERR_LINES 1)
oak_cli_test(cliRenderRejectsUnknownOption ARGS "render|--bogus" EXIT 2
             ERR "oak render: unknown option '--bogus'" ERR_LINES 1)
oak_cli_test(cliRenderRejectsSizeZero ARGS "render|--size|0x720" EXIT 2
             ERR "--size '0x720': each side must be 1\\.\\.16384" ERR_LINES 1)
oak_cli_test(cliRenderRejectsAbsurdSize ARGS "render|--size|100000x100000" EXIT 2
             ERR "--size '100000x100000': each side must be 1\\.\\.16384" ERR_LINES 1)
oak_cli_test(cliRenderRejectsMalformedSize ARGS "render|--size|1280by720" EXIT 2
             ERR "--size '1280by720': expected WxH" ERR_LINES 1)
oak_cli_test(cliRenderRejectsUnknownDebugView ARGS "render|--debug|clusterz" EXIT 2
             ERR "--debug 'clusterz': expected cascades, clusters, lamp-shadows, ao or motion" ERR_LINES 1)
oak_cli_test(cliRenderDebugMotion
             ARGS "render|--backend|cpu|--size|64x36|--debug|motion|--out|${CMAKE_BINARY_DIR}/test-out/cli_debug_motion.png"
             EXIT 0 OUT "cpu \\| .*cli_debug_motion\\.png")
# TAA: OAK_TAA_SAMPLES still frames before the picture; the median is of --frames
oak_cli_test(cliRenderTaa
             ARGS "render|--backend|cpu|--size|64x36|--taa|on|--out|${CMAKE_BINARY_DIR}/test-out/cli_taa.png"
             EXIT 0 OUT "cpu \\| .*\\(median of 1\\) \\| .*cli_taa\\.png")
oak_cli_test(cliRenderRejectsBadTaa ARGS "render|--taa|maybe" EXIT 2
             ERR "--taa 'maybe': expected on or off" ERR_LINES 1)
oak_cli_test(cliRenderRejectsBadPreset ARGS "render|--preset|epic" EXIT 2
             ERR "--preset 'epic': expected low, medium, high or ultra" ERR_LINES 1)
oak_cli_test(cliBenchPresetInJson
             ARGS "bench|--backend|cpu|--size|32x18|--frames|2|--warmup|0|--preset|low|--json"
             EXIT 0 OUT "\"preset\": \"low\", \"size\": \\[32, 18\\]")
# the cpu's clouds at the low rung's march when no preset is named; a
# preset, or --compare, holds every backend to the library's rungs
oak_cli_test(cliBenchCpuCloudsCoarser
             ARGS "bench|--backend|cpu|--size|32x18|--frames|1|--warmup|0|--weather|cloudy|--json"
             EXIT 0 OUT "\"cloud_march\": {\"steps\": 32, \"scale\": 4}")
oak_cli_test(cliBenchCpuCloudsAtPreset
             ARGS "bench|--backend|cpu|--size|32x18|--frames|1|--warmup|0|--preset|medium|--json"
             EXIT 0 OUT "\"cloud_march\": {\"steps\": 48, \"scale\": 2}")
oak_cli_test(cliBenchCompareCloudsOneRung
             ARGS "bench|--compare|cpu,null|--size|32x18|--frames|1|--warmup|0|--json"
             EXIT 0 OUT "\"cloud_march\": {\"steps\": 48, \"scale\": 2}")
oak_cli_test(cliBenchTaa ARGS "bench|--backend|cpu|--size|32x18|--frames|2|--warmup|0|--taa|on"
             EXIT 0)
# render scale (docs/SHADING.md "Render scale"): clamped with one line, refused
# below 0; the scene file's post key; bench --json says what ran
oak_cli_test(cliRenderScaleClamped
             ARGS "render|--backend|cpu|--size|64x36|--scale|0.1|--out|${CMAKE_BINARY_DIR}/test-out/cli_scale.png"
             EXIT 0 OUT "cpu \\| .*cli_scale\\.png" ERR "--scale 0\\.1 clamped to 0\\.25" ERR_LINES 1)
oak_cli_test(cliRenderRejectsNegativeScale ARGS "render|--scale|-1" EXIT 2
             ERR "--scale '-1': expected a finite number" ERR_LINES 1)
oak_cli_test(cliBenchScaleJson
             ARGS "bench|--backend|cpu|--size|32x18|--frames|1|--warmup|0|--scale|0.5|--json"
             EXIT 0 OUT "\"render_scale\": 0\\.5, \"render_size\": \\[16, 9\\]")
oak_cli_test(cliBenchSceneScaleJson
             ARGS "bench|--scene|tests/data/scene/render_scale.json|--backend|cpu|--size|64x36|--frames|1|--warmup|0|--json"
             EXIT 0 OUT "\"render_scale\": 0\\.25, \"render_size\": \\[16, 9\\]")
# capture channels: a PFM of the depth, a PNG of the albedo, a bad name refused
oak_cli_test(cliRenderChannelDepth
             ARGS "render|--backend|cpu|--size|64x36|--channel|depth|--out|${CMAKE_BINARY_DIR}/test-out/cli_depth.pfm"
             EXIT 0 OUT "cpu \\| .*cli_depth\\.pfm")
oak_cli_test(cliRenderChannelAlbedo
             ARGS "render|--backend|cpu|--size|64x36|--channel|albedo|--out|${CMAKE_BINARY_DIR}/test-out/cli_albedo.png"
             EXIT 0 OUT "cpu \\| .*cli_albedo\\.png")
oak_cli_test(cliRenderRejectsBadChannel ARGS "render|--channel|colour" EXIT 2
             ERR "--channel 'colour': expected albedo, normal, depth, motion or ao" ERR_LINES 1)
oak_cli_test(cliRenderDebugAo
             ARGS "render|--backend|cpu|--size|64x36|--debug|ao|--out|${CMAKE_BINARY_DIR}/test-out/cli_debug_ao.png"
             EXIT 0 OUT "cpu \\| .*cli_debug_ao\\.png")
oak_cli_test(cliRenderHour
             ARGS "render|--backend|cpu|--size|64x36|--hour|18.5|--out|${CMAKE_BINARY_DIR}/test-out/cli_hour.png"
             EXIT 0 OUT "cpu \\| .*cli_hour\\.png")
oak_cli_test(cliBenchHour ARGS "bench|--backend|cpu|--size|32x18|--frames|1|--warmup|0|--hour|23"
             EXIT 0)
oak_cli_test(cliRenderSceneKeepsItsHour
             ARGS "render|--scene|tests/data/scene/time_dusk.json|--backend|cpu|--size|64x36|--out|${CMAKE_BINARY_DIR}/test-out/cli_time_dusk.png"
             EXIT 0 OUT "cpu \\| .*cli_time_dusk\\.png")
oak_cli_test(cliRenderRejectsBadHour ARGS "render|--hour|25" EXIT 2
             ERR "--hour '25': expected a finite number 0\\.\\.24" ERR_LINES 1)
oak_cli_test(cliViewRejectsBadHour ARGS "view|model.gltf|--hour|nan" EXIT 2
             ERR "--hour 'nan': expected a finite number 0\\.\\.24" ERR_LINES 1)
# depth of field: a focused render draws the dof pass; nonsense is one line
oak_cli_test(cliRenderFocus
             ARGS "render|--backend|cpu|--size|64x36|--focus|3|--aperture|2|--out|${CMAKE_BINARY_DIR}/test-out/cli_focus.png"
             EXIT 0 OUT "cpu \\| .*cli_focus\\.png")
oak_cli_test(cliRenderRejectsBadFocus ARGS "render|--focus|0" EXIT 2
             ERR "--focus '0': expected a finite number 0\\.01\\.\\.100000" ERR_LINES 1)
# clouds: --clouds draws the default world under them; nonsense is one line
oak_cli_test(cliRenderClouds
             ARGS "render|--backend|cpu|--size|64x36|--clouds|0.5|--out|${CMAKE_BINARY_DIR}/test-out/cli_clouds.png"
             EXIT 0 OUT "cpu \\| .*cli_clouds\\.png")
# --path: the timed frames cover that share of the camera path (the JSON says it)
oak_cli_test(cliBenchPathInJson
  ARGS "bench|--backend|cpu|--size|32x18|--frames|2|--warmup|0|--path|0.25|--json" EXIT 0
  OUT "\"path\": 0.25, ")
oak_cli_test(cliBenchRejectsBadPath ARGS "bench|--path|1.5" EXIT 2
  ERR "--path '1.5'")
oak_cli_test(cliBenchRejectsBadClouds ARGS "bench|--clouds|1.5" EXIT 2
             ERR "--clouds '1\\.5': expected a finite number 0\\.\\.1" ERR_LINES 1)
# weather: --weather draws the default world in a storm at dusk; nonsense is one line
oak_cli_test(cliRenderWeather
             ARGS "render|--backend|cpu|--size|64x36|--hour|18.5|--weather|storm|--out|${CMAKE_BINARY_DIR}/test-out/cli_weather.png"
             EXIT 0 OUT "cpu \\| .*cli_weather\\.png")
oak_cli_test(cliBenchWeather ARGS "bench|--backend|cpu|--size|32x18|--frames|2|--warmup|0|--weather|snow:0.5"
             EXIT 0)
oak_cli_test(cliRenderRejectsBadWeather ARGS "render|--weather|rain:1.5" EXIT 2
             ERR "--weather 'rain:1\\.5': expected KIND\\[:AMOUNT\\]" ERR_LINES 1)
oak_cli_test(cliViewRejectsBadWeather ARGS "view|model.gltf|--weather|hail" EXIT 2
             ERR "--weather 'hail': expected KIND\\[:AMOUNT\\]" ERR_LINES 1)
# fog: --fog draws the default world in volumetric height fog; nonsense is one line
oak_cli_test(cliRenderFog
             ARGS "render|--backend|cpu|--size|64x36|--fog|0.02|--out|${CMAKE_BINARY_DIR}/test-out/cli_fog.png"
             EXIT 0 OUT "cpu \\| .*cli_fog\\.png")
oak_cli_test(cliBenchRejectsBadFog ARGS "bench|--fog|-1" EXIT 2
             ERR "--fog '-1': expected a finite number 0\\.\\.10" ERR_LINES 1)
# TAA's sharpen: a sharpened TAA render draws; outside 0..1 is one line
oak_cli_test(cliRenderTaaSharpen
             ARGS "render|--backend|cpu|--size|64x36|--taa|on|--taa-sharpen|0.5|--out|${CMAKE_BINARY_DIR}/test-out/cli_taa_sharpen.png"
             EXIT 0 OUT "cpu \\| .*cli_taa_sharpen\\.png")
oak_cli_test(cliViewRejectsBadTaaSharpen ARGS "view|model.gltf|--taa-sharpen|-1" EXIT 2
             ERR "--taa-sharpen '-1': expected a finite number 0\\.\\.1" ERR_LINES 1)
oak_cli_test(cliBenchRejectsBadTaaSharpen ARGS "bench|--taa-sharpen|2" EXIT 2
             ERR "--taa-sharpen '2': expected a finite number 0\\.\\.1" ERR_LINES 1)
oak_cli_test(cliBenchRejectsBadAperture ARGS "bench|--aperture|inf" EXIT 2
             ERR "--aperture 'inf': expected a finite number 0\\.5\\.\\.64" ERR_LINES 1)
oak_cli_test(cliRenderRejectsBadAo ARGS "render|--ao|maybe" EXIT 2
             ERR "--ao 'maybe': expected on or off" ERR_LINES 1)
oak_cli_test(cliRenderDebugCascades
             ARGS "render|--backend|cpu|--size|64x36|--debug|cascades|--out|${CMAKE_BINARY_DIR}/test-out/cli_debug_cascades.png"
             EXIT 0 OUT "cpu \\| .*cli_debug_cascades\\.png")
oak_cli_test(cliRenderRejectsNegativeSize ARGS "render|--size=-5x10" EXIT 2
             ERR "--size '-5x10': expected WxH" ERR_LINES 1)
oak_cli_test(cliRenderRejectsSizeWithTrailingText ARGS "render|--size|64x48px" EXIT 2
             ERR "--size '64x48px': expected WxH" ERR_LINES 1)
oak_cli_test(cliRenderRejectsMissingValue ARGS "render|--backend" EXIT 2
             ERR "--backend needs a value" ERR_LINES 1)
oak_cli_test(cliRenderRejectsFramesZero ARGS "render|--frames|0" EXIT 2
             ERR "--frames '0'" ERR_LINES 1)
oak_cli_test(cliRenderRejectsWorldAndScene ARGS "render|--world|default|--scene|x.json" EXIT 2
             ERR "give one" ERR_LINES 1)
oak_cli_test(cliInfoRejectsRenderOptions ARGS "info|--size|64x64" EXIT 2
             ERR "oak info: unknown option '--size'" ERR_LINES 1)
oak_cli_test(cliViewRejectsMissingFile ARGS "view" EXIT 2 ERR "usage: oak view")
oak_cli_test(cliBakeRejectsMissingArguments ARGS "bake" EXIT 2 ERR "usage: oak bake" ERR_LINES 1)
oak_cli_test(cliBenchRejectsJsonValue ARGS "bench|--json=yes" EXIT 2
             ERR "--json takes no value" ERR_LINES 1)

# ---- bad names and files: exit 1, one line -------------------------------
oak_cli_test(cliRenderRejectsUnknownBackend ARGS "render|--backend|metal|--size|64x36" EXIT 1
             ERR "unknown backend 'metal' \\(compiled in: .*cpu.*\\)" ERR_LINES 1)
oak_cli_test(cliRenderRejectsUnknownWorld ARGS "render|--world|moon|--size|64x36" EXIT 1
             ERR "unknown world 'moon' \\(worlds: default, stress, lamps, meadow, crowd, campfire, fountain, dense\\)" ERR_LINES 1)
oak_cli_test(cliRenderRejectsMissingSceneFile
             ARGS "render|--scene|tests/data/cli/no_such_scene.json|--size|64x36" EXIT 1
             ERR "no_such_scene\\.json" ERR_LINES 1)
oak_cli_test(cliRenderRejectsBrokenSceneFile
             ARGS "render|--scene|tests/data/cli/broken.json|--size|64x36" EXIT 1
             ERR "broken\\.json" ERR_LINES 1)
oak_cli_test(cliRenderRejectsUnwritableOut
             ARGS "render|--backend|null|--size|32x18|--out|/nonexistent-dir/x.png" EXIT 1
             ERR "/nonexistent-dir/x\\.png" ERR_LINES 1)
oak_cli_test(cliBenchRejectsCompareOfOne ARGS "bench|--compare|cpu|--size|32x18" EXIT 1
             ERR "--compare 'cpu': name two or more backends" ERR_LINES 1)
oak_cli_test(cliBenchRejectsCompareUnknown ARGS "bench|--compare|cpu,metal|--size|32x18" EXIT 1
             ERR "unknown backend 'metal'" ERR_LINES 1)

# ---- what works ------------------------------------------------------------
oak_cli_test(cliHelpListsCommands ARGS "help" EXIT 0 OUT "render.*bench.*info")
# help lists what the command's parser takes, the options past bit 31 too
oak_cli_test(cliHelpBenchListsEveryOption ARGS "help|bench" EXIT 0
             OUT "--preset.*--hour.*--forest.*--weather.*--path SHARE.*--plants SHARE.*--plant-reach M")
oak_cli_test(cliHelpRenderListsOptions ARGS "help|render" EXIT 0
             OUT "--world NAME.*--scene FILE.*--backend B.*--size WxH.*--frames N.*--out")
oak_cli_test(cliInfoListsVersionBackendsAndThreads ARGS "info|--threads|3" EXIT 0
             OUT "oak 0\\.1\\.0\nthreads: 3\nworlds: default, stress, lamps, meadow, crowd, campfire, fountain, dense\n.*  cpu: available.*  null: available")
# caps: the passes and features each backend runs, named by the pass table
oak_cli_test(cliInfoListsCapsPerBackend ARGS "info" EXIT 0
             OUT "  cpu: available\n.*    passes: upload lightgrid skycapture shadow lampshadow raster gtao clouds fog resolve ssr opaquecopy blend cloudmix taa dof exposure bloom post fxaa readback\n    features: pixels shadow-cache probes aerial\n  null: available\n.*    passes: none\n    features: none\n")
oak_cli_test(cliRenderNullBackendPrintsOneLine
             ARGS "render|--backend|null|--size|64x36|--out|${CMAKE_BINARY_DIR}/test-out/cli_null.png"
             EXIT 0 OUT "^null \\| [^|]+ \\| 64x36 \\| [0-9.]+ ms/frame \\(median of 1\\) \\| [^\n]*cli_null\\.png\n$")
oak_cli_test(cliRenderLampsClustersOnCpu
             ARGS "render|--world|lamps|--backend|cpu|--debug|clusters|--size|64x36|--out|${CMAKE_BINARY_DIR}/test-out/cli_clusters.png"
             EXIT 0 OUT "^cpu \\| [^|]+ \\| 64x36 \\| [0-9.]+ ms/frame \\(median of 1\\) \\| [^\n]*cli_clusters\\.png\n$")
# occlusion: off by default, on on request, said per backend; nonsense is one line
oak_cli_test(cliInfoSaysTheOcclusionPath ARGS "info" EXIT 0
             OUT "  cpu: available\n.*    occlusion \\(--occlusion on; off by default\\): coarse CPU depth \\(8x8-pixel texels, the largest 64 draws in view\\) before binning \\([^\n]+\\)\n    passes:")
oak_cli_test(cliBenchCountsOcclusion
             ARGS "bench|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--occlusion|on|--json"
             EXIT 0 OUT "\"occlusion\": {\"on\": true, \"occluders\": [1-9][0-9]*, \"occluder_triangles\": [0-9]+, \"draws_tested\": [1-9]")
oak_cli_test(cliBenchOcclusionOff
             ARGS "bench|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--occlusion|off|--json"
             EXIT 0 OUT "\"occlusion\": {\"on\": false, \"occluders\": 0, \"occluder_triangles\": 0, \"draws_tested\": [1-9][0-9]*, \"draws_frustum\": [0-9]+, \"draws_occluded\": 0,")
# the sky light's captures over the timed frames: a still sky is captured
# by the first frame only (no warm-up), its frame apart from the other
oak_cli_test(cliBenchCountsSkyCaptures
             ARGS "bench|--backend|cpu|--size|32x18|--frames|3|--warmup|0|--json"
             EXIT 0 OUT "\"sky\": {\"recaptures\": 1, \"skycapture_total_ms\": [0-9.]+, \"frames_recaptured\": 1, \"frame_median_ms_recaptured\": [0-9.]+, \"frame_max_ms_recaptured\": [0-9.]+, \"frames_other\": 2, \"frame_median_ms_other\": [0-9.]+}")
# the GPUs take two-pass Hi-Z (their probes need a device: lavapipe,
# llvmpipe); Vulkan's bench counts its passes and times its steps
function(oak_cli_hiz_test gpu name)
  oak_cli_test(cliInfoSays${name}TakesHiZ ARGS "info" EXIT 0
               OUT "  ${gpu}: available\n.*    occlusion \\(--occlusion on; off by default\\): two-pass Hi-Z in compute [^\n]+\n    passes: [^\n]*lightgrid particles grass instcull meshcull [^\n]+\n    features: [^\n]*gpu-hiz aerial")
  set_tests_properties(cliInfoSays${name}TakesHiZ PROPERTIES LABELS "cli;${gpu}")
endfunction()
# where grass grows: the grass kernel on the GPUs, the job pool on the cpu
oak_cli_test(cliInfoNamesTheGrassPath ARGS "info" EXIT 0
             OUT "  cpu: available\n.*    grass \\(OAK_GRASS_KERNEL=off grows it at the update\\): [^\n]*job pool when the frame first reads it\n")
if(OAK_HAVE_VULKAN)
  oak_cli_test(cliInfoNamesVulkansGrassKernel ARGS "info" EXIT 0
               OUT "  vulkan: available\n.*    grass \\(OAK_GRASS_KERNEL=off grows it on the host\\): [^\n]*grown on the device by the grass kernel")
  set_tests_properties(cliInfoNamesVulkansGrassKernel PROPERTIES LABELS "cli;vulkan")
endif()
if(OAK_HAVE_VULKAN)
  oak_cli_hiz_test(vulkan Vulkan)
  oak_cli_test(cliBenchVulkanCountsAndTimesHiZ
               ARGS "bench|--backend|vulkan|--size|64x36|--frames|1|--warmup|1|--occlusion|on|--json"
               EXIT 0 OUT "\"occlusion\": {\"on\": true, [^}]+\"drawn_pass1\": ([1-9][0-9]*, \"drawn_pass2\": [0-9]+|[0-9]+, \"drawn_pass2\": [1-9][0-9]*), \"instances_pass1\": [0-9]+, \"instances_pass2\": [0-9]+}.*\"hiz_pass1\": {\"median_ms\": [0-9.]+.*\"hiz_pyramid\": {\"median_ms\": [0-9.]+.*\"raster\": {\"median_ms\"")
  set_tests_properties(cliBenchVulkanCountsAndTimesHiZ PROPERTIES LABELS "cli;vulkan")
endif()
if(OAK_HAVE_GL)
  oak_cli_hiz_test(gl Gl)
endif()
# meshlet culling: the path said per backend; the CPU's bench counts it
oak_cli_test(cliInfoSaysTheMeshletPath ARGS "info" EXIT 0
             OUT "  cpu: available\n.*    meshlets \\(OAK_MESHCULL=off turns it off\\): frustum and normal cone per meshlet[^\n]+\n    occlusion")
# cluster LOD: the dense world's rock is cut (most of its meshlets out of
# the cut at this size), and a count past the world's limit is one line
oak_cli_test(cliBenchDenseCutsClusters
             ARGS "bench|--world|dense|--count|1|--backend|cpu|--size|64x36|--frames|1|--warmup|0|--json"
             EXIT 0 OUT "\"triangles_kept\": [1-9][0-9]*, \"culled_lod\": [1-9][0-9][0-9][0-9]+, ")
oak_cli_test(cliRenderDenseRejectsTooMany ARGS "render|--world|dense|--count|5000|--size|64x36" EXIT 1
             ERR "world dense: --count 5000, at most 4096" ERR_LINES 1)
oak_cli_test(cliBenchCountsMeshlets
             ARGS "bench|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--json"
             EXIT 0 OUT "\"meshlets\": {\"on\": true, \"tested\": [1-9][0-9]*, \"culled_frustum\": [0-9]+, \"culled_cone\": [0-9]+, \"triangles_kept\": [1-9][0-9]*, \"culled_lod\": [0-9]+, \"culled_occluded\": [0-9]+, \"triangles_pass1\": [0-9]+, \"overflow_triangles\": [0-9]+, \"fallback_draws\": 0, \"shadow_triangles\": [0-9]+}")

# the GPUs say which shadow bands their compute raster takes, MASK ones too
# (docs/ARCHITECTURE.md "Compute rasterization", "The cascades"); Vulkan's
# feature lines are indented 6, GL's report 4
function(oak_cli_shadow_craster_test gpu name indent)
  oak_cli_test(cliInfoSays${name}ShadowComputeRaster ARGS "info" EXIT 0
               OUT "  ${gpu}: available\n.*\n${indent}shadow compute raster: stream bands whose triangles are at most 4 of a cascade's texels across \\(OAK_CRASTER=on, OAK_CRASTER_PIXELS\\): opaque and MASK \\(cut-out\\) bands, rigid")
  set_tests_properties(cliInfoSays${name}ShadowComputeRaster PROPERTIES LABELS "cli;${gpu}")
endfunction()
if(OAK_HAVE_VULKAN)
  oak_cli_shadow_craster_test(vulkan Vulkan "      ")
endif()
if(OAK_HAVE_GL)
  oak_cli_shadow_craster_test(gl Gl "    ")
endif()
oak_cli_test(cliRenderRejectsBadOcclusion ARGS "render|--occlusion|maybe" EXIT 2
             ERR "--occlusion 'maybe': expected on or off" ERR_LINES 1)
oak_cli_test(cliBenchReportsTheLampGrid
             ARGS "bench|--world|lamps|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--json"
             EXIT 0 OUT "\"lamp_grid\": {\"lamps\": [0-9]+, \"listed\": [0-9]+, \"max_cell\": [0-9]+, \"overflow\": 0}")
# the first frame draws every cascade's static layer; the default world has no movers
oak_cli_test(cliBenchReportsTheShadowCache
             ARGS "bench|--world|default|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--json"
             EXIT 0 OUT "\"shadow_cache\": {\"static_layers\": ([4-9]|[1-9][0-9]+), \"layer_copies\": 0, \"mover_draws\": 0}")
# the campfire saved at 1.5 s (test_particles_file): its emitters and painted
# textures load from the file and step on from its clock
oak_cli_test(cliRenderCampfireFile
             ARGS "render|--scene|tests/data/scene/campfire.json|--backend|cpu|--size|64x36|--frames|2|--out|${CMAKE_BINARY_DIR}/test-out/cli_campfire_file.png"
             EXIT 0 OUT "cpu \\| .*cli_campfire_file\\.png")
# the campfire: particles, a baked flipbook and a flickering lamp draw on the cpu
oak_cli_test(cliRenderCampfire
             ARGS "render|--world|campfire|--backend|cpu|--size|160x90|--frames|3|--out|${CMAKE_BINARY_DIR}/test-out/cli_campfire.png"
             EXIT 0)
# the fountain world on the cpu (the job pool evaluates its records)
oak_cli_test(cliRenderFountain
             ARGS "render|--world|fountain|--count|2000|--backend|cpu|--size|64x36|--frames|2|--out|${CMAKE_BINARY_DIR}/test-out/cli_fountain.png"
             EXIT 0 OUT "cpu \\| .*cli_fountain\\.png")
# the meadow's terrain streams tiles along the flight; bench runs it
oak_cli_test(cliBenchMeadowFlight
             ARGS "bench|--world|meadow|--backend|cpu|--size|64x36|--frames|3|--warmup|0"
             EXIT 0 OUT "meadow \\| cpu .*frame +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
# and reports its rocks (docs/WORLD.md "Rocks"), in the JSON too
oak_cli_test(cliBenchMeadowRocksInJson
             ARGS "bench|--world|meadow|--backend|null|--size|64x36|--frames|1|--warmup|0|--json"
             EXIT 0 OUT "\"threads\": [0-9]+, \"rocks\": [1-9][0-9]+, ")

# issue 14's counts from the bench: each stream's instances and those in
# view per LOD band add up to oak_renderer_stream_stats's, the grass's
# blades follow from them, null and cpu (the same kernel) agree, and
# --plants twice as dense grows about twice the clumps
# (tests/cli_bench_streams.cmake); the GPUs' per-stream instcull read-back
# adds up to their summed one and equals the CPU kernel's (null), stream by
# stream (without the forest: lavapipe's meadow frame takes a minute here)
function(oak_cli_bench_streams_test name backend)
  add_test(NAME ${name}
           COMMAND ${CMAKE_COMMAND} -DOAK=$<TARGET_FILE:oak_cli> -DBACKEND=${backend} ${ARGN}
                   -DPLANTS=0.05 -DREACH=200 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_bench_streams.cmake
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${OAK_CLI_ENV}" TIMEOUT 300 LABELS cli)
endfunction()
oak_cli_bench_streams_test(cliBenchMeadowStreamCounts null -DSAME=cpu -DPLANTS2=0.1)
if(OAK_HAVE_VULKAN)
  oak_cli_bench_streams_test(cliBenchMeadowStreamCountsVulkan vulkan -DSAME=null -DNO_FOREST=ON)
  set_tests_properties(cliBenchMeadowStreamCountsVulkan PROPERTIES LABELS "cli;vulkan")
endif()
if(OAK_HAVE_GL)
  oak_cli_bench_streams_test(cliBenchMeadowStreamCountsGl gl -DSAME=null -DNO_FOREST=ON)
  set_tests_properties(cliBenchMeadowStreamCountsGl PROPERTIES LABELS "cli;gl")
endif()
# --lod-scale pins oak_camera.lod_scale: the meadow's stream counts follow
# it (tests/cli_bench_lod_scale.cmake); render takes it too, and both refuse
# a pin outside the API's clamp
add_test(NAME cliBenchLodScale
         COMMAND ${CMAKE_COMMAND} -DOAK=$<TARGET_FILE:oak_cli>
                 -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_bench_lod_scale.cmake
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(cliBenchLodScale PROPERTIES ENVIRONMENT "${OAK_CLI_ENV}" TIMEOUT 300 LABELS cli)
oak_cli_test(cliRenderLodScale
             ARGS "render|--world|meadow|--backend|cpu|--size|64x36|--lod-scale|2|--out|${CMAKE_BINARY_DIR}/test-out/cli_lod_scale.png"
             EXIT 0 OUT "cpu \\| .*cli_lod_scale\\.png")
oak_cli_test(cliBenchRejectsSmallLodScale ARGS "bench|--lod-scale|0.1" EXIT 2
             ERR "oak bench: --lod-scale '0\\.1': expected a finite number 0\\.125\\.\\.8" ERR_LINES 1)
oak_cli_test(cliRenderRejectsNanLodScale ARGS "render|--lod-scale|nan" EXIT 2
             ERR "oak render: --lod-scale 'nan': expected a finite number" ERR_LINES 1)
oak_cli_test(cliBenchRejectsZeroPlants ARGS "bench|--world|meadow|--plants|0" EXIT 2
             ERR "oak bench: --plants '0': expected a share of the plants, 0\\.\\.1 but not 0" ERR_LINES 1)
oak_cli_test(cliBenchRejectsTooManyPlants ARGS "bench|--world|meadow|--plants|1.5" EXIT 2
             ERR "--plants '1\\.5': expected a share of the plants" ERR_LINES 1)
oak_cli_test(cliBenchRejectsNanPlants ARGS "bench|--world|meadow|--plants|nan" EXIT 2
             ERR "--plants 'nan': expected a share of the plants" ERR_LINES 1)
oak_cli_test(cliBenchRejectsBadPlantReach ARGS "bench|--world|meadow|--plant-reach|0" EXIT 2
             ERR "--plant-reach '0': expected a finite number 1\\.\\.20000" ERR_LINES 1)
oak_cli_test(cliBenchRejectsFarPlantReach ARGS "bench|--world|meadow|--plant-reach|1e9" EXIT 2
             ERR "--plant-reach '1e9': expected a finite number 1\\.\\.20000" ERR_LINES 1)
oak_cli_test(cliBenchRejectsEmptyPlants ARGS "bench|--plants=" EXIT 2
             ERR "--plants '': expected a share of the plants" ERR_LINES 1)
# --rocks N: the meadow's rocks a hectare (0 the default, -1 none); the
# bench's JSON counts them (none at -1), bad values one line and exit 2
oak_cli_test(cliBenchMeadowRocksOption
             ARGS "bench|--world|meadow|--backend|null|--size|64x36|--frames|1|--warmup|0|--json|--forest|0|--rocks|160"
             EXIT 0 OUT "\"threads\": [0-9]+, \"rocks\": [1-9][0-9]+, ")
oak_cli_test(cliBenchMeadowNoRocks
             ARGS "bench|--world|meadow|--backend|null|--size|64x36|--frames|1|--warmup|0|--json|--forest|0|--rocks|-1"
             EXIT 0 NOT_OUT "\"rocks\": ")
oak_cli_test(cliHelpRenderListsRocks ARGS "help|render" EXIT 0 OUT "--plant-reach M.*--rocks N")
oak_cli_test(cliBenchRejectsTooManyRocks ARGS "bench|--world|meadow|--rocks|1001" EXIT 2
             ERR "oak bench: --rocks '1001': expected rocks a hectare, 0\\.\\.1000, or -1 for none" ERR_LINES 1)
oak_cli_test(cliBenchRejectsNegativeRocks ARGS "bench|--world|meadow|--rocks|-2" EXIT 2
             ERR "--rocks '-2': expected rocks a hectare" ERR_LINES 1)
oak_cli_test(cliBenchRejectsNanRocks ARGS "bench|--world|meadow|--rocks|nan" EXIT 2
             ERR "--rocks 'nan': expected rocks a hectare" ERR_LINES 1)
oak_cli_test(cliRenderRejectsWordRocks ARGS "render|--world|meadow|--rocks|many" EXIT 2
             ERR "oak render: --rocks 'many': expected rocks a hectare" ERR_LINES 1)
oak_cli_test(cliRenderRejectsEmptyRocks ARGS "render|--rocks=" EXIT 2
             ERR "--rocks '': expected rocks a hectare" ERR_LINES 1)
# the crowd world: a posed stream of foxes the simulation walks; --count sets it
oak_cli_test(cliBenchCrowd
             ARGS "bench|--world|crowd|--count|50|--backend|cpu|--size|64x36|--frames|3|--warmup|0"
             EXIT 0 OUT "crowd \\| cpu .*frame +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
oak_cli_test(cliRenderRejectsBadCount ARGS "render|--world|crowd|--count|0|--size|64x36" EXIT 2
             ERR "--count" ERR_LINES 1)
oak_cli_test(cliRenderRejectsFractionalCount
             ARGS "render|--world|crowd|--count|2.5|--size|64x36" EXIT 2
             ERR "--count '2.5': expected a whole number" ERR_LINES 1)
# --terrain on: the crowd on the meadow's terrain (off by default: its cost on the cpu)
oak_cli_test(cliBenchCrowdOnTerrain
             ARGS "bench|--world|crowd|--count|50|--terrain|on|--backend|cpu|--size|64x36|--frames|3|--warmup|0"
             EXIT 0 OUT "crowd \\| cpu .*frame +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
oak_cli_test(cliRenderRejectsBadTerrain
             ARGS "render|--world|crowd|--terrain|hilly|--size|64x36" EXIT 2
             ERR "--terrain 'hilly': expected on or off" ERR_LINES 1)
# --foot-ik off: the crowd's near figures posed by the bank alone (on by default)
oak_cli_test(cliBenchCrowdFootIkOff
             ARGS "bench|--world|crowd|--count|50|--foot-ik|off|--backend|cpu|--size|64x36|--frames|3|--warmup|0"
             EXIT 0 OUT "crowd \\| cpu .*frame +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
oak_cli_test(cliRenderRejectsBadFootIk
             ARGS "render|--world|crowd|--foot-ik|maybe|--size|64x36" EXIT 2
             ERR "--foot-ik 'maybe': expected on or off" ERR_LINES 1)
oak_cli_test(cliBenchJsonIsOneObjectWithFrameStage
             ARGS "bench|--backend|null|--size|64x36|--frames|4|--warmup|1|--json" EXIT 0
             OUT "^{\"world\": \"default\", \"backend\": \"null\", \"device\": \"[^\"]*\", \"preset\": \"default\", \"size\": \\[64, 36\\], \"render_scale\": 1, \"render_size\": \\[64, 36\\], \"frames\": 4, \"warmup\": 1, \"threads\": [0-9]+, \"cloud_march\": {\"steps\": 48, \"scale\": 2}, \"occlusion\": {\"on\": false, [^}]*}, \"stages\": {\"frame\": {\"median_ms\": [0-9.]+, \"p95_ms\": [0-9.]+, \"p99_ms\": [0-9.]+, \"max_ms\": [0-9.]+, \"clock\": \"cpu\"}.*}}\n$")
oak_cli_test(cliRenderDefaultOutIsOutSlashWorldPng ARGS "render|--backend|null|--size|16x9" EXIT 0
             OUT " \\| out/default\\.png\n$")
oak_cli_test(cliRenderSceneFileOnNullBackend
             ARGS "render|--scene|tests/data/cli/ball.json|--backend|null|--size|32x18|--out|${CMAKE_BINARY_DIR}/test-out/cli_ball.png"
             EXIT 0 OUT "^null \\| [^|]+ \\| 32x18 \\| ")
# a scene file's reflection probe is baked on the first frame (its stage shows)
oak_cli_test(cliBenchBakesASceneFilesProbe
             ARGS "bench|--scene|tests/data/cli/probe_room.json|--backend|cpu|--size|64x36|--frames|2|--warmup|0|--json"
             EXIT 0 OUT "\"probebake\": {\"median_ms\": [0-9.]+")
oak_cli_test(cliBenchJsonNamesSceneFile
             ARGS "bench|--scene|tests/data/cli/ball.json|--backend|null|--size|32x18|--frames|2|--json"
             EXIT 0 OUT "^{\"world\": null, \"scene\": \"tests/data/cli/ball\\.json\", \"backend\": \"null\"")
oak_cli_test(cliBenchTableListsFrameStage
             ARGS "bench|--backend|null|--size|32x18|--frames|3|--warmup|0" EXIT 0
             OUT "oak bench: default \\| null \\| [^|]+ \\| 32x18 \\(render scale 1: 32x18\\) \\| preset default \\| 3 frames after 0 warm-up.*\n  frame +[0-9.]+ +[0-9.]+ +[0-9.]+")

# ---- the CPU backend -------------------------------------------------------
oak_cli_test(cliRenderDefaultWorldOnCpu
             ARGS "render|--backend|cpu|--size|96x54|--out|${CMAKE_BINARY_DIR}/test-out/cli_default_cpu.png"
             EXIT 0 OUT "^cpu \\| oak CPU rasterizer[^|]* \\| 96x54 \\| [0-9.]+ ms/frame \\(median of 1\\) \\| [^\n]*cli_default_cpu\\.png\n$")
oak_cli_test(cliBenchCompareCpuWithItselfAgreesExactly
             ARGS "bench|--compare|cpu,cpu|--size|64x36|--frames|2|--warmup|0|--json" EXIT 0
             OUT "\"runs\": \\[{\"backend\": \"cpu\".*\"parity\": \\[{\"a\": \"cpu\", \"b\": \"cpu\", \"max_diff\": 0, \"over_2_fraction\": 0\\.000000}\\]}\n$")
oak_cli_test(cliBenchCpuJsonHasBackendStages
             ARGS "bench|--backend|cpu|--size|64x36|--frames|3|--warmup|1|--json" EXIT 0
             OUT "\"backend\": \"cpu\".*\"stages\": {\"frame\": {[^}]+}, \"frontend\": {[^}]+}, \"[a-z]+\": {")

# With a GPU backend compiled in, this machine (CI: lavapipe/llvmpipe only,
# which auto does not take) makes auto fall back to cpu and say why, once.
if(OAK_HAVE_VULKAN OR OAK_HAVE_GL)
  oak_cli_test(cliRenderAutoFallsBackToCpuSaysWhy
               ARGS "render|--backend|auto|--size|32x18|--out|${CMAKE_BINARY_DIR}/test-out/cli_auto.png"
               EXIT 0 OUT "^cpu \\| " ERR "^oak render: auto chose cpu: [^\n]+\n$" ERR_LINES 1)
endif()

# Cross-backend parity through the command line: the default world drawn by
# cpu and a GPU backend agrees within 2/255 on all but under 1% of channels
# (measured at 96x54 on lavapipe/llvmpipe: vulkan 0%, max 1/255; gl 0.56%).
function(oak_cli_parity_test gpu name)
  oak_cli_test(cliBenchCompareCpu${name}AgreesOnDefaultWorld
               ARGS "bench|--compare|cpu,${gpu}|--size|96x54|--frames|2|--warmup|1|--json" EXIT 0
               OUT "\"parity\": \\[{\"a\": \"cpu\", \"b\": \"${gpu}\", \"max_diff\": [0-9]+, \"over_2_fraction\": 0\\.00[0-9]+}\\]}\n$")
  set_tests_properties(cliBenchCompareCpu${name}AgreesOnDefaultWorld PROPERTIES LABELS "cli;${gpu}")
endfunction()
if(OAK_HAVE_VULKAN)
  oak_cli_parity_test(vulkan Vulkan)
endif()
if(OAK_HAVE_GL)
  oak_cli_parity_test(gl Gl)
endif()

# The example program runs and writes its picture.
if(TARGET example_core_minimal)
  add_test(NAME exampleCoreMinimalWritesPng COMMAND example_core_minimal
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/test-out)
  set_tests_properties(exampleCoreMinimalWritesPng PROPERTIES ENVIRONMENT "${OAK_CLI_ENV}"
                       PASS_REGULAR_EXPRESSION "wrote core_minimal\\.png \\((cpu|vulkan|gl)\\)"
                       TIMEOUT 120 LABELS cli)
endif()

# ---- glTF: oak view and oak bake ------------------------------------------
set(OAK_GLTF_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/gltf)
oak_cli_test(cliViewCheckPrintsOneLineSummary ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--check"
             EXIT 0 OUT "triangle\\.gltf: 1 nodes, 1 meshes, 1 primitives, 1 materials, 0 textures, 0 skins, 0 clips, 0 warnings\n$")
# Forgiving rules (docs/GLTF.md): four warnings, each one line, and the file loads.
oak_cli_test(cliViewCheckPrintsEveryWarning ARGS "view|${OAK_GLTF_DATA}/forgiving.gltf|--check"
             EXIT 0 OUT "forgiving\\.gltf: 2 nodes, .* 4 warnings\n$"
             ERR "nodes\\[1\\] = 1 has a parent; drawn once, under node 0" ERR_LINES 4)
oak_cli_test(cliViewCheckNamesTheBrokenPlace ARGS "view|${OAK_GLTF_DATA}/missing_bin.gltf|--check"
             EXIT 1 ERR "oak view: .*missing_bin\\.gltf: buffers\\[0\\]\\.uri: cannot read" ERR_LINES 1)
oak_cli_test(cliViewRejectsUnknownOption ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--bogus|1"
             EXIT 2 ERR "oak view: unknown option --bogus")
oak_cli_test(cliViewRejectsUnknownClip ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--anim|walk|--backend|null|--size|32x18|--out|${CMAKE_BINARY_DIR}/test-out/cli_view_clip.png"
             EXIT 1 ERR "no animation named or numbered \"walk\" \\(0 clips\\)" ERR_LINES 1)
oak_cli_test(cliViewRejectsUnknownVariant ARGS "view|${OAK_GLTF_DATA}/variants.gltf|--variant|green|--backend|null|--size|32x18|--out|${CMAKE_BINARY_DIR}/test-out/cli_view_variant.png"
             EXIT 1 ERR "no material variant named or numbered \"green\" \\(3 variants\\)" ERR_LINES 1)
oak_cli_test(cliViewDrawsAVariant ARGS "view|${OAK_GLTF_DATA}/variants.gltf|--variant|blue|--backend|cpu|--size|64x48|--out|${CMAKE_BINARY_DIR}/test-out/cli_view_blue.png"
             EXIT 0 OUT "64x48 on cpu.*cli_view_blue\\.png\n$")
oak_cli_test(cliViewDrawsToPng ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--backend|cpu|--size|64x48|--out|${CMAKE_BINARY_DIR}/test-out/cli_view.png"
             EXIT 0 OUT "64x48 on cpu.*cli_view\\.png\n$")
oak_cli_test(cliViewDrawsUnderASkyImage ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--sky|tests/data/images/rle40x6.hdr|--backend|cpu|--size|64x48|--out|${CMAKE_BINARY_DIR}/test-out/cli_view_sky.png"
             EXIT 0 OUT "64x48 on cpu.*cli_view_sky\\.png\n$")
oak_cli_test(cliViewRejectsMissingSkyImage ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|--sky|no_such_sky.hdr|--backend|cpu|--size|64x48|--out|${CMAKE_BINARY_DIR}/test-out/cli_view_nosky.png"
             EXIT 1 ERR "oak view: .*no_such_sky\\.hdr")
# view at an hour and in weather draws (exit 0, the one line); the
# picture at 23:00 (the moon's light, the night sky) and in snow at noon
# is not the noon one: png_compare, which passes on pictures within
# 8/255, must fail on each pair (WILL_FAIL)
set(OAK_VIEW_OUT ${CMAKE_BINARY_DIR}/test-out/view_time)
file(MAKE_DIRECTORY ${OAK_VIEW_OUT})
function(oak_view_shot name opts file)
  oak_cli_test(cliViewAt${name}
               ARGS "view|${OAK_GLTF_DATA}/triangle.gltf|${opts}|--backend|cpu|--size|64x48|--out|${OAK_VIEW_OUT}/${file}.png"
               EXIT 0 OUT "64x48 on cpu.*${file}\\.png\n$")
  set_tests_properties(cliViewAt${name} PROPERTIES FIXTURES_SETUP view${name})
endfunction()
oak_view_shot(Noon "--hour|12" noon)
oak_view_shot(Night "--hour|23" night)
oak_view_shot(Snow "--hour|12|--weather|snow:1" snow)
add_test(NAME cliViewHourChangesThePicture COMMAND png_compare ${OAK_VIEW_OUT}/noon.png ${OAK_VIEW_OUT}/night.png 8)
add_test(NAME cliViewWeatherChangesThePicture COMMAND png_compare ${OAK_VIEW_OUT}/noon.png ${OAK_VIEW_OUT}/snow.png 8)
set_tests_properties(cliViewHourChangesThePicture PROPERTIES WILL_FAIL TRUE
                     FIXTURES_REQUIRED "viewNoon;viewNight" LABELS cli)
set_tests_properties(cliViewWeatherChangesThePicture PROPERTIES WILL_FAIL TRUE
                     FIXTURES_REQUIRED "viewNoon;viewSnow" LABELS cli)
oak_cli_test(cliBakeWritesAndTimesTheCache ARGS "bake|${OAK_GLTF_DATA}/triangle.gltf|${CMAKE_BINARY_DIR}/test-out/cli_triangle.oakm"
             EXIT 0 OUT "baked to .*cli_triangle\\.oakm\nload ms: source [0-9.]+ first")
oak_cli_test(cliBakeRejectsMissingOutput ARGS "bake|${OAK_GLTF_DATA}/triangle.gltf" EXIT 2
             ERR "usage: oak bake")

# ---- --window: the GLFW presenter -------------------------------------------
# Without a display --window says so in one line and exits 1, never crashes.
set(OAK_NO_DISPLAY "${CMAKE_COMMAND}|-E|env|--unset=DISPLAY|--unset=WAYLAND_DISPLAY")
oak_cli_test(cliRenderWindowWithoutDisplayFailsInOneLine LAUNCH "${OAK_NO_DISPLAY}"
             ARGS "render|--backend|cpu|--size|32x18|--window|--frames|2" EXIT 1
             ERR "^oak render: --window: no display: \\$DISPLAY and \\$WAYLAND_DISPLAY are unset\n$"
             ERR_LINES 1)
oak_cli_test(cliViewWindowWithoutDisplayFailsInOneLine LAUNCH "${OAK_NO_DISPLAY}"
             ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/gltf/triangle.gltf|--backend|cpu|--window"
             EXIT 1 ERR "^oak view: --window: no display: " ERR_LINES 1)
oak_cli_test(cliInfoSaysWhyNoWindow LAUNCH "${OAK_NO_DISPLAY}" ARGS "info" EXIT 0
             OUT "\nwindow: unavailable \\(no display: \\$DISPLAY and \\$WAYLAND_DISPLAY are unset\\)\n$")
oak_cli_test(cliRenderFlyScriptNeedsWindow ARGS "render|--fly-script|w:3" EXIT 2
             ERR "--fly-script needs --window" ERR_LINES 1)
oak_cli_test(cliRenderFlyScriptRefusesUnknownKeys ARGS "render|--window|--fly-script|wx:3" EXIT 2
             ERR "--fly-script 'wx:3': 'x' is not one of the keys wasdqeF<>\\^vhH\\+-PK" ERR_LINES 1)
oak_cli_test(cliRenderWindowCaptureNeedsWindow ARGS "render|--window-capture|x.png" EXIT 2
             ERR "--window-capture 'x\\.png' needs --window" ERR_LINES 1)
oak_cli_test(cliRenderWindowResizeRejectsMalformedSize
             ARGS "render|--window|--window-resize|200by150" EXIT 2
             ERR "--window-resize '200by150': expected WxH" ERR_LINES 1)
# --window is listed last; --window-capture (a test's tool) would follow it.
oak_cli_test(cliHelpRenderListsWindowNotCapture ARGS "help|render" EXIT 0
             OUT "\n  --window +show the frames in a window[^\n]*\n"
             NOT_OUT "--window-capture|--window-resize|--fly-script")

if(OAK_HAVE_GLFW)
  # A display named but not there: glfwInit fails, which is said in one line.
  oak_cli_test(cliRenderWindowUnreachableDisplayFailsInOneLine
               LAUNCH "${CMAKE_COMMAND}|-E|env|--unset=WAYLAND_DISPLAY|DISPLAY=:4242"
               ARGS "render|--backend|null|--size|32x18|--window|--frames|1" EXIT 1
               ERR "^oak render: --window: no display: [^\n]*:4242[^\n]*\n$" ERR_LINES 1)
  find_program(OAK_XVFB_RUN xvfb-run)
endif()

# Under Xvfb (CI: scripts/deps.sh installs xvfb and xauth) each backend's
# frames show in a window; the window's back buffer after the last frame,
# read with glReadPixels, equals the PNG the renderer drew, within 1/255.
if(OAK_HAVE_GLFW AND OAK_XVFB_RUN)
  set(OAK_XVFB "${OAK_XVFB_RUN}|-a|-s|-screen 0 640x480x24")
  set(W ${CMAKE_BINARY_DIR}/test-out/window)
  file(MAKE_DIRECTORY ${W})
  oak_cli_test(cliInfoFindsWindowUnderXvfb LAUNCH "${OAK_XVFB}" ARGS "info" EXIT 0
               OUT "\nwindow: available \\(GLFW 3\\.[0-9]+, display :[0-9]+\\)\npresentation: vulkan (swapchain|read-back blit) [^\n]*, gl default framebuffer [^\n]*, cpu and null read-back blit [^\n]*\n$")
  function(oak_window_test backend name)
    oak_cli_test(cliRenderWindowShows${name}Frames LAUNCH "${OAK_XVFB}"
                 ARGS "render|--world|default|--backend|${backend}|--size|320x180|--window|--overlay|off|--frames|3|--out|${W}/${backend}.png|--window-capture|${W}/${backend}_window.png"
                 EXIT 0 OUT "^${backend} \\| [^|]+ \\| 320x180 \\| [0-9.]+ ms/frame \\(mean of 3 in a window\\) \\| jitter [0-9.]+ ms, worst [0-9.]+ ms \\| [^\n]*${backend}\\.png\n$")
    add_test(NAME cliRenderWindowEquals${name}Png
             COMMAND png_compare ${W}/${backend}.png ${W}/${backend}_window.png 1)
    set_tests_properties(cliRenderWindowShows${name}Frames PROPERTIES
                         FIXTURES_SETUP window${name} LABELS "cli;window")
    set_tests_properties(cliRenderWindowEquals${name}Png PROPERTIES
                         FIXTURES_REQUIRED window${name} LABELS "cli;window"
                         ENVIRONMENT "${OAK_CLI_ENV}")
  endfunction()
  oak_window_test(cpu Cpu)
  oak_window_test(null Null)
  if(OAK_HAVE_GL)
    oak_window_test(gl Gl)
  endif()
  if(OAK_HAVE_VULKAN)
    oak_window_test(vulkan Vulkan)
  endif()
  # Resizing the window (to 200x150 after the first of 3 frames, as a user
  # dragging its edge would) resizes the renderer: the last frame and the
  # PNG are 200x150 and the window still shows exactly what was drawn.
  function(oak_window_resize_test backend name)
    oak_cli_test(cliRenderWindowResizeResizes${name}Renderer LAUNCH "${OAK_XVFB}"
                 ARGS "render|--backend|${backend}|--size|320x180|--window|--overlay|off|--frames|3|--window-resize|200x150|--out|${W}/resize_${backend}.png|--window-capture|${W}/resize_${backend}_window.png"
                 EXIT 0 OUT "^${backend} \\| [^|]+ \\| 200x150 \\| ")
    add_test(NAME cliRenderWindowResizeEquals${name}Png
             COMMAND png_compare ${W}/resize_${backend}.png ${W}/resize_${backend}_window.png 1)
    set_tests_properties(cliRenderWindowResizeResizes${name}Renderer PROPERTIES
                         FIXTURES_SETUP windowResize${name} LABELS "cli;window")
    set_tests_properties(cliRenderWindowResizeEquals${name}Png PROPERTIES
                         FIXTURES_REQUIRED windowResize${name} LABELS "cli;window"
                         ENVIRONMENT "${OAK_CLI_ENV}")
  endfunction()
  # The fly camera by a script of held keys: W for 30 frames at 5 m/s is
  # 2.50 m; Shift and W for 12 frames at 20 m/s is 4.00 m (nothing in the
  # way of the default world's first view).
  oak_cli_test(cliRenderWindowFliesByScript LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|30|--fly-script|w:30|--out|${W}/fly.png"
               EXIT 0 OUT "\\(mean of 30 in a window\\) \\| jitter [0-9.]+ ms, worst [0-9.]+ ms \\| flew 2\\.50 m \\| ")
  oak_cli_test(cliRenderWindowFliesFastWithShift LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|14|--fly-script|wF:12,<:2|--out|${W}/fly_fast.png"
               EXIT 0 OUT " \\| flew 4\\.00 m \\| ")
  # The overlay (on unless --overlay off) is in the window, not in --out:
  # the capture differs from the PNG, which equals the one drawn without it.
  oak_cli_test(cliRenderWindowShowsOverlay LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|cpu|--size|320x180|--window|--frames|3|--out|${W}/overlay.png|--window-capture|${W}/overlay_window.png"
               EXIT 0 OUT "\\(mean of 3 in a window\\)")
  add_test(NAME cliRenderWindowOverlayIsInTheWindow
           COMMAND png_compare ${W}/overlay.png ${W}/overlay_window.png 1)
  add_test(NAME cliRenderWindowOverlayIsNotInThePng
           COMMAND png_compare ${W}/overlay.png ${W}/cpu.png 1)
  set_tests_properties(cliRenderWindowShowsOverlay PROPERTIES FIXTURES_SETUP windowOverlay
                       LABELS "cli;window")
  set_tests_properties(cliRenderWindowOverlayIsInTheWindow PROPERTIES
                       FIXTURES_REQUIRED windowOverlay WILL_FAIL TRUE
                       LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
  set_tests_properties(cliRenderWindowOverlayIsNotInThePng PROPERTIES
                       FIXTURES_REQUIRED "windowOverlay;windowCpu"
                       LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
  oak_cli_test(cliRenderRejectsBadOverlay ARGS "render|--window|--overlay|maybe" EXIT 2
               ERR "--overlay 'maybe': expected on or off" ERR_LINES 1)
  # The clock: ] (H in a script) held 30 frames turns it on 2 h/s x 0.5 s
  # from noon (the default world has no hour of its own); [ (h) from 00:30
  # wraps round midnight.
  oak_cli_test(cliRenderWindowTurnsTheClock LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|30|--fly-script|H:30|--out|${W}/clock.png"
               EXIT 0 OUT " \\| hour 13\\.00 \\| ")
  oak_cli_test(cliRenderWindowClockWrapsAtMidnight LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--hour|0.5|--frames|30|--fly-script|h:30|--out|${W}/clock_wrap.png"
               EXIT 0 OUT " \\| hour 23\\.50 \\| ")
  # F2 (K in a script) steps the weather the scene heads for, once a frame
  # held: four from the default world's clear are storm; eight wrap round
  # the seven kinds to cloudy.
  oak_cli_test(cliRenderWindowStepsTheWeather LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|6|--fly-script|K:4|--out|${W}/weather.png"
               EXIT 0 OUT " \\| weather storm \\| ")
  oak_cli_test(cliRenderWindowWeatherWraps LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|10|--fly-script|K:8|--out|${W}/weather_wrap.png"
               EXIT 0 OUT " \\| weather cloudy \\| ")
  # The wheel: four notches down (1.25^-4 = 0.4096 of 5 m/s), then W for
  # 30 frames: 1.02 m. F12 (P) writes the frame beside --out, without the
  # overlay: the null backend's frames are all alike, so it equals --out.
  oak_cli_test(cliRenderWindowWheelScalesTheSpeed LAUNCH "${OAK_XVFB}"
               ARGS "render|--world|default|--backend|null|--size|64x36|--window|--frames|34|--fly-script|-:4,wP:1,w:29|--out|${W}/wheel.png"
               EXIT 0 OUT " \\| flew 1\\.02 m \\| 1 screenshot \\| ")
  add_test(NAME cliRenderWindowScreenshotIsTheFrame
           COMMAND png_compare ${W}/oak-shot-1.png ${W}/wheel.png 0)
  set_tests_properties(cliRenderWindowWheelScalesTheSpeed PROPERTIES FIXTURES_SETUP windowShot
                       LABELS "cli;window")
  set_tests_properties(cliRenderWindowScreenshotIsTheFrame PROPERTIES
                       FIXTURES_REQUIRED windowShot LABELS "cli;window"
                       ENVIRONMENT "${OAK_CLI_ENV}")
  # oak view turns the clock too where --hour gave it one: 10:00 on by 1 h.
  oak_cli_test(cliViewWindowTurnsTheClock LAUNCH "${OAK_XVFB}"
               ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/gltf/triangle.gltf|--backend|null|--size|64x36|--hour|10|--window|--frames|30|--fly-script|H:30|--out|${W}/view_clock.png"
               EXIT 0 OUT "30 frames in a window, hour 11\\.00 -> ")
  oak_window_resize_test(cpu Cpu)
  if(OAK_HAVE_GL)
    oak_window_resize_test(gl Gl)
  endif()
  # Native presentation (docs/ARCHITECTURE.md "Windows"): Vulkan through a
  # swapchain on the window's surface (FIFO; --no-vsync: mailbox, else
  # immediate), gl into the default framebuffer of the window's own
  # context; the validation layer (on) and GL's debug output say nothing
  # (stderr empty). --window-capture reads back the presented image itself
  # (the swapchain image, the back buffer), so it equals --out; after the
  # resize (--window-resize 120x80 after the first frame) that is the
  # recreated swapchain's 120x80 image.
  set(OAK_XVFB_VALIDATED "${CMAKE_COMMAND}|-E|env|OAK_VK_VALIDATION=1|${OAK_XVFB_RUN}|-a|-s|-screen 0 640x480x24")
  function(oak_native_test name backend present size tol args)
    oak_cli_test(cliRenderWindow${name} LAUNCH "${OAK_XVFB_VALIDATED}"
                 ARGS "render|--backend|${backend}|--size|160x90|--window|--frames|3|${args}|--out|${W}/${name}.png|--window-capture|${W}/${name}_window.png"
                 EXIT 0 ERR_LINES 0
                 OUT "^${backend} \\| [^|]+ \\| ${size} \\| [^\n]* \\| jitter [0-9.]+ ms, worst [0-9.]+ ms \\| [^\n]*present: ${present} \\| ")
    add_test(NAME cliRenderWindow${name}Equals COMMAND png_compare ${W}/${name}.png ${W}/${name}_window.png ${tol})
    set_tests_properties(cliRenderWindow${name} PROPERTIES FIXTURES_SETUP window${name}
                         LABELS "cli;window")
    set_tests_properties(cliRenderWindow${name}Equals PROPERTIES FIXTURES_REQUIRED window${name}
                         LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
  endfunction()
  if(OAK_HAVE_VULKAN)
    oak_native_test(VulkanSwapchainFifo vulkan "swapchain fifo" 160x90 0 "--overlay|off")
    oak_native_test(VulkanNoVsyncMailbox vulkan "swapchain (mailbox|immediate)" 160x90 0 "--overlay|off|--no-vsync")
    oak_native_test(VulkanResizeRecreatesSwapchain vulkan "swapchain fifo" 120x80 0 "--overlay|off|--window-resize|120x80")
    # --scale 0.5: the 80x45 picture stretched by the present's linear blit
    # is within 1/255 of read_pixels' stretch on the CPU (measured: 1/255)
    oak_native_test(VulkanScaledPictureStretched vulkan "swapchain fifo" 160x90 1 "--overlay|off|--scale|0.5")
  endif()
  if(OAK_HAVE_GL)
    oak_native_test(GlDefaultFramebuffer gl "default framebuffer" 160x90 0 "--overlay|off")
    oak_native_test(GlNoVsync gl "default framebuffer, no vsync" 160x90 0 "--overlay|off|--no-vsync")
    oak_native_test(GlResizeDefaultFramebuffer gl "default framebuffer" 120x80 0 "--overlay|off|--window-resize|120x80")
    oak_native_test(GlScaledPictureStretched gl "default framebuffer" 160x90 1 "--overlay|off|--scale|0.5")
  endif()
  # The overlay on a native present: the panel is copied over the presented
  # picture (the capture differs from --out); F12 (P) still writes the frame
  # without it, which is the last frame's --out (one frame).
  foreach(backend vulkan gl)
    if((backend STREQUAL "vulkan" AND OAK_HAVE_VULKAN) OR (backend STREQUAL "gl" AND OAK_HAVE_GL))
      file(MAKE_DIRECTORY ${W}/native_${backend})
      oak_cli_test(cliRenderWindowNativeOverlay_${backend} LAUNCH "${OAK_XVFB_VALIDATED}"
                   ARGS "render|--backend|${backend}|--size|160x90|--window|--frames|1|--fly-script|P:1|--out|${W}/native_${backend}/frame.png|--window-capture|${W}/native_${backend}/window.png"
                   EXIT 0 ERR_LINES 0 OUT " \\| 1 screenshot \\| present: ")
      add_test(NAME cliRenderWindowNativeOverlayShows_${backend}
               COMMAND png_compare ${W}/native_${backend}/frame.png ${W}/native_${backend}/window.png 1)
      add_test(NAME cliRenderWindowNativeScreenshotIsTheFrame_${backend}
               COMMAND png_compare ${W}/native_${backend}/frame.png ${W}/native_${backend}/oak-shot-1.png 0)
      set_tests_properties(cliRenderWindowNativeOverlay_${backend} PROPERTIES
                           FIXTURES_SETUP nativeOverlay_${backend} LABELS "cli;window")
      set_tests_properties(cliRenderWindowNativeOverlayShows_${backend} PROPERTIES
                           FIXTURES_REQUIRED nativeOverlay_${backend} WILL_FAIL TRUE
                           LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
      set_tests_properties(cliRenderWindowNativeScreenshotIsTheFrame_${backend} PROPERTIES
                           FIXTURES_REQUIRED nativeOverlay_${backend}
                           LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
    endif()
  endforeach()
  oak_cli_test(cliViewWindowShowsFramedModel LAUNCH "${OAK_XVFB}"
               ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/gltf/triangle.gltf|--backend|cpu|--size|96x64|--window|--overlay|off|--frames|2|--out|${W}/view.png|--window-capture|${W}/view_window.png"
               EXIT 0 OUT "96x64 on cpu, framed from yaw 30 pitch 20, 2 frames in a window -> [^\n]*view\\.png\n$")
  # The orbit: the left arrow held 20 frames turns it 20 x 1.5/60 rad = 28.6
  # degrees round the model, and the picture changes with it.
  oak_cli_test(cliViewWindowOrbitsByScript LAUNCH "${OAK_XVFB}"
               ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/gltf/triangle.gltf|--backend|cpu|--size|96x64|--window|--frames|20|--fly-script|<:20|--out|${W}/view_orbit.png"
               EXIT 0 OUT "20 frames in a window, orbited 28\\.6 degrees -> ")
  add_test(NAME cliViewWindowOrbitChangesThePicture
           COMMAND png_compare ${W}/view.png ${W}/view_orbit.png 1)
  set_tests_properties(cliViewWindowOrbitsByScript PROPERTIES FIXTURES_SETUP windowOrbit
                       LABELS "cli;window")
  set_tests_properties(cliViewWindowOrbitChangesThePicture PROPERTIES
                       FIXTURES_REQUIRED "windowView;windowOrbit" WILL_FAIL TRUE
                       LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
  add_test(NAME cliViewWindowEqualsPng COMMAND png_compare ${W}/view.png ${W}/view_window.png 1)
  set_tests_properties(cliViewWindowShowsFramedModel PROPERTIES FIXTURES_SETUP windowView
                       LABELS "cli;window")
  set_tests_properties(cliViewWindowEqualsPng PROPERTIES FIXTURES_REQUIRED windowView
                       LABELS "cli;window" ENVIRONMENT "${OAK_CLI_ENV}")
endif()

# The sky from an .hdr image (--sky): drawn, and a bad one refused in one line.
oak_cli_test(cliRenderSkyImage
             ARGS "render|--backend|cpu|--size|64x36|--sky|tests/data/images/rle40x6.hdr|--out|${CMAKE_BINARY_DIR}/test-out/cli_sky.png"
             EXIT 0)
oak_cli_test(cliRenderRejectsBadSkyImage
             ARGS "render|--backend|cpu|--size|64x36|--sky|tests/data/bad/images/hdr_cut_scanline.hdr|--out|${CMAKE_BINARY_DIR}/test-out/cli_sky_bad.png"
             EXIT 1 ERR "--sky: .*hdr_cut_scanline\\.hdr")
