#include "assist_detector.h"
#include "assist_detector_reason.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct assist_det {
    cv::dnn::Net net;
    std::vector<std::string> outputs;
    int input_size;
    cv::Mat blob;
};

extern "C" assist_det *assist_det_open(const char *cfg, const char *weights, int input_size, int threads,
                                       char **err) {
    try {
        if (threads > 0) cv::setNumThreads(threads);
        auto *det = new assist_det();
        det->net = cv::dnn::readNetFromDarknet(cfg, weights);
        det->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        det->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        det->outputs = det->net.getUnconnectedOutLayersNames();
        det->input_size = input_size;
        cv::Mat grey(input_size, input_size, CV_8UC3, cv::Scalar(128, 128, 128));
        assist_det_box unused;
        double ms = 0;
        assist_det_run(det, grey.data, input_size, input_size, grey.step, 0.25f, 0.45f, -1, &unused, 1, &ms);
        return det;
    } catch (const std::exception &error) {
        if (err != nullptr) *err = assist_copy_reason(error.what());
        return nullptr;
    }
}

extern "C" int assist_det_run(assist_det *det, const uint8_t *bgr, int width, int height, size_t stride,
                              float confidence, float nms, int only_class, assist_det_box *out, int max,
                              double *ms) {
    try {
        auto start = std::chrono::steady_clock::now();
        cv::Mat picture(height, width, CV_8UC3, const_cast<uint8_t *>(bgr), stride);
        // Darknet's own preparation: 1/255, a stretched (not letterboxed) resize, RGB order.
        cv::dnn::blobFromImage(picture, det->blob, 1.0 / 255.0, cv::Size(det->input_size, det->input_size),
                               cv::Scalar(), true, false, CV_32F);
        det->net.setInput(det->blob);
        std::vector<cv::Mat> results;
        det->net.forward(results, det->outputs);

        std::vector<cv::Rect> boxes;
        std::vector<float> scores;
        std::vector<int> classes;
        // Each row: centre x, centre y, width, height (normalised), objectness, then one score per class that
        // OpenCV's region layer has already multiplied by the objectness. A row whose objectness is under the
        // threshold cannot have a class over it, so most rows are passed over on one comparison, and the best
        // class is found by a plain scan of the row
        // (the first of equal scores, as cv::minMaxLoc gave), without a matrix view per row.
        for (const cv::Mat &result : results) {
            const int classCount = result.cols - 5;
            if (classCount <= 0) continue;
            for (int row = 0; row < result.rows; row++) {
                const float *values = result.ptr<float>(row);
                if (values[4] < confidence) continue;
                const float *classScores = values + 5;
                const int best =
                    static_cast<int>(std::max_element(classScores, classScores + classCount) - classScores);
                if (only_class >= 0 && best != only_class) continue;
                const float score = classScores[best];
                if (score < confidence) continue;
                // Centre, size, normalised; boxes of different classes are kept apart for the one NMS pass.
                float w = values[2] * width, h = values[3] * height;
                float x = values[0] * width - w / 2, y = values[1] * height - h / 2;
                boxes.emplace_back(cv::Rect(static_cast<int>(x) + best * 4096, static_cast<int>(y),
                                            static_cast<int>(w), static_cast<int>(h)));
                scores.push_back(score);
                classes.push_back(best);
            }
        }
        std::vector<int> kept;
        cv::dnn::NMSBoxes(boxes, scores, confidence, nms, kept);
        std::sort(kept.begin(), kept.end(), [&](int a, int b) { return scores[a] > scores[b]; });
        int count = 0;
        for (int index : kept) {
            if (count < max) {
                const cv::Rect &box = boxes[index];
                float left = static_cast<float>(box.x - classes[index] * 4096);
                float x0 = std::clamp(left / width, 0.0f, 1.0f), y0 = std::clamp(float(box.y) / height, 0.0f, 1.0f);
                float x1 = std::clamp((left + box.width) / width, 0.0f, 1.0f);
                float y1 = std::clamp(float(box.y + box.height) / height, 0.0f, 1.0f);
                out[count] = {x0, y0, x1 - x0, y1 - y0, scores[index], classes[index]};
            }
            count++;
        }
        if (ms != nullptr) {
            *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }
        return count;
    } catch (const std::exception &) {
        return -1;
    }
}

extern "C" void assist_det_close(assist_det *det) { delete det; }
