# Bad numbers on the command line (issue 9): each ends in one stderr line
# naming the option and the limit, exit 2 for a malformed line, 1 for an
# input that cannot be drawn. Uses oak_cli_test from cli.cmake.
set(BAD ${CMAKE_CURRENT_SOURCE_DIR}/data/bad/cli)
set(CUBE ${CMAKE_CURRENT_SOURCE_DIR}/data/models/cube/cube.gltf)
oak_cli_test(cliViewRejectsNanYaw ARGS "view|${CUBE}|--yaw|nan" EXIT 2
             ERR "--yaw 'nan': expected a finite number -3600\\.\\.3600" ERR_LINES 1)
oak_cli_test(cliViewRejectsInfinitePitch ARGS "view|${CUBE}|--pitch|1e39" EXIT 2
             ERR "--pitch '1e39': expected a finite number" ERR_LINES 1)
oak_cli_test(cliViewRejectsInfTime ARGS "view|${CUBE}|--time|inf" EXIT 2
             ERR "--time 'inf': expected a finite number" ERR_LINES 1)
oak_cli_test(cliViewRejectsWrappingSize ARGS "view|${CUBE}|--size|4294967297x1" EXIT 2
             ERR "--size '4294967297x1': each side must be 1\\.\\.16384" ERR_LINES 1)
oak_cli_test(cliRenderRejectsWrappingSize ARGS "render|--size|4294967297x1" EXIT 2
             ERR "--size '4294967297x1': each side must be 1\\.\\.16384" ERR_LINES 1)
oak_cli_test(cliRenderRejectsPixelBudget ARGS "render|--size|16384x16384" EXIT 2
             ERR "268435456 pixels exceed OAK_MAX_OUTPUT_PIXELS \\(33177600\\)" ERR_LINES 1)
oak_cli_test(cliViewRejectsPixelBudget ARGS "view|${CUBE}|--size|16384x16384" EXIT 2
             ERR "OAK_MAX_OUTPUT_PIXELS" ERR_LINES 1)
oak_cli_test(cliHelpRejectsUnknownCommand ARGS "help|nothing" EXIT 2
             ERR "oak help: unknown command 'nothing'" ERR_LINES 1)
# an OBJ opens through libassimp (docs/GLTF.md); text that is not one fails
oak_cli_test(cliViewOpensObjThroughAssimp ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/obj/quad_tri.obj|--check" EXIT 0
             OUT "quad_tri\\.obj: [0-9]+ nodes, [0-9]+ meshes")
oak_cli_test(cliViewSaysTextIsNotGltf ARGS "view|${CMAKE_CURRENT_SOURCE_DIR}/data/bad/README.md" EXIT 1
             ERR "README\\.md: not a glTF model" ERR_LINES 1)
oak_cli_test(cliViewInfiniteModelFailsCleanly ARGS "view|${BAD}/inf_scale.gltf|--backend|null|--size|32x18|--out|${CMAKE_BINARY_DIR}/test-out/inf.png" EXIT 1
             ERR "inf_scale\\.gltf: oak_frame_points: none of the 3 points is finite" ERR_LINES 1)
# A 5,000-character --out keeps the reason at the end of its one line.
string(REPEAT "a" 5000 long_name)
oak_cli_test(cliRenderLongOutKeepsReason
             ARGS "render|--backend|null|--size|32x18|--out|/${long_name}/x.png" EXIT 1
             ERR "/aaaa.*\\.\\.\\.a*/x\\.png: cannot create: File name too long" ERR_LINES 1)
