# The tests run again on Mesa 25's lavapipe as NAME_lavapipe25 (NAME's
# binary with argument "vulkan"; tests/CMakeLists.txt registers them, the
# root CMakeLists.txt builds them in a Release tree under
# OAK_LAVAPIPE25_BUILD): what lavapipe 22.3 lacks, mesh shaders
# (test_mesh_shader) and descriptor indexing (test_bindless; the
# texture-heavy materials of test_material_lobes and test_material_fx,
# drawn bindless there).
set(OAK_LAVAPIPE25_TESTS test_mesh_shader test_bindless test_material_lobes test_material_fx)
