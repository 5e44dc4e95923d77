#define _GNU_SOURCE /* memfd_create */
#include "assist_pocketsphinx.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Debian's runtime package's sonames (libpocketsphinx3, libsphinxbase3). */
#define PS_LIBRARY "libpocketsphinx.so.3"
#define SB_LIBRARY "libsphinxbase.so.3"

/* The few types and calls used, as pocketsphinx.h, ps_search.h, cmd_ln.h and err.h declare them. */
typedef struct cmd_ln_s cmd_ln_t;
typedef struct arg_s arg_t;
typedef struct ps_decoder_s ps_decoder_t;
typedef struct ps_seg_s ps_seg_t;

/* The start of sphinxbase's feat_t (feat.h), up to its live cepstral mean, and that mean's cmn_t (cmn.h), as
 * Debian's libsphinxbase3 lays them out (mfcc_t is float: no FIXED_POINT). */
struct feat_prefix {
    int refcount;
    char *name;
    int32_t cepsize, n_stream;
    uint32_t *stream_len;
    int32_t window_size, n_sv;
    uint32_t *sv_len;
    int32_t **subvecs;
    float *sv_buf;
    int32_t sv_dim;
    int cmn;
    int32_t varnorm;
    int agc;
    void (*compute_feat)(void *, float **, float **);
    struct cmn_prefix *cmn_struct;
};
struct cmn_prefix {
    float *cmn_mean, *cmn_var, *sum;
    int32_t nframe, veclen;
};

