/* oak core: results and logging, allocator hooks, the frame arena, the job pool,
 * generational handles and pools, hashing, files and time. Everything above
 * this layer reports failures through oak_result and oak_error(). */
#ifndef OAK_CORE_H
#define OAK_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define OAK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define OAK_PRINTF(f, a)
#endif

/* ---- results ---------------------------------------------------------- */

typedef enum oak_result {
    OAK_OK = 0,
    OAK_ERROR_INVALID_ARGUMENT, /* a caller passed something out of range */
    OAK_ERROR_OUT_OF_MEMORY,    /* the allocator hooks returned NULL */
    OAK_ERROR_IO,               /* a file could not be opened, read or written */
    OAK_ERROR_PARSE,            /* a file's contents are malformed */
    OAK_ERROR_UNSUPPORTED,      /* valid input that oak does not handle */
    OAK_ERROR_NOT_FOUND,        /* a name or handle that does not exist */
    OAK_ERROR_DEVICE,           /* a backend device failed or is missing */
    OAK_ERROR_LIMIT,            /* a named limit (config.h) was exceeded */
} oak_result;

const char *oak_result_name(oak_result r); /* "OAK_ERROR_PARSE", ... */

/* ---- logging ---------------------------------------------------------- */

typedef enum oak_log_level {
    OAK_LOG_DEFAULT = 0, /* resolves to OAK_LOG_INFO */
    OAK_LOG_DEBUG,
    OAK_LOG_INFO,
    OAK_LOG_WARN,
    OAK_LOG_ERROR,
    OAK_LOG_NONE, /* as a threshold: silence */
} oak_log_level;

/* One call per message; msg is one line without a trailing newline. */
typedef void (*oak_log_fn)(void *user, oak_log_level level, const char *msg);

void oak_log(oak_log_level level, const char *fmt, ...) OAK_PRINTF(2, 3);
#define oak_log_debug(...) oak_log(OAK_LOG_DEBUG, __VA_ARGS__)
#define oak_log_info(...)  oak_log(OAK_LOG_INFO, __VA_ARGS__)
#define oak_log_warn(...)  oak_log(OAK_LOG_WARN, __VA_ARGS__)

/* Records a one-line message as this thread's last error, logs it at ERROR
 * level and returns code, so failure paths read `return oak_error(...)`. */
oak_result oak_error(oak_result code, const char *fmt, ...) OAK_PRINTF(2, 3);
const char *oak_last_error(void); /* this thread's last message, "" if none */
void oak_clear_error(void);

/* ---- allocation ------------------------------------------------------- */

/* Heap hooks. All three or none; memory must be 16-byte aligned. */
typedef struct oak_allocator {
    void *(*alloc)(void *user, size_t size);
    void *(*realloc)(void *user, void *ptr, size_t size);
    void (*free)(void *user, void *ptr);
    void *user;
} oak_allocator;

void *oak_alloc(size_t size);                /* NULL on failure, logged */
void *oak_calloc(size_t count, size_t size); /* zeroed; checks overflow */
void *oak_realloc(void *ptr, size_t size);   /* NULL on failure; ptr kept */
void oak_free(void *ptr);                    /* NULL is fine */
char *oak_strdup(const char *s);             /* NULL for NULL */

/* Grows *array (element size elem) to hold at least need elements, doubling,
 * so callers keep capacity across frames. Returns false on out of memory. */
bool oak_grow(void **array, uint32_t *capacity, uint32_t need, size_t elem);
#define OAK_GROW(arr, cap, need) oak_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Bump allocator reset once per frame. When a frame outgrows it, the extra
 * comes from overflow blocks; the next reset folds them into one block big
 * enough, so after warm-up a frame makes no heap calls. */
typedef struct oak_arena {
    uint8_t *base;
    size_t capacity, used;
    size_t peak;          /* most bytes any frame needed */
    void *overflow;       /* chain of blocks taken this frame */
    size_t overflow_size; /* bytes in the chain */
} oak_arena;

oak_result oak_arena_init(oak_arena *arena, size_t capacity);
void oak_arena_release(oak_arena *arena);
void *oak_arena_alloc(oak_arena *arena, size_t size, size_t align); /* NULL on OOM */
void oak_arena_reset(oak_arena *arena);

/* ---- engine lifetime -------------------------------------------------- */

typedef struct oak_engine_desc {
    oak_log_fn log; /* NULL: one line per message to stderr */
    void *log_user;
    oak_log_level log_level; /* messages below this are dropped */
    oak_allocator allocator; /* zero: malloc/realloc/free */
    uint32_t threads;        /* job workers incl. caller; 0: $OAK_THREADS or cores */
} oak_engine_desc;

oak_engine_desc oak_engine_desc_defaults(const oak_engine_desc *desc);
/* Sets the hooks, starts the job pool, creates the asset registry. */
oak_result oak_init(const oak_engine_desc *desc);
void oak_shutdown(void); /* frees every asset and stops the pool */
bool oak_is_initialized(void);

