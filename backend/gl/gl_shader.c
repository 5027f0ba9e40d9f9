/* Compiling and linking GLSL programs; a failure returns the driver's log in
 * the one-line error, newlines folded, so it reads in oak_last_error(). */
#include <stdio.h>
#include <string.h>

#include "gl_internal.h"

static void fold_lines(char *s) {
    for (; *s; s++)
        if (*s == '\n' || *s == '\r') *s = ' ';
}

static oak_result compile(GLuint *out, const char *name, GLenum stage, const char *src) {
    GLuint s = glCreateShader(stage);
    if (!s) return oak_error(OAK_ERROR_DEVICE, "gl: %s: glCreateShader failed", name);
    glShaderSource(s, 1, &src, NULL);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = {0};
        glGetShaderInfoLog(s, sizeof log - 1, NULL, log);
        fold_lines(log);
        glDeleteShader(s);
        const char *kind = stage == GL_VERTEX_SHADER     ? "vertex"
                           : stage == GL_FRAGMENT_SHADER ? "fragment"
                                                         : "compute";
        return oak_error(OAK_ERROR_DEVICE, "gl: %s (%s) failed to compile: %s", name, kind, log);
    }
    *out = s;
    return OAK_OK;
}

oak_result _oak_gl_program(GLuint *out, const char *name, const char *vs, const char *fs,
                           const char *cs) {
    GLuint sh[2] = {0, 0};
    uint32_t n = 0;
    oak_result r = OAK_OK;
    if (cs) {
        r = compile(&sh[n++], name, GL_COMPUTE_SHADER, cs);
    } else {
        r = compile(&sh[n], name, GL_VERTEX_SHADER, vs);
        if (r == OAK_OK) n++;
        if (r == OAK_OK && fs) {
            r = compile(&sh[n], name, GL_FRAGMENT_SHADER, fs);
            if (r == OAK_OK) n++;
        }
    }
    if (r != OAK_OK) {
        for (uint32_t i = 0; i < n; i++) glDeleteShader(sh[i]);
        return r;
    }
    GLuint p = glCreateProgram();
    for (uint32_t i = 0; i < n; i++) glAttachShader(p, sh[i]);
    glLinkProgram(p);
    for (uint32_t i = 0; i < n; i++) glDeleteShader(sh[i]);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[1024] = {0};
        glGetProgramInfoLog(p, sizeof log - 1, NULL, log);
        fold_lines(log);
        glDeleteProgram(p);
        return oak_error(OAK_ERROR_DEVICE, "gl: %s failed to link: %s", name, log);
    }
    *out = p;
    return OAK_OK;
}

oak_result _oak_gl_compute(GLuint *out, const char *name, const char *body) {
    static const char head[] = "#version 450 core\n#define OAK_GL 1\n";
    size_t hl = strlen(head), n = strlen(body);
    char *src = oak_alloc(hl + n + 1);
    if (!src) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %s", name);
    memcpy(src, head, hl);
    memcpy(src + hl, body, n + 1);
    oak_result r = _oak_gl_program(out, name, NULL, NULL, src);
    oak_free(src);
    return r;
}
