/*
 * PDF through Poppler's GLib API, looked up with dlopen (see assist_pdf.h). Only the few functions read-text
 * needs are declared here, with the opaque types and the one struct (GError) they use, as GLib lays them out.
 */
#define _GNU_SOURCE
#include "assist_pdf.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint32_t domain;
    int code;
    char *message;
} gerror;

enum { CAIRO_FORMAT_RGB24 = 1, CAIRO_STATUS_SUCCESS = 0 };

static struct {
    void *(*document_new_from_file)(const char *uri, const char *password, gerror **error);
    int (*document_get_n_pages)(void *document);
    void *(*document_get_page)(void *document, int index);
    char *(*page_get_text)(void *page);
    void (*page_get_size)(void *page, double *width, double *height);
    void (*page_render)(void *page, void *cairo);
    void (*object_unref)(void *object);
    void (*g_free)(void *memory);
    void (*error_free)(gerror *error);
    char *(*filename_to_uri)(const char *filename, const char *hostname, gerror **error);
    uint32_t (*error_quark)(void);
    void *(*image_surface_create)(int format, int width, int height);
    int (*surface_status)(void *surface);
    void *(*create)(void *surface);
    void (*scale)(void *cairo, double x, double y);
    void (*set_source_rgb)(void *cairo, double r, double g, double b);
    void (*paint)(void *cairo);
    void (*destroy)(void *cairo);
    void (*surface_flush)(void *surface);
    unsigned char *(*image_surface_get_data)(void *surface);
    int (*image_surface_get_stride)(void *surface);
    void (*surface_destroy)(void *surface);
    /* Optional (Poppler 0.18 and later): the font of each run of a page's text, for headings. */
    void *(*page_get_text_attributes)(void *page);
    void (*page_free_text_attributes)(void *list);
    /* Optional: where each character of a page's text is, for tables. */
    int (*page_get_text_layout)(void *page, void **rectangles, unsigned *count);
    int loaded;
    char error[256];
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;

#define POPPLER "libpoppler-glib.so.8"
#define CAIRO "libcairo.so.2"
#define GLIB "libglib-2.0.so.0"
#define GOBJECT "libgobject-2.0.so.0"

static void *symbol(void *handle, const char *library, const char *name, int *missing) {
    void *found = handle ? dlsym(handle, name) : NULL;
    if (found == NULL && !*missing) {
        snprintf(lib.error, sizeof lib.error, "%s has no %s", library, name);
        *missing = 1;
    }
    return found;
}

static void load(void) {
    void *poppler = dlopen(POPPLER, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    void *cairo = dlopen(CAIRO, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    void *glib = dlopen(GLIB, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    void *gobject = dlopen(GOBJECT, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (poppler == NULL || cairo == NULL || glib == NULL || gobject == NULL) {
        snprintf(lib.error, sizeof lib.error,
                 "PDF documents need Poppler and cairo (Debian's libpoppler-glib8 and libcairo2), which are not "
                 "installed");
        return;
    }
    int missing = 0;
    *(void **)&lib.document_new_from_file = symbol(poppler, POPPLER, "poppler_document_new_from_file", &missing);
    *(void **)&lib.document_get_n_pages = symbol(poppler, POPPLER, "poppler_document_get_n_pages", &missing);
    *(void **)&lib.document_get_page = symbol(poppler, POPPLER, "poppler_document_get_page", &missing);
    *(void **)&lib.page_get_text = symbol(poppler, POPPLER, "poppler_page_get_text", &missing);
    *(void **)&lib.page_get_size = symbol(poppler, POPPLER, "poppler_page_get_size", &missing);
    *(void **)&lib.page_render = symbol(poppler, POPPLER, "poppler_page_render", &missing);
    *(void **)&lib.object_unref = symbol(gobject, GOBJECT, "g_object_unref", &missing);
    *(void **)&lib.g_free = symbol(glib, GLIB, "g_free", &missing);
    *(void **)&lib.error_free = symbol(glib, GLIB, "g_error_free", &missing);
    *(void **)&lib.filename_to_uri = symbol(glib, GLIB, "g_filename_to_uri", &missing);
    *(void **)&lib.error_quark = symbol(poppler, POPPLER, "poppler_error_quark", &missing);
    *(void **)&lib.image_surface_create = symbol(cairo, CAIRO, "cairo_image_surface_create", &missing);
    *(void **)&lib.surface_status = symbol(cairo, CAIRO, "cairo_surface_status", &missing);
    *(void **)&lib.create = symbol(cairo, CAIRO, "cairo_create", &missing);
    *(void **)&lib.scale = symbol(cairo, CAIRO, "cairo_scale", &missing);
    *(void **)&lib.set_source_rgb = symbol(cairo, CAIRO, "cairo_set_source_rgb", &missing);
    *(void **)&lib.paint = symbol(cairo, CAIRO, "cairo_paint", &missing);
    *(void **)&lib.destroy = symbol(cairo, CAIRO, "cairo_destroy", &missing);
    *(void **)&lib.surface_flush = symbol(cairo, CAIRO, "cairo_surface_flush", &missing);
    *(void **)&lib.image_surface_get_data = symbol(cairo, CAIRO, "cairo_image_surface_get_data", &missing);
    *(void **)&lib.image_surface_get_stride = symbol(cairo, CAIRO, "cairo_image_surface_get_stride", &missing);
    *(void **)&lib.surface_destroy = symbol(cairo, CAIRO, "cairo_surface_destroy", &missing);
    lib.loaded = !missing;
    if (poppler) {
        *(void **)&lib.page_get_text_attributes = dlsym(poppler, "poppler_page_get_text_attributes");
        *(void **)&lib.page_free_text_attributes = dlsym(poppler, "poppler_page_free_text_attributes");
        *(void **)&lib.page_get_text_layout = dlsym(poppler, "poppler_page_get_text_layout");
    }
}

struct assist_pdf {
    void *document;
    int pages;
};

static void say(char *error, size_t size, const char *text) {
    if (error != NULL && size > 0) snprintf(error, size, "%s", text);
}

/* Poppler's PopplerError: the document is encrypted and the password given (or none) does not open it. */
enum { POPPLER_ERROR_ENCRYPTED = 1 };

assist_pdf *assist_pdf_open(const char *path, const char *password, int *locked, char *error, size_t error_size) {
    if (locked != NULL) *locked = 0;
    pthread_once(&once, load);
    if (!lib.loaded) {
        say(error, error_size, lib.error);
        return NULL;
    }
    gerror *problem = NULL;
    char *uri = lib.filename_to_uri(path, NULL, &problem);
    if (uri == NULL) {
        say(error, error_size, problem && problem->message ? problem->message : "the path cannot be used");
        if (problem) lib.error_free(problem);
        return NULL;
    }
    void *document = lib.document_new_from_file(uri, password, &problem);
    lib.g_free(uri);
    if (document == NULL) {
        if (locked != NULL && problem != NULL && problem->domain == lib.error_quark() &&
            problem->code == POPPLER_ERROR_ENCRYPTED)
            *locked = 1;
        say(error, error_size, problem && problem->message ? problem->message : "it is not a PDF document");
        if (problem) lib.error_free(problem);
        return NULL;
    }
    assist_pdf *pdf = calloc(1, sizeof *pdf);
    if (pdf == NULL) {
        lib.object_unref(document);
        say(error, error_size, "out of memory");
        return NULL;
    }
    pdf->document = document;
    pdf->pages = lib.document_get_n_pages(document);
    return pdf;
}

int assist_pdf_page_count(const assist_pdf *pdf) { return pdf ? pdf->pages : 0; }

char *assist_pdf_page_text(assist_pdf *pdf, int index) {
    if (pdf == NULL || index < 0 || index >= pdf->pages) return NULL;
    void *page = lib.document_get_page(pdf->document, index);
    if (page == NULL) return NULL;
    char *text = lib.page_get_text(page);
    char *copy = strdup(text ? text : "");
    if (text) lib.g_free(text);
    lib.object_unref(page);
    return copy;
}

uint8_t *assist_pdf_render_gray(assist_pdf *pdf, int index, double dpi, int *width, int *height) {
    if (pdf == NULL || index < 0 || index >= pdf->pages || width == NULL || height == NULL || dpi <= 0) return NULL;
    void *page = lib.document_get_page(pdf->document, index);
    if (page == NULL) return NULL;
    double points_wide = 0, points_high = 0;
    lib.page_get_size(page, &points_wide, &points_high);
    double scale = dpi / 72.0;
    double w = points_wide * scale, h = points_high * scale;
    if (!(w >= 1 && h >= 1 && w * h <= 100e6)) {
        lib.object_unref(page);
        return NULL;
    }
    int pw = (int)w, ph = (int)h;
    void *surface = lib.image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
    if (surface == NULL || lib.surface_status(surface) != CAIRO_STATUS_SUCCESS) {
        if (surface) lib.surface_destroy(surface);
        lib.object_unref(page);
        return NULL;
    }
    void *cairo = lib.create(surface);
    lib.set_source_rgb(cairo, 1, 1, 1);
    lib.paint(cairo);
    lib.scale(cairo, scale, scale);
    lib.page_render(page, cairo);
    lib.destroy(cairo);
    lib.surface_flush(surface);
    uint8_t *gray = malloc((size_t)pw * (size_t)ph);
    const unsigned char *data = lib.image_surface_get_data(surface);
    int stride = lib.image_surface_get_stride(surface);
    if (gray != NULL && data != NULL) {
        for (int y = 0; y < ph; y++) {
            const uint32_t *row = (const uint32_t *)(data + (size_t)y * (size_t)stride);
            for (int x = 0; x < pw; x++) {
                uint32_t p = row[x];
                unsigned r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;
                gray[(size_t)y * (size_t)pw + (size_t)x] = (uint8_t)((r * 299 + g * 587 + b * 114) / 1000);
            }
        }
    } else {
        free(gray);
        gray = NULL;
    }
    lib.surface_destroy(surface);
    lib.object_unref(page);
    if (gray) {
        *width = pw;
        *height = ph;
    }
    return gray;
}

void assist_pdf_close(assist_pdf *pdf) {
    if (pdf == NULL) return;
    if (pdf->document) lib.object_unref(pdf->document);
    free(pdf);
}

/* GLib's list and Poppler's text attributes, as poppler-page.h lays them out. */
typedef struct glist {
    void *data;
    struct glist *next;
    struct glist *prev;
} glist;
typedef struct {
    char *font_name;
    double font_size;
    int is_underlined;
    uint16_t red, green, blue;
    int start_index;
    int end_index;
} text_attributes;

/* Poppler's rectangle: points from the page's top left corner. */
typedef struct {
    double x1, y1, x2, y2;
} rectangle;

/* A coordinate a hostile file cannot make long in print: within +-99999 points, 0 when not a number. */
static double bounded(double value) {
    if (!(value == value)) return 0;
    return value > 99999 ? 99999 : value < -99999 ? -99999 : value;
}

/* Whether a font's name says it is bold ("Helvetica-Bold", "DejaVuSans-BoldOblique", "Arial Black"). */
static int bold_font(const char *name) {
    return name != NULL && (strstr(name, "Bold") || strstr(name, "bold") || strstr(name, "Black") ||
                            strstr(name, "Heavy") || strstr(name, "Semibold"));
}

char *assist_pdf_page_styled_text(assist_pdf *pdf, int index) {
    if (pdf == NULL || index < 0 || index >= pdf->pages) return NULL;
    void *page = lib.document_get_page(pdf->document, index);
    if (page == NULL) return NULL;
    char *text = lib.page_get_text(page);
    const char *source = text ? text : "";
    size_t length = strlen(source);
    /* Each character's size and boldness, by its index in characters (Poppler counts characters, not bytes). */
    size_t characters = 0;
    for (size_t byte = 0; byte < length; byte++)
        if (((unsigned char)source[byte] & 0xC0) != 0x80) characters++;
    double *sizes = calloc(characters + 1, sizeof *sizes);
    char *bolds = calloc(characters + 1, 1);
    void *list = lib.page_get_text_attributes ? lib.page_get_text_attributes(page) : NULL;
    for (glist *node = list; node != NULL && sizes && bolds; node = node->next) {
        const text_attributes *run = node->data;
        if (run == NULL) continue;
        for (int at = run->start_index < 0 ? 0 : run->start_index; at <= run->end_index && (size_t)at < characters;
             at++) {
            sizes[at] = run->font_size;
            bolds[at] = (char)bold_font(run->font_name);
        }
    }
    if (list && lib.page_free_text_attributes) lib.page_free_text_attributes(list);
    /* Where each character is, when Poppler says so for every character of the text. */
    rectangle *boxes = NULL;
    unsigned box_count = 0;
    if (lib.page_get_text_layout && lib.page_get_text_layout(page, (void **)&boxes, &box_count) == 0) boxes = NULL;
    int placed = boxes != NULL && box_count >= characters;
    /* Each line as "SIZE BOLD X0 Y0 X1 Y1 TEXT": its largest size, 1 when most of its letters are bold, and the
       box around its letters (all 0 when unknown). */
    size_t room = length + (characters + 2) * 72 + 1;
    char *out = malloc(room);
    size_t used = 0, character = 0, start = 0;
    if (out == NULL || sizes == NULL || bolds == NULL) {
        free(out);
        out = NULL;
        goto done;
    }
    while (start <= length) {
        size_t end = start;
        double largest = 0;
        size_t letters = 0, bold = 0;
        double left = 0, top = 0, right = 0, bottom = 0;
        int parted = 0; /* the piece ends at a gap in its line, not at the line's end */
        while (end < length && source[end] != '\n') {
            if (((unsigned char)source[end] & 0xC0) != 0x80) {
                if (source[end] != ' ') {
                    if (placed) {
                        const rectangle *box = &boxes[character];
                        double x1 = bounded(box->x1), y1 = bounded(box->y1);
                        double x2 = bounded(box->x2), y2 = bounded(box->y2);
                        /* A letter further right of those before than its own height (a column's gap: Poppler
                           gives a table's row as one line, its cells run together) begins a piece of its own. */
                        if (letters > 0 && x1 - right > (y2 - y1 > 1 ? y2 - y1 : 1)) {
                            parted = 1;
                            break;
                        }
                        if (letters == 0 || x1 < left) left = x1;
                        if (letters == 0 || y1 < top) top = y1;
                        if (letters == 0 || x2 > right) right = x2;
                        if (letters == 0 || y2 > bottom) bottom = y2;
                    }
                    if (sizes[character] > largest) largest = sizes[character];
                    letters++;
                    bold += (size_t)bolds[character];
                }
                character++;
            }
            end++;
        }
        if (!(largest >= 0 && largest <= 9999)) largest = largest > 9999 ? 9999 : 0; /* a hostile file's 1e300 */
        int written = snprintf(out + used, room - used, "%.1f %d %.1f %.1f %.1f %.1f ", largest,
                               letters > 0 && bold * 2 > letters, left, top, right, bottom);
        if (written < 0 || (size_t)written >= room - used) break;
        used += (size_t)written;
        memcpy(out + used, source + start, end - start);
        used += end - start;
        out[used++] = '\n';
        if (parted) {
            start = end; /* the next piece of the same line */
        } else {
            if (end < length) character++; /* the newline */
            start = end + 1;
        }
    }
    out[used] = '\0';
done:
    if (boxes) lib.g_free(boxes);
    free(sizes);
    free(bolds);
    if (text) lib.g_free(text);
    lib.object_unref(page);
    return out;
}