/* ---- jobs ------------------------------------------------------------- */

/* Runs fn over [begin, end) chunks of `chunk` items; the calling thread works
 * too. Chunk boundaries depend only on count and chunk, never on the number
 * of threads, so work split this way is deterministic. worker is in
 * [0, oak_job_threads()) and indexes per-thread scratch. */
typedef void (*oak_job_fn)(void *user, uint32_t begin, uint32_t end, uint32_t worker);
void oak_parallel_for(uint32_t count, uint32_t chunk, oak_job_fn fn, void *user);
uint32_t oak_job_threads(void); /* workers including the caller */
/* Nanoseconds each worker has spent inside job functions since the pool
 * started (worker 0 is the caller, serial loops included); writes
 * min(max, oak_job_threads()) counters and returns how many. A frame's
 * per-thread busy time is the difference of two reads. */
uint32_t oak_job_busy_ns(uint64_t *out, uint32_t max);

/* ---- handles and pools ------------------------------------------------ */

/* A handle id is index + 1 in the low OAK_HANDLE_INDEX_BITS and a generation
 * in the high bits; 0 is never valid. */
#define OAK_INVALID_ID 0u
static inline uint32_t oak_handle_index(uint32_t id) {
    return (id & ((1u << OAK_HANDLE_INDEX_BITS) - 1u)) - 1u;
}

/* Fixed-size items addressed by generational ids; grows by doubling (item
 * pointers move on growth; ids stay valid until freed). */
typedef struct oak_pool {
    uint8_t *items;
    uint32_t *generations; /* per slot; bit 31 set while the slot is live */
    uint32_t *free_slots;
    uint32_t item_size, capacity, live, free_count, high_water;
} oak_pool;

oak_result oak_pool_init(oak_pool *pool, uint32_t item_size, uint32_t capacity);
void oak_pool_release(oak_pool *pool);
uint32_t oak_pool_alloc(oak_pool *pool);         /* zeroed item; 0 on failure */
void oak_pool_free(oak_pool *pool, uint32_t id); /* stale ids are ignored */
bool oak_pool_valid(const oak_pool *pool, uint32_t id);
void *oak_pool_get(const oak_pool *pool, uint32_t id); /* NULL if stale */
/* Slot iteration: ids of live items for slot in [0, high_water). */
uint32_t oak_pool_slot_id(const oak_pool *pool, uint32_t slot); /* 0 if free */

/* ---- hashing ---------------------------------------------------------- */

uint64_t oak_hash(const void *data, size_t size, uint64_t seed); /* 64-bit, stable */
uint64_t oak_hash_str(const char *s);

/* Open-addressing map from non-zero 64-bit keys to 32-bit values. */
typedef struct oak_map {
    uint64_t *keys;
    uint32_t *values;
    uint32_t capacity, count;
} oak_map;

void oak_map_release(oak_map *map);
oak_result oak_map_set(oak_map *map, uint64_t key, uint32_t value);
bool oak_map_get(const oak_map *map, uint64_t key, uint32_t *value);
bool oak_map_remove(oak_map *map, uint64_t key);

/* ---- files and time --------------------------------------------------- */

/* Opens an input: only a regular file of at most OAK_MAX_INPUT_FILE_SIZE
 * bytes, opened non-blocking so a FIFO cannot hang the open; a directory,
 * FIFO or device is refused in one line naming the path. Close *fd. */
oak_result oak_open_input(int *fd, size_t *size, const char *path);
/* Reads a whole input (as oak_open_input); *data gets a NUL after size
 * bytes; free with oak_free. */
oak_result oak_read_file(const char *path, void **data, size_t *size);
oak_result oak_write_file(const char *path, const void *data, size_t size);
/* Joins dir of base_file with rel ("a/b.obj" + "c.png" -> "a/c.png"). */
void oak_path_join_dir(char *out, size_t out_size, const char *base_file, const char *rel);
/* A path a model or scene file names, confined to an asset root: rel joined
 * to base_file's folder (as oak_path_join_dir) into out, after checking with
 * realpath that neither ".." nor a symbolic link takes it out of root (NULL:
 * base_file's folder). oak:// names pass as they are. OAK_ERROR_NOT_FOUND
 * when it does not exist, OAK_ERROR_UNSUPPORTED when it leaves the root;
 * the one-line message names rel and the root, and callers prefix their file. */
oak_result oak_path_confine(char *out, size_t out_size, const char *root, const char *base_file,
                            const char *rel);
/* OAK_OK when root is NULL or names a folder; loaders check a caller's root
 * up front so a mistyped one is reported even when nothing is referenced. */
oak_result oak_asset_root_check(const char *root);

uint64_t oak_time_ns(void); /* monotonic */
static inline double oak_ms_since(uint64_t start_ns) {
    extern uint64_t oak_time_ns(void);
    return (double)(oak_time_ns() - start_ns) * 1e-6;
}

#ifdef __cplusplus
}
#endif
#endif
