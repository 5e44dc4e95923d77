#include "assist_video_encoder.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavcodec/version.h>
#include <libavformat/avformat.h>
#include <libavformat/version.h>
#include <libavutil/opt.h>
#include <libavutil/version.h>
#include <libswscale/swscale.h>
#include <libswscale/version.h>

#define STR2(x) #x
#define STR(x) STR2(x)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int loaded;
    const AVCodec *(*avcodec_find_encoder_by_name)(const char *);
    AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *);
    int (*avcodec_open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*avcodec_parameters_from_context)(AVCodecParameters *, const AVCodecContext *);
    int (*avcodec_send_frame)(AVCodecContext *, const AVFrame *);
    int (*avcodec_receive_packet)(AVCodecContext *, AVPacket *);
    void (*avcodec_free_context)(AVCodecContext **);
    AVPacket *(*av_packet_alloc)(void);
    void (*av_packet_free)(AVPacket **);
    void (*av_packet_unref)(AVPacket *);
    void (*av_packet_rescale_ts)(AVPacket *, AVRational, AVRational);
    int (*avformat_alloc_output_context2)(AVFormatContext **, const AVOutputFormat *, const char *, const char *);
    AVStream *(*avformat_new_stream)(AVFormatContext *, const AVCodec *);
    int (*avio_open)(AVIOContext **, const char *, int);
    int (*avio_closep)(AVIOContext **);
    int (*avformat_write_header)(AVFormatContext *, AVDictionary **);
    int (*av_interleaved_write_frame)(AVFormatContext *, AVPacket *);
    int (*av_write_trailer)(AVFormatContext *);
    void (*avformat_free_context)(AVFormatContext *);
    AVFrame *(*av_frame_alloc)(void);
    int (*av_frame_get_buffer)(AVFrame *, int);
    int (*av_frame_make_writable)(AVFrame *);
    void (*av_frame_free)(AVFrame **);
    int (*av_dict_set)(AVDictionary **, const char *, const char *, int);
    void (*av_dict_free)(AVDictionary **);
    int (*av_opt_set)(void *, const char *, const char *, int);
    void (*av_log_set_level)(int);
    struct SwsContext *(*sws_getContext)(int, int, enum AVPixelFormat, int, int, enum AVPixelFormat, int, SwsFilter *,
                                         SwsFilter *, const double *);
    int (*sws_scale)(struct SwsContext *, const uint8_t *const[], const int[], int, int, uint8_t *const[],
                     const int[]);
    void (*sws_freeContext)(struct SwsContext *);
} ff;

