/* Private core hooks shared by the layers above: shutdown callbacks so each
 * layer's registry is freed by oak_shutdown without core knowing it. */
#ifndef OAK_CORE_INTERNAL_H
#define OAK_CORE_INTERNAL_H

#include <oak/core.h>

/* Called by oak_shutdown in reverse order of registration. Registering the
 * same function twice keeps one entry. */
void _oak_on_shutdown(void (*fn)(void));

/* Job pool lifetime, driven by oak_init / oak_shutdown. */
oak_result _oak_jobs_start(uint32_t threads);
void _oak_jobs_stop(void);
/* In a child of fork(), where no worker thread exists: every later
   oak_parallel_for runs on the calling thread (asset/assimp_load.c). */
void _oak_jobs_forget_after_fork(void);

/* While set on this thread, oak_error records the last error without
   logging it: for attempts whose failure is expected and reported another
   way (backend auto trying each backend in turn). */
void _oak_error_quiet(bool quiet);

/* The folder of oak's disk caches into out (size bytes with the NUL):
   $OAK_CACHE_DIR, else $XDG_CACHE_HOME/oak, else $HOME/.cache/oak (an empty
   variable counts as unset). _oak_cache_dir_name only names it;
   _oak_cache_dir also makes it (mkdir -p). False where none of the three is
   set, the name does not fit or the folder cannot be made: no cache. */
bool _oak_cache_dir_name(char *out, size_t size);
bool _oak_cache_dir(char *out, size_t size);

/* Log plumbing, set by oak_init. */
void _oak_log_configure(oak_log_fn fn, void *user, oak_log_level level);
void _oak_alloc_configure(const oak_allocator *a);

#endif
