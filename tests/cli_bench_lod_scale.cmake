# `oak bench --lod-scale X` pins oak_camera.lod_scale, checked in the
# meadow's stream counts at 64 x 36: that frame's own scale clamps to 1/8
# (config.h OAK_LOD_SCALE_MIN), so --lod-scale 0.125 counts exactly what no
# pin counts; 1 puts the grass's bands back at their authored distances
# (grass submitted where the 1/8 scale drew none) and 8 pushes them out
# eight times (clumps at LOD 0, none at 1/8); the JSON echoes the pin.
#   cmake -DOAK=path -P cli_bench_lod_scale.cmake
function(bench pin out_json)
  set(args "")
  if(NOT pin STREQUAL "")
    set(args --lod-scale ${pin})
  endif()
  execute_process(COMMAND ${OAK} bench --world meadow --backend null --size 64x36 --frames 1
                          --warmup 0 --path 0 --plants 0.05 --plant-reach 200 ${args} --json
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0 OR err MATCHES "Sanitizer|runtime error")
    message(FATAL_ERROR "oak bench --lod-scale '${pin}': exit ${status}\n${err}")
  endif()
  set(${out_json} "${out}" PARENT_SCOPE)
endfunction()

# prefix_lods: the in-view counts per band; prefix_grass: blades submitted
function(read json pin prefix)
  set(lods "")
  foreach(k 0 1 2 3)
    string(JSON v GET "${json}" stream_totals per_lod ${k})
    list(APPEND lods ${v})
  endforeach()
  string(JSON grass GET "${json}" grass blades_submitted)
  string(JSON echoed ERROR_VARIABLE missing GET "${json}" lod_scale)
  # ERROR_VARIABLE holds NOTFOUND when the key is there
  if(pin STREQUAL "" AND missing STREQUAL "NOTFOUND")
    message(FATAL_ERROR "no --lod-scale, yet the JSON says lod_scale ${echoed}")
  elseif(NOT pin STREQUAL "" AND NOT echoed EQUAL pin)
    message(FATAL_ERROR "--lod-scale ${pin}: the JSON says '${echoed}' (${missing})")
  endif()
  message(STATUS "--lod-scale '${pin}': per LOD ${lods}, grass blades ${grass}")
  set(${prefix}_lods "${lods}" PARENT_SCOPE)
  set(${prefix}_grass ${grass} PARENT_SCOPE)
endfunction()

bench("" json)
read("${json}" "" auto)
bench(0.125 json)
read("${json}" 0.125 eighth)
bench(1 json)
read("${json}" 1 one)
bench(8 json)
read("${json}" 8 eight)
if(NOT auto_lods STREQUAL eighth_lods OR NOT auto_grass EQUAL eighth_grass)
  message(FATAL_ERROR "64x36 scales itself to 1/8, yet the pin of 0.125 counts differently: "
                      "${auto_lods} (${auto_grass} blades) against ${eighth_lods} (${eighth_grass})")
endif()
list(GET one_lods 3 one_far)
list(GET auto_lods 3 auto_far)
if(NOT auto_grass EQUAL 0 OR one_grass LESS 1000 OR NOT one_far GREATER auto_far)
  message(FATAL_ERROR "--lod-scale 1 should draw the grass the 1/8 scale sinks: blades "
                      "${auto_grass} -> ${one_grass}, LOD 3 ${auto_far} -> ${one_far}")
endif()
list(GET eight_lods 0 eight_near)
list(GET one_lods 0 one_near)
if(NOT one_near EQUAL 0 OR eight_near LESS 100 OR NOT eight_grass GREATER one_grass)
  message(FATAL_ERROR "--lod-scale 8 should bring LOD 0 out: LOD 0 ${one_near} -> ${eight_near}, "
                      "blades ${one_grass} -> ${eight_grass}")
endif()