static int load_ffmpeg(void) {
    pthread_mutex_lock(&load_lock);
    if (ff.loaded == 0) {
        void *util = dlopen("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        void *codec = dlopen("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        void *format = dlopen("libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        void *scale = dlopen("libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        int ok = util && codec && format && scale;
#define LOAD(lib, name)                                                                                        \
    if (ok) {                                                                                                  \
        *(void **)(&ff.name) = dlsym(lib, #name);                                                              \
        ok = ff.name != NULL;                                                                                  \
    }
        LOAD(codec, avcodec_find_encoder_by_name)
        LOAD(codec, avcodec_alloc_context3)
        LOAD(codec, avcodec_open2)
        LOAD(codec, avcodec_parameters_from_context)
        LOAD(codec, avcodec_send_frame)
        LOAD(codec, avcodec_receive_packet)
        LOAD(codec, avcodec_free_context)
        LOAD(codec, av_packet_alloc)
        LOAD(codec, av_packet_free)
        LOAD(codec, av_packet_unref)
        LOAD(codec, av_packet_rescale_ts)
        LOAD(format, avformat_alloc_output_context2)
        LOAD(format, avformat_new_stream)
        LOAD(format, avio_open)
        LOAD(format, avio_closep)
        LOAD(format, avformat_write_header)
        LOAD(format, av_interleaved_write_frame)
        LOAD(format, av_write_trailer)
        LOAD(format, avformat_free_context)
        LOAD(util, av_frame_alloc)
        LOAD(util, av_frame_get_buffer)
        LOAD(util, av_frame_make_writable)
        LOAD(util, av_frame_free)
        LOAD(util, av_dict_set)
        LOAD(util, av_dict_free)
        LOAD(util, av_opt_set)
        LOAD(util, av_log_set_level)
        LOAD(scale, sws_getContext)
        LOAD(scale, sws_scale)
        LOAD(scale, sws_freeContext)
#undef LOAD
        if (ok) ff.av_log_set_level(AV_LOG_QUIET);
        ff.loaded = ok ? 1 : -1;
    }
    int ready = ff.loaded == 1;
    pthread_mutex_unlock(&load_lock);
    return ready;
}

struct assist_video_writer {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    struct SwsContext *sws;
    int width, height;
    int64_t first_us, last_pts, last_key_us;
    int frames;
};

static void say(char *error, size_t size, const char *reason) {
    if (error && size > 0) snprintf(error, size, "%s", reason);
}

static void release(assist_video_writer *w) {
    if (!w) return;
    if (w->sws) ff.sws_freeContext(w->sws);
    if (w->frame) ff.av_frame_free(&w->frame);
    if (w->packet) ff.av_packet_free(&w->packet);
    if (w->codec) ff.avcodec_free_context(&w->codec);
    if (w->format) {
        if (w->format->pb) ff.avio_closep(&w->format->pb);
        ff.avformat_free_context(w->format);
    }
    free(w);
}

assist_video_writer *assist_video_open(const char *path, int width, int height, const char *preset, char *error,
                                       size_t error_size) {
    if (!path || width < 16 || height < 16 || (width & 1) || (height & 1)) {
        say(error, error_size, "bad arguments");
        return NULL;
    }
    if (!load_ffmpeg()) {
        say(error, error_size, "FFmpeg's libraries cannot be opened");
        return NULL;
    }
    const AVCodec *encoder = ff.avcodec_find_encoder_by_name("libx264");
    if (!encoder) {
        say(error, error_size, "FFmpeg has no libx264 encoder");
        return NULL;
    }
    assist_video_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->width = width;
    w->height = height;
    w->first_us = -1;
    w->last_pts = -1;
    AVDictionary *options = NULL;
    if (ff.avformat_alloc_output_context2(&w->format, NULL, "mp4", path) < 0 || !w->format) goto fail;
    w->stream = ff.avformat_new_stream(w->format, NULL);
    w->codec = ff.avcodec_alloc_context3(encoder);
    w->frame = ff.av_frame_alloc();
    w->packet = ff.av_packet_alloc();
    if (!w->stream || !w->codec || !w->frame || !w->packet) goto fail;
    w->codec->width = width;
    w->codec->height = height;
    w->codec->pix_fmt = AV_PIX_FMT_YUV420P;
    w->codec->time_base = (AVRational){1, 90000};
    w->codec->framerate = (AVRational){30, 1};
    w->codec->gop_size = 30;
    w->codec->max_b_frames = 0; /* fragments cut at keyframes play at once */
    if (w->format->oformat->flags & AVFMT_GLOBALHEADER) w->codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    ff.av_opt_set(w->codec->priv_data, "preset", preset ? preset : "veryfast", 0);
    if (ff.avcodec_open2(w->codec, encoder, NULL) < 0) goto fail;
    if (ff.avcodec_parameters_from_context(w->stream->codecpar, w->codec) < 0) goto fail;
    w->stream->time_base = w->codec->time_base;
    w->frame->format = AV_PIX_FMT_YUV420P;
    w->frame->width = width;
    w->frame->height = height;
    if (ff.av_frame_get_buffer(w->frame, 0) < 0) goto fail;
    w->sws = ff.sws_getContext(width, height, AV_PIX_FMT_BGR24, width, height, AV_PIX_FMT_YUV420P, SWS_POINT, NULL,
                               NULL, NULL);
    if (!w->sws) goto fail;
    if (ff.avio_open(&w->format->pb, path, AVIO_FLAG_WRITE) < 0) {
        say(error, error_size, "the file cannot be created");
        release(w);
        return NULL;
    }
    ff.av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0);
    if (ff.avformat_write_header(w->format, &options) < 0) goto fail;
    ff.av_dict_free(&options);
    return w;
fail:
    if (options) ff.av_dict_free(&options);
    say(error, error_size, "the H.264 encoder cannot start");
    release(w);
    return NULL;
}

/* Sends a frame (NULL: drain) and writes every packet the encoder gives back. */
static int push(assist_video_writer *w, AVFrame *frame) {
    int status = ff.avcodec_send_frame(w->codec, frame);
    if (status < 0) return status;
    while ((status = ff.avcodec_receive_packet(w->codec, w->packet)) >= 0) {
        ff.av_packet_rescale_ts(w->packet, w->codec->time_base, w->stream->time_base);
        w->packet->stream_index = w->stream->index;
        status = ff.av_interleaved_write_frame(w->format, w->packet);
        ff.av_packet_unref(w->packet);
        if (status < 0) return status;
    }
    return (status == AVERROR(EAGAIN) || status == AVERROR_EOF) ? 0 : status;
}

int assist_video_add(assist_video_writer *w, const uint8_t *bgr, size_t stride, int64_t timestamp_us) {
    if (!w || !bgr) return -1;
    if (w->first_us < 0) w->first_us = timestamp_us;
    int64_t at = timestamp_us - w->first_us;
    int64_t pts = at * 90 / 1000;
    if (pts <= w->last_pts) pts = w->last_pts + 1; /* never backwards */
    if (ff.av_frame_make_writable(w->frame) < 0) return -1;
    const uint8_t *planes[4] = {bgr, NULL, NULL, NULL};
    int strides[4] = {(int)stride, 0, 0, 0};
    ff.sws_scale(w->sws, planes, strides, 0, w->height, w->frame->data, w->frame->linesize);
    w->frame->pts = pts;
    /* A keyframe, and so a fragment, at least every second of the clip's own time. */
    if (w->frames == 0 || at - w->last_key_us >= 1000000) {
        w->frame->pict_type = AV_PICTURE_TYPE_I;
        w->last_key_us = at;
    } else {
        w->frame->pict_type = AV_PICTURE_TYPE_NONE;
    }
    w->last_pts = pts;
    w->frames++;
    return push(w, w->frame);
}

int assist_video_close(assist_video_writer *w) {
    if (!w) return -1;
    int status = push(w, NULL);
    int trailer = ff.av_write_trailer(w->format);
    release(w);
    return status < 0 ? status : trailer < 0 ? trailer : 0;
}
