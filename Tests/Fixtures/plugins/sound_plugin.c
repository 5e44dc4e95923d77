/*
 * A C99 plugin that drives the sound services for the host's tests: speech/1, cues/1 and audio-in/1.
 * Its first argument picks the scenario:
 *   speak    speak a sentence, count its word callbacks, then say how it ended and finish
 *   cancel   speak a long text and stop it at the second word; report the outcome
 *   cues     play the found earcon and a left dot, stop the dot after 0.6 s, finish
 *   record   open the microphone at 16 kHz mono, read it to the end on a worker, report the frames
 *   bad      try the mistakes: empty text, an unknown priority and earcon, reading on main
 * Results are said with dialog.say so the test reads them from the printed lines.
 */
#include "fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct state {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_speech_service *speech;
    const assist_cues_service *cues;
    const assist_audio_in_service *audio;
    const assist_clock_service *clock;
    const assist_worker_service *worker;
    assist_audio_stream *stream;
    uint64_t utterance;
    int words;
    int stop_at_word;
    unsigned long frames;
} state;

static void report(state *s, const char *text) { s->dialog->say(s->host, text, ASSIST_PRIORITY_MESSAGE); }

static void on_word(void *user, uint64_t utterance, uint32_t char_offset, uint32_t byte_offset, uint32_t length) {
    state *s = user;
    (void)char_offset;
    (void)byte_offset;
    (void)length;
    s->words++;
    if (s->words == s->stop_at_word && s->utterance == utterance && s->speech->stop(s->host, utterance) != ASSIST_OK) {
        report(s, "Stop failed.");
    }
}

static void on_done(void *user, uint64_t utterance, assist_speech_outcome outcome) {
    state *s = user;
    char line[128];
    snprintf(line, sizeof line, "Utterance %s after %d words, id matches: %s.",
             outcome == ASSIST_SPEECH_FINISHED ? "finished" : "cancelled", s->words,
             utterance == s->utterance ? "yes" : "no");
    report(s, line);
    s->session->finish(s->host, ASSIST_OK);
}

static void stop_dot(void *user, uint64_t timer) {
    state *s = user;
    (void)timer;
    s->cues->stop(s->host);
    report(s, "Cues done.");
    s->session->finish(s->host, ASSIST_OK);
}

static void recorded(void *user) {
    state *s = user;
    char line[96];
    snprintf(line, sizeof line, "Read %lu frames.", s->frames);
    s->audio->close(s->host, s->stream);
    report(s, line);
    s->session->finish(s->host, ASSIST_OK);
}

static void read_all(void *user) {
    state *s = user;
    int16_t buffer[1600];
    uint32_t got = 0;
    do {
        if (s->audio->read(s->host, s->stream, buffer, 1600, &got) != ASSIST_OK) break;
        s->frames += got;
    } while (got > 0);
    s->worker->post_main(s->host, recorded, s);
}

static assist_status start(assist_plugin *p, int32_t argc, const char *const *argv, char **err) {
    state *s = p->plugin_data;
    const char *scenario = argc > 0 ? argv[0] : "speak";
    assist_speech_options options;
    memset(&options, 0, sizeof options);
    options.struct_size = sizeof options;
    options.priority = ASSIST_PRIORITY_TEXT;
    options.words_per_minute = 300;
    if (strcmp(scenario, "speak") == 0) {
        return s->speech->speak(s->host, "Sound plugin speaking now.", &options, on_done, on_word, s, &s->utterance);
    }
    if (strcmp(scenario, "cancel") == 0) {
        options.flags = ASSIST_SPEECH_NO_PRINT;
        s->stop_at_word = 2;
        return s->speech->speak(s->host, "one two three four five six seven eight nine ten eleven twelve", &options,
                                on_done, on_word, s, &s->utterance);
    }
    if (strcmp(scenario, "cues") == 0) {
        s->cues->play(s->host, "found", 1.0, 0.0);
        s->cues->guidance(s->host, ASSIST_CUE_DOT, 0.58, -0.6, 0.0);
        return s->clock->timer_add(s->host, 600, false, stop_dot, s, NULL);
    }
    if (strcmp(scenario, "record") == 0) {
        assist_status status = s->audio->open(s->host, 16000, 1, &s->stream, err);
        if (status != ASSIST_OK) return status;
        return s->worker->schedule(s->host, read_all, s);
    }
    if (strcmp(scenario, "bad") == 0) {
        char line[256];
        int16_t sample;
        uint32_t got;
        assist_status empty = s->speech->speak(s->host, "   ", NULL, on_done, NULL, s, NULL);
        options.priority = 9;
        assist_status priority = s->speech->speak(s->host, "x", &options, on_done, NULL, s, NULL);
        assist_status earcon = s->cues->play(s->host, "kazoo", 1.0, 0.0);
        assist_status pattern = s->cues->guidance(s->host, 42, 0.5, 0.0, 0.0);
        assist_status stop = s->speech->stop(s->host, 987654);
        assist_status read = s->audio->read(s->host, (assist_audio_stream *)s, &sample, 1, &got);
        snprintf(line, sizeof line, "Empty %s, priority %s, earcon %s, pattern %s, stop %s, read %s.",
                 assist_status_name(empty), assist_status_name(priority), assist_status_name(earcon),
                 assist_status_name(pattern), assist_status_name(stop), assist_status_name(read));
        report(s, line);
        s->session->finish(s->host, ASSIST_OK);
        return ASSIST_OK;
    }
    return ASSIST_E_INVALID;
}

static void setup(state *s, const assist_host *host) {
    s->host = host;
    s->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    s->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    s->speech = host->get_service(host, ASSIST_SPEECH_SERVICE);
    s->cues = host->get_service(host, ASSIST_CUES_SERVICE);
    s->audio = host->get_service(host, ASSIST_AUDIO_IN_SERVICE);
    s->clock = host->get_service(host, ASSIST_CLOCK_SERVICE);
    s->worker = host->get_service(host, ASSIST_WORKER_SERVICE);
}

ASSIST_FIXTURE_ENTRY("org.test.sound", state, NULL)
