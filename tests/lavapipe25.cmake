# The tests run again on Mesa 25's lavapipe as NAME_lavapipe25 (NAME's
# binary with argument "vulkan"; tests/CMakeLists.txt registers them, the
# root CMakeLists.txt builds them in a Release tree under
# OAK_LAVAPIPE25_BUILD): what lavapipe 22.3 lacks, mesh shaders
# (test_mesh_shader) and descriptor indexing (test_bindless; the
# texture-heavy materials of test_material_lobes and test_material_fx,
# drawn bindless there).
# test_bindless is left out of the list (run it by hand: its binary is built
# with the others when listed, or in any tree with tests): on a cold shader
# cache, as on a fresh CI machine, its pipelines took over 900 s to compile
# at a load of 18, which CI's hour cannot carry; the bindless path is still
# drawn here by test_material_lobes and test_material_fx (the device's
# default), and on the H200 (round 38: byte-equal pictures with and
# without it, docs/PERFORMANCE.md).
set(OAK_LAVAPIPE25_TESTS test_mesh_shader test_material_lobes test_material_fx)
