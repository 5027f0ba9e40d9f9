/* The job pool: one worker per core (OAK_THREADS overrides) and a parallel-for
 * whose chunking depends only on the count, so results never depend on how
 * many threads ran it. The caller works too, as worker 0. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

typedef struct job {
    oak_job_fn fn;
    void *user;
    uint32_t count, chunk, chunks;
    atomic_uint next;
    atomic_uint done;
} job;

static struct {
    pthread_t threads[OAK_JOB_MAX_THREADS];
    uint32_t thread_count; /* workers including the caller */
    pthread_mutex_t mutex;
    pthread_cond_t wake, finished;
    pthread_mutex_t dispatch; /* one parallel_for at a time from outside */
    job *current;
    uint32_t active; /* workers holding current; the job lives on the caller's stack */
    uint64_t generation;
    uint32_t parked; /* workers that reached their first wait */
    bool quit, started;
    /* how long an idle worker (and the caller awaiting the last chunk)
       polls before it sleeps on the condition variable: within a frame the
       next parallel loop follows within microseconds, and each futex wake
       of a sleeping worker costs about that, one worker after another.
       OAK_JOB_SPIN_US (default 30; 0: sleep at once). */
    uint64_t spin_ns;
    /* nanoseconds each worker spent inside job functions since start, so a
       frame's per-thread busy time is the difference of two reads */
    _Atomic uint64_t busy_ns[OAK_JOB_MAX_THREADS];
} g_pool;

static _Thread_local int t_worker = -1; /* index while inside the pool */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* until *gen is no longer seen or spin_ns have passed */
static void spin_while_gen(const uint64_t *gen, uint64_t seen) {
    if (!g_pool.spin_ns) return;
    uint64_t until = oak_time_ns() + g_pool.spin_ns;
    while (__atomic_load_n(gen, __ATOMIC_ACQUIRE) == seen) {
        for (int k = 0; k < 32; k++) cpu_relax();
        if (oak_time_ns() >= until) return;
    }
}

static void run_chunks(job *j, uint32_t worker) {
    for (;;) {
        uint32_t c = atomic_fetch_add(&j->next, 1);
        if (c >= j->chunks) break;
        uint32_t begin = c * j->chunk;
        uint32_t end = begin + j->chunk < j->count ? begin + j->chunk : j->count;
        uint64_t t0 = oak_time_ns();
        j->fn(j->user, begin, end, worker);
        atomic_fetch_add_explicit(&g_pool.busy_ns[worker], oak_time_ns() - t0,
                                  memory_order_relaxed);
        if (atomic_fetch_add(&j->done, 1) + 1 == j->chunks) {
            pthread_mutex_lock(&g_pool.mutex);
            pthread_cond_broadcast(&g_pool.finished);
            pthread_mutex_unlock(&g_pool.mutex);
        }
    }
}

static void *worker_main(void *arg) {
    uint32_t index = (uint32_t)(uintptr_t)arg;
    t_worker = (int)index;
    uint64_t seen = 0;
    pthread_mutex_lock(&g_pool.mutex);
    g_pool.parked++;
    pthread_cond_broadcast(&g_pool.finished);
    for (;;) {
        if (!g_pool.quit && g_pool.generation == seen && g_pool.spin_ns) {
            pthread_mutex_unlock(&g_pool.mutex);
            spin_while_gen(&g_pool.generation, seen);
            pthread_mutex_lock(&g_pool.mutex);
        }
        while (!g_pool.quit && g_pool.generation == seen)
            pthread_cond_wait(&g_pool.wake, &g_pool.mutex);
        if (g_pool.quit) break;
        seen = g_pool.generation;
        job *j = g_pool.current;
        if (!j) continue;
        g_pool.active++;
        pthread_mutex_unlock(&g_pool.mutex);
        run_chunks(j, index);
        pthread_mutex_lock(&g_pool.mutex);
        if (--g_pool.active == 0) pthread_cond_broadcast(&g_pool.finished);
    }
    pthread_mutex_unlock(&g_pool.mutex);
    return NULL;
}

