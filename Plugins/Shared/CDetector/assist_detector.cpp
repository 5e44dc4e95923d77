#include "assist_detector.h"
#include "assist_detector_reason.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

struct assist_det {
    cv::dnn::Net net;
    std::vector<std::string> outputs;
    int input_size;
    cv::Mat blob;
};

namespace {

// Darknet follows most convolutions with a batch normalisation. OpenCV folds each into a copy of the convolution's
// weights the first time the net runs and keeps the file's weights beside the copy, which it never reads again:
// for YOLOv4-tiny, 23 MB held twice. Folded here, before OpenCV reads the net, every convolution carries its own
// bias and the net holds its weights once. The net read as the files are gives each convolution's shape and
// normalisation; a cfg this cannot account for (a fully connected layer, a count that differs) is read as it is.
constexpr float darknetEpsilon = 1e-6f;  // OpenCV's darknet reader normalises with Darknet's epsilon

bool fold_batch_norm(const std::string &cfg_path, const std::string &weights_path, std::string &cfg_out,
                     std::vector<char> &weights_out) {
    std::ifstream cfg_file(cfg_path);
    std::stringstream cfg_text;
    cfg_text << cfg_file.rdbuf();
    std::ifstream weights_file(weights_path, std::ios::binary);
    int32_t version[3] = {0, 0, 0};
    weights_file.read(reinterpret_cast<char *>(version), sizeof(version));
    if (!cfg_file || !weights_file) return false;
    const size_t header = sizeof(version) + ((version[0] * 10 + version[1]) >= 2 ? 8 : 4);
    if (version[0] > 1000 || version[1] > 1000) return false;  // transposed weights: OpenCV refuses them anyway

    // The cfg with every convolution's normalisation turned off, its sections counted as they go.
    std::string line;
    std::string section;
    int convolutions = 0, normalisations = 0;
    while (std::getline(cfg_text, line)) {
        std::string bare;
        for (char c : line)
            if (c != ' ' && c != '\t' && c != '\r') bare += c;
        if (!bare.empty() && bare[0] == '[') {
            section = bare;
            if (section == "[convolutional]") convolutions++;
            if (section == "[connected]") return false;
        } else if (section == "[convolutional]" && bare == "batch_normalize=1") {
            line = "batch_normalize=0";
            normalisations++;
        }
        cfg_out += line;
        cfg_out += '\n';
    }

    cv::dnn::Net plain = cv::dnn::readNetFromDarknet(cfg_path, weights_path);
    // Sized once: grown layer by layer it would hold up to twice the weights while the net is read.
    size_t floats = 0;
    for (const std::string &name : plain.getLayerNames()) {
        cv::Ptr<cv::dnn::Layer> conv = plain.getLayer(plain.getLayerId(name));
        if (conv->type == "Convolution" && !conv->blobs.empty())
            floats += static_cast<size_t>(conv->blobs[0].size[0]) + conv->blobs[0].total();
    }
    weights_out.reserve(header + floats * sizeof(float));
    weights_out.assign(header, 0);
    weights_file.seekg(0);
    weights_file.read(weights_out.data(), static_cast<std::streamsize>(header));
    int seen = 0, folded_norms = 0;
    for (const std::string &name : plain.getLayerNames()) {
        cv::Ptr<cv::dnn::Layer> conv = plain.getLayer(plain.getLayerId(name));
        if (conv->type != "Convolution") continue;
        seen++;
        if (conv->blobs.empty() || conv->blobs[0].type() != CV_32F || !conv->blobs[0].isContinuous()) return false;
        cv::Mat weights = conv->blobs[0];
        const int filters = weights.size[0];
        const size_t each = weights.total() / static_cast<size_t>(filters);
        std::vector<float> bias(static_cast<size_t>(filters), 0.0f);
        std::vector<float> scale(static_cast<size_t>(filters), 1.0f);
        // The reader names a convolution conv_N and the normalisation after it bn_N.
        const int normId = plain.getLayerId("bn_" + name.substr(name.find('_') + 1));
        if (normId >= 0) {
            // Blobs as the reader sets them: mean, variance, scale, bias.
            const std::vector<cv::Mat> &norm = plain.getLayer(normId)->blobs;
            if (norm.size() != 4) return false;
            for (int f = 0; f < filters; f++) {
                scale[f] = norm[2].ptr<float>()[f] / std::sqrt(norm[1].ptr<float>()[f] + darknetEpsilon);
                bias[f] = norm[3].ptr<float>()[f] - norm[0].ptr<float>()[f] * scale[f];
            }
            plain.getLayer(normId)->blobs.clear();
            folded_norms++;
        } else {
            if (conv->blobs.size() < 2) return false;
            std::memcpy(bias.data(), conv->blobs[1].ptr<float>(), bias.size() * sizeof(float));
        }
        const size_t at = weights_out.size();
        weights_out.resize(at + (bias.size() + weights.total()) * sizeof(float));
        std::memcpy(weights_out.data() + at, bias.data(), bias.size() * sizeof(float));
        auto *folded = reinterpret_cast<float *>(weights_out.data() + at + bias.size() * sizeof(float));
        const float *original = weights.ptr<float>();
        for (int f = 0; f < filters; f++)
            for (size_t k = 0; k < each; k++) folded[f * each + k] = original[f * each + k] * scale[f];
        conv->blobs.clear();  // the file's copy goes as soon as the folded one is made
    }
    // Every normalisation the net has must be one this cfg turned off (a line written another way, with a
    // comment after it say, is read as it is).
    return seen == convolutions && folded_norms == normalisations;
}

// Pictures to calibrate with: `calibration.bgr` beside the weights, pictures of 416×416 BGR24 one after another
// (fetch-models.sh makes it from Debian's darknet photos). A file of another size, or more than 16 pictures, is
// not read. With them the net runs in 8-bit integers (OpenCV's Net::quantize, the ranges of each layer taken
// from these pictures): about two thirds of the float net's time, a quarter of its weights' memory, and of the
// float net's boxes on 17 photos all but two scoring under 0.4 kept (docs/detector.md).
constexpr int calibrationSide = 416;

std::vector<cv::Mat> calibration_pictures(const std::string &weights_path) {
    const size_t slash = weights_path.find_last_of('/');
    const std::string path = (slash == std::string::npos ? std::string(".") : weights_path.substr(0, slash)) +
                             "/calibration.bgr";
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file) return {};
    const std::streamoff size = file.tellg();
    const std::streamoff picture = std::streamoff(calibrationSide) * calibrationSide * 3;
    if (size <= 0 || size % picture != 0 || size / picture > 16) return {};
    file.seekg(0);
    std::vector<cv::Mat> pictures;
    for (std::streamoff index = 0; index < size / picture; index++) {
        cv::Mat one(calibrationSide, calibrationSide, CV_8UC3);
        if (!file.read(reinterpret_cast<char *>(one.data), picture)) return {};
        pictures.push_back(one);
    }
    return pictures;
}

}  // namespace

