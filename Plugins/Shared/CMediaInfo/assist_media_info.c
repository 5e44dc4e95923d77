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

/* Each library's functions are named once, in a list: a table's fields take the types the header declares
   (`__typeof__`, which calls nothing and links nothing), and its opener looks each name up. FFmpeg's entries
   say which of its libraries holds the function. */
#define FFMPEG_PROBING(X)                                                                                      \
    X(format, avformat_open_input)                                                                             \
    X(format, avformat_find_stream_info)                                                                       \
    X(format, avformat_close_input)                                                                            \
    X(format, av_stream_get_side_data)                                                                         \
    X(util, av_display_rotation_get)                                                                           \
    X(util, av_dict_get)                                                                                       \
    X(util, av_log_set_level)
#define FFMPEG_DECODING(X)                                                                                     \
    X(format, av_find_best_stream)                                                                             \
    X(codec, avcodec_alloc_context3)                                                                           \
    X(codec, avcodec_parameters_to_context)                                                                    \
    X(codec, avcodec_open2)                                                                                    \
    X(codec, avcodec_free_context)                                                                             \
    X(codec, av_packet_alloc)                                                                                  \
    X(codec, av_packet_free)                                                                                   \
    X(codec, av_packet_unref)                                                                                  \
    X(format, av_read_frame)                                                                                   \
    X(codec, avcodec_send_packet)                                                                              \
    X(codec, avcodec_receive_frame)                                                                            \
    X(util, av_frame_alloc)                                                                                    \
    X(util, av_frame_free)                                                                                     \
    X(scale, sws_getContext)                                                                                   \
    X(scale, sws_scale)                                                                                        \
    X(scale, sws_freeContext)
#define EXIF_FUNCTIONS(X)                                                                                      \
    X(lib, exif_data_new_from_file)                                                                            \
    X(lib, exif_data_new_from_data)                                                                            \
    X(lib, exif_data_unref)                                                                                    \
    X(lib, exif_data_get_byte_order)                                                                           \
    X(lib, exif_content_get_entry)                                                                             \
    X(lib, exif_get_short)
#define HEIF_FUNCTIONS(X)                                                                                      \
    X(lib, heif_context_alloc)                                                                                 \
    X(lib, heif_context_free)                                                                                  \
    X(lib, heif_context_read_from_file)                                                                        \
    X(lib, heif_context_get_primary_image_handle)                                                              \
    X(lib, heif_image_handle_release)                                                                          \
    X(lib, heif_image_handle_get_width)                                                                        \
    X(lib, heif_image_handle_get_height)                                                                       \
    X(lib, heif_image_handle_get_list_of_metadata_block_IDs)                                                   \
    X(lib, heif_image_handle_get_metadata_size)                                                                \
    X(lib, heif_image_handle_get_metadata)                                                                     \
    X(lib, heif_decode_image)                                                                                  \
    X(lib, heif_image_get_plane_readonly)                                                                      \
    X(lib, heif_image_release)
/* libjpeg(-turbo) reads a JPEG's size from its frame header without decoding a pixel: a camera's 12-megapixel
   photo costs what its first kilobytes cost, where probing through FFmpeg decodes the whole picture. */
#define JPEG_FUNCTIONS(X)                                                                                      \
    X(lib, jpeg_std_error)                                                                                     \
    X(lib, jpeg_CreateDecompress)                                                                              \
    X(lib, jpeg_stdio_src)                                                                                     \
    X(lib, jpeg_read_header)                                                                                   \
    X(lib, jpeg_destroy_decompress)                                                                            \
    X(lib, jpeg_CreateCompress)                                                                                \
    X(lib, jpeg_mem_dest)                                                                                      \
    X(lib, jpeg_set_defaults)                                                                                  \
    X(lib, jpeg_set_quality)                                                                                   \
    X(lib, jpeg_start_compress)                                                                                \
    X(lib, jpeg_write_scanlines)                                                                               \
    X(lib, jpeg_finish_compress)                                                                               \
    X(lib, jpeg_destroy_compress)

#define FIELD(lib, name) __typeof__(&name) name;

/* `loaded`: 0 not tried, 1 ready, -1 unavailable. */
static struct {
    int loaded;
    FFMPEG_PROBING(FIELD)
    FFMPEG_DECODING(FIELD)
    int decoding; /* 1 when the decoding functions (libavcodec, libswscale) are there too */
} ff;
static struct {
    int loaded;
    EXIF_FUNCTIONS(FIELD)
} ex;
static struct {
    int loaded;
    HEIF_FUNCTIONS(FIELD)
} hf;
static struct {
    int loaded;
    JPEG_FUNCTIONS(FIELD)
} jp;

