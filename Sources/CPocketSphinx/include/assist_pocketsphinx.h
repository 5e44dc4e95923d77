/* Keyword spotting with Debian's pocketsphinx (0.8+5prealpha), opened with dlopen on first use so that
 * commands which never listen do not load it. One spotter is used by one thread at a time. */
#ifndef ASSIST_POCKETSPHINX_H
#define ASSIST_POCKETSPHINX_H

#include <stddef.h>
#include <stdint.h>

typedef struct assist_spotter assist_spotter;

/* pocketsphinx takes a phrase list only by a file's name, and reads it when a search is opened or set: `text` in
 * an anonymous memory file (memfd), whose name (/proc/self/fd/N) goes into `path`. Nothing is written to a disk, so
 * nothing is left behind however the process ends. Returns the descriptor, closed by the caller once the search
 * has read it, or -1. */
int assist_spotter_list_open(const char *text, char *path, size_t path_size);

/* Opens a spotter on the acoustic model folder `hmm` and pronunciation dictionary `dict`, searching for the
 * keyphrases of `kws_file` (one "phrase /threshold/" a line). NULL with a sentence in `error` when the library,
 * the model or the list cannot be used. */
assist_spotter *assist_spotter_open(const char *hmm, const char *dict, const char *kws_file, char *error,
                                    size_t error_size);

/* The same, computing the acoustic model on every frame (-ds 1, the 4 best Gaussians): three times the CPU, for
 * decoding a few seconds once (a command's argument, a window, the judge) rather than listening all the time. */
assist_spotter *assist_spotter_open_precise(const char *hmm, const char *dict, const char *kws_file, char *error,
                                            size_t error_size);

/* The same, decoding with every phone in a free loop (pocketsphinx's allphone search, narrow beams): the
 * best the acoustic model can say of any sound, against which a command's fit is judged. */
assist_spotter *assist_spotter_open_phone_loop(const char *hmm, const char *dict, const char *kws_file, char *error,
                                               size_t error_size);

/* Switches to the keyphrases of `kws_file` (or, with `jsgf`, to a JSGF grammar given as text, decoded as whole
 * utterances). 0 on success. */
int assist_spotter_set_keyphrases(assist_spotter *spotter, const char *kws_file);
int assist_spotter_set_grammar(assist_spotter *spotter, const char *jsgf);
/* Decodes whole utterances as open text with the n-gram language model in `lm_file` (dictation). 0 on success. */
int assist_spotter_set_language_model(assist_spotter *spotter, const char *lm_file);

/* Feeds 16 kHz mono samples. Returns 1 when phrases were spotted in them (read each with
 * assist_spotter_result), 0 when not, -1 on error. In grammar mode a result comes when speech ends. */
int assist_spotter_feed(assist_spotter *spotter, const int16_t *samples, size_t count);

/* Keyphrase mode: passes over `count` samples of a quiet room without decoding them (no acoustic model, no
 * search), counted, so what is fed afterwards keeps its frames; the next feed starts a new utterance. The
 * utterance in progress ends first: 1 when that reported phrases (read them as after a feed), 0 when not, -1
 * when the samples must be fed instead (pocketsphinx hears speech going on, or a grammar is decoded). */
int assist_spotter_skip(assist_spotter *spotter, size_t count);

/* The oldest phrase spotted and not yet read, its first and last 10 ms frame counted from the first sample
 * ever fed, and its score (a log probability; larger is surer). 0 when there was one, -1 when none waits. */
int assist_spotter_result(assist_spotter *spotter, char *phrase, size_t phrase_size, int64_t *start_frame,
                          int64_t *end_frame, int32_t *score);

/* Grammar mode: decodes `samples` as one whole utterance and writes the words heard ("" for none) into
 * `phrase`. Returns 0, or -1 on error. Used to choose between rival phrases over the same sound. */
int assist_spotter_decode(assist_spotter *spotter, const int16_t *samples, size_t count, char *phrase,
                          size_t phrase_size);

/* One word (or phone, or silence) of a decoded utterance: its first and last 10 ms frame from the start of the
 * samples, and its acoustic score (a log likelihood in the decoder's units; larger is better). */
typedef struct {
    char word[64];
    int32_t start_frame;
    int32_t end_frame;
    int32_t acoustic;
} assist_segment;

/* Decodes `samples` as one whole utterance with the search set (a grammar, or the phone loop) and writes up to
 * `capacity` of its segments, in order. Returns how many, or -1 on error. */
int assist_spotter_decode_segments(assist_spotter *spotter, const int16_t *samples, size_t count,
                                   assist_segment *segments, int capacity);

/* Adds `word` with `phones` (space-separated, as the dictionary writes them) for the searches set after it. 0 on
 * success. */
int assist_spotter_add_word(assist_spotter *spotter, const char *word, const char *phones);

/* 1 when `word` is in the dictionary, 0 when not, -1 when the spotter cannot tell. */
int assist_spotter_knows(assist_spotter *spotter, const char *word);

/* How many phones the dictionary gives `word` (its first pronunciation); 0 when it lacks the word. */
int assist_spotter_phone_count(assist_spotter *spotter, const char *word);

/* An utterance ends where pocketsphinx's voice flag has fallen, looked at once per this many samples fed (100 ms),
 * whatever the size of the pieces fed: fed in small pieces, phrases are reported sooner and cut no more often. */
#define ASSIST_SPOTTER_LOOK_SAMPLES 1600

/* Before feeding: `quiet` 1 when nobody has spoken for a while (the caller measures loudness), 0 otherwise. While
 * quiet, the decoder's cepstral mean is held at what it was when speech was last heard, instead of sinking to the
 * quiet room's, where a word said after some 8 s of quiet is no longer recognised. */
void assist_spotter_hold_mean(assist_spotter *spotter, int quiet);

/* Keyphrase mode: how long the current utterance has run, in 10 ms frames. Spotting continues across an
 * utterance that never ends (pocketsphinx's voice flag stays up in some rooms); its search grows, so the caller
 * restarts it with `assist_spotter_restart` at a quiet moment, where no word is cut in two. An utterance is
 * restarted anyway after `ASSIST_SPOTTER_MAX_UTTERANCE_FRAMES`. */
#define ASSIST_SPOTTER_MAX_UTTERANCE_FRAMES 6000
long long assist_spotter_utterance_frames(assist_spotter *spotter);
/* Ends the utterance and starts a new one (keyphrase mode). */
int assist_spotter_restart(assist_spotter *spotter);

/* Keyphrase mode: whether a phrase is reported the frame its score passes its threshold (`prompt` 1), or once
 * the score has stopped rising for two frames (0, the default). The caller switches at a quiet moment: the
 * utterance ends and a new one starts. Returns 1 when phrases were spotted as the utterance ended (read them
 * with assist_spotter_result), 0 when not, -1 on error or in grammar mode. `assist_spotter_is_prompt`: the
 * current choice, or -1 in grammar mode. */
int assist_spotter_set_prompt(assist_spotter *spotter, int prompt);
int assist_spotter_is_prompt(assist_spotter *spotter);

void assist_spotter_close(assist_spotter *spotter);

#endif
