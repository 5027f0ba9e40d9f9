/* The disk caches' folder (core/cache_dir.c, one rule for the Vulkan
 * pipeline cache and the cluster-LOD DAGs): $OAK_CACHE_DIR, else
 * $XDG_CACHE_HOME/oak, else $HOME/.cache/oak, an empty variable as unset,
 * made with its parents when missing; none set, or a name too long, is no
 * folder. */
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "oak_test.h"

static char g_dir[] = "/tmp/oak-cache-dir-XXXXXX";

static void set(const char *oak, const char *xdg, const char *home) {
    if (oak)
        setenv("OAK_CACHE_DIR", oak, 1);
    else
        unsetenv("OAK_CACHE_DIR");
    if (xdg)
        setenv("XDG_CACHE_HOME", xdg, 1);
    else
        unsetenv("XDG_CACHE_HOME");
    if (home)
        setenv("HOME", home, 1);
    else
        unsetenv("HOME");
}

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

TEST(cacheDirTakesOakCacheDirFirst) {
    char out[256];
    set("/a/oak", "/b/xdg", "/c/home");
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/a/oak"));
}

TEST(cacheDirFallsBackToXdgThenHome) {
    char out[256];
    set(NULL, "/b/xdg", "/c/home");
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/b/xdg/oak"));
    set(NULL, NULL, "/c/home");
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/c/home/.cache/oak"));
}

TEST(cacheDirTakesEmptyVariablesAsUnset) {
    char out[256];
    set("", "", "/c/home");
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/c/home/.cache/oak"));
    set("", "/b/xdg", "");
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/b/xdg/oak"));
}

TEST(cacheDirIsNoneWithoutVariables) {
    char out[256] = "untouched";
    set(NULL, NULL, NULL);
    CHECK(!_oak_cache_dir_name(out, sizeof out));
    CHECK(!_oak_cache_dir(out, sizeof out));
    set("", "", "");
    CHECK(!_oak_cache_dir_name(out, sizeof out));
}

TEST(cacheDirRefusesANameThatDoesNotFit) {
    char out[16];
    set("/0123456789/abcd", NULL, NULL); /* 16 characters and the NUL */
    CHECK(!_oak_cache_dir_name(out, sizeof out));
    set("/0123456789/abc", NULL, NULL); /* 15: fits */
    CHECK(_oak_cache_dir_name(out, sizeof out));
    CHECK(!strcmp(out, "/0123456789/abc"));
    set(NULL, "/0123456789", NULL); /* "/0123456789/oak" is 15 */
    CHECK(_oak_cache_dir_name(out, sizeof out));
    set(NULL, "/0123456789a", NULL);
    CHECK(!_oak_cache_dir_name(out, sizeof out));
}

TEST(cacheDirMakesTheFolderAndItsParents) {
    char want[256], out[256];
    snprintf(want, sizeof want, "%s/x/y/oak", g_dir);
    char xdg[256];
    snprintf(xdg, sizeof xdg, "%s/x/y", g_dir);
    set(NULL, xdg, "/c/home");
    CHECK(!is_dir(want));
    CHECK(_oak_cache_dir(out, sizeof out));
    CHECK(!strcmp(out, want));
    CHECK(is_dir(want));
    CHECK(_oak_cache_dir(out, sizeof out)); /* already there */
    /* a file where the folder should be: no cache */
    char file[256];
    snprintf(file, sizeof file, "%s/f", g_dir);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f) fclose(f);
    char under[300];
    snprintf(under, sizeof under, "%s/sub", file);
    set(under, NULL, NULL);
    CHECK(!_oak_cache_dir(out, sizeof out));
    CHECK(_oak_cache_dir_name(out, sizeof out)); /* named all the same */
    remove(file);
    rmdir(want);
    snprintf(want, sizeof want, "%s/x/y", g_dir);
    rmdir(want);
    snprintf(want, sizeof want, "%s/x", g_dir);
    rmdir(want);
}

int main(void) {
    if (!mkdtemp(g_dir)) return 2;
    RUN(cacheDirTakesOakCacheDirFirst);
    RUN(cacheDirFallsBackToXdgThenHome);
    RUN(cacheDirTakesEmptyVariablesAsUnset);
    RUN(cacheDirIsNoneWithoutVariables);
    RUN(cacheDirRefusesANameThatDoesNotFit);
    RUN(cacheDirMakesTheFolderAndItsParents);
    rmdir(g_dir);
    return TEST_SUMMARY();
}