/* Looks `name` up in `lib` into `table`, while `ok`: one missing function leaves `ok` false. */
#define LOAD(ok, table, lib, name)                                                                             \
    if (ok) {                                                                                                  \
        *(void **)(&table.name) = dlsym(lib, #name);                                                           \
        ok = table.name != NULL;                                                                               \
    }
#define LOAD_FF(lib, name) LOAD(ok, ff, lib, name)
#define LOAD_EX(lib, name) LOAD(ok, ex, lib, name)
#define LOAD_HF(lib, name) LOAD(ok, hf, lib, name)
#define LOAD_JP(lib, name) LOAD(ok, jp, lib, name)

/* Defines open_<what>(), which opens `soname` and looks up the functions `loads` names: whether all are there. */
#define OPENER(what, soname, loads)                                                                            \
    static int open_##what(void) {                                                                             \
        void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);                                                     \
        int ok = lib != NULL;                                                                                  \
        loads return ok;                                                                                       \
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
    FFMPEG_PROBING(LOAD_FF)
    if (!ok) return 0;
    ff.av_log_set_level(AV_LOG_QUIET); /* a damaged file is an answer here, not a message */
    /* Decoding (recognition only) needs two more libraries; probing works without them. */
    void *codec = dlopen("libavcodec.so." STR(LIBAVCODEC_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    void *scale = dlopen("libswscale.so." STR(LIBSWSCALE_VERSION_MAJOR), RTLD_NOW | RTLD_LOCAL);
    ok = codec && scale;
    FFMPEG_DECODING(LOAD_FF)
    ff.decoding = ok;
    return 1;
}
OPENER(exif, "libexif.so.12", EXIF_FUNCTIONS(LOAD_EX))
OPENER(heif, "libheif.so.1", HEIF_FUNCTIONS(LOAD_HF))
OPENER(jpeg, "libjpeg.so.62", JPEG_FUNCTIONS(LOAD_JP))

static int load_ffmpeg(void) { return loaded_once(&ff.loaded, open_ffmpeg); }
static int load_exif(void) { return loaded_once(&ex.loaded, open_exif); }
static int load_heif(void) { return loaded_once(&hf.loaded, open_heif); }
static int load_jpeg(void) { return loaded_once(&jp.loaded, open_jpeg); }

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

int assist_media_encode_jpeg(const uint8_t *pixels, int width, int height, int stride, int components, int quality,
                             unsigned char **out, unsigned long *size) {
    if (!pixels || !out || !size || width < 1 || height < 1 || (components != 1 && components != 3) ||
        stride < width * components || quality < 1 || quality > 100)
        return ASSIST_MEDIA_INFO_UNREADABLE;
    *out = NULL;
    *size = 0;
    if (!load_jpeg()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    struct jpeg_compress_struct encoder;
    struct jpeg_failure failure;
    encoder.err = jp.jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_failed;
    failure.manager.emit_message = jpeg_quiet;
    /* libjpeg writes into `target` through its address (so it lives in memory, not a register, across longjmp):
       what it allocated is freed whether the encoding ended or failed. */
    unsigned char *target = NULL;
    unsigned long length = 0;
    volatile int result = ASSIST_MEDIA_INFO_UNREADABLE;
    if (setjmp(failure.back) == 0) {
        jp.jpeg_CreateCompress(&encoder, JPEG_LIB_VERSION, sizeof encoder);
        jp.jpeg_mem_dest(&encoder, &target, &length);
        encoder.image_width = (JDIMENSION)width;
        encoder.image_height = (JDIMENSION)height;
        encoder.input_components = components;
        /* libjpeg-turbo's BGR: FFmpeg's BGR24 rows as they are. */
        encoder.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_EXT_BGR;
        jp.jpeg_set_defaults(&encoder);
        jp.jpeg_set_quality(&encoder, quality, TRUE);
        jp.jpeg_start_compress(&encoder, TRUE);
        while (encoder.next_scanline < encoder.image_height) {
            JSAMPROW row = (JSAMPROW)(pixels + (size_t)encoder.next_scanline * (size_t)stride);
            jp.jpeg_write_scanlines(&encoder, &row, 1);
        }
        jp.jpeg_finish_compress(&encoder);
        result = ASSIST_MEDIA_INFO_OK;
    }
    jp.jpeg_destroy_compress(&encoder);
    if (result != ASSIST_MEDIA_INFO_OK) {
        free(target);
        return result;
    }
    *out = target;
    *size = length;
    return ASSIST_MEDIA_INFO_OK;
}

int assist_media_thumbnail(const char *path, int heif, int max_side, int orientation, int quality,
                           unsigned char **out, unsigned long *size, int *width, int *height) {
    if (!path || !out || !size || !width || !height || quality < 1 || quality > 100)
        return ASSIST_MEDIA_INFO_UNREADABLE;
    *out = NULL;
    *size = 0;
    if (!load_jpeg()) return ASSIST_MEDIA_INFO_UNAVAILABLE;
    uint8_t *bgr = NULL;
    int status = assist_media_decode_bgr(path, heif, max_side, orientation, &bgr, width, height);
    if (status != ASSIST_MEDIA_INFO_OK) return status;
    status = assist_media_encode_jpeg(bgr, *width, *height, *width * 3, 3, quality, out, size);
    free(bgr);
    return status;
}
