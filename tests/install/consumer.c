/* Makes a mesh through the installed headers and library, then exits 0. */
#include <oak/oak.h>
#include <stdio.h>

int main(void) {
    if (oak_init(NULL) != OAK_OK) return 1;
    oak_mesh m;
    oak_shape_desc s = {.type = OAK_SHAPE_SPHERE};
    oak_result r = oak_make_shape(&m, &s);
    const oak_mesh_data *d = oak_mesh_get(m);
    int ok = r == OAK_OK && d && d->vertex_count > 0 && oak_backend_count() >= 2;
    printf("consumer: %s, %u vertices, %u backends\n", ok ? "ok" : "FAILED",
           d ? d->vertex_count : 0, oak_backend_count());
    oak_shutdown();
    return ok ? 0 : 1;
}
