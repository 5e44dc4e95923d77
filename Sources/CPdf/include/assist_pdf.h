/*
 * assist_pdf.h - PDF documents for read-text through Poppler's GLib API and cairo, opened with dlopen on first
 * use (libpoppler-glib8, libcairo2), so a plugin that never reads a document never loads them.
 */
#ifndef ASSIST_PDF_H
#define ASSIST_PDF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct assist_pdf assist_pdf;

/** Opens the PDF file at `path` (a file system path) with `password` (NULL: none). NULL with a sentence in
    `error` when the libraries are missing, the file cannot be read or is no PDF; NULL with `*locked` set to 1 when
    it is encrypted and the password (or none) does not open it. `locked` may be NULL. */
assist_pdf *assist_pdf_open(const char *path, const char *password, int *locked, char *error, size_t error_size);
/** How many pages it has. */
int assist_pdf_page_count(const assist_pdf *pdf);
/** The text layer of page `index` (from 0), lines separated by '\n', in UTF-8; malloc'd, free() it. "" when the
    page has none (a scan); NULL when the page cannot be read. */
char *assist_pdf_page_text(assist_pdf *pdf, int index);
/** The text layer of page `index` as assist_pdf_page_text gives it, each line preceded by its largest font size
    in points, 1 when most of its letters are in a bold font (0 otherwise) and the box around its letters (left,
    top, right, bottom, in points from the page's top left corner): "18.0 1 72.0 40.2 190.5 58.0 Your account\n".
    A line whose letters stand apart by more than their height (a table's row, which Poppler gives as one line
    with its cells run together) is given as its pieces, each a line of its own.
    Sizes are 0.0 when Poppler cannot tell, boxes all 0.0. malloc'd, free() it; NULL when the page cannot be
    read. */
char *assist_pdf_page_styled_text(assist_pdf *pdf, int index);
/** Page `index` drawn at `dpi` on white, 8-bit grey, `*width` x `*height`, rows packed; malloc'd, free() it.
    NULL when it cannot be drawn, or would be larger than 100 million pixels. */
uint8_t *assist_pdf_render_gray(assist_pdf *pdf, int index, double dpi, int *width, int *height);
void assist_pdf_close(assist_pdf *pdf);

#ifdef __cplusplus
}
#endif

#endif
