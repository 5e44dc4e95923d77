#include "assist_page_geometry.h"

#include <leptonica/allheaders.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

cv::Mat wrap(const uint8_t *gray, int width, int height, int stride) {
    return cv::Mat(height, width, CV_8UC1, const_cast<uint8_t *>(gray), static_cast<size_t>(stride));
}

// Corners in the order top-left, top-right, bottom-right, bottom-left: the smallest and largest x+y, then
// the smallest and largest y-x.
void order(const std::vector<cv::Point2f> &corners, assist_quad *quad) {
    auto by = [&](auto key, bool smallest) {
        return *std::min_element(corners.begin(), corners.end(), [&](const cv::Point2f &a, const cv::Point2f &b) {
            return smallest ? key(a) < key(b) : key(a) > key(b);
        });
    };
    auto sum = [](const cv::Point2f &p) { return p.x + p.y; };
    auto diff = [](const cv::Point2f &p) { return p.y - p.x; };
    const cv::Point2f points[4] = {by(sum, true), by(diff, true), by(sum, false), by(diff, false)};
    for (int i = 0; i < 4; i++) {
        quad->x[i] = points[i].x;
        quad->y[i] = points[i].y;
    }
}

double length(const assist_quad *q, int a, int b) { return std::hypot(q->x[a] - q->x[b], q->y[a] - q->y[b]); }

// Leptonica reads the picture from an in-memory PGM, so its own word layout is its own business.
PIX *to_pix(const cv::Mat &gray) {
    char header[64];
    int written = std::snprintf(header, sizeof header, "P5\n%d %d\n255\n", gray.cols, gray.rows);
    std::vector<uint8_t> pgm(static_cast<size_t>(written) + gray.total());
    std::memcpy(pgm.data(), header, static_cast<size_t>(written));
    for (int row = 0; row < gray.rows; row++) {
        std::memcpy(pgm.data() + written + static_cast<size_t>(row) * gray.cols, gray.ptr(row), gray.cols);
    }
    return pixReadMemPnm(pgm.data(), pgm.size());
}

}  // namespace

