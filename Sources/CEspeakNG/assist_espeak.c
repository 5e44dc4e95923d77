#include "assist_espeak.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The espeak-ng runtime package's soname. */
#define ESPEAK_LIBRARY "libespeak-ng.so.1"

static struct {
    int (*initialize)(espeak_AUDIO_OUTPUT, int, const char *, int);
    void (*set_synth_callback)(t_espeak_callback *);
    espeak_ERROR (*set_voice_by_name)(const char *);
    espeak_ERROR (*set_parameter)(espeak_PARAMETER, int, int);
    espeak_ERROR (*synth)(const void *, size_t, unsigned int, espeak_POSITION_TYPE, unsigned int, unsigned int,
                          unsigned int *, void *);
    espeak_ERROR (*synchronize)(void);
    const espeak_VOICE **(*list_voices)(espeak_VOICE *);
    int loaded;
    char error[256];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *symbol(void *handle, const char *name, int *missing) {
    void *found = dlsym(handle, name);
    if (found == NULL && !*missing) {
        snprintf(lib.error, sizeof lib.error, "%s has no %s", ESPEAK_LIBRARY, name);
        *missing = 1;
    }
    return found;
}

static void load(void) {
    /* RTLD_NODELETE: espeak-ng keeps threads and global state for the life of the process. */
    void *handle = dlopen(ESPEAK_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(lib.error, sizeof lib.error, "%s", why ? why : ESPEAK_LIBRARY " cannot be opened");
        return;
    }
    int missing = 0;
    *(void **)&lib.initialize = symbol(handle, "espeak_Initialize", &missing);
    *(void **)&lib.set_synth_callback = symbol(handle, "espeak_SetSynthCallback", &missing);
    *(void **)&lib.set_voice_by_name = symbol(handle, "espeak_SetVoiceByName", &missing);
    *(void **)&lib.set_parameter = symbol(handle, "espeak_SetParameter", &missing);
    *(void **)&lib.synth = symbol(handle, "espeak_Synth", &missing);
    *(void **)&lib.synchronize = symbol(handle, "espeak_Synchronize", &missing);
    /* Optional: without it, a voice is taken as known when espeak-ng sets it (it may fall back silently). */
    *(void **)&lib.list_voices = dlsym(handle, "espeak_ListVoices");
    lib.loaded = !missing;
}

static int ready(void) {
    pthread_once(&once, load);
    return lib.loaded;
}

int assist_espeak_Initialize(espeak_AUDIO_OUTPUT output, int buflength, const char *path, int options) {
    return ready() ? lib.initialize(output, buflength, path, options) : EE_INTERNAL_ERROR;
}

void assist_espeak_SetSynthCallback(t_espeak_callback *callback) {
    if (ready()) lib.set_synth_callback(callback);
}

espeak_ERROR assist_espeak_SetVoiceByName(const char *name) {
    return ready() ? lib.set_voice_by_name(name) : EE_INTERNAL_ERROR;
}

espeak_ERROR assist_espeak_SetParameter(espeak_PARAMETER parameter, int value, int relative) {
    return ready() ? lib.set_parameter(parameter, value, relative) : EE_INTERNAL_ERROR;
}

espeak_ERROR assist_espeak_Synth(const void *text, size_t size, unsigned int position,
                                 espeak_POSITION_TYPE position_type, unsigned int end_position, unsigned int flags,
                                 unsigned int *unique_identifier, void *user_data) {
    return ready() ? lib.synth(text, size, position, position_type, end_position, flags, unique_identifier, user_data)
                   : EE_INTERNAL_ERROR;
}

espeak_ERROR assist_espeak_Synchronize(void) { return ready() ? lib.synchronize() : EE_INTERNAL_ERROR; }

/* Whether `wanted` (before any "+variant") matches a voice's name, its identifier or the file name in it, or one
 * of its languages, ignoring case. */
static int voice_matches(const espeak_VOICE *voice, const char *wanted) {
    if (voice->name != NULL && strcasecmp(voice->name, wanted) == 0) return 1;
    if (voice->identifier != NULL) {
        const char *slash = strrchr(voice->identifier, '/');
        if (strcasecmp(voice->identifier, wanted) == 0 || (slash != NULL && strcasecmp(slash + 1, wanted) == 0)) return 1;
    }
    /* languages: a priority byte, a NUL-terminated name, again, and a zero byte at the end. */
    for (const char *language = voice->languages; language != NULL && *language != 0;
         language += strlen(language + 1) + 2) {
        if (strcasecmp(language + 1, wanted) == 0) return 1;
    }
    return 0;
}

int assist_espeak_has_voice(const char *name) {
    if (!ready() || lib.list_voices == NULL || name == NULL) return -1;
    char wanted[128];
    size_t length = strcspn(name, "+");
    if (length == 0 || length >= sizeof wanted) return 0;
    memcpy(wanted, name, length);
    wanted[length] = 0;
    for (const espeak_VOICE **voice = lib.list_voices(NULL); voice != NULL && *voice != NULL; voice++) {
        if (voice_matches(*voice, wanted)) return 1;
    }
    return 0;
}

const char *assist_espeak_load_error(void) {
    return lib.error[0] ? lib.error : NULL;
}
