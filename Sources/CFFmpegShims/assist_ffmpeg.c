#include "assist_ffmpeg.h"

#include <dlfcn.h>
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdio.h>

/* A camera's frames need swscale alone; a picture or video file needs libavformat and libavcodec, which bring
 * over a hundred more libraries of codecs and their dependencies (about 15 MB of a find-object search's resident
 * memory). This library links swscale and libavutil only and opens the two decoding libraries, by the sonames
 * of the headers it was built with, the first time a file is opened: a camera never loads them. Each function
 * is typed as its header declares it. */
static struct {
    __typeof__(avformat_open_input) *open_input;
    __typeof__(avformat_find_stream_info) *find_stream_info;
    __typeof__(av_find_best_stream) *find_best_stream;
    __typeof__(av_read_frame) *read_frame;
    __typeof__(avformat_close_input) *close_input;
    __typeof__(avcodec_alloc_context3) *alloc_context;
    __typeof__(avcodec_parameters_to_context) *parameters_to_context;
    __typeof__(avcodec_open2) *open_codec;
    __typeof__(avcodec_send_packet) *send_packet;
    __typeof__(avcodec_receive_frame) *receive_frame;
    __typeof__(avcodec_free_context) *free_context;
    __typeof__(av_packet_alloc) *packet_alloc;
    __typeof__(av_packet_unref) *packet_unref;
    __typeof__(av_packet_free) *packet_free;
} decoding;
static const char *decoding_missing = "FFmpeg's decoders cannot be loaded";
static pthread_once_t decoding_once = PTHREAD_ONCE_INIT;

#define SONAME(library, major) "lib" library ".so." AV_STRINGIFY(major)