extern "C" assist_det *assist_det_open(const char *cfg, const char *weights, int input_size, int threads,
                                       char **err) {
    try {
        if (threads > 0) cv::setNumThreads(threads);
        auto *det = new assist_det();
        std::string folded_cfg;
        std::vector<char> folded_weights;
        const char *fold = std::getenv("ASSIST_DETECTOR_FOLD");
        if ((fold == nullptr || std::strcmp(fold, "0") != 0) &&
            fold_batch_norm(cfg, weights, folded_cfg, folded_weights)) {
            det->net = cv::dnn::readNetFromDarknet(folded_cfg.data(), folded_cfg.size(), folded_weights.data(),
                                                   folded_weights.size());
        } else {
            det->net = cv::dnn::readNetFromDarknet(cfg, weights);
        }
        folded_cfg = std::string();
        folded_weights = std::vector<char>();
        det->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        det->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
        det->outputs = det->net.getUnconnectedOutLayersNames();
        det->input_size = input_size;
        const char *integers = std::getenv("ASSIST_DETECTOR_INT8");
        if (integers == nullptr || std::strcmp(integers, "0") != 0) {
            const std::vector<cv::Mat> pictures = calibration_pictures(weights);
            if (!pictures.empty()) {
                cv::Mat batch;
                cv::dnn::blobFromImages(pictures, batch, 1.0 / 255.0, cv::Size(input_size, input_size), cv::Scalar(),
                                        true, false, CV_32F);
                det->net = det->net.quantize(batch, CV_32F, CV_32F);
                det->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
                det->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
                det->outputs = det->net.getUnconnectedOutLayersNames();
            }
        }
        cv::Mat grey(input_size, input_size, CV_8UC3, cv::Scalar(128, 128, 128));
        assist_det_box unused;
        double ms = 0;
        assist_det_run(det, grey.data, input_size, input_size, grey.step, 0.25f, 0.45f, -1, &unused, 1, &ms);
#if defined(__GLIBC__)
        malloc_trim(0);  // the file's net and the folded copy are gone: their pages go back to the system
#endif
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
