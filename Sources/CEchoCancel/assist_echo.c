#include "assist_echo.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* Debian's runtime package libspeexdsp1. */
#define SPEEXDSP_LIBRARY "libspeexdsp.so.1"

/* The calls used, as speex_echo.h, speex_preprocess.h and speex_resampler.h declare them. */
typedef struct SpeexEchoState_ SpeexEchoState;
typedef struct SpeexPreprocessState_ SpeexPreprocessState;
typedef struct SpeexResamplerState_ SpeexResamplerState;
#define SPEEX_ECHO_SET_SAMPLING_RATE 24
#define SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE 27
#define SPEEX_ECHO_GET_IMPULSE_RESPONSE 29
#define SPEEX_PREPROCESS_SET_DENOISE 0
#define SPEEX_PREPROCESS_SET_AGC 2
#define SPEEX_PREPROCESS_SET_DEREVERB 8
#define SPEEX_PREPROCESS_SET_ECHO_STATE 24
#define SPEEX_PREPROCESS_SET_NOISE_SUPPRESS 18
#define SPEEX_PREPROCESS_SET_ECHO_SUPPRESS 20
#define SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE 22
#define SPEEX_RESAMPLER_QUALITY_DESKTOP 5

static struct {
    SpeexEchoState *(*echo_init)(int, int);
    void (*echo_destroy)(SpeexEchoState *);
    void (*echo_cancellation)(SpeexEchoState *, const int16_t *, const int16_t *, int16_t *);
    int (*echo_ctl)(SpeexEchoState *, int, void *);
    void (*echo_reset)(SpeexEchoState *);
    SpeexPreprocessState *(*pre_init)(int, int);
    void (*pre_destroy)(SpeexPreprocessState *);
    int (*pre_run)(SpeexPreprocessState *, int16_t *);
    int (*pre_ctl)(SpeexPreprocessState *, int, void *);
    SpeexResamplerState *(*rs_init)(uint32_t, uint32_t, uint32_t, int, int *);
    void (*rs_destroy)(SpeexResamplerState *);
    int (*rs_process)(SpeexResamplerState *, uint32_t, const int16_t *, uint32_t *, int16_t *, uint32_t *);
    int (*rs_reset)(SpeexResamplerState *);
    int (*rs_skip_zeros)(SpeexResamplerState *);
    int loaded;
    char error[256];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *handle = dlopen(SPEEXDSP_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (handle == NULL) {
        snprintf(lib.error, sizeof lib.error, "%s cannot be opened (install libspeexdsp1)", SPEEXDSP_LIBRARY);
        return;
    }
    int missing = 0;
#define FIND(field, name)                                                  \
    do {                                                                   \
        *(void **)&lib.field = dlsym(handle, name);                        \
        if (lib.field == NULL && !missing) {                               \
            snprintf(lib.error, sizeof lib.error, "%s has no %s", SPEEXDSP_LIBRARY, name); \
            missing = 1;                                                   \
        }                                                                  \
    } while (0)
    FIND(echo_init, "speex_echo_state_init");
    FIND(echo_destroy, "speex_echo_state_destroy");
    FIND(echo_cancellation, "speex_echo_cancellation");
    FIND(echo_ctl, "speex_echo_ctl");
    FIND(echo_reset, "speex_echo_state_reset");
    FIND(pre_init, "speex_preprocess_state_init");
    FIND(pre_destroy, "speex_preprocess_state_destroy");
    FIND(pre_run, "speex_preprocess_run");
    FIND(pre_ctl, "speex_preprocess_ctl");
    FIND(rs_init, "speex_resampler_init");
    FIND(rs_destroy, "speex_resampler_destroy");
    FIND(rs_process, "speex_resampler_process_int");
    FIND(rs_reset, "speex_resampler_reset_mem");
    FIND(rs_skip_zeros, "speex_resampler_skip_zeros");
#undef FIND
    lib.loaded = !missing;
}

struct assist_echo {
    SpeexEchoState *state;
    SpeexPreprocessState *pre;
    int frame;
};

assist_echo *assist_echo_open(int rate, int frame, int filter, char *error, size_t error_size) {
    pthread_once(&once, load);
    if (!lib.loaded) {
        if (error && error_size) snprintf(error, error_size, "%s", lib.error);
        return NULL;
    }
    if (rate <= 0 || frame <= 0 || filter < frame) {
        if (error && error_size) snprintf(error, error_size, "the echo canceller's sizes were refused");
        return NULL;
    }
    assist_echo *echo = calloc(1, sizeof *echo);
    if (echo == NULL) return NULL;
    echo->frame = frame;
    echo->state = lib.echo_init(frame, filter);
    echo->pre = lib.pre_init(frame, rate);
    if (echo->state == NULL || echo->pre == NULL) {
        if (error && error_size) snprintf(error, error_size, "the echo canceller could not start");
        assist_echo_close(echo);
        return NULL;
    }
    lib.echo_ctl(echo->state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate);
    int off = 0;
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_AGC, &off);
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_DEREVERB, &off);
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_ECHO_STATE, echo->state);
    /* The residual echo suppressor works through the noise suppressor's gains: with denoising off it does
     * nothing at all. Denoising is on with its own suppression at 1 dB (the room's noise is left as it is for
     * the recogniser); what is left of Assist's voice is taken down by up to 25 dB, and by up to 10 dB while a
     * person speaks over it (the gentlest of the settings tried, docs/voice.md "Barge-in"). */
    int on = 1, noise_db = -1, echo_db = -25, echo_active_db = -10;
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_DENOISE, &on);
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, &noise_db);
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, &echo_db);
    lib.pre_ctl(echo->pre, SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, &echo_active_db);
    return echo;
}