static struct {
    const arg_t *(*args)(void);
    cmd_ln_t *(*cmd_ln_init)(cmd_ln_t *, const arg_t *, int, ...);
    int (*cmd_ln_free_r)(cmd_ln_t *);
    void (*cmd_ln_set_int_r)(cmd_ln_t *, const char *, long);
    void (*err_set_logfp)(FILE *);
    ps_decoder_t *(*init)(cmd_ln_t *);
    int (*free)(ps_decoder_t *);
    int (*set_kws)(ps_decoder_t *, const char *, const char *);
    int (*set_jsgf_string)(ps_decoder_t *, const char *, const char *);
    int (*set_lm_file)(ps_decoder_t *, const char *, const char *);
    int (*set_allphone_file)(ps_decoder_t *, const char *, const char *);
    int (*set_search)(ps_decoder_t *, const char *);
    int (*start_utt)(ps_decoder_t *);
    int (*end_utt)(ps_decoder_t *);
    int (*process_raw)(ps_decoder_t *, const int16_t *, size_t, int, int);
    const char *(*get_hyp)(ps_decoder_t *, int32_t *);
    unsigned char (*get_in_speech)(ps_decoder_t *);
    ps_seg_t *(*seg_iter)(ps_decoder_t *);
    ps_seg_t *(*seg_next)(ps_seg_t *);
    void (*seg_frames)(ps_seg_t *, int *, int *);
    void (*seg_free)(ps_seg_t *);
    char *(*lookup_word)(ps_decoder_t *, const char *);
    int (*add_word)(ps_decoder_t *, const char *, const char *, int);
    const char *(*seg_word)(ps_seg_t *);
    int32_t (*seg_prob)(ps_seg_t *, int32_t *, int32_t *, int32_t *);
    /* Optional: without them the cepstral mean is left to drift (assist_spotter_hold_mean). */
    struct feat_prefix *(*get_feat)(ps_decoder_t *);
    void (*cmn_live_get)(struct cmn_prefix *, float *);
    void (*cmn_live_set)(struct cmn_prefix *, const float *);
    int loaded;
    char error[256];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *symbol(void *handle, const char *library, const char *name, int *missing) {
    void *found = dlsym(handle, name);
    if (found == NULL && !*missing) {
        snprintf(lib.error, sizeof lib.error, "%s has no %s", library, name);
        *missing = 1;
    }
    return found;
}

static void load(void) {
    void *base = dlopen(SB_LIBRARY, RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    void *ps = base ? dlopen(PS_LIBRARY, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) : NULL;
    if (ps == NULL) {
        const char *why = dlerror();
        snprintf(lib.error, sizeof lib.error, "%s",
                 why ? why : PS_LIBRARY " cannot be opened (install libpocketsphinx3 and pocketsphinx-en-us)");
        return;
    }
    int missing = 0;
    *(void **)&lib.cmd_ln_init = symbol(base, SB_LIBRARY, "cmd_ln_init", &missing);
    *(void **)&lib.cmd_ln_free_r = symbol(base, SB_LIBRARY, "cmd_ln_free_r", &missing);
    *(void **)&lib.cmd_ln_set_int_r = symbol(base, SB_LIBRARY, "cmd_ln_set_int_r", &missing);
    *(void **)&lib.err_set_logfp = symbol(base, SB_LIBRARY, "err_set_logfp", &missing);
    *(void **)&lib.args = symbol(ps, PS_LIBRARY, "ps_args", &missing);
    *(void **)&lib.init = symbol(ps, PS_LIBRARY, "ps_init", &missing);
    *(void **)&lib.free = symbol(ps, PS_LIBRARY, "ps_free", &missing);
    *(void **)&lib.set_kws = symbol(ps, PS_LIBRARY, "ps_set_kws", &missing);
    *(void **)&lib.set_jsgf_string = symbol(ps, PS_LIBRARY, "ps_set_jsgf_string", &missing);
    *(void **)&lib.set_lm_file = symbol(ps, PS_LIBRARY, "ps_set_lm_file", &missing);
    *(void **)&lib.set_allphone_file = symbol(ps, PS_LIBRARY, "ps_set_allphone_file", &missing);
    *(void **)&lib.set_search = symbol(ps, PS_LIBRARY, "ps_set_search", &missing);
    *(void **)&lib.start_utt = symbol(ps, PS_LIBRARY, "ps_start_utt", &missing);
    *(void **)&lib.end_utt = symbol(ps, PS_LIBRARY, "ps_end_utt", &missing);
    *(void **)&lib.process_raw = symbol(ps, PS_LIBRARY, "ps_process_raw", &missing);
    *(void **)&lib.get_hyp = symbol(ps, PS_LIBRARY, "ps_get_hyp", &missing);
    *(void **)&lib.get_in_speech = symbol(ps, PS_LIBRARY, "ps_get_in_speech", &missing);
    *(void **)&lib.seg_iter = symbol(ps, PS_LIBRARY, "ps_seg_iter", &missing);
    *(void **)&lib.seg_next = symbol(ps, PS_LIBRARY, "ps_seg_next", &missing);
    *(void **)&lib.seg_frames = symbol(ps, PS_LIBRARY, "ps_seg_frames", &missing);
    *(void **)&lib.seg_free = symbol(ps, PS_LIBRARY, "ps_seg_free", &missing);
    *(void **)&lib.lookup_word = symbol(ps, PS_LIBRARY, "ps_lookup_word", &missing);
    *(void **)&lib.add_word = symbol(ps, PS_LIBRARY, "ps_add_word", &missing);
    *(void **)&lib.seg_word = symbol(ps, PS_LIBRARY, "ps_seg_word", &missing);
    *(void **)&lib.seg_prob = symbol(ps, PS_LIBRARY, "ps_seg_prob", &missing);
    lib.loaded = !missing;
    lib.get_feat = dlsym(ps, "ps_get_feat");
    lib.cmn_live_get = dlsym(base, "cmn_live_get");
    lib.cmn_live_set = dlsym(base, "cmn_live_set");
    /* pocketsphinx logs every step to stderr: silence it (the host says what matters). */
    if (lib.loaded) lib.err_set_logfp(NULL);
}

#define MAX_PENDING 16

struct assist_spotter {
    cmd_ln_t *config;
    ps_decoder_t *decoder;
    int grammar;         /* decoding whole utterances against a grammar rather than spotting */
    int prompt;          /* keyphrase mode: the prompt search is in use (assist_spotter_set_prompt) */
    int was_in_speech;   /* speech had started in this utterance */
    int skipping;        /* keyphrase mode: samples of a quiet room are passed over (assist_spotter_skip) */
    int64_t skipped_samples; /* all samples passed over: pocketsphinx's frame count leaves them out */
    int64_t utt_start;   /* frames fed before the current utterance began */
    int64_t fed_samples; /* all samples fed */
    int reported;        /* keyphrase mode: segments of this utterance already reported, */
    struct {             /* as their first and last frames and a hash of the phrase */
        int sf, ef;
        unsigned hash;
    } seen[256];
    struct cmn_prefix *cmn;       /* the decoder's live cepstral mean (NULL: never held) */
    float speech_mean[64];        /* that mean when speech was last heard (first: the model's own) */
    int pending;         /* results waiting to be read, oldest first */
    struct {
        char phrase[256];
        int64_t start_frame, end_frame;
        int32_t score;
    } results[MAX_PENDING];
};

static void copy(char *to, size_t size, const char *from) {
    if (to == NULL || size == 0) return;
    snprintf(to, size, "%s", from ? from : "");
}

static int use_search(assist_spotter *spotter, const char *name, int grammar);
static int take_spotted(assist_spotter *spotter);

static assist_spotter *open_with(const char *hmm, const char *dict, const char *kws_file, const char *ds,
                                  const char *topn, const char *beam, char *error, size_t error_size) {
    pthread_once(&once, load);
    if (!lib.loaded) {
        copy(error, error_size, lib.error);
        return NULL;
    }
    cmd_ln_t *config = lib.cmd_ln_init(NULL, lib.args(), 1, "-hmm", hmm, "-dict", dict, "-kws", kws_file,
                                       "-samprate", "16000", "-remove_silence", "no", "-ds", ds, "-kws_delay", "2",
                                       "-beam", beam, "-pbeam", beam, "-topn", topn, NULL);
    if (config == NULL) {
        copy(error, error_size, "the voice model's settings were refused (check the model folder)");
        return NULL;
    }
    ps_decoder_t *decoder = lib.init(config);
    if (decoder == NULL) {
        lib.cmd_ln_free_r(config);
        copy(error, error_size, "the voice model or the phrase list cannot be loaded (a word missing from the dictionary?)");
        return NULL;
    }
    assist_spotter *spotter = calloc(1, sizeof *spotter);
    if (spotter == NULL) {
        lib.free(decoder);
        lib.cmd_ln_free_r(config);
        copy(error, error_size, "out of memory");
        return NULL;
    }
    spotter->config = config;
    spotter->decoder = decoder;
    if (lib.get_feat && lib.cmn_live_get && lib.cmn_live_set) {
        struct feat_prefix *feat = lib.get_feat(decoder);
        struct cmn_prefix *cmn = feat ? feat->cmn_struct : NULL;
        if (cmn && cmn->veclen > 0 && cmn->veclen <= (int32_t)(sizeof spotter->speech_mean / sizeof(float))) {
            spotter->cmn = cmn;
            lib.cmn_live_get(cmn, spotter->speech_mean);
        }
    }
    lib.start_utt(decoder);
    return spotter;
}

/* The listening searches compute the acoustic model's codebooks every third frame and score each frame with the 8
 * best Gaussians of each (pocketsphinx's defaults: every frame, 4). Measured on the bench's natural voices (two
 * sets, 180 launch phrases and 90 one-word commands said alone among 41 minutes of sentences): every second frame
 * with 4 heard 95.0 % and 86.7 % of them; every third with 8, 98.3 % and 90.0 %, the same false alarms, for about
 * the same CPU (docs/voice.md). */
assist_spotter *assist_spotter_open(const char *hmm, const char *dict, const char *kws_file, char *error,
                                    size_t error_size) {
    return open_with(hmm, dict, kws_file, "3", "8", "1e-48", error, error_size);
}

assist_spotter *assist_spotter_open_precise(const char *hmm, const char *dict, const char *kws_file, char *error,
                                            size_t error_size) {
    return open_with(hmm, dict, kws_file, "1", "4", "1e-48", error, error_size);
}

/* Measured on natural voices: the free phone loop at pocketsphinx's default beams took twice real time; at
 * 1e-10 a sixth of it, with the same separation of commands from other speech. */
assist_spotter *assist_spotter_open_phone_loop(const char *hmm, const char *dict, const char *kws_file, char *error,
                                               size_t error_size) {
    assist_spotter *spotter = open_with(hmm, dict, kws_file, "1", "4", "1e-10", error, error_size);
    if (spotter == NULL) return NULL;
    lib.end_utt(spotter->decoder);
    if (lib.set_allphone_file(spotter->decoder, "phones", NULL) < 0 || use_search(spotter, "phones", 1) < 0) {
        copy(error, error_size, "the voice model has no phone loop");
        assist_spotter_close(spotter);
        return NULL;
    }
    return spotter;
}

/* Starts a new utterance of the search in use: nothing of it reported yet, no speech heard in it yet. */
static int begin_utterance(assist_spotter *spotter) {
    spotter->skipping = 0;
    spotter->utt_start = spotter->fed_samples / 160;
    spotter->was_in_speech = 0;
    spotter->reported = 0;
    return lib.start_utt(spotter->decoder);
}

static int restart(assist_spotter *spotter) {
    lib.end_utt(spotter->decoder);
    return begin_utterance(spotter);
}

long long assist_spotter_utterance_frames(assist_spotter *spotter) {
    if (spotter == NULL || spotter->grammar || spotter->skipping) return 0;
    return (long long)(spotter->fed_samples / 160 - spotter->utt_start);
}

int assist_spotter_restart(assist_spotter *spotter) {
    if (spotter == NULL || spotter->grammar) return -1;
    return restart(spotter) < 0 ? -1 : 0;
}

static unsigned hash(const char *text) {
    unsigned value = 2166136261u;
    for (; text && *text; text++) value = (value ^ (unsigned char)*text) * 16777619u;
    return value;
}

/* True the first time a segment is met in this utterance (the list is not in a stable order). */
static int first_time(assist_spotter *spotter, int sf, int ef, const char *word) {
    unsigned h = hash(word);
    for (int i = 0; i < spotter->reported; i++) {
        if (spotter->seen[i].sf == sf && spotter->seen[i].ef == ef && spotter->seen[i].hash == h) return 0;
    }
    if (spotter->reported < (int)(sizeof spotter->seen / sizeof spotter->seen[0])) {
        spotter->seen[spotter->reported].sf = sf;
        spotter->seen[spotter->reported].ef = ef;
        spotter->seen[spotter->reported].hash = h;
        spotter->reported++;
    }
    return 1;
}

static void push(assist_spotter *spotter, const char *phrase, int64_t start, int64_t end, int32_t score) {
    if (spotter->pending == MAX_PENDING) {
        memmove(&spotter->results[0], &spotter->results[1], sizeof spotter->results[0] * (MAX_PENDING - 1));
        spotter->pending--;
    }
    copy(spotter->results[spotter->pending].phrase, sizeof spotter->results[0].phrase, phrase);
    spotter->results[spotter->pending].start_frame = start;
    spotter->results[spotter->pending].end_frame = end;
    spotter->results[spotter->pending].score = score;
    spotter->pending++;
}

/* Switches to the search `name`, just added (`grammar`: one whose result is the whole utterance), and starts a new
 * utterance; nothing spotted before is reported. */
static int use_search(assist_spotter *spotter, const char *name, int grammar) {
    if (lib.set_search(spotter->decoder, name) < 0) return -1;
    spotter->grammar = grammar;
    spotter->pending = 0;
    return begin_utterance(spotter) < 0 ? -1 : 0;
}

/* Two keyphrase searches over the same list. pocketsphinx reports a phrase once its score has stopped rising for
 * `-kws_delay` frames (the steady search: 2); the prompt one (0) reports it the frame it passes the threshold,
 * often before the word's last sound has ended. Over Assist's reading, "stop" and the others were reported a p95
 * 210-220 ms after the word's end by the steady search, 80-100 ms by the prompt one, with as many heard and
 * nothing in the readings alone; always-on, where the pause rules judge where a phrase ends, the prompt search
 * heard fewer one-word commands (docs/voice.md, "Barge-in"). The caller uses it while Assist sounds. */
#define STEADY_SEARCH "keyphrases"
#define PROMPT_SEARCH "keyphrases-prompt"

int assist_spotter_set_keyphrases(assist_spotter *spotter, const char *kws_file) {
    if (spotter == NULL || kws_file == NULL) return -1;
    lib.end_utt(spotter->decoder);
    if (lib.set_kws(spotter->decoder, STEADY_SEARCH, kws_file) < 0) return -1;
    /* ps_set_kws reads the delay from the decoder's settings, which are `config`. */
    lib.cmd_ln_set_int_r(spotter->config, "-kws_delay", 0);
    int made = lib.set_kws(spotter->decoder, PROMPT_SEARCH, kws_file);
    lib.cmd_ln_set_int_r(spotter->config, "-kws_delay", 2);
    if (made < 0) return -1;
    return use_search(spotter, spotter->prompt ? PROMPT_SEARCH : STEADY_SEARCH, 0);
}

int assist_spotter_set_prompt(assist_spotter *spotter, int prompt) {
    if (spotter == NULL || spotter->grammar) return -1;
    prompt = prompt != 0;
    if (spotter->prompt == prompt) return 0;
    int found = 0;
    /* Switching is no change in the sound: the live cepstral mean is kept across it. Ending the utterance moves
     * the mean to what was fed since the utterance began (pocketsphinx updates it at each utterance's end), and the
     * switch to the prompt search comes as Assist begins to sound, a tenth of a second into it. Measured on the
     * bench's first seconds of a reading (echo twice as loud as the voice, the canceller taught the room): "stop",
     * "pause", "next" and "repeat" said at 4 s were heard in what the canceller left when it was decoded alone, but
     * the searches reported nothing until 8.4 s; with the mean kept across the switch, all four were heard. */
    float mean[sizeof spotter->speech_mean / sizeof(float)];
    if (spotter->cmn) lib.cmn_live_get(spotter->cmn, mean);
    if (!spotter->skipping) {
        lib.end_utt(spotter->decoder);
        found = take_spotted(spotter);
        lib.end_utt(spotter->decoder); /* a phrase spotted restarted the search */
    }
    if (spotter->cmn) lib.cmn_live_set(spotter->cmn, mean);
    if (lib.set_search(spotter->decoder, prompt ? PROMPT_SEARCH : STEADY_SEARCH) < 0) return -1;
    spotter->prompt = prompt;
    /* A search passing over a quiet room begins its next utterance when sound is fed again. */
    if (!spotter->skipping && begin_utterance(spotter) < 0) return -1;
    return found > 0 ? 1 : 0;
}

int assist_spotter_is_prompt(assist_spotter *spotter) {
    return spotter == NULL || spotter->grammar ? -1 : spotter->prompt;
}

int assist_spotter_set_grammar(assist_spotter *spotter, const char *jsgf) {
    if (spotter == NULL || jsgf == NULL) return -1;
    lib.end_utt(spotter->decoder);
    if (lib.set_jsgf_string(spotter->decoder, "grammar", jsgf) < 0) return -1;
    return use_search(spotter, "grammar", 1);
}

int assist_spotter_set_language_model(assist_spotter *spotter, const char *lm_file) {
    if (spotter == NULL || lm_file == NULL) return -1;
    lib.end_utt(spotter->decoder);
    if (lib.set_lm_file(spotter->decoder, "dictation", lm_file) < 0) return -1;
    return use_search(spotter, "dictation", 1);
}

/* Keyphrase mode: each segment is one phrase spotted; those not yet reported are queued. The utterance goes
 * on (a longer phrase that begins with a shorter one can still complete); the caller restarts a long one at a
 * quiet moment (`assist_spotter_restart`), and one that reaches ASSIST_SPOTTER_MAX_UTTERANCE_FRAMES is
 * restarted here, to keep the search small. */
static int take_spotted(assist_spotter *spotter) {
    int32_t score = 0;
    const char *hyp = lib.get_hyp(spotter->decoder, &score);
    int found = 0;
    if (hyp != NULL && hyp[0] != '\0') {
        for (ps_seg_t *seg = lib.seg_iter(spotter->decoder); seg != NULL; seg = lib.seg_next(seg)) {
            int sf = 0, ef = 0;
            lib.seg_frames(seg, &sf, &ef);
            const char *word = lib.seg_word(seg);
            if (!first_time(spotter, sf, ef, word)) continue;
            int32_t ascr = 0, lscr = 0, lback = 0;
            lib.seg_prob(seg, &ascr, &lscr, &lback);
            /* Measured: keyphrase segments count frames from the decoder's first, across utterances; the
             * frames passed over are counted in. */
            int64_t passed = spotter->skipped_samples / 160;
            push(spotter, word, sf + passed, ef + passed, ascr);
            found++;
        }
    }
    /* A search that spotted a phrase starts afresh (it would not spot the same phrase again in this
     * utterance); phrases that share words are in other searches, so none is cut off. */
    int64_t frames = spotter->fed_samples / 160 - spotter->utt_start;
    if (found > 0 || frames > ASSIST_SPOTTER_MAX_UTTERANCE_FRAMES) restart(spotter);
    return found;
}

/* Grammar mode: the whole utterance's words. */
static int take_utterance(assist_spotter *spotter) {
    int32_t score = 0;
    const char *hyp = lib.get_hyp(spotter->decoder, &score);
    if (hyp == NULL || hyp[0] == '\0') return 0;
    int first = -1, last = -1;
    for (ps_seg_t *seg = lib.seg_iter(spotter->decoder); seg != NULL; seg = lib.seg_next(seg)) {
        int sf = 0, ef = 0;
        lib.seg_frames(seg, &sf, &ef);
        if (first < 0) first = sf;
        last = ef;
    }
    push(spotter, hyp, spotter->utt_start + (first < 0 ? 0 : first), spotter->utt_start + (last < 0 ? 0 : last),
         score);
    return 1;
}

/* pocketsphinx's live cepstral mean follows everything it is fed: after some 8 s of a quiet room it is the
 * room's, and the next word said no longer matches the model (measured: "stop" after 7 s of a quiet room was
 * spotted, after 9 s or more it never was, at any threshold). pocketsphinx's own voice activity flag stays up in
 * a quiet room, so the caller, who measures loudness, says when nobody has spoken for a while: the mean is
 * held at what it was when speech was last heard. */
void assist_spotter_hold_mean(assist_spotter *spotter, int quiet) {
    if (spotter == NULL || spotter->cmn == NULL) return;
    if (quiet) {
        lib.cmn_live_set(spotter->cmn, spotter->speech_mean);
    } else {
        lib.cmn_live_get(spotter->cmn, spotter->speech_mean);
    }
}

int assist_spotter_skip(assist_spotter *spotter, size_t count) {
    if (spotter == NULL || spotter->grammar || spotter->was_in_speech) return -1;
    int found = 0;
    if (!spotter->skipping) {
        lib.end_utt(spotter->decoder);
        found = take_spotted(spotter);
        lib.end_utt(spotter->decoder); /* a phrase spotted restarted the search */
        spotter->skipping = 1;
    }
    spotter->fed_samples += (int64_t)count;
    spotter->skipped_samples += (int64_t)count;
    return found > 0 ? 1 : 0;
}

int assist_spotter_feed(assist_spotter *spotter, const int16_t *samples, size_t count) {
    if (spotter == NULL || (samples == NULL && count > 0)) return -1;
    if (spotter->skipping) begin_utterance(spotter);
    if (lib.process_raw(spotter->decoder, samples, count, 0, 0) < 0) return -1;
    int64_t before = spotter->fed_samples;
    spotter->fed_samples += (int64_t)count;
    /* pocketsphinx's voice flag is looked at once per 100 ms of sound, however finely the sound is fed: utterances
     * end where they did when voice was read in 100 ms chunks, which the thresholds were measured with (the flag
     * dips inside words). Phrases are still reported from each piece. */
    int looked = before / ASSIST_SPOTTER_LOOK_SAMPLES != spotter->fed_samples / ASSIST_SPOTTER_LOOK_SAMPLES;
    unsigned char in_speech = looked ? lib.get_in_speech(spotter->decoder) : spotter->was_in_speech;
    if (!spotter->grammar) {
        int found = take_spotted(spotter);
        if (!looked) return found > 0 ? 1 : 0;
        /* As pocketsphinx_continuous does: each stretch of speech is an utterance of its own, so the search
         * starts clean after a pause (phrases already spotted in it are not reported again). */
        if (in_speech) spotter->was_in_speech = 1;
        if (!in_speech && spotter->was_in_speech) {
            lib.end_utt(spotter->decoder);
            found += take_spotted(spotter);
            begin_utterance(spotter);
        }
        return found > 0 ? 1 : 0;
    }
    if (!looked) return 0;
    if (in_speech) spotter->was_in_speech = 1;
    if (!in_speech && spotter->was_in_speech) {
        lib.end_utt(spotter->decoder);
        int found = take_utterance(spotter);
        begin_utterance(spotter);
        return found;
    }
    return 0;
}

int assist_spotter_decode(assist_spotter *spotter, const int16_t *samples, size_t count, char *phrase,
                          size_t phrase_size) {
    if (spotter == NULL || samples == NULL || phrase == NULL || phrase_size == 0) return -1;
    phrase[0] = '\0';
    lib.end_utt(spotter->decoder);
    if (lib.start_utt(spotter->decoder) < 0) return -1;
    int processed = lib.process_raw(spotter->decoder, samples, count, 0, 1);
    lib.end_utt(spotter->decoder);
    int32_t score = 0;
    const char *hyp = processed < 0 ? NULL : lib.get_hyp(spotter->decoder, &score);
    if (hyp != NULL) copy(phrase, phrase_size, hyp);
    /* No utterance is left open: ending an empty one of a grammar with loops (a window's request words)
     * crashed pocketsphinx's FSG search when the grammar was changed next. */
    return processed < 0 ? -1 : 0;
}

int assist_spotter_decode_segments(assist_spotter *spotter, const int16_t *samples, size_t count,
                                   assist_segment *segments, int capacity) {
    if (spotter == NULL || samples == NULL || (segments == NULL && capacity > 0)) return -1;
    lib.end_utt(spotter->decoder);
    if (lib.start_utt(spotter->decoder) < 0) return -1;
    int processed = lib.process_raw(spotter->decoder, samples, count, 0, 1);
    lib.end_utt(spotter->decoder);
    int written = 0;
    int32_t score = 0;
    if (processed >= 0 && lib.get_hyp(spotter->decoder, &score) != NULL) {
        for (ps_seg_t *seg = lib.seg_iter(spotter->decoder); seg != NULL; seg = lib.seg_next(seg)) {
            if (written == capacity) {
                lib.seg_free(seg);
                break;
            }
            int sf = 0, ef = 0;
            int32_t ascr = 0, lscr = 0, lback = 0;
            lib.seg_frames(seg, &sf, &ef);
            lib.seg_prob(seg, &ascr, &lscr, &lback);
            copy(segments[written].word, sizeof segments[written].word, lib.seg_word(seg));
            segments[written].start_frame = sf;
            segments[written].end_frame = ef;
            segments[written].acoustic = ascr;
            written++;
        }
    }
    return processed < 0 ? -1 : written;
}

int assist_spotter_result(assist_spotter *spotter, char *phrase, size_t phrase_size, int64_t *start_frame,
                          int64_t *end_frame, int32_t *score) {
    if (spotter == NULL || spotter->pending == 0) return -1;
    copy(phrase, phrase_size, spotter->results[0].phrase);
    if (start_frame) *start_frame = spotter->results[0].start_frame;
    if (end_frame) *end_frame = spotter->results[0].end_frame;
    if (score) *score = spotter->results[0].score;
    memmove(&spotter->results[0], &spotter->results[1], sizeof spotter->results[0] * (MAX_PENDING - 1));
    spotter->pending--;
    return 0;
}

int assist_spotter_add_word(assist_spotter *spotter, const char *word, const char *phones) {
    if (spotter == NULL || word == NULL || phones == NULL) return -1;
    return lib.add_word(spotter->decoder, word, phones, 1) < 0 ? -1 : 0;
}

int assist_spotter_knows(assist_spotter *spotter, const char *word) {
    if (spotter == NULL || word == NULL) return -1;
    char *phones = lib.lookup_word(spotter->decoder, word);
    if (phones == NULL) return 0;
    free(phones);
    return 1;
}

int assist_spotter_phone_count(assist_spotter *spotter, const char *word) {
    if (spotter == NULL || word == NULL) return 0;
    char *phones = lib.lookup_word(spotter->decoder, word);
    if (phones == NULL) return 0;
    int count = phones[0] != '\0';
    for (const char *c = phones; *c; c++) count += *c == ' ';
    free(phones);
    return count;
}

void assist_spotter_close(assist_spotter *spotter) {
    if (spotter == NULL) return;
    lib.end_utt(spotter->decoder);
    lib.free(spotter->decoder);
    lib.cmd_ln_free_r(spotter->config);
    free(spotter);
}

int assist_spotter_list_open(const char *text, char *path, size_t path_size) {
    if (text == NULL || path == NULL || path_size == 0) return -1;
    int fd = memfd_create("assist-phrases", MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text), written = 0;
    while (written < length) {
        ssize_t made = write(fd, text + written, length - written);
        if (made <= 0) {
            close(fd);
            return -1;
        }
        written += (size_t)made;
    }
    if (snprintf(path, path_size, "/proc/self/fd/%d", fd) >= (int)path_size) {
        close(fd);
        return -1;
    }
    return fd;
}
