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

/* Log plumbing, set by oak_init. */
void _oak_log_configure(oak_log_fn fn, void *user, oak_log_level level);
void _oak_alloc_configure(const oak_allocator *a);

#endif