extern "C" int assist_page_find(const uint8_t *gray, int width, int height, int stride, assist_page_found *out) {
    if (gray == nullptr || out == nullptr || width < 16 || height < 16) return -1;
    std::memset(out, 0, sizeof *out);
    try {
        cv::Mat source = wrap(gray, width, height, stride);
        double scale = std::min(1.0, 800.0 / std::max(width, height));
        cv::Mat small, binary;
        cv::resize(source, small, cv::Size(), scale, scale, cv::INTER_AREA);
        cv::GaussianBlur(small, small, cv::Size(5, 5), 0);
        cv::threshold(small, binary, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
        // Close the lines of text into the paper around them, and cut thin bright bridges to other things.
        cv::morphologyEx(binary, binary, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(9, 9)));
        cv::morphologyEx(binary, binary, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(binary, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        if (contours.empty()) return 0;
        const auto largest = std::max_element(contours.begin(), contours.end(), [](const auto &a, const auto &b) {
            return cv::contourArea(a) < cv::contourArea(b);
        });
        const double total = static_cast<double>(small.cols) * small.rows;
        const cv::Rect bounds = cv::boundingRect(*largest);
        const int margin = 2;
        out->cut_sides = (bounds.x <= margin) + (bounds.y <= margin) + (bounds.x + bounds.width >= small.cols - margin) +
                         (bounds.y + bounds.height >= small.rows - margin);
        std::vector<cv::Point> hull, corners;
        cv::convexHull(*largest, hull);
        cv::approxPolyDP(hull, corners, 0.02 * cv::arcLength(hull, true), true);
        const double area = cv::contourArea(hull) / total;
        out->area = area;
        if (corners.size() != 4 || area < 0.15 || area > 0.97) return 0;
        std::vector<cv::Point2f> full;
        for (const auto &corner : corners) {
            full.emplace_back(static_cast<float>(corner.x / scale), static_cast<float>(corner.y / scale));
        }
        order(full, &out->quad);
        out->found = 1;
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int assist_page_warp(const uint8_t *gray, int width, int height, int stride, const assist_quad *quad,
                                uint8_t *out, size_t cap, int *out_width, int *out_height) {
    if (gray == nullptr || quad == nullptr || out_width == nullptr || out_height == nullptr) return -1;
    const int w = static_cast<int>(std::lround(std::max(length(quad, 0, 1), length(quad, 3, 2))));
    const int h = static_cast<int>(std::lround(std::max(length(quad, 0, 3), length(quad, 1, 2))));
    if (w < 16 || h < 16 || w > 4 * width || h > 4 * height) return -1;
    *out_width = w;
    *out_height = h;
    if (out == nullptr || cap < static_cast<size_t>(w) * static_cast<size_t>(h)) return -2;
    try {
        const cv::Point2f from[4] = {{quad->x[0], quad->y[0]}, {quad->x[1], quad->y[1]}, {quad->x[2], quad->y[2]},
                                     {quad->x[3], quad->y[3]}};
        const cv::Point2f to[4] = {{0, 0}, {static_cast<float>(w - 1), 0},
                                   {static_cast<float>(w - 1), static_cast<float>(h - 1)},
                                   {0, static_cast<float>(h - 1)}};
        cv::Mat target(h, w, CV_8UC1, out, static_cast<size_t>(w));
        cv::warpPerspective(wrap(gray, width, height, stride), target, cv::getPerspectiveTransform(from, to),
                            target.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int assist_text_skew(const uint8_t *gray, int width, int height, int stride, double range, double *degrees,
                                double *confidence) {
    if (gray == nullptr || degrees == nullptr || confidence == nullptr) return -1;
    *degrees = 0;
    *confidence = 0;
    try {
        // Dark text on light paper, whatever the lighting: a local threshold, then Leptonica's 1 bpp.
        cv::Mat source = wrap(gray, width, height, stride), small, binary;
        double scale = std::min(1.0, 1600.0 / std::max(width, height));
        cv::resize(source, small, cv::Size(), scale, scale, cv::INTER_AREA);
        const int block = (std::max(small.cols, small.rows) / 40) | 1;
        cv::adaptiveThreshold(small, binary, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY, std::max(block, 15),
                              15);
        PIX *pix8 = to_pix(binary);
        if (pix8 == nullptr) return -1;
        PIX *pix1 = pixConvertTo1(pix8, 128);
        pixDestroy(&pix8);
        if (pix1 == nullptr) return -1;
        l_float32 angle = 0, conf = 0;
        const l_int32 failed = pixFindSkewSweepAndSearch(pix1, &angle, &conf, 2, 2, static_cast<l_float32>(range),
                                                         1.0f, 0.01f);
        pixDestroy(&pix1);
        if (failed != 0) return -1;
        *degrees = angle;
        *confidence = conf;
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int assist_rotate(const uint8_t *gray, int width, int height, int stride, double degrees, uint8_t *out) {
    if (gray == nullptr || out == nullptr) return -1;
    try {
        cv::Mat target(height, width, CV_8UC1, out, static_cast<size_t>(width));
        const cv::Point2f centre(width / 2.0f, height / 2.0f);
        // OpenCV turns counter-clockwise for a positive angle.
        cv::warpAffine(wrap(gray, width, height, stride), target, cv::getRotationMatrix2D(centre, -degrees, 1.0),
                       target.size(), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int assist_rotate_quarters(const uint8_t *gray, int width, int height, int stride, int quarters,
                                      uint8_t *out) {
    if (gray == nullptr || out == nullptr || quarters < 1 || quarters > 3) return -1;
    try {
        const bool swaps = quarters != 2;
        cv::Mat target(swaps ? width : height, swaps ? height : width, CV_8UC1, out,
                       static_cast<size_t>(swaps ? height : width));
        const int codes[] = {cv::ROTATE_90_CLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_COUNTERCLOCKWISE};
        cv::Mat turned;
        cv::rotate(wrap(gray, width, height, stride), turned, codes[quarters - 1]);
        turned.copyTo(target);
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" int assist_scale(const uint8_t *gray, int width, int height, int stride, int out_width, int out_height,
                            uint8_t *out) {
    if (gray == nullptr || out == nullptr || out_width < 1 || out_height < 1) return -1;
    try {
        cv::Mat target(out_height, out_width, CV_8UC1, out, static_cast<size_t>(out_width));
        const bool up = out_width > width;
        cv::resize(wrap(gray, width, height, stride), target, target.size(), 0, 0,
                   up ? cv::INTER_CUBIC : cv::INTER_AREA);
        return 0;
    } catch (...) {
        return -1;
    }
}