void assist_echo_run(assist_echo *echo, const int16_t *mic, const int16_t *reference, int16_t *out, int count) {
    if (echo == NULL) return;
    int16_t frame_out[echo->frame];
    for (int at = 0; at + echo->frame <= count; at += echo->frame) {
        lib.echo_cancellation(echo->state, mic + at, reference + at, frame_out);
        lib.pre_run(echo->pre, frame_out);
        for (int i = 0; i < echo->frame; i++) out[at + i] = frame_out[i];
    }
}

int assist_echo_path(assist_echo *echo, int32_t *out, int capacity) {
    if (echo == NULL) return 0;
    int taps = 0;
    lib.echo_ctl(echo->state, SPEEX_ECHO_GET_IMPULSE_RESPONSE_SIZE, &taps);
    if (out != NULL && taps > 0 && capacity >= taps) lib.echo_ctl(echo->state, SPEEX_ECHO_GET_IMPULSE_RESPONSE, out);
    return taps;
}

int assist_echo_learn_path(assist_echo *echo, const int32_t *path, int taps) {
    if (echo == NULL || path == NULL || taps != assist_echo_path(echo, NULL, 0)) return -1;
    /* speexdsp (the float build) gives the filter as 32767 times its taps, times the size of its FFT window
     * (two frames): the filter's transform is kept unnormalised. */
    const double scale = 1.0 / (32767.0 * 2 * echo->frame);
    /* Sparse noise: one sample in eight a pulse of either sign, its rest quiet. Its spectrum is flat, as the
     * canceller learns fastest from, and the echo is cheap to make: each pulse adds the filter once. */
    enum { seconds = 2, rate = 16000, amplitude = 12000 };
    int count = seconds * rate / echo->frame * echo->frame;
    int16_t *played = calloc((size_t)count, sizeof *played);
    int16_t *mic = calloc((size_t)count, sizeof *mic);
    double *echoed = calloc((size_t)count, sizeof *echoed);
    if (played == NULL || mic == NULL || echoed == NULL) {
        free(played);
        free(mic);
        free(echoed);
        return -1;
    }
    uint32_t seed = 0x2545F491u;
    for (int i = 0; i < count; i++) {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        if ((seed & 7) != 0) continue;
        double pulse = (seed & 8) ? amplitude : -amplitude;
        played[i] = (int16_t)pulse;
        int end = i + taps < count ? i + taps : count;
        for (int at = i; at < end; at++) echoed[at] += pulse * path[at - i] * scale;
    }
    for (int i = 0; i < count; i++) {
        /* A faint room under the echo (about 60 dB down), so that the suppressor's noise estimate is not nil. */
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        double value = echoed[i] + ((int)(seed % 41) - 20);
        mic[i] = (int16_t)(value > 32767 ? 32767 : value < -32768 ? -32768 : value);
    }
    assist_echo_run(echo, mic, played, mic, count);
    free(played);
    free(mic);
    free(echoed);
    return 0;
}

void assist_echo_reset(assist_echo *echo) {
    if (echo != NULL) lib.echo_reset(echo->state);
}

void assist_echo_close(assist_echo *echo) {
    if (echo == NULL) return;
    if (echo->pre) lib.pre_destroy(echo->pre);
    if (echo->state) lib.echo_destroy(echo->state);
    free(echo);
}

struct assist_resampler {
    SpeexResamplerState *state;
};

assist_resampler *assist_resampler_open(int from, int to) {
    pthread_once(&once, load);
    if (!lib.loaded || from <= 0 || to <= 0) return NULL;
    int status = 0;
    SpeexResamplerState *state = lib.rs_init(1, (uint32_t)from, (uint32_t)to, SPEEX_RESAMPLER_QUALITY_DESKTOP, &status);
    if (state == NULL) return NULL;
    lib.rs_skip_zeros(state);
    assist_resampler *resampler = calloc(1, sizeof *resampler);
    if (resampler == NULL) {
        lib.rs_destroy(state);
        return NULL;
    }
    resampler->state = state;
    return resampler;
}

int assist_resampler_run(assist_resampler *resampler, const int16_t *in, int count, int16_t *out, int capacity) {
    if (resampler == NULL || count <= 0 || capacity <= 0) return 0;
    uint32_t in_len = (uint32_t)count, out_len = (uint32_t)capacity;
    lib.rs_process(resampler->state, 0, in, &in_len, out, &out_len);
    return (int)out_len;
}

void assist_resampler_reset(assist_resampler *resampler) {
    if (resampler == NULL) return;
    lib.rs_reset(resampler->state);
    lib.rs_skip_zeros(resampler->state);
}

void assist_resampler_close(assist_resampler *resampler) {
    if (resampler == NULL) return;
    lib.rs_destroy(resampler->state);
    free(resampler);
}
