# Bad input files through the oak command (docs/INPUT.md): folders, FIFOs and
# devices where a file belongs, paths that leave the asset root, and images
# refused before decoding; each exits 1 with one line naming the file. The
# library-level cases are in test_input_files.c; the corpus is tests/data/bad.
set(OAK_BAD tests/data/bad)
set(OAK_BAD_OUT ${CMAKE_BINARY_DIR}/test-out)

# ---- only regular files -----------------------------------------------------
oak_cli_test(cliViewRejectsDirectory ARGS "view|${OAK_BAD}/paths" EXIT 1
             ERR "oak view: ${OAK_BAD}/paths: is a directory, not a file" ERR_LINES 1)
oak_cli_test(cliViewRejectsDevice ARGS "view|/dev/zero" EXIT 1
             ERR "/dev/zero: is a device, not a file" ERR_LINES 1)
oak_cli_test(cliViewRejectsBufferDirectory ARGS "view|${OAK_BAD}/paths/buffer_dir.gltf|--check"
             EXIT 1 ERR "buffer_dir\\.gltf: buffers\\[0\\]\\.uri: .*dir\\.bin: is a directory"
             ERR_LINES 1)
oak_cli_test(cliViewRejectsImageDirectory ARGS "view|${OAK_BAD}/paths/image_dir.gltf" EXIT 1
             ERR "image_dir\\.gltf: images\\[0\\]\\.uri: .*dir\\.png: is a directory" ERR_LINES 1)
oak_cli_test(cliRenderRejectsSceneMeshDirectory
             ARGS "render|--scene|${OAK_BAD}/paths/dir_mesh.json|--backend|null|--size|32x18"
             EXIT 1 ERR "dir_mesh\\.json: meshes\\[0\\]\\.source: could not load 'dir\\.obj' .*is a directory"
             ERR_LINES 1)
oak_cli_test(cliRenderRejectsSceneTextureDirectory
             ARGS "render|--scene|${OAK_BAD}/paths/dir_texture.json|--backend|null|--size|32x18"
             EXIT 1 ERR "dir_texture\\.json: materials\\[0\\]\\.base_color_tex\\.path: .*is a directory"
             ERR_LINES 1)

# A FIFO cannot be committed: a fixture makes one. Opening it must not block
# (the short timeout turns a hang into a failure).
add_test(NAME cliInputMakeFifo
         COMMAND sh -c "rm -f '${OAK_BAD_OUT}/cli.fifo' && mkfifo '${OAK_BAD_OUT}/cli.fifo'")
set_tests_properties(cliInputMakeFifo PROPERTIES FIXTURES_SETUP cli_fifo)
oak_cli_test(cliViewRejectsFifo ARGS "view|${OAK_BAD_OUT}/cli.fifo" EXIT 1
             ERR "cli\\.fifo: is a FIFO \\(named pipe\\), not a file" ERR_LINES 1)
oak_cli_test(cliRenderRejectsFifoScene
             ARGS "render|--scene|${OAK_BAD_OUT}/cli.fifo|--backend|null|--size|32x18" EXIT 1
             ERR "cli\\.fifo: is a FIFO" ERR_LINES 1)
# An output FIFO nobody reads must not block the write either.
oak_cli_test(cliRenderRejectsFifoOut
             ARGS "render|--backend|null|--size|32x18|--out|${OAK_BAD_OUT}/cli.fifo" EXIT 1
             ERR "cli\\.fifo: is a FIFO \\(named pipe\\), not a file" ERR_LINES 1)
oak_cli_test(cliRenderRejectsDirectoryOut
             ARGS "render|--backend|null|--size|32x18|--out|${OAK_BAD_OUT}" EXIT 1
             ERR "is a directory, not a file" ERR_LINES 1)
set_tests_properties(cliViewRejectsFifo cliRenderRejectsFifoScene cliRenderRejectsFifoOut PROPERTIES
                     FIXTURES_REQUIRED cli_fifo TIMEOUT 60)

