// assist_video_reader.cpp - libAssistVideoReader.so: a video file read picture by picture through OpenCV's FFmpeg
// reader, for teaching find-object from a video. A library of its own because OpenCV's videoio brings some two
// hundred libraries with it (GStreamer, GDAL, Poppler, ...): kept out of libAssistDetector.so, they are loaded only
// when a video is read, not in every search (about 55 MB resident, measured with /proc/PID/smaps).
#include "assist_video_reader.h"
// The detector's own reason copy (one rule for every `*err` the C API hands back), from its folder.
#include "../CDetector/assist_detector_reason.hpp"

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include <cstdlib>
#include <exception>

struct assist_vid {
    cv::VideoCapture capture;
    cv::Mat frame;
};

extern "C" assist_vid *assist_vid_open(const char *path, double *fps, char **err) {
    // FFmpeg's own complaints ("moov atom not found") would reach the person's terminal beside Assist's one
    // sentence; OpenCV reads this when it first opens a video (AV_LOG_QUIET), unless an admin set it.
    static const bool quiet = setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0) == 0;
    (void)quiet;
    try {
        auto *video = new assist_vid();
        if (!video->capture.open(path, cv::CAP_FFMPEG)) {
            delete video;
            if (err != nullptr) *err = assist_copy_reason("it is not a video that can be read");
            return nullptr;
        }
        if (fps != nullptr) *fps = video->capture.get(cv::CAP_PROP_FPS);
        return video;
    } catch (const std::exception &error) {
        if (err != nullptr) *err = assist_copy_reason(error.what());
        return nullptr;
    }
}

extern "C" const uint8_t *assist_vid_next(assist_vid *video, int *width, int *height, size_t *stride, double *seconds) {
    try {
        if (video == nullptr || !video->capture.read(video->frame) || video->frame.empty() ||
            video->frame.type() != CV_8UC3) {
            return nullptr;
        }
        *width = video->frame.cols;
        *height = video->frame.rows;
        *stride = video->frame.step;
        if (seconds != nullptr) *seconds = video->capture.get(cv::CAP_PROP_POS_MSEC) / 1000.0;
        return video->frame.data;
    } catch (const std::exception &) {
        return nullptr;
    }
}

extern "C" void assist_vid_close(assist_vid *video) { delete video; }
