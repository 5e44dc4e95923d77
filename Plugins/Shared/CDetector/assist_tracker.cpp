// The follower between detections (assist_detector_api.h): corners inside the target's box, followed by
// pyramidal Lucas-Kanade optical flow on a small grey copy of each picture. Each picture's pyramid (with its
// derivatives) is built once, for the flow forwards to it and back from it, into memory kept from step to step.
#include "assist_detector.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <new>
#include <vector>

namespace {

// Pictures are followed at most this wide: corners move a pixel or two a frame there, and a step costs a
// few milliseconds on one core.
constexpr int kWidth = 320;
// Corners looked for in a box, the fewest that still follow a target, and how far a corner followed forwards
// then backwards may land from where it started (pixels of the small copy).
constexpr int kCorners = 60;
constexpr int kFewest = 5;
constexpr float kRoundTrip = 1.0f;
// The flow's search window and pyramid levels above the picture.
const cv::Size kWindow(15, 15);
constexpr int kLevels = 2;

void grey(const uint8_t *bgr, int width, int height, size_t stride, cv::Mat &scaled, cv::Mat &out) {
    cv::Mat picture(height, width, CV_8UC3, const_cast<uint8_t *>(bgr), stride);
    if (width > kWidth) {
        double scale = double(kWidth) / width;
        cv::resize(picture, scaled, cv::Size(), scale, scale, cv::INTER_AREA);
        cv::cvtColor(scaled, out, cv::COLOR_BGR2GRAY);
    } else {
        cv::cvtColor(picture, out, cv::COLOR_BGR2GRAY);
    }
}

float median(std::vector<float> &values) {
    auto middle = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), middle, values.end());
    return *middle;
}

}  // namespace

struct assist_trk {
    cv::Mat previous, next, scaled;
    std::vector<cv::Mat> previousPyramid, nextPyramid;
    std::vector<cv::Point2f> corners, moved, back;
    std::vector<uchar> status, backStatus;
    std::vector<float> error, dx, dy;
    cv::Rect2f box;  // in the small copy's pixels
    int seeded = 0;  // corners at the last seeding
};

static int seed(assist_trk *trk) {
    cv::Rect inside = cv::Rect(trk->box) & cv::Rect(0, 0, trk->previous.cols, trk->previous.rows);
    // The inner part of the box: a detection's edges often hold background.
    int marginX = inside.width / 8, marginY = inside.height / 8;
    inside = cv::Rect(inside.x + marginX, inside.y + marginY, inside.width - 2 * marginX, inside.height - 2 * marginY);
    trk->corners.clear();
    if (inside.width < 6 || inside.height < 6) return 0;
    cv::Mat mask = cv::Mat::zeros(trk->previous.size(), CV_8U);
    mask(inside).setTo(255);
    cv::goodFeaturesToTrack(trk->previous, trk->corners, kCorners, 0.01, 3, mask, 5);
    trk->seeded = static_cast<int>(trk->corners.size());
    if (trk->seeded < kFewest) trk->corners.clear();
    return static_cast<int>(trk->corners.size());
}

extern "C" assist_trk *assist_trk_open(void) { return new (std::nothrow) assist_trk(); }

extern "C" int assist_trk_start(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride,
                                const assist_det_box *box) {
    if (trk == nullptr || bgr == nullptr || box == nullptr || width <= 0 || height <= 0) return 0;
    try {
        grey(bgr, width, height, stride, trk->scaled, trk->previous);
        cv::buildOpticalFlowPyramid(trk->previous, trk->previousPyramid, kWindow, kLevels);
        float sx = float(trk->previous.cols), sy = float(trk->previous.rows);
        trk->box = cv::Rect2f(box->x * sx, box->y * sy, box->w * sx, box->h * sy);
        return seed(trk);
    } catch (const cv::Exception &) {
        trk->corners.clear();
        return 0;
    }
}

extern "C" int assist_trk_step(assist_trk *trk, const uint8_t *bgr, int width, int height, size_t stride,
                               assist_det_box *box) {
    if (trk == nullptr || bgr == nullptr || box == nullptr || trk->corners.empty()) return 0;
    try {
        grey(bgr, width, height, stride, trk->scaled, trk->next);
        if (trk->next.size() != trk->previous.size()) {
            // Another camera size: what was followed cannot be matched; a detection starts again.
            trk->corners.clear();
            return 0;
        }
        cv::buildOpticalFlowPyramid(trk->next, trk->nextPyramid, kWindow, kLevels);
        cv::TermCriteria until(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 20, 0.03);
        cv::calcOpticalFlowPyrLK(trk->previousPyramid, trk->nextPyramid, trk->corners, trk->moved, trk->status,
                                 trk->error, kWindow, kLevels, until);
        cv::calcOpticalFlowPyrLK(trk->nextPyramid, trk->previousPyramid, trk->moved, trk->back, trk->backStatus,
                                 trk->error, kWindow, kLevels, until);
        trk->dx.clear();
        trk->dy.clear();
        size_t kept = 0;
        for (size_t i = 0; i < trk->corners.size(); i++) {
            cv::Point2f roundTrip = trk->back[i] - trk->corners[i];
            if (!trk->status[i] || !trk->backStatus[i] || roundTrip.dot(roundTrip) > kRoundTrip * kRoundTrip) continue;
            trk->dx.push_back(trk->moved[i].x - trk->corners[i].x);
            trk->dy.push_back(trk->moved[i].y - trk->corners[i].y);
            trk->corners[kept++] = trk->moved[i];
        }
        trk->corners.resize(kept);
        if (kept < size_t(kFewest)) {
            trk->corners.clear();
            return 0;
        }
        trk->box.x += median(trk->dx);
        trk->box.y += median(trk->dy);
        std::swap(trk->previous, trk->next);
        std::swap(trk->previousPyramid, trk->nextPyramid);
        float sx = float(trk->previous.cols), sy = float(trk->previous.rows);
        float centreX = (trk->box.x + trk->box.width / 2) / sx, centreY = (trk->box.y + trk->box.height / 2) / sy;
        if (centreX < 0 || centreX > 1 || centreY < 0 || centreY > 1) {
            // Its centre left the picture: lost until a detection finds it again.
            trk->corners.clear();
            return 0;
        }
        // Half the corners gone (turned, covered): new ones in the box where it is now.
        if (kept * 2 < size_t(trk->seeded) && seed(trk) == 0) return 0;
        *box = assist_det_box{trk->box.x / sx, trk->box.y / sy, trk->box.width / sx, trk->box.height / sy, 1.0f, -1};
        return static_cast<int>(trk->corners.size());
    } catch (const cv::Exception &) {
        trk->corners.clear();
        return 0;
    }
}

extern "C" void assist_trk_close(assist_trk *trk) { delete trk; }
