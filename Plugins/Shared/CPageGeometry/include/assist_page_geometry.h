/*
 * assist_page_geometry.h - the geometry read-text applies to a photographed page before reading it:
 * find the page and undo its perspective (OpenCV), then measure the text's own skew and undo it (Leptonica's
 * projection-profile search). Plain C over C++; 8-bit grey pictures, `stride` bytes per row.
 */
#ifndef ASSIST_PAGE_GEOMETRY_H
#define ASSIST_PAGE_GEOMETRY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A quadrilateral in picture pixels: top-left, top-right, bottom-right, bottom-left. */
typedef struct assist_quad {
    float x[4];
    float y[4];
} assist_quad;

/** What assist_page_find saw. */
typedef struct assist_page_found {
    int found;          /* 1 when a page's four corners were found */
    assist_quad quad;   /* the page, when found */
    double area;        /* the page's share of the picture, 0..1 */
    int cut_sides;      /* how many sides of the bright region the frame's edge cuts (0 when all of it shows) */
} assist_page_found;

/** Finds the page: the largest bright region clearly brighter than what surrounds it, simplified to four
    corners, covering 15-97 % of the picture. `cut_sides` counts the frame edges the largest bright region
    runs into, found or not. Returns 0, or -1 when OpenCV failed. */
int assist_page_find(const uint8_t *gray, int width, int height, int stride, assist_page_found *out);

/** Warps `quad` to an upright rectangle as large as the quad's longer edges, into `out` (tight rows, `cap`
    bytes). Sets the size; returns 0, -1 on failure, or -2 when `cap` is too small (the size is still set). */
int assist_page_warp(const uint8_t *gray, int width, int height, int stride, const assist_quad *quad, uint8_t *out,
                     size_t cap, int *out_width, int *out_height);

/** How far to turn the picture clockwise, in degrees, for its text lines to lie level, and Leptonica's
    confidence in it (under 3 is a guess), from its sweep-and-search over +-`range` degrees on a binarised copy
    (pixFindSkewSweepAndSearch). Returns 0, or -1 when Leptonica could not tell. */
int assist_text_skew(const uint8_t *gray, int width, int height, int stride, double range, double *degrees,
                     double *confidence);

/** Turns the picture `degrees` clockwise about its centre into `out` (tight rows, same size), the corners
    filled by repeating the edge. Returns 0 or -1. */
int assist_rotate(const uint8_t *gray, int width, int height, int stride, double degrees, uint8_t *out);

/** Turns the picture `quarters` quarter turns clockwise (1, 2 or 3) into `out` (tight rows; width and height
    swap for 1 and 3). Returns 0 or -1. */
int assist_rotate_quarters(const uint8_t *gray, int width, int height, int stride, int quarters, uint8_t *out);

/** Scales the picture by `factor` (area averaging down, cubic up) into `out` (tight rows) of
    `out_width` x `out_height`, which the caller computes as round(width * factor) and round(height * factor).
    Returns 0 or -1. */
int assist_scale(const uint8_t *gray, int width, int height, int stride, int out_width, int out_height,
                 uint8_t *out);

#ifdef __cplusplus
}
#endif

#endif
