/*
 * A pointer a plugin's thread hands to the host, which calls the plugin back with it on another thread of the
 * helper (worker.post_main from a worker, worker.schedule from [main]). The order is real: the callback is the
 * answer to the message. But it passes through the host process, which ThreadSanitizer does not see, so in a
 * sanitized helper the callback's reads of what the giving thread wrote before it looked like a race (find-object
 * teaching in a helper: the closure PluginKit boxes on a worker thread, read on [main]). Under ThreadSanitizer the
 * giving side releases on the pointer and the called side acquires it, which says that order and nothing more;
 * in any other build both are nothing.
 */
#ifndef ASSIST_BRIDGE_HANDOFF_H
#define ASSIST_BRIDGE_HANDOFF_H

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ASSIST_BRIDGE_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define ASSIST_BRIDGE_TSAN 1
#endif

#ifdef ASSIST_BRIDGE_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define HANDOFF_GIVE(pointer)                                                                                  \
    do {                                                                                                       \
        if ((pointer) != NULL) __tsan_release(pointer);                                                        \
    } while (0)
#define HANDOFF_TAKE(pointer)                                                                                  \
    do {                                                                                                       \
        if ((pointer) != NULL) __tsan_acquire(pointer);                                                        \
    } while (0)
#else
#define HANDOFF_GIVE(pointer) ((void)(pointer))
#define HANDOFF_TAKE(pointer) ((void)(pointer))
#endif

#endif
