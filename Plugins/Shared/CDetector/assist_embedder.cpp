// The embedder find-object teaches and finds a person's own things with (docs/find-object.md, "Your own
// things"): MobileNetV2 without its classifier through OpenCV DNN, one 1280-number unit vector per region; the
// measures teaching chooses views by; and the video reader that teaches from a file.
#include "assist_detector.h"
#include "assist_detector_reason.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct assist_emb {
    cv::dnn::Net net;
    int input_size;
    cv::Mat blob;
};

extern "C" assist_emb *assist_emb_open(const char *onnx, int input_size, int threads, char **err) {
    try {
        if (threads > 0) cv::setNumThreads(threads);
        auto *emb = new assist_emb();
        emb->net = cv::dnn::readNetFromONNX(onnx);
        emb->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        emb->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        emb->input_size = input_size;
        cv::Mat grey(input_size, input_size, CV_8UC3, cv::Scalar(128, 128, 128));
        assist_det_box whole = {0, 0, 1, 1, 1, -1};
        std::vector<float> unused(ASSIST_EMB_DIMENSION);
        if (assist_emb_run(emb, grey.data, input_size, input_size, grey.step, &whole, 1, unused.data()) != 1) {
            delete emb;
            if (err != nullptr) *err = assist_copy_reason("the network gives no embedding");
            return nullptr;
        }
        return emb;
    } catch (const std::exception &error) {
        if (err != nullptr) *err = assist_copy_reason(error.what());
        return nullptr;
    }
}

