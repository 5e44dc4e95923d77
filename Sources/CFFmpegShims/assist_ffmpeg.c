#include "assist_ffmpeg.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <stdio.h>

struct assist_media {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *scale;
    int stream;
    int width, height;
    double fps;
    double time_base;
    int draining;
};

struct assist_scaler {
    struct SwsContext *context;
    int source_height;
    enum AVPixelFormat source_format;
};

static int say(char *reason, size_t size, int code, const char *what) {
    if (reason != NULL && size > 0) {
        char text[128] = "";
        av_strerror(code, text, sizeof text);
        snprintf(reason, size, "%s (%s)", what, text);
    }
    return code < 0 ? code : -1;
}

static enum AVPixelFormat pixel_format(uint32_t fourcc) {
    switch (fourcc) {
    case ASSIST_PIX_BGR24: return AV_PIX_FMT_BGR24;
    case ASSIST_PIX_RGB24: return AV_PIX_FMT_RGB24;
    case ASSIST_PIX_GRAY8: return AV_PIX_FMT_GRAY8;
    case ASSIST_PIX_YUYV: return AV_PIX_FMT_YUYV422;
    default: return AV_PIX_FMT_NONE;
    }
}

static void assist_media_close(assist_media *media) {
    if (media == NULL) return;
    sws_freeContext(media->scale);
    av_frame_free(&media->frame);
    av_packet_free(&media->packet);
    avcodec_free_context(&media->codec);
    avformat_close_input(&media->format);
    av_free(media);
}

static int assist_media_open(const char *path, assist_media **out, char *reason, size_t size) {
    *out = NULL;
    av_log_set_level(AV_LOG_QUIET);
    assist_media *media = av_mallocz(sizeof *media);
    if (media == NULL) return say(reason, size, AVERROR(ENOMEM), "out of memory");
    int status = avformat_open_input(&media->format, path, NULL, NULL);
    if (status < 0) {
        av_free(media);
        return say(reason, size, status, "it cannot be opened");
    }
    status = avformat_find_stream_info(media->format, NULL);
    if (status < 0) {
        assist_media_close(media);
        return say(reason, size, status, "it is damaged or not a picture or video");
    }
    const AVCodec *decoder = NULL;
    media->stream = av_find_best_stream(media->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (media->stream < 0 || decoder == NULL) {
        assist_media_close(media);
        return say(reason, size, AVERROR_STREAM_NOT_FOUND, "it holds no picture");
    }
    AVStream *stream = media->format->streams[media->stream];
    media->codec = avcodec_alloc_context3(decoder);
    if (media->codec == NULL || avcodec_parameters_to_context(media->codec, stream->codecpar) < 0) {
        assist_media_close(media);
        return say(reason, size, AVERROR(ENOMEM), "its decoder cannot start");
    }
    media->codec->thread_count = 1;
    status = avcodec_open2(media->codec, decoder, NULL);
    if (status < 0) {
        assist_media_close(media);
        return say(reason, size, status, "its decoder cannot start");
    }
    media->width = media->codec->width;
    media->height = media->codec->height;
    if (media->width <= 0 || media->height <= 0) {
        assist_media_close(media);
        return say(reason, size, AVERROR_INVALIDDATA, "its picture has no size");
    }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    int still = media->format->iformat != NULL && strstr(media->format->iformat->name, "_pipe") != NULL;
    media->fps = !still && rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    media->time_base = av_q2d(stream->time_base);
    media->packet = av_packet_alloc();
    media->frame = av_frame_alloc();
    if (media->packet == NULL || media->frame == NULL) {
        assist_media_close(media);
        return say(reason, size, AVERROR(ENOMEM), "out of memory");
    }
    *out = media;
    return 0;
}

static void assist_media_info(const assist_media *media, int *width, int *height, double *fps) {
    *width = media->width;
    *height = media->height;
    *fps = media->fps;
}

/* Converts the decoded frame into BGR24 at the stream's size (a video may change size mid-stream). */
static int deliver(assist_media *media, uint8_t *bgr, int stride, double *seconds) {
    AVFrame *frame = media->frame;
    media->scale = sws_getCachedContext(media->scale, frame->width, frame->height, frame->format, media->width,
                                        media->height, AV_PIX_FMT_BGR24, SWS_AREA, NULL, NULL, NULL);
    if (media->scale == NULL) return AVERROR(EINVAL);
    uint8_t *planes[4] = {bgr, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    sws_scale(media->scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height, planes, strides);
    int64_t pts = frame->best_effort_timestamp;
    *seconds = pts == AV_NOPTS_VALUE ? 0 : (double)pts * media->time_base;
    av_frame_unref(frame);
    return 1;
}

static int assist_media_next(assist_media *media, uint8_t *bgr, int stride, double *seconds, char *reason,
                             size_t size) {
    for (;;) {
        int status = avcodec_receive_frame(media->codec, media->frame);
        if (status == 0) return deliver(media, bgr, stride, seconds);
        if (status == AVERROR_EOF) return 0;
        if (status != AVERROR(EAGAIN)) return say(reason, size, status, "a picture is damaged");
        if (media->draining) return 0;
        status = av_read_frame(media->format, media->packet);
        if (status == AVERROR_EOF) {
            media->draining = 1;
            avcodec_send_packet(media->codec, NULL);
            continue;
        }
        if (status < 0) return say(reason, size, status, "the file cannot be read");
        if (media->packet->stream_index == media->stream) {
            status = avcodec_send_packet(media->codec, media->packet);
            av_packet_unref(media->packet);
            if (status < 0 && status != AVERROR(EAGAIN)) return say(reason, size, status, "a picture is damaged");
        } else {
            av_packet_unref(media->packet);
        }
    }
}

static assist_scaler *assist_scaler_create(int source_width, int source_height, uint32_t source_format, int target_width,
                                    int target_height, uint32_t target_format) {
    enum AVPixelFormat from = pixel_format(source_format), to = pixel_format(target_format);
    if (from == AV_PIX_FMT_NONE || to == AV_PIX_FMT_NONE) return NULL;
    assist_scaler *scaler = av_mallocz(sizeof *scaler);
    if (scaler == NULL) return NULL;
    scaler->context = sws_getContext(source_width, source_height, from, target_width, target_height, to, SWS_AREA,
                                     NULL, NULL, NULL);
    if (scaler->context == NULL) {
        av_free(scaler);
        return NULL;
    }
    scaler->source_height = source_height;
    scaler->source_format = from;
    return scaler;
}

static void assist_scaler_run(assist_scaler *scaler, const uint8_t *source, int source_stride, uint8_t *target,
                       int target_stride) {
    const uint8_t *planes[4] = {source, NULL, NULL, NULL};
    int strides[4] = {source_stride, 0, 0, 0};
    uint8_t *out[4] = {target, NULL, NULL, NULL};
    int out_strides[4] = {target_stride, 0, 0, 0};
    sws_scale(scaler->context, planes, strides, 0, scaler->source_height, out, out_strides);
}

static void assist_scaler_free(assist_scaler *scaler) {
    if (scaler == NULL) return;
    sws_freeContext(scaler->context);
    av_free(scaler);
}

static const assist_media_api table = {
    .version = ASSIST_MEDIA_API_VERSION,
    .media_open = assist_media_open,
    .media_info = assist_media_info,
    .media_next = assist_media_next,
    .media_close = assist_media_close,
    .scaler_create = assist_scaler_create,
    .scaler_run = assist_scaler_run,
    .scaler_free = assist_scaler_free,
};

const assist_media_api *assist_media_api_get(void) { return &table; }
