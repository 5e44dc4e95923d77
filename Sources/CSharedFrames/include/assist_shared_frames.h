/*
 * assist_shared_frames.h - camera frame memory that plugin helper processes can map (issue 17).
 *
 * Once a plugin runs in a helper process, large frame buffers come from one memfd arena that every helper
 * maps read-only, once: a frame then reaches a helper as an offset, with no copy. Until `enable` is called
 * (the first helper), and in AddressSanitizer builds (whose redzones the arena would hide), `alloc` returns
 * NULL and the caller uses the ordinary heap.
 */
#ifndef ASSIST_SHARED_FRAMES_H
#define ASSIST_SHARED_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Creates the arena (`bytes`, rounded up to 1 MB) if it is not there yet; false when it cannot be made. */
bool assist_shared_frames_enable(size_t bytes);

/** `size` bytes, 64-byte aligned, from the arena; NULL when it is not enabled, is full, or `size` is under
    `minimum_size`. Any thread. */
void *assist_shared_frames_alloc(size_t size);

/** Gives back what `alloc` returned. Any thread. */
void assist_shared_frames_free(void *pointer);

/** True when [pointer, pointer + size) lies in the arena; then `*offset` is where, `*fd` the arena's
    descriptor and `*arena_size` its size. */
bool assist_shared_frames_locate(const void *pointer, size_t size, uint64_t *offset, int *fd, uint64_t *arena_size);

/** False in sanitizer builds, where the memory of a frame that is gone must go back to the allocator the
    sanitizer watches, for the reasons the arena is off there; true otherwise (the camera then keeps it for the
    next frame of its size). */
bool assist_frame_memory_reusable(void);

/** Blocks smaller than this stay on the heap. */
#define ASSIST_SHARED_FRAMES_MINIMUM (256u * 1024u)

#ifdef __cplusplus
}
#endif

#endif
