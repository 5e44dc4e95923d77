#include "assist_media_info.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libswscale/swscale.h>
#include <libavcodec/version.h>
#include <libswscale/version.h>
#include <libavformat/version.h>
#include <libavutil/display.h>
#include <libavutil/log.h>
#include <libavutil/version.h>
#include <libexif/exif-data.h>
#include <libexif/exif-utils.h>
#include <libheif/heif.h>
#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

/* Each library is opened the first time a file needs it, so loading the plugin (the host does at every
   start) loads none of them. The headers are Debian 12's; the sonames follow them. */
#define STR2(x) #x
#define STR(x) STR2(x)

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
    int loaded; /* 0 not tried, 1 ready, -1 unavailable */
    int (*avformat_open_input)(AVFormatContext **, const char *, const AVInputFormat *, AVDictionary **);
    int (*avformat_find_stream_info)(AVFormatContext *, AVDictionary **);
    void (*avformat_close_input)(AVFormatContext **);
    uint8_t *(*av_stream_get_side_data)(const AVStream *, enum AVPacketSideDataType, size_t *);
    double (*av_display_rotation_get)(const int32_t *);
    AVDictionaryEntry *(*av_dict_get)(const AVDictionary *, const char *, const AVDictionaryEntry *, int);
    void (*av_log_set_level)(int);
    int (*av_find_best_stream)(AVFormatContext *, enum AVMediaType, int, int, const AVCodec **, int);
    AVCodecContext *(*avcodec_alloc_context3)(const AVCodec *);
    int (*avcodec_parameters_to_context)(AVCodecContext *, const AVCodecParameters *);
    int (*avcodec_open2)(AVCodecContext *, const AVCodec *, AVDictionary **);
    void (*avcodec_free_context)(AVCodecContext **);
    AVPacket *(*av_packet_alloc)(void);
    void (*av_packet_free)(AVPacket **);
    void (*av_packet_unref)(AVPacket *);
    int (*av_read_frame)(AVFormatContext *, AVPacket *);
    int (*avcodec_send_packet)(AVCodecContext *, const AVPacket *);
    int (*avcodec_receive_frame)(AVCodecContext *, AVFrame *);
    AVFrame *(*av_frame_alloc)(void);
    void (*av_frame_free)(AVFrame **);
    struct SwsContext *(*sws_getContext)(int, int, enum AVPixelFormat, int, int, enum AVPixelFormat, int, SwsFilter *,
                                         SwsFilter *, const double *);
    int (*sws_scale)(struct SwsContext *, const uint8_t *const[], const int[], int, int, uint8_t *const[],
                     const int[]);
    void (*sws_freeContext)(struct SwsContext *);
    int decoding; /* 1 when the decoding functions (libavcodec, libswscale) are there too */
} ff;

static struct {
    int loaded;
    ExifData *(*exif_data_new_from_file)(const char *);
    ExifData *(*exif_data_new_from_data)(const unsigned char *, unsigned int);
    void (*exif_data_unref)(ExifData *);
    ExifByteOrder (*exif_data_get_byte_order)(ExifData *);
    ExifEntry *(*exif_content_get_entry)(ExifContent *, ExifTag);
    ExifShort (*exif_get_short)(const unsigned char *, ExifByteOrder);
} ex;

static struct {
    int loaded;
    struct heif_context *(*heif_context_alloc)(void);
    void (*heif_context_free)(struct heif_context *);
    struct heif_error (*heif_context_read_from_file)(struct heif_context *, const char *,
                                                     const struct heif_reading_options *);
    struct heif_error (*heif_context_get_primary_image_handle)(struct heif_context *, struct heif_image_handle **);
    void (*heif_image_handle_release)(const struct heif_image_handle *);
    int (*heif_image_handle_get_width)(const struct heif_image_handle *);
    int (*heif_image_handle_get_height)(const struct heif_image_handle *);
    int (*heif_image_handle_get_list_of_metadata_block_IDs)(const struct heif_image_handle *, const char *,
                                                            heif_item_id *, int);
    size_t (*heif_image_handle_get_metadata_size)(const struct heif_image_handle *, heif_item_id);
    struct heif_error (*heif_image_handle_get_metadata)(const struct heif_image_handle *, heif_item_id, void *);
    struct heif_error (*heif_decode_image)(const struct heif_image_handle *, struct heif_image **,
                                           enum heif_colorspace, enum heif_chroma,
                                           const struct heif_decoding_options *);
    const uint8_t *(*heif_image_get_plane_readonly)(const struct heif_image *, enum heif_channel, int *);
    void (*heif_image_release)(const struct heif_image *);
} hf;

