/* The frame arena (assist_shared_frames.h): one memfd, mapped once, carved first-fit into 64-byte aligned
   blocks kept in address order; a freed block merges with free neighbours. */
#define _GNU_SOURCE
#include "assist_shared_frames.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* Off under the sanitizers, where frames fall back to the heap the sanitizers watch. AddressSanitizer cannot
   see a block freed here. ThreadSanitizer cannot see that a reader dropped its frame before the block was
   reused: the order comes from Swift's reference count, whose atomics it does not watch, and it resets a
   block's history only for its own allocator. A reused block therefore looked like a reader racing the next
   frame's writer (the CI run of d561a97, CameraTests). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ARENA_OFF 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ARENA_OFF 1
#endif

typedef struct block {
    size_t offset, size;
    bool used;
    struct block *next;
} block;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *base;
static size_t arena_size;
static int arena_fd = -1;
static block *blocks;

bool assist_frame_memory_reusable(void) {
#ifdef ARENA_OFF
    return false;
#else
    return true;
#endif
}

bool assist_shared_frames_enable(size_t bytes) {
#ifdef ARENA_OFF
    (void)bytes;
    return false;
#else
    pthread_mutex_lock(&lock);
    bool ok = base != NULL;
    if (!ok) {
        size_t size = (bytes + (1u << 20) - 1) & ~(size_t)((1u << 20) - 1);
        int fd = memfd_create("assist-frames", MFD_CLOEXEC);
        void *map = MAP_FAILED;
        if (fd >= 0 && ftruncate(fd, (off_t)size) == 0)
            map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        block *all = map != MAP_FAILED ? calloc(1, sizeof *all) : NULL;
        if (all != NULL) {
            all->size = size;
            blocks = all;
            base = map;
            arena_size = size;
            arena_fd = fd;
            ok = true;
        } else {
            if (map != MAP_FAILED) munmap(map, size);
            if (fd >= 0) close(fd);
        }
    }
    pthread_mutex_unlock(&lock);
    return ok;
#endif
}

void *assist_shared_frames_alloc(size_t size) {
    if (size < ASSIST_SHARED_FRAMES_MINIMUM) return NULL;
    size = (size + 63) & ~(size_t)63;
    pthread_mutex_lock(&lock);
    void *found = NULL;
    for (block *b = blocks; b != NULL && found == NULL; b = b->next) {
        if (b->used || b->size < size) continue;
        if (b->size > size) {
            block *rest = calloc(1, sizeof *rest);
            if (rest == NULL) break;
            rest->offset = b->offset + size;
            rest->size = b->size - size;
            rest->next = b->next;
            b->next = rest;
            b->size = size;
        }
        b->used = true;
        found = base + b->offset;
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void assist_shared_frames_free(void *pointer) {
    if (pointer == NULL) return;
    pthread_mutex_lock(&lock);
    size_t offset = (size_t)((uint8_t *)pointer - base);
    block *previous = NULL;
    for (block *b = blocks; b != NULL; previous = b, b = b->next) {
        if (b->offset != offset || !b->used) continue;
        b->used = false;
        if (b->next != NULL && !b->next->used) {
            block *next = b->next;
            b->size += next->size;
            b->next = next->next;
            free(next);
        }
        if (previous != NULL && !previous->used) {
            previous->size += b->size;
            previous->next = b->next;
            free(b);
        }
        break;
    }
    pthread_mutex_unlock(&lock);
}

bool assist_shared_frames_locate(const void *pointer, size_t size, uint64_t *offset, int *fd, uint64_t *size_out) {
    pthread_mutex_lock(&lock);
    const uint8_t *p = pointer;
    bool inside = base != NULL && p >= base && size <= arena_size && (size_t)(p - base) <= arena_size - size;
    if (inside) {
        *offset = (uint64_t)(p - base);
        *fd = arena_fd;
        *size_out = arena_size;
    }
    pthread_mutex_unlock(&lock);
    return inside;
}
