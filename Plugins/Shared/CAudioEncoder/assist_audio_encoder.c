#include "assist_audio_encoder.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <dlfcn.h>
#include <pthread.h>
#include <libavformat/version.h>
#include <libavcodec/version.h>
#include <libavutil/version.h>

/* FFmpeg is opened on first use (dlopen), so loading the survey plugin, which the shell does at every start
   for its reminder, does not load FFmpeg's libraries. The headers are Debian 12's; the sonames follow them. */
#define STR2(x) #x
#define STR(x) STR2(x)
static struct {
    int loaded; /* 0 not tried, 1 ready, -1 unavailable */
    const AVCodec *(*avcodec_find_encoder_by_name)(const char *);
    const AVOutputFormat *(*av_guess_format)(const char *, const char *, const char *);
    AVPacket *(*av_packet_alloc)(void);
    int (*avformat_alloc_output_context2)(AVFormatContext **, const AVOutputFormat *, const char *, const char *);
    AVStream *(*avformat_new_stream)(AVFormatContext *, const AVCodec *);
    AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *);
    void (*av_channel_layout_default)(AVChannelLayout *, int);
    int (*avcodec_open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
    int (*avcodec_parameters_from_context)(AVCodecParameters *, const AVCodecContext *);
    int (*avio_open)(AVIOContext **, const char *, int);
    int (*avformat_write_header)(AVFormatContext *, AVDictionary **);
    AVFrame *(*av_frame_alloc)(void);
    int (*av_channel_layout_copy)(AVChannelLayout *, const AVChannelLayout *);
    int (*av_frame_get_buffer)(AVFrame *, int);
    int (*av_frame_make_writable)(AVFrame *);
    int (*avcodec_send_frame)(AVCodecContext *, const AVFrame *);
    int (*avcodec_receive_packet)(AVCodecContext *, AVPacket *);
    void (*av_packet_rescale_ts)(AVPacket *, AVRational, AVRational);
    int (*av_interleaved_write_frame)(AVFormatContext *, AVPacket *);
    void (*av_packet_unref)(AVPacket *);
    int (*av_write_trailer)(AVFormatContext *);
    void (*av_frame_free)(AVFrame **);
    void (*av_packet_free)(AVPacket **);
    void (*avcodec_free_context)(AVCodecContext **);
    int (*avio_closep)(AVIOContext **);
    void (*avformat_free_context)(AVFormatContext *);
} ff;

static pthread_mutex_t ff_lock = PTHREAD_MUTEX_INITIALIZER;

