/*
 * hello.c - a complete Assist plugin in C99, written only against the installed header.
 *
 * Build:   make            (uses `pkg-config --cflags assist-plugin`)
 * Install: make install    (into ~/.local/lib/assist/plugins/org.example.hello/)
 * Run:     assist run org.example.hello
 *
 * It greets the user, asks a yes/no question with a safe default, answers, and finishes. While it waits,
 * "t" (or typing "tip") gives a tip, a command it registers with assist.input/1.
 */
#include <assist_plugin.h>

#include <stdlib.h>
#include <string.h>

typedef struct hello {
    const assist_host *host;
    const assist_dialog_service *dialog;
    const assist_session_service *session;
    const assist_log_service *log;
    uint64_t question;
} hello;

static void say(hello *self, const char *text) {
    self->dialog->say(self->host, text, ASSIST_PRIORITY_MESSAGE);
}

/* [main] The answer to our question. */
static void on_answer(void *user, const assist_dialog_result *result) {
    hello *self = user;
    /* Cancelled (Escape, or no more input) and timed out both carry the safe default in `yes`. */
    say(self, result->yes ? "Here is a tip: press h at any time to hear the commands."
                          : "All right. Goodbye.");
    self->session->finish(self->host, ASSIST_OK);
}

/* [main] */
static assist_status start(assist_plugin *plugin, int32_t argc, const char *const *argv, char **err) {
    hello *self = plugin->plugin_data;
    (void)argv;
    if (argc > 0) {
        const char *text = "Hello takes no arguments.";
        *err = self->host->alloc(self->host, strlen(text) + 1);
        if (*err != NULL) strcpy(*err, text);
        return ASSIST_E_INVALID;
    }
    const assist_input_service *input = self->host->get_service(self->host, ASSIST_INPUT_SERVICE);
    if (input != NULL) {
        input->register_command(self->host, "tip", "Hear a tip", "t", "tip", ASSIST_SCOPE_FOCUSED);
    }
    say(self, "Hello from a plugin written in C.");
    /* No answer within 10 seconds means no: the safe default. */
    return self->dialog->confirm(self->host, "Would you like a tip?", false, 10000, on_answer, self, &self->question);
}

/* [main] */
static void on_command(assist_plugin *plugin, const char *cmd, const char *arg) {
    hello *self = plugin->plugin_data;
    (void)arg;
    if (strcmp(cmd, "tip") == 0) say(self, "Tip: the r key repeats the last thing said.");
}

static void stop(assist_plugin *plugin) {
    hello *self = plugin->plugin_data;
    if (self->log) self->log->log(self->host, ASSIST_LOG_INFO, "hello stopped");
}

static void destroy(assist_plugin *plugin) {
    free(plugin->plugin_data);
    free(plugin);
}

/* [main] Fails cleanly when a required service is missing. */
static assist_plugin *create(const assist_host *host, char **err) {
    hello *self = calloc(1, sizeof *self);
    assist_plugin *plugin = calloc(1, sizeof *plugin);
    if (self == NULL || plugin == NULL) {
        free(self);
        free(plugin);
        return NULL;
    }
    self->host = host;
    self->dialog = host->get_service(host, ASSIST_DIALOG_SERVICE);
    self->session = host->get_service(host, ASSIST_SESSION_SERVICE);
    self->log = host->get_service(host, ASSIST_LOG_SERVICE);
    if (self->dialog == NULL || self->session == NULL) {
        const char *text = "This Assist is too old for Hello.";
        *err = host->alloc(host, strlen(text) + 1);
        if (*err != NULL) strcpy(*err, text);
        free(self);
        free(plugin);
        return NULL;
    }
    plugin->struct_size = sizeof *plugin;
    plugin->plugin_data = self;
    plugin->start = start;
    plugin->stop = stop;
    plugin->on_command = on_command;
    plugin->destroy = destroy;
    return plugin;
}

static int init_count;
static bool init(const assist_host *host) { (void)host; init_count++; return true; }
static void deinit(void) { init_count--; }

static const assist_entry entry = {
    .struct_size = sizeof(assist_entry),
    .abi = {ASSIST_ABI_MAJOR, ASSIST_ABI_MINOR, 0, 0},
    .id = "org.example.hello",
    .version = "1.0.0",
    .init = init,
    .deinit = deinit,
    .create = create,
};

ASSIST_EXPORT const assist_entry *assist_plugin_entry(void) { return &entry; }
