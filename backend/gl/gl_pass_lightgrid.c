/* The lamp grid on OpenGL: the head goes up with the frame's other records,
 * then lightgrid.comp (the file the Vulkan backend compiles) lists each
 * cell's lamps; the buffer stays bound at OAK_B_LIGHT_GRID for the resolve
 * and the BLEND pass. Program and buffer are made on first use. The pass
 * table's lightgrid row runs it (render/pass_table.c). */
#include <stdio.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

#define OAK_GL_GRID_BYTES ((size_t)OAK_GPU_LIGHT_GRID_WORDS * sizeof(uint32_t))

static oak_result lightgrid_setup(_oak_gl_frame *f) {
    if (f->prog_lightgrid) return OAK_OK;
    GLint bindings = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    if (bindings <= OAK_B_LIGHT_GRID)
        return oak_error(OAK_ERROR_DEVICE,
                         "gl: %d storage buffer bindings, the light grid needs %d", bindings,
                         OAK_B_LIGHT_GRID + 1);
    oak_result r = _oak_gl_compute(&f->prog_lightgrid, "lightgrid", oak_gl_src_lightgrid_comp);
    if (r) return r;
    return _oak_gl_buffer_reserve(&f->grid, OAK_GL_GRID_BYTES, false);
}

oak_result _oak_gl_run_lightgrid(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    uint32_t lights = v->light_count < OAK_MAX_LIGHTS ? v->light_count : OAK_MAX_LIGHTS;
    oak_result r = lightgrid_setup(f);
    if (r) return r;
    oak_gpu_light_grid head;
    _oak_gpu_light_grid_fill(&head, v, lights);
    if ((r = _oak_gl_buffer_upload(&f->grid, 0, &head, sizeof head))) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LIGHTS, f->lights.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LIGHT_GRID, f->grid.id);
    glUseProgram(f->prog_lightgrid);
    glDispatchCompute((OAK_LIGHT_GRID_CELLS + 63) / 64, 1, 1);
    return OAK_OK; /* the readers' barriers come from their rows (gl_track.c) */
}

void _oak_gl_lightgrid_release(_oak_gl_frame *f) {
    if (f->prog_lightgrid) glDeleteProgram(f->prog_lightgrid);
    f->prog_lightgrid = 0;
    _oak_gl_buffer_release(&f->grid);
}

oak_result _oak_gl_lightgrid_read(_oak_gl_frame *f, uint32_t *words, size_t count) {
    if (count < OAK_GPU_LIGHT_GRID_WORDS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: light grid needs %u words",
                         (unsigned)OAK_GPU_LIGHT_GRID_WORDS);
    if (!f->grid.id) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "gl: no light grid built yet");
    glGetNamedBufferSubData(f->grid.id, 0, (GLsizeiptr)OAK_GL_GRID_BYTES, words);
    return _oak_gl_check("light grid read-back")
               ? oak_error(OAK_ERROR_DEVICE, "gl: light grid read-back failed")
               : OAK_OK;
}