static int load_ffmpeg(void) {
    pthread_mutex_lock(&ff_lock);
    if (ff.loaded == 0) {
        void *util = dlopen("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        void *codec = dlopen("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        void *format = dlopen("libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
        int ok = util && codec && format;
#define LOAD(lib, name) if (ok) { *(void **)(&ff.name) = dlsym(lib, #name); ok = ff.name != NULL; }
        LOAD(codec, avcodec_find_encoder_by_name)
        LOAD(format, av_guess_format)
        LOAD(codec, av_packet_alloc)
        LOAD(format, avformat_alloc_output_context2)
        LOAD(format, avformat_new_stream)
        LOAD(codec, avcodec_alloc_context3)
        LOAD(util, av_channel_layout_default)
        LOAD(codec, avcodec_open2)
        LOAD(codec, avcodec_parameters_from_context)
        LOAD(format, avio_open)
        LOAD(format, avformat_write_header)
        LOAD(util, av_frame_alloc)
        LOAD(util, av_channel_layout_copy)
        LOAD(util, av_frame_get_buffer)
        LOAD(util, av_frame_make_writable)
        LOAD(codec, avcodec_send_frame)
        LOAD(codec, avcodec_receive_packet)
        LOAD(codec, av_packet_rescale_ts)
        LOAD(format, av_interleaved_write_frame)
        LOAD(codec, av_packet_unref)
        LOAD(format, av_write_trailer)
        LOAD(util, av_frame_free)
        LOAD(codec, av_packet_free)
        LOAD(codec, avcodec_free_context)
        LOAD(format, avio_closep)
        LOAD(format, avformat_free_context)
#undef LOAD
        ff.loaded = ok ? 1 : -1;
    }
    int ready = ff.loaded == 1;
    pthread_mutex_unlock(&ff_lock);
    return ready;
}

static int fail(char *error, size_t size, int code, const char *reason) {
    if (error && size > 0) snprintf(error, size, "%s", reason);
    return code;
}

/* Sends one frame (or NULL to drain) and writes every packet the encoder gives back. */
static int push(AVCodecContext *codec, AVFormatContext *format, AVStream *stream, AVFrame *frame, AVPacket *packet) {
    int status = ff.avcodec_send_frame(codec, frame);
    if (status < 0) return status;
    while ((status = ff.avcodec_receive_packet(codec, packet)) >= 0) {
        ff.av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
        packet->stream_index = stream->index;
        status = ff.av_interleaved_write_frame(format, packet);
        ff.av_packet_unref(packet);
        if (status < 0) return status;
    }
    return (status == AVERROR(EAGAIN) || status == AVERROR_EOF) ? 0 : status;
}

int assist_encode_m4a(const int16_t *samples, size_t frames, int channels, int rate_hz, int bitrate,
                      const char *path, char *error, size_t error_size) {
    if (!samples || !path || channels < 1 || channels > 2 || rate_hz < 8000 || rate_hz > 96000 || bitrate < 8000)
        return fail(error, error_size, -2, "bad arguments");
    if (!load_ffmpeg()) return fail(error, error_size, -1, "FFmpeg's libraries cannot be opened");
    const AVCodec *encoder = ff.avcodec_find_encoder_by_name("aac");
    const AVOutputFormat *muxer = ff.av_guess_format("ipod", NULL, NULL);
    if (!encoder || !muxer) return fail(error, error_size, -1, "FFmpeg has no aac encoder or m4a muxer");

    int result = -3;
    AVFormatContext *format = NULL;
    AVCodecContext *codec = NULL;
    AVFrame *frame = NULL;
    AVPacket *packet = ff.av_packet_alloc();
    if (ff.avformat_alloc_output_context2(&format, muxer, NULL, path) < 0 || !packet) goto done;
    AVStream *stream = ff.avformat_new_stream(format, NULL);
    codec = ff.avcodec_alloc_context3(encoder);
    if (!stream || !codec) goto done;
    codec->sample_fmt = AV_SAMPLE_FMT_FLTP;
    codec->sample_rate = rate_hz;
    codec->bit_rate = bitrate;
    ff.av_channel_layout_default(&codec->ch_layout, channels);
    codec->time_base = (AVRational){1, rate_hz};
    if (format->oformat->flags & AVFMT_GLOBALHEADER) codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (ff.avcodec_open2(codec, encoder, NULL) < 0) goto done;
    if (ff.avcodec_parameters_from_context(stream->codecpar, codec) < 0) goto done;
    stream->time_base = codec->time_base;
    if (ff.avio_open(&format->pb, path, AVIO_FLAG_WRITE) < 0) goto done;
    if (ff.avformat_write_header(format, NULL) < 0) goto done;

    frame = ff.av_frame_alloc();
    if (!frame) goto done;
    frame->format = AV_SAMPLE_FMT_FLTP;
    frame->nb_samples = codec->frame_size > 0 ? codec->frame_size : 1024;
    if (ff.av_channel_layout_copy(&frame->ch_layout, &codec->ch_layout) < 0) goto done;
    frame->sample_rate = rate_hz;
    if (ff.av_frame_get_buffer(frame, 0) < 0) goto done;

    for (size_t start = 0; start < frames; start += (size_t)frame->nb_samples) {
        if (ff.av_frame_make_writable(frame) < 0) goto done;
        size_t count = frames - start < (size_t)frame->nb_samples ? frames - start : (size_t)frame->nb_samples;
        for (int channel = 0; channel < channels; channel++) {
            float *plane = (float *)frame->data[channel];
            for (size_t index = 0; index < (size_t)frame->nb_samples; index++) {
                plane[index] = index < count ? samples[(start + index) * (size_t)channels + (size_t)channel] / 32768.0f
                                             : 0.0f;
            }
        }
        frame->pts = (int64_t)start;
        if (push(codec, format, stream, frame, packet) < 0) goto done;
    }
    if (push(codec, format, stream, NULL, packet) < 0) goto done;
    if (ff.av_write_trailer(format) < 0) goto done;
    result = 0;

done:
    if (result != 0) fail(error, error_size, result, "the m4a file could not be written");
    ff.av_frame_free(&frame);
    ff.av_packet_free(&packet);
    ff.avcodec_free_context(&codec);
    if (format) {
        if (format->pb) ff.avio_closep(&format->pb);
        ff.avformat_free_context(format);
    }
    if (result != 0) unlink(path);
    return result;
}