/* Looks `name` up in `lib` into `table`, while `ok`: one missing function leaves `ok` false. */
#define LOAD(ok, table, lib, name)                                                                             \
    if (ok) {                                                                                                  \
        *(void **)(&table.name) = dlsym(lib, #name);                                                           \
        ok = table.name != NULL;                                                                               \
    }

/* Opens a library's functions once, under the lock, with `open_library`: whether they are all there. */
static int loaded_once(int *loaded, int (*open_library)(void)) {
    pthread_mutex_lock(&load_lock);
    if (*loaded == 0) *loaded = open_library() ? 1 : -1;
    int ready = *loaded == 1;
    pthread_mutex_unlock(&load_lock);
    return ready;
}

static int open_ffmpeg(void) {
    void *util = dlopen("libavutil.so." STR(LIBAVUTIL_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *format = dlopen("libavformat.so." STR(LIBAVFORMAT_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    int ok = util && format;
    LOAD(ok, ff, format, avformat_open_input)
    LOAD(ok, ff, format, avformat_find_stream_info)
    LOAD(ok, ff, format, avformat_close_input)
    LOAD(ok, ff, format, av_stream_get_side_data)
    LOAD(ok, ff, util, av_display_rotation_get)
    LOAD(ok, ff, util, av_dict_get)
    LOAD(ok, ff, util, av_log_set_level)
    if (!ok) return 0;
    ff.av_log_set_level(AV_LOG_QUIET); /* a damaged file is an answer here, not a message */
    /* Decoding (recognition only) needs two more libraries; probing works without them. */
    void *codec = dlopen("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *scale = dlopen("libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    int more = codec && scale;
    LOAD(more, ff, format, av_find_best_stream)
    LOAD(more, ff, codec, avcodec_alloc_context3)
    LOAD(more, ff, codec, avcodec_parameters_to_context)
    LOAD(more, ff, codec, avcodec_open2)
    LOAD(more, ff, codec, avcodec_free_context)
    LOAD(more, ff, codec, av_packet_alloc)
    LOAD(more, ff, codec, av_packet_free)
    LOAD(more, ff, codec, av_packet_unref)
    LOAD(more, ff, format, av_read_frame)
    LOAD(more, ff, codec, avcodec_send_packet)
    LOAD(more, ff, codec, avcodec_receive_frame)
    LOAD(more, ff, util, av_frame_alloc)
    LOAD(more, ff, util, av_frame_free)
    LOAD(more, ff, scale, sws_getContext)
    LOAD(more, ff, scale, sws_scale)
    LOAD(more, ff, scale, sws_freeContext)
    ff.decoding = more;
    return 1;
}

static int open_exif(void) {
    void *lib = dlopen("libexif.so.12", RTLD_NOW | RTLD_LOCAL);
    int ok = lib != NULL;
    LOAD(ok, ex, lib, exif_data_new_from_file)
    LOAD(ok, ex, lib, exif_data_new_from_data)
    LOAD(ok, ex, lib, exif_data_unref)
    LOAD(ok, ex, lib, exif_data_get_byte_order)
    LOAD(ok, ex, lib, exif_content_get_entry)
    LOAD(ok, ex, lib, exif_get_short)
    return ok;
}

static int open_heif(void) {
    void *lib = dlopen("libheif.so.1", RTLD_NOW | RTLD_LOCAL);
    int ok = lib != NULL;
    LOAD(ok, hf, lib, heif_context_alloc)
    LOAD(ok, hf, lib, heif_context_free)
    LOAD(ok, hf, lib, heif_context_read_from_file)
    LOAD(ok, hf, lib, heif_context_get_primary_image_handle)
    LOAD(ok, hf, lib, heif_image_handle_release)
    LOAD(ok, hf, lib, heif_image_handle_get_width)
    LOAD(ok, hf, lib, heif_image_handle_get_height)
    LOAD(ok, hf, lib, heif_image_handle_get_list_of_metadata_block_IDs)
    LOAD(ok, hf, lib, heif_image_handle_get_metadata_size)
    LOAD(ok, hf, lib, heif_image_handle_get_metadata)
    LOAD(ok, hf, lib, heif_decode_image)
    LOAD(ok, hf, lib, heif_image_get_plane_readonly)
    LOAD(ok, hf, lib, heif_image_release)
    return ok;
}

static int load_ffmpeg(void) { return loaded_once(&ff.loaded, open_ffmpeg); }
static int load_exif(void) { return loaded_once(&ex.loaded, open_exif); }
static int load_heif(void) { return loaded_once(&hf.loaded, open_heif); }

static int quarter_turns(double degrees) {
    if (isnan(degrees)) return 0;
    long turns = lround(degrees / 90.0) % 4;
    return (int)((turns + 4) % 4) * 90;
}

int assist_media_probe(const char *path, assist_media_info *info) {
    if (!path || !info) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (!load_ffmpeg()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    AVFormatContext *format = NULL;
    if (ff.avformat_open_input(&format, path, NULL, NULL) < 0) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (ff.avformat_find_stream_info(format, NULL) < 0) {
        ff.avformat_close_input(&format);
        return ASSIST_MEDIA_INFO_UNREADABLE;
    }
    for (unsigned index = 0; index < format->nb_streams; index++) {
        AVStream *stream = format->streams[index];
        AVCodecParameters *codec = stream->codecpar;
        if (codec->codec_type == AVMEDIA_TYPE_AUDIO) info->has_audio = 1;
        /* A cover picture in a sound file is not a video. */
        if (codec->codec_type != AVMEDIA_TYPE_VIDEO || (stream->disposition & AV_DISPOSITION_ATTACHED_PIC)) continue;
        if (info->has_video) continue;
        info->has_video = 1;
        info->width = codec->width > 0 ? codec->width : 0;
        info->height = codec->height > 0 ? codec->height : 0;
        const int32_t *matrix = (const int32_t *)ff.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, NULL);
        if (matrix) {
            /* av_display_rotation_get gives the counter-clockwise angle; the clockwise one is its negation. */
            info->rotation = quarter_turns(-ff.av_display_rotation_get(matrix));
        } else {
            AVDictionaryEntry *tag = ff.av_dict_get(stream->metadata, "rotate", NULL, 0);
            if (tag && tag->value) info->rotation = quarter_turns(strtod(tag->value, NULL));
        }
    }
    if (format->duration > 0 && format->duration != AV_NOPTS_VALUE)
        info->duration = (double)format->duration / AV_TIME_BASE;
    ff.avformat_close_input(&format);
    return ASSIST_MEDIA_INFO_OK;
}

static void copy_ascii(ExifEntry *entry, char *out, size_t size) {
    if (!entry || entry->format != EXIF_FORMAT_ASCII || !entry->data || size == 0) return;
    size_t length = entry->size < size - 1 ? entry->size : size - 1;
    memcpy(out, entry->data, length);
    out[length] = 0;
    out[strnlen(out, length)] = 0;
}

static void read_exif(ExifData *data, assist_media_info *info) {
    ExifByteOrder order = ex.exif_data_get_byte_order(data);
    ExifEntry *orientation = ex.exif_content_get_entry(data->ifd[EXIF_IFD_0], EXIF_TAG_ORIENTATION);
    if (orientation && orientation->format == EXIF_FORMAT_SHORT && orientation->data && orientation->size >= 2) {
        int value = ex.exif_get_short(orientation->data, order);
        if (value >= 1 && value <= 8) info->exif_orientation = value;
    }
    copy_ascii(ex.exif_content_get_entry(data->ifd[EXIF_IFD_EXIF], EXIF_TAG_DATE_TIME_ORIGINAL), info->exif_date,
               sizeof info->exif_date);
    copy_ascii(ex.exif_content_get_entry(data->ifd[EXIF_IFD_EXIF], EXIF_TAG_OFFSET_TIME_ORIGINAL),
               info->exif_offset, sizeof info->exif_offset);
}

int assist_media_exif(const char *path, assist_media_info *info) {
    if (!path || !info) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (!load_exif()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    ExifData *data = ex.exif_data_new_from_file(path);
    if (!data) return ASSIST_MEDIA_INFO_UNREADABLE;
    read_exif(data, info);
    ex.exif_data_unref(data);
    return ASSIST_MEDIA_INFO_OK;
}

int assist_media_exif_block(const unsigned char *bytes, unsigned int size, assist_media_info *info) {
    if (!bytes || !info || size == 0) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (!load_exif()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    /* libexif wants the block to start at "Exif\0\0" (or in a JPEG): a bare TIFF header gets that prefix. */
    unsigned char *prefixed = NULL;
    if (size >= 4 && size < (64u << 20) && (!memcmp(bytes, "II*\0", 4) || !memcmp(bytes, "MM\0*", 4))) {
        prefixed = malloc(size + 6);
        if (!prefixed) return ASSIST_MEDIA_INFO_UNREADABLE;
        memcpy(prefixed, "Exif\0\0", 6);
        memcpy(prefixed + 6, bytes, size);
        bytes = prefixed;
        size += 6;
    }
    ExifData *data = ex.exif_data_new_from_data(bytes, size);
    free(prefixed);
    if (!data) return ASSIST_MEDIA_INFO_UNREADABLE;
    read_exif(data, info);
    ex.exif_data_unref(data);
    return ASSIST_MEDIA_INFO_OK;
}

int assist_media_heif(const char *path, assist_media_info *info) {
    if (!path || !info) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (!load_heif()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    struct heif_context *context = hf.heif_context_alloc();
    if (!context) return ASSIST_MEDIA_INFO_UNREADABLE;
    struct heif_image_handle *handle = NULL;
    int result = ASSIST_MEDIA_INFO_UNREADABLE;
    if (hf.heif_context_read_from_file(context, path, NULL).code != heif_error_Ok) goto done;
    if (hf.heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok || !handle) goto done;
    info->width = hf.heif_image_handle_get_width(handle);
    info->height = hf.heif_image_handle_get_height(handle);
    result = ASSIST_MEDIA_INFO_OK;
    heif_item_id block = 0;
    if (hf.heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &block, 1) == 1) {
        size_t size = hf.heif_image_handle_get_metadata_size(handle, block);
        /* The block starts with a 4-byte offset to the TIFF header. */
        if (size > 4 && size < (64u << 20)) {
            unsigned char *bytes = malloc(size);
            if (bytes && hf.heif_image_handle_get_metadata(handle, block, bytes).code == heif_error_Ok) {
                uint32_t skip = (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
                if (skip < size - 4) assist_media_exif_block(bytes + 4 + skip, (unsigned)(size - 4 - skip), info);
            }
            free(bytes);
        }
    }
    /* libheif's size already has the image's own rotation (irot) applied: an EXIF orientation would turn it
       twice, so only the EXIF date is kept. */
    info->exif_orientation = 0;
done:
    if (handle) hf.heif_image_handle_release(handle);
    hf.heif_context_free(context);
    return result;
}

/* Scales `width`×`height` pixels of `format` into BGR24 no larger than `max_side` (aspect kept), then turns
   them upright for EXIF `orientation`. */
static int to_bgr(const uint8_t *const planes[], const int strides[], int width, int height, enum AVPixelFormat format,
                  int max_side, int orientation, uint8_t **out, int *out_width, int *out_height) {
    if (width <= 0 || height <= 0 || width > 65535 || height > 65535) return ASSIST_MEDIA_INFO_UNREADABLE;
    double scale = 1.0;
    int largest = width > height ? width : height;
    if (max_side > 0 && largest > max_side) scale = (double)max_side / largest;
    int w = (int)lround(width * scale), h = (int)lround(height * scale);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    struct SwsContext *sws = ff.sws_getContext(width, height, format, w, h, AV_PIX_FMT_BGR24, SWS_AREA, NULL, NULL, NULL);
    if (!sws) return ASSIST_MEDIA_INFO_UNREADABLE;
    /* swscale's vector code writes whole blocks: rows aligned to 64 bytes and a spare row's worth at the end,
       then packed tight. */
    int padded = (w * 3 + 63) & ~63;
    uint8_t *wide = malloc((size_t)padded * (h + 1) + 64);
    uint8_t *scaled = malloc((size_t)w * h * 3);
    if (!wide || !scaled) {
        free(wide);
        free(scaled);
        ff.sws_freeContext(sws);
        return ASSIST_MEDIA_INFO_UNREADABLE;
    }
    uint8_t *dst[4] = {wide, NULL, NULL, NULL};
    int dst_stride[4] = {padded, 0, 0, 0};
    int rows = ff.sws_scale(sws, planes, strides, 0, height, dst, dst_stride);
    ff.sws_freeContext(sws);
    if (rows != h) {
        free(wide);
        free(scaled);
        return ASSIST_MEDIA_INFO_UNREADABLE;
    }
    for (int y = 0; y < h; y++) memcpy(scaled + (size_t)y * w * 3, wide + (size_t)y * padded, (size_t)w * 3);
    free(wide);
    if (orientation < 2 || orientation > 8) {
        *out = scaled;
        *out_width = w;
        *out_height = h;
        return ASSIST_MEDIA_INFO_OK;
    }
    /* EXIF orientations: 2 mirror, 3 half turn, 4 flip, 5 transpose, 6 quarter turn clockwise, 7 transverse,
       8 quarter turn anticlockwise. The displayed pixel (x, y) comes from the stored pixel computed below. */
    int turned = orientation >= 5;
    int ow = turned ? h : w, oh = turned ? w : h;
    uint8_t *upright = malloc((size_t)ow * oh * 3);
    if (!upright) {
        free(scaled);
        return ASSIST_MEDIA_INFO_UNREADABLE;
    }
    for (int y = 0; y < oh; y++) {
        for (int x = 0; x < ow; x++) {
            int sx, sy;
            switch (orientation) {
            case 2: sx = w - 1 - x; sy = y; break;
            case 3: sx = w - 1 - x; sy = h - 1 - y; break;
            case 4: sx = x; sy = h - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = h - 1 - x; break;
            case 7: sx = w - 1 - y; sy = h - 1 - x; break;
            default: sx = w - 1 - y; sy = x; break; /* 8 */
            }
            memcpy(upright + ((size_t)y * ow + x) * 3, scaled + ((size_t)sy * w + sx) * 3, 3);
        }
    }
    free(scaled);
    *out = upright;
    *out_width = ow;
    *out_height = oh;
    return ASSIST_MEDIA_INFO_OK;
}

static int decode_heif(const char *path, int max_side, uint8_t **out, int *width, int *height) {
    if (!load_heif()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    struct heif_context *context = hf.heif_context_alloc();
    if (!context) return ASSIST_MEDIA_INFO_UNREADABLE;
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int result = ASSIST_MEDIA_INFO_UNREADABLE;
    if (hf.heif_context_read_from_file(context, path, NULL).code != heif_error_Ok) goto done;
    if (hf.heif_context_get_primary_image_handle(context, &handle).code != heif_error_Ok || !handle) goto done;
    /* libheif turns the picture by its own rotation (irot) while decoding. */
    if (hf.heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGB, NULL).code !=
        heif_error_Ok)
        goto done;
    int stride = 0;
    const uint8_t *pixels = hf.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    if (!pixels) goto done;
    const uint8_t *planes[4] = {pixels, NULL, NULL, NULL};
    int strides[4] = {stride, 0, 0, 0};
    result = to_bgr(planes, strides, hf.heif_image_handle_get_width(handle), hf.heif_image_handle_get_height(handle),
                    AV_PIX_FMT_RGB24, max_side, 1, out, width, height);
done:
    if (image) hf.heif_image_release(image);
    if (handle) hf.heif_image_handle_release(handle);
    hf.heif_context_free(context);
    return result;
}

int assist_media_decode_bgr(const char *path, int heif, int max_side, int orientation, uint8_t **out, int *width,
                            int *height) {
    if (!path || !out || !width || !height) return ASSIST_MEDIA_INFO_UNREADABLE;
    *out = NULL;
    if (heif) return decode_heif(path, max_side, out, width, height);
    if (!load_ffmpeg() || !ff.decoding) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    AVFormatContext *format = NULL;
    AVCodecContext *codec = NULL;
    AVPacket *packet = NULL;
    AVFrame *frame = NULL;
    int result = ASSIST_MEDIA_INFO_UNREADABLE;
    if (ff.avformat_open_input(&format, path, NULL, NULL) < 0) return result;
    if (ff.avformat_find_stream_info(format, NULL) < 0) goto done;
    const AVCodec *decoder = NULL;
    int index = ff.av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index < 0 || !decoder) goto done;
    codec = ff.avcodec_alloc_context3(decoder);
    packet = ff.av_packet_alloc();
    frame = ff.av_frame_alloc();
    if (!codec || !packet || !frame) goto done;
    if (ff.avcodec_parameters_to_context(codec, format->streams[index]->codecpar) < 0) goto done;
    if (ff.avcodec_open2(codec, decoder, NULL) < 0) goto done;
    int got = 0;
    for (int reads = 0; !got && reads < 64; reads++) {
        int status = ff.av_read_frame(format, packet);
        if (status < 0) {
            ff.avcodec_send_packet(codec, NULL); /* end: drain what the decoder holds */
        } else if (packet->stream_index != index) {
            ff.av_packet_unref(packet);
            continue;
        } else {
            ff.avcodec_send_packet(codec, packet);
            ff.av_packet_unref(packet);
        }
        got = ff.avcodec_receive_frame(codec, frame) == 0;
        if (status < 0) break;
    }
    if (!got) goto done;
    result = to_bgr((const uint8_t *const *)frame->data, frame->linesize, frame->width, frame->height,
                    (enum AVPixelFormat)frame->format, max_side, orientation, out, width, height);
done:
    if (frame) ff.av_frame_free(&frame);
    if (packet) ff.av_packet_free(&packet);
    if (codec) ff.avcodec_free_context(&codec);
    ff.avformat_close_input(&format);
    return result;
}

/* libjpeg(-turbo) reads a JPEG's size from its frame header without decoding a pixel: a camera's 12-megapixel
   photo costs what its first kilobytes cost, where probing through FFmpeg decodes the whole picture. */
static struct {
    int loaded;
    struct jpeg_error_mgr *(*jpeg_std_error)(struct jpeg_error_mgr *);
    void (*jpeg_CreateDecompress)(j_decompress_ptr, int, size_t);
    void (*jpeg_stdio_src)(j_decompress_ptr, FILE *);
    int (*jpeg_read_header)(j_decompress_ptr, boolean);
    void (*jpeg_destroy_decompress)(j_decompress_ptr);
} jp;

static int open_jpeg(void) {
    void *lib = dlopen("libjpeg.so.62", RTLD_NOW | RTLD_LOCAL);
    int ok = lib != NULL;
    LOAD(ok, jp, lib, jpeg_std_error)
    LOAD(ok, jp, lib, jpeg_CreateDecompress)
    LOAD(ok, jp, lib, jpeg_stdio_src)
    LOAD(ok, jp, lib, jpeg_read_header)
    LOAD(ok, jp, lib, jpeg_destroy_decompress)
    return ok;
}
#undef LOAD

static int load_jpeg(void) { return loaded_once(&jp.loaded, open_jpeg); }

struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf back;
};

/* libjpeg's default ends the process on an error: this one comes back with the failure. */
static void jpeg_failed(j_common_ptr info) { longjmp(((struct jpeg_failure *)info->err)->back, 1); }
static void jpeg_quiet(j_common_ptr info, int level) { (void)info; (void)level; }

int assist_media_jpeg_size(const char *path, assist_media_info *info) {
    if (!path || !info) return ASSIST_MEDIA_INFO_UNREADABLE;
    if (!load_jpeg()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    FILE *file = fopen(path, "rb");
    if (!file) return ASSIST_MEDIA_INFO_UNREADABLE;
    struct jpeg_decompress_struct decoder;
    struct jpeg_failure failure;
    decoder.err = jp.jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.manager.emit_message = jpeg_quiet;
    volatile int result = ASSIST_MEDIA_INFO_UNREADABLE;
    if (setjmp(failure.back) == 0) {
        jp.jpeg_CreateDecompress(&decoder, JPEG_LIB_VERSION, sizeof decoder);
        jp.jpeg_stdio_src(&decoder, file);
        if (jp.jpeg_read_header(&decoder, TRUE) == JPEG_HEADER_OK && decoder.image_width > 0 &&
            decoder.image_height > 0) {
            info->width = (int32_t)decoder.image_width;
            info->height = (int32_t)decoder.image_height;
            result = ASSIST_MEDIA_INFO_OK;
        }
    }
    jp.jpeg_destroy_decompress(&decoder);
    fclose(file);
    return result;
}