extern "C" int assist_emb_run(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride,
                              const assist_det_box *regions, int count, float *out) {
    if (emb == nullptr || bgr == nullptr || width <= 0 || height <= 0 || count <= 0) return count == 0 ? 0 : -1;
    try {
        cv::Mat picture(height, width, CV_8UC3, const_cast<uint8_t *>(bgr), stride);
        std::vector<cv::Mat> crops;
        crops.reserve(count);
        for (int index = 0; index < count; index++) {
            const assist_det_box &r = regions[index];
            int x0 = std::clamp(static_cast<int>(std::floor(r.x * width)), 0, width - 1);
            int y0 = std::clamp(static_cast<int>(std::floor(r.y * height)), 0, height - 1);
            int x1 = std::clamp(static_cast<int>(std::ceil((r.x + r.w) * width)), x0 + 1, width);
            int y1 = std::clamp(static_cast<int>(std::ceil((r.y + r.h) * height)), y0 + 1, height);
            cv::Mat crop;
            cv::resize(picture(cv::Rect(x0, y0, x1 - x0, y1 - y0)), crop, cv::Size(emb->input_size, emb->input_size),
                       0, 0, cv::INTER_AREA);
            crops.push_back(crop);
        }
        // ImageNet's preparation: RGB, 0...1, less the mean, over the deviation (the mean in the blob's own step).
        cv::dnn::blobFromImages(crops, emb->blob, 1.0 / 255.0, cv::Size(), cv::Scalar(0.485 * 255, 0.456 * 255, 0.406 * 255),
                                true, false, CV_32F);
        const float deviation[3] = {0.229f, 0.224f, 0.225f};
        const int plane = emb->input_size * emb->input_size;
        for (int n = 0; n < count; n++) {
            for (int c = 0; c < 3; c++) {
                float *values = emb->blob.ptr<float>(n, c);
                for (int i = 0; i < plane; i++) values[i] /= deviation[c];
            }
        }
        emb->net.setInput(emb->blob);
        cv::Mat result = emb->net.forward("embedding");
        if (result.total() != static_cast<size_t>(count) * ASSIST_EMB_DIMENSION) return -1;
        const float *values = result.ptr<float>();
        for (int n = 0; n < count; n++) {
            double norm = 0;
            for (int i = 0; i < ASSIST_EMB_DIMENSION; i++) norm += double(values[n * ASSIST_EMB_DIMENSION + i]) * values[n * ASSIST_EMB_DIMENSION + i];
            float scale = norm > 0 ? static_cast<float>(1.0 / std::sqrt(norm)) : 0.0f;
            for (int i = 0; i < ASSIST_EMB_DIMENSION; i++) out[n * ASSIST_EMB_DIMENSION + i] = values[n * ASSIST_EMB_DIMENSION + i] * scale;
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" int assist_emb_coarse(assist_emb *emb, const uint8_t *bgr, int width, int height, size_t stride,
                                 int map_width, const assist_det_box *regions, int count, float *out) {
    if (emb == nullptr || bgr == nullptr || width <= 0 || height <= 0 || map_width < 32 || count < 0) return -1;
    try {
        cv::Mat picture(height, width, CV_8UC3, const_cast<uint8_t *>(bgr), stride);
        const int map_height = std::max(32, static_cast<int>(std::lround(double(map_width) * height / width)));
        cv::Mat blob;
        cv::dnn::blobFromImage(picture, blob, 1.0 / 255.0, cv::Size(map_width, map_height),
                               cv::Scalar(0.485 * 255, 0.456 * 255, 0.406 * 255), true, false, CV_32F);
        const float deviation[3] = {0.229f, 0.224f, 0.225f};
        for (int c = 0; c < 3; c++) {
            float *values = blob.ptr<float>(0, c);
            for (int i = 0; i < map_width * map_height; i++) values[i] /= deviation[c];
        }
        emb->net.setInput(blob);
        cv::Mat map = emb->net.forward("features");
        if (map.dims != 4 || map.size[1] != ASSIST_EMB_DIMENSION) return -1;
        const int rows = map.size[2], cols = map.size[3], plane = rows * cols;
        const float *cells = map.ptr<float>();
        std::vector<double> sum(ASSIST_EMB_DIMENSION);
        for (int n = 0; n < count; n++) {
            const assist_det_box &r = regions[n];
            // The cells whose middles are inside the region; the one nearest its middle when none is.
            int c0 = std::clamp(static_cast<int>(std::ceil(r.x * cols - 0.5)), 0, cols - 1);
            int c1 = std::clamp(static_cast<int>(std::floor((r.x + r.w) * cols - 0.5)), 0, cols - 1);
            int r0 = std::clamp(static_cast<int>(std::ceil(r.y * rows - 0.5)), 0, rows - 1);
            int r1 = std::clamp(static_cast<int>(std::floor((r.y + r.h) * rows - 0.5)), 0, rows - 1);
            if (c1 < c0) c0 = c1 = std::clamp(static_cast<int>((r.x + r.w / 2) * cols), 0, cols - 1);
            if (r1 < r0) r0 = r1 = std::clamp(static_cast<int>((r.y + r.h / 2) * rows), 0, rows - 1);
            std::fill(sum.begin(), sum.end(), 0.0);
            for (int k = 0; k < ASSIST_EMB_DIMENSION; k++) {
                const float *channel = cells + size_t(k) * plane;
                double total = 0;
                for (int y = r0; y <= r1; y++)
                    for (int x = c0; x <= c1; x++) total += channel[y * cols + x];
                sum[k] = total;
            }
            double norm = 0;
            for (double value : sum) norm += value * value;
            const double scale = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
            for (int k = 0; k < ASSIST_EMB_DIMENSION; k++) out[n * ASSIST_EMB_DIMENSION + k] = static_cast<float>(sum[k] * scale);
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" void assist_emb_close(assist_emb *emb) { delete emb; }

extern "C" int assist_pic_measure(const uint8_t *bgr, const uint8_t *previous, int width, int height, size_t stride,
                                  assist_pic_measures *out) {
    if (bgr == nullptr || out == nullptr || width <= 0 || height <= 0) return -1;
    try {
        const double scale = std::min(1.0, 320.0 / width);
        const cv::Size small(std::max(1, static_cast<int>(width * scale)), std::max(1, static_cast<int>(height * scale)));
        auto grey_of = [&](const uint8_t *pixels) {
            cv::Mat picture(height, width, CV_8UC3, const_cast<uint8_t *>(pixels), stride), grey, shrunk;
            cv::cvtColor(picture, grey, cv::COLOR_BGR2GRAY);
            cv::resize(grey, shrunk, small, 0, 0, cv::INTER_AREA);
            return shrunk;
        };
        cv::Mat grey = grey_of(bgr), laplacian;
        cv::Laplacian(grey, laplacian, CV_32F);
        cv::Scalar mean, deviation;
        cv::meanStdDev(laplacian, mean, deviation);
        out->sharpness = static_cast<float>(deviation[0] * deviation[0]);
        cv::meanStdDev(grey, mean, deviation);
        out->brightness = static_cast<float>(mean[0] / 255.0);
        out->contrast = static_cast<float>(deviation[0] / 255.0);
        out->moving = {0, 0, 0, 0, 0, -1};
        if (previous != nullptr) {
            cv::Mat before = grey_of(previous), change, blurred;
            cv::absdiff(grey, before, change);
            cv::GaussianBlur(change, blurred, cv::Size(0, 0), 2.0);
            cv::threshold(blurred, change, 18, 255, cv::THRESH_BINARY);
            cv::morphologyEx(change, change, cv::MORPH_CLOSE, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(9, 9)));
            std::vector<std::vector<cv::Point>> contours;
            cv::findContours(change, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
            double moved = cv::countNonZero(change) / double(change.total());
            // What moved, when it is a part of the picture (not the whole picture shaking): the bounding box of
            // the regions that changed, large ones only.
            if (moved > 0.01 && moved < 0.6) {
                cv::Rect all;
                for (const auto &contour : contours) {
                    if (cv::contourArea(contour) < 0.002 * change.total()) continue;
                    cv::Rect r = cv::boundingRect(contour);
                    all = all.area() == 0 ? r : (all | r);
                }
                if (all.area() > 0) {
                    out->moving = {float(all.x) / small.width, float(all.y) / small.height, float(all.width) / small.width,
                                   float(all.height) / small.height, static_cast<float>(moved), -1};
                }
            }
        }
        return 0;
    } catch (const std::exception &) {
        return -1;
    }
}