oak_result _oak_jobs_start(uint32_t threads) {
    if (!threads) {
        const char *env = getenv("OAK_THREADS");
        long n = env ? strtol(env, NULL, 10) : 0;
        if (n <= 0) n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (uint32_t)n : 1;
    }
    if (threads > OAK_JOB_MAX_THREADS) threads = OAK_JOB_MAX_THREADS;
    const char *spin = getenv("OAK_JOB_SPIN_US");
    long us = spin ? strtol(spin, NULL, 10) : 30;
    g_pool.spin_ns = us > 0 ? (uint64_t)(us < 100000 ? us : 100000) * 1000u : 0;
    pthread_mutex_init(&g_pool.mutex, NULL);
    pthread_mutex_init(&g_pool.dispatch, NULL);
    pthread_cond_init(&g_pool.wake, NULL);
    pthread_cond_init(&g_pool.finished, NULL);
    g_pool.quit = false;
    g_pool.generation = 0;
    g_pool.current = NULL;
    g_pool.active = 0;
    g_pool.parked = 0;
    g_pool.thread_count = 1;
    g_pool.started = true;
    for (uint32_t i = 1; i < threads; i++) {
        if (pthread_create(&g_pool.threads[i], NULL, worker_main, (void *)(uintptr_t)i) != 0) {
            oak_log_warn("job pool: could only start %u of %u threads", i, threads);
            break;
        }
        g_pool.thread_count = i + 1;
    }
    /* Back only once every worker waits for work: a thread still starting
       may hold an allocator's lock, and a fork() then (asset/assimp_load.c)
       would copy that lock held into a child that can never take it. */
    pthread_mutex_lock(&g_pool.mutex);
    while (g_pool.parked + 1 < g_pool.thread_count)
        pthread_cond_wait(&g_pool.finished, &g_pool.mutex);
    pthread_mutex_unlock(&g_pool.mutex);
    return OAK_OK;
}

void _oak_jobs_stop(void) {
    if (!g_pool.started) return;
    pthread_mutex_lock(&g_pool.mutex);
    g_pool.quit = true;
    pthread_cond_broadcast(&g_pool.wake);
    pthread_mutex_unlock(&g_pool.mutex);
    for (uint32_t i = 1; i < g_pool.thread_count; i++) pthread_join(g_pool.threads[i], NULL);
    pthread_mutex_destroy(&g_pool.mutex);
    pthread_mutex_destroy(&g_pool.dispatch);
    pthread_cond_destroy(&g_pool.wake);
    pthread_cond_destroy(&g_pool.finished);
    g_pool.started = false;
    g_pool.thread_count = 0;
}

uint32_t oak_job_busy_ns(uint64_t *out, uint32_t max) {
    uint32_t n = oak_job_threads();
    if (n > max) n = max;
    for (uint32_t i = 0; i < n; i++)
        out[i] = atomic_load_explicit(&g_pool.busy_ns[i], memory_order_relaxed);
    return n;
}

uint32_t oak_job_threads(void) {
    return g_pool.started ? g_pool.thread_count : 1;
}

void oak_parallel_for(uint32_t count, uint32_t chunk, oak_job_fn fn, void *user) {
    if (!count) return;
    if (!chunk) chunk = 1;
    uint32_t chunks = (count - 1) / chunk + 1;
    /* Serial when there is no pool, one chunk, or we are already inside a job
       (nesting would deadlock); the chunk split stays the same. */
    if (!g_pool.started || g_pool.thread_count == 1 || chunks == 1 || t_worker >= 0) {
        uint32_t worker = t_worker >= 0 ? (uint32_t)t_worker : 0;
        uint64_t t0 = oak_time_ns();
        for (uint32_t c = 0; c < chunks; c++) {
            uint32_t begin = c * chunk;
            uint32_t end = begin + chunk < count ? begin + chunk : count;
            fn(user, begin, end, worker);
        }
        /* nested calls run inside a chunk the outer loop already times */
        if (t_worker < 0)
            atomic_fetch_add_explicit(&g_pool.busy_ns[0], oak_time_ns() - t0, memory_order_relaxed);
        return;
    }
    pthread_mutex_lock(&g_pool.dispatch);
    job j = {fn, user, count, chunk, chunks, 0, 0};
    pthread_mutex_lock(&g_pool.mutex);
    g_pool.current = &j;
    __atomic_add_fetch(&g_pool.generation, 1, __ATOMIC_RELEASE); /* spinning workers poll it */
    pthread_cond_broadcast(&g_pool.wake);
    pthread_mutex_unlock(&g_pool.mutex);

    t_worker = 0;
    run_chunks(&j, 0);
    t_worker = -1;

    /* the last chunks are running elsewhere: poll before sleeping on them */
    if (g_pool.spin_ns) {
        uint64_t until = oak_time_ns() + g_pool.spin_ns;
        while (atomic_load(&j.done) < chunks && oak_time_ns() < until)
            for (int k = 0; k < 32; k++) cpu_relax();
    }
    pthread_mutex_lock(&g_pool.mutex);
    while (atomic_load(&j.done) < chunks) pthread_cond_wait(&g_pool.finished, &g_pool.mutex);
    g_pool.current = NULL;
    while (g_pool.active > 0) pthread_cond_wait(&g_pool.finished, &g_pool.mutex);
    pthread_mutex_unlock(&g_pool.mutex);
    pthread_mutex_unlock(&g_pool.dispatch);
}

void _oak_jobs_forget_after_fork(void) {
    g_pool.started = false;
}