# ---- the asset root -----------------------------------------------------------
oak_cli_test(cliRenderRejectsEscapingMesh
             ARGS "render|--scene|${OAK_BAD}/paths/escape_mesh.json|--backend|null|--size|32x18"
             EXIT 1 ERR "escape_mesh\\.json: meshes\\[0\\]\\.source: could not load '\\.\\./\\.\\./scene/models/two_parts\\.obj' .*outside the asset root"
             ERR_LINES 1)
oak_cli_test(cliRenderRejectsAbsoluteTexture
             ARGS "render|--scene|${OAK_BAD}/paths/absolute_texture.json|--backend|null|--size|32x18"
             EXIT 1 ERR "'/etc/passwd' resolves to /etc/passwd, outside the asset root" ERR_LINES 1)
oak_cli_test(cliRenderAcceptsWiderAssetRoot
             ARGS "render|--scene|${OAK_BAD}/paths/escape_drawable.json|--asset-root|tests/data|--backend|cpu|--size|32x18|--out|${OAK_BAD_OUT}/cli_asset_root.png"
             EXIT 0 OUT "cli_asset_root\\.png")
oak_cli_test(cliRenderRejectsMissingAssetRoot
             ARGS "render|--scene|${OAK_BAD}/paths/escape_texture.json|--asset-root|tests/nowhere|--backend|null|--size|32x18"
             EXIT 1 ERR "asset root 'tests/nowhere': No such file or directory" ERR_LINES 1)
oak_cli_test(cliRenderAssetRootNeedsScene ARGS "render|--asset-root|tests/data" EXIT 2
             ERR "--asset-root 'tests/data' needs --scene" ERR_LINES 1)
oak_cli_test(cliViewRejectsEscapingUri ARGS "view|${OAK_BAD}/paths/buffer_escape.gltf|--check"
             EXIT 1 ERR "buffers\\[0\\]\\.uri: '\\.\\./\\.\\./models/cube/cube\\.bin' resolves to .*, outside the asset root"
             ERR_LINES 1)
oak_cli_test(cliViewAcceptsWiderAssetRoot
             ARGS "view|${OAK_BAD}/paths/buffer_escape.gltf|--check|--asset-root|tests/data" EXIT 0
             OUT "buffer_escape\\.gltf")
oak_cli_test(cliBakeRejectsEscapingUri
             ARGS "bake|${OAK_BAD}/paths/buffer_escape.gltf|${OAK_BAD_OUT}/escape.oakm" EXIT 1
             ERR "outside the asset root" ERR_LINES 1)
oak_cli_test(cliBakeAcceptsWiderAssetRoot
             ARGS "bake|${OAK_BAD}/paths/buffer_escape.gltf|${OAK_BAD_OUT}/escape.oakm|--asset-root|tests/data"
             EXIT 0 OUT "baked to")

# ---- images, refused before decoding --------------------------------------------
oak_cli_test(cliRenderRejectsHugePngTexture
             ARGS "render|--scene|${OAK_BAD}/paths/huge_texture.json|--asset-root|${OAK_BAD}|--backend|null|--size|32x18"
             EXIT 1 ERR "PNG is 100000x100000, over the 16384-texel edge limit \\(OAK_MAX_TEXTURE_SIZE\\)"
             ERR_LINES 1)
oak_cli_test(cliRenderRejectsHangingHdrTexture
             ARGS "render|--scene|${OAK_BAD}/paths/hdr_hang_texture.json|--asset-root|${OAK_BAD}|--backend|null|--size|32x18"
             EXIT 1 ERR "hdr_hang_52\\.hdr: Radiance HDR claims 8x8, which 52 bytes cannot hold"
             ERR_LINES 1)
set_tests_properties(cliRenderRejectsHangingHdrTexture PROPERTIES TIMEOUT 60)