static void open_decoding(void) {
    /* Never closed: the functions stay valid for the life of the process. */
    void *format = dlopen(SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (format == NULL) return;
    /* libavcodec comes in as libavformat's dependency, and a handle's lookups search its dependencies: opened
       a second time by name, glibc's loader would list its dependencies again and lose the first list. */
    void *codec = format;
#define FIND(library, field, name) \
    if ((*(void **)&decoding.field = dlsym(library, #name)) == NULL) return
    FIND(format, open_input, avformat_open_input);
    FIND(format, find_stream_info, avformat_find_stream_info);
    FIND(format, find_best_stream, av_find_best_stream);
    FIND(format, read_frame, av_read_frame);
    FIND(format, close_input, avformat_close_input);
    FIND(codec, alloc_context, avcodec_alloc_context3);
    FIND(codec, parameters_to_context, avcodec_parameters_to_context);
    FIND(codec, open_codec, avcodec_open2);
    FIND(codec, send_packet, avcodec_send_packet);
    FIND(codec, receive_frame, avcodec_receive_frame);
    FIND(codec, free_context, avcodec_free_context);
    FIND(codec, packet_alloc, av_packet_alloc);
    FIND(codec, packet_unref, av_packet_unref);
    FIND(codec, packet_free, av_packet_free);
#undef FIND
    decoding_missing = NULL;
}

struct assist_media {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *scale;
    AVFrame *converted; /* swscale's destination: FFmpeg-allocated, aligned and padded */
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
    AVFrame *converted; /* swscale's destination: FFmpeg-allocated, aligned and padded */
};

/* swscale writes whole SIMD blocks, so it may write past the last pixel of a row and past the end of a buffer
 * that is exactly `stride * height` bytes (up to 45 bytes for an even-height YUV 4:2:0 picture; 9 for the
 * 1261-pixel-wide sample). It is only ever given frames that av_frame_get_buffer allocated, whose line sizes
 * are aligned and whose buffers carry FFmpeg's own padding. `allocate_target` makes one; `copy_out` then
 * copies exactly `width * bytes per pixel` of each row into the caller's buffer, whose capacity it checks
 * first. */
static AVFrame *allocate_target(int width, int height, enum AVPixelFormat format) {
    AVFrame *frame = av_frame_alloc();
    if (frame == NULL) return NULL;
    frame->width = width;
    frame->height = height;
    frame->format = format;
    if (av_frame_get_buffer(frame, 64) < 0) av_frame_free(&frame);
    return frame;
}

/* The bytes a caller's buffer needs for `height` rows of `row_bytes` at `stride`; 0 when the stride is short. */
static size_t needed_bytes(int row_bytes, int stride, int height) {
    if (row_bytes <= 0 || height <= 0 || stride < row_bytes) return 0;
    return (size_t)stride * (size_t)(height - 1) + (size_t)row_bytes;
}

static int copy_out(const AVFrame *converted, uint8_t *target, int stride, size_t capacity) {
    int row_bytes = av_image_get_linesize(converted->format, converted->width, 0);
    size_t needed = needed_bytes(row_bytes, stride, converted->height);
    if (needed == 0 || capacity < needed) return AVERROR(EINVAL);
    av_image_copy_plane(target, stride, converted->data[0], converted->linesize[0], row_bytes, converted->height);
    return 0;
}

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

/* Only ever called on a handle `assist_media_open` made, so after the decoding libraries were opened. */
static void assist_media_close(assist_media *media) {
    if (media == NULL) return;
    sws_freeContext(media->scale);
    av_frame_free(&media->converted);
    av_frame_free(&media->frame);
    decoding.packet_free(&media->packet);
    decoding.free_context(&media->codec);
    decoding.close_input(&media->format);
    av_free(media);
}

static int assist_media_open(const char *path, assist_media **out, char *reason, size_t size) {
    *out = NULL;
    av_log_set_level(AV_LOG_QUIET);
    pthread_once(&decoding_once, open_decoding);
    if (decoding_missing != NULL) return say(reason, size, AVERROR(ENOSYS), decoding_missing);
    assist_media *media = av_mallocz(sizeof *media);
    if (media == NULL) return say(reason, size, AVERROR(ENOMEM), "out of memory");
    int status = decoding.open_input(&media->format, path, NULL, NULL);
    if (status < 0) {
        av_free(media);
        return say(reason, size, status, "it cannot be opened");
    }
    status = decoding.find_stream_info(media->format, NULL);
    if (status < 0) {
        assist_media_close(media);
        return say(reason, size, status, "it is damaged or not a picture or video");
    }
    const AVCodec *decoder = NULL;
    media->stream = decoding.find_best_stream(media->format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (media->stream < 0 || decoder == NULL) {
        assist_media_close(media);
        return say(reason, size, AVERROR_STREAM_NOT_FOUND, "it holds no picture");
    }
    AVStream *stream = media->format->streams[media->stream];
    media->codec = decoding.alloc_context(decoder);
    if (media->codec == NULL || decoding.parameters_to_context(media->codec, stream->codecpar) < 0) {
        assist_media_close(media);
        return say(reason, size, AVERROR(ENOMEM), "its decoder cannot start");
    }
    media->codec->thread_count = 1;
    status = decoding.open_codec(media->codec, decoder, NULL);
    if (status < 0) {
        assist_media_close(media);
        return say(reason, size, status, "its decoder cannot start");
    }
    media->width = media->codec->width;
    media->height = media->codec->height;
    if (media->width <= 0 || media->height <= 0) {
        assist_media_close(media);
        return say(reason, size, AVERROR_INVALIDDATA, "it is not a picture that can be decoded, or it is cut short");
    }
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    int still = media->format->iformat != NULL && strstr(media->format->iformat->name, "_pipe") != NULL;
    media->fps = !still && rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    media->time_base = av_q2d(stream->time_base);
    media->packet = decoding.packet_alloc();
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

/* Converts the decoded frame into BGR24 at the stream's size (a video may change size mid-stream) and copies
 * it into the caller's `bgr`, `stride` bytes a row, `capacity` bytes in all. */
static int deliver(assist_media *media, uint8_t *bgr, int stride, size_t capacity, double *seconds) {
    AVFrame *frame = media->frame;
    media->scale = sws_getCachedContext(media->scale, frame->width, frame->height, frame->format, media->width,
                                        media->height, AV_PIX_FMT_BGR24, SWS_AREA, NULL, NULL, NULL);
    if (media->converted == NULL) media->converted = allocate_target(media->width, media->height, AV_PIX_FMT_BGR24);
    if (media->scale == NULL || media->converted == NULL) {
        av_frame_unref(frame);
        return AVERROR(ENOMEM);
    }
    sws_scale(media->scale, (const uint8_t *const *)frame->data, frame->linesize, 0, frame->height,
              media->converted->data, media->converted->linesize);
    int64_t pts = frame->best_effort_timestamp;
    *seconds = pts == AV_NOPTS_VALUE ? 0 : (double)pts * media->time_base;
    av_frame_unref(frame);
    int status = copy_out(media->converted, bgr, stride, capacity);
    return status < 0 ? status : 1;
}

static int assist_media_next(assist_media *media, uint8_t *bgr, int stride, size_t capacity, double *seconds,
                             char *reason, size_t size) {
    size_t needed = needed_bytes(media->width * 3, stride, media->height);
    if (needed == 0 || capacity < needed) return say(reason, size, AVERROR(EINVAL), "the picture buffer is too small");
    for (;;) {
        int status = decoding.receive_frame(media->codec, media->frame);
        if (status == 0) {
            status = deliver(media, bgr, stride, capacity, seconds);
            return status < 0 ? say(reason, size, status, "a picture cannot be converted") : status;
        }
        if (status == AVERROR_EOF) return 0;
        if (status != AVERROR(EAGAIN)) return say(reason, size, status, "a picture is damaged");
        if (media->draining) return 0;
        status = decoding.read_frame(media->format, media->packet);
        if (status == AVERROR_EOF) {
            media->draining = 1;
            decoding.send_packet(media->codec, NULL);
            continue;
        }
        if (status < 0) return say(reason, size, status, "the file cannot be read");
        if (media->packet->stream_index == media->stream) {
            status = decoding.send_packet(media->codec, media->packet);
            decoding.packet_unref(media->packet);
            if (status < 0 && status != AVERROR(EAGAIN)) return say(reason, size, status, "a picture is damaged");
        } else {
            decoding.packet_unref(media->packet);
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
    scaler->converted = allocate_target(target_width, target_height, to);
    if (scaler->context == NULL || scaler->converted == NULL) {
        sws_freeContext(scaler->context);
        av_frame_free(&scaler->converted);
        av_free(scaler);
        return NULL;
    }
    scaler->source_height = source_height;
    scaler->source_format = from;
    return scaler;
}

static int assist_scaler_run(assist_scaler *scaler, const uint8_t *source, int source_stride, uint8_t *target,
                             int target_stride, size_t target_capacity) {
    const uint8_t *planes[4] = {source, NULL, NULL, NULL};
    int strides[4] = {source_stride, 0, 0, 0};
    sws_scale(scaler->context, planes, strides, 0, scaler->source_height, scaler->converted->data,
              scaler->converted->linesize);
    return copy_out(scaler->converted, target, target_stride, target_capacity);
}

static void assist_scaler_free(assist_scaler *scaler) {
    if (scaler == NULL) return;
    sws_freeContext(scaler->context);
    av_frame_free(&scaler->converted);
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
