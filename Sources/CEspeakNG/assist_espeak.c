#include "assist_espeak.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

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

const char *assist_espeak_load_error(void) {
    return lib.error[0] ? lib.error : NULL;
}
