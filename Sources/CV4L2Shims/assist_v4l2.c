#include "assist_v4l2.h"

#include <errno.h>
#include <fcntl.h>
#include <libv4l2.h>
#include <linux/videodev2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <time.h>

#define ASSIST_V4L2_MAX_BUFFERS 8

struct assist_v4l2_device {
    int fd;
    assist_v4l2_info info;
    void *start[ASSIST_V4L2_MAX_BUFFERS];
    size_t length[ASSIST_V4L2_MAX_BUFFERS];
    uint32_t count;
    int streaming;
};

/* ioctl through libv4l2, retrying on EINTR. */
static int xioctl(int fd, unsigned long request, void *arg) {
    int result;
    do {
        result = v4l2_ioctl(fd, request, arg);
    } while (result == -1 && errno == EINTR);
    return result;
}

static int fail(char *reason, size_t size, int error, const char *what) {
    if (reason != NULL && size > 0) snprintf(reason, size, "%s: %s", what, strerror(error));
    return -error;
}

/* Assist's own words only, where strerror would repeat them ("it is not a video device: No such device"). */
static int fail_plain(char *reason, size_t size, int error, const char *what) {
    if (reason != NULL && size > 0) snprintf(reason, size, "%s", what);
    return -error;
}

static uint64_t timeval_ns(struct timeval tv) {
    return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

void assist_v4l2_close(assist_v4l2_device *device) {
    if (device == NULL) return;
    if (device->streaming) {
        enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        xioctl(device->fd, VIDIOC_STREAMOFF, &type);
    }
    for (uint32_t i = 0; i < device->count; i++) {
        if (device->start[i] != NULL && device->start[i] != MAP_FAILED) v4l2_munmap(device->start[i], device->length[i]);
    }
    if (device->fd >= 0) v4l2_close(device->fd);
    free(device);
}

static int negotiate(assist_v4l2_device *device, uint32_t fourcc, uint32_t width, uint32_t height, double fps,
                     char *reason, size_t size) {
    struct v4l2_format format;
    memset(&format, 0, sizeof format);
    format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(device->fd, VIDIOC_G_FMT, &format) == -1) return fail(reason, size, errno, "reading the format");
    device->info.native_fourcc = format.fmt.pix.pixelformat;
    {
        /* Convert once. The device's own format when the first subscriber wants it, or wants GREY from a YUYV
           device (its Y bytes are the grey picture); otherwise what it wants through libv4l2 (BGR24, RGB24),
           shared by every subscriber that wants the same. */
        const uint32_t native = format.fmt.pix.pixelformat;
        const int carried = native == V4L2_PIX_FMT_YUYV || native == V4L2_PIX_FMT_GREY ||
                            native == V4L2_PIX_FMT_BGR24 || native == V4L2_PIX_FMT_RGB24;
        if (carried && (fourcc == native || (fourcc == V4L2_PIX_FMT_GREY && native == V4L2_PIX_FMT_YUYV))) {
            fourcc = native;
        } else if (fourcc != V4L2_PIX_FMT_RGB24) {
            fourcc = V4L2_PIX_FMT_BGR24;
        }
    }
    if (width > 0 && height > 0) {
        format.fmt.pix.width = width;
        format.fmt.pix.height = height;
    }
    format.fmt.pix.pixelformat = fourcc;
    format.fmt.pix.field = V4L2_FIELD_ANY;
    if (xioctl(device->fd, VIDIOC_S_FMT, &format) == -1) return fail(reason, size, errno, "setting the format");
    if (format.fmt.pix.pixelformat != fourcc) {
        return fail(reason, size, EINVAL, "the camera cannot deliver a format Assist can convert");
    }
    device->info.width = format.fmt.pix.width;
    device->info.height = format.fmt.pix.height;
    device->info.fourcc = format.fmt.pix.pixelformat;
    const uint32_t pixel_bytes = fourcc == V4L2_PIX_FMT_GREY ? 1 : fourcc == V4L2_PIX_FMT_YUYV ? 2 : 3;
    uint32_t minimum = format.fmt.pix.width * pixel_bytes;
    device->info.stride = format.fmt.pix.bytesperline >= minimum ? format.fmt.pix.bytesperline : minimum;

    struct v4l2_streamparm parm;
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (fps > 0 && xioctl(device->fd, VIDIOC_G_PARM, &parm) == 0 &&
        (parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME)) {
        parm.parm.capture.timeperframe.numerator = 1000;
        parm.parm.capture.timeperframe.denominator = (uint32_t)(fps * 1000.0);
        xioctl(device->fd, VIDIOC_S_PARM, &parm);
    }
    memset(&parm, 0, sizeof parm);
    parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(device->fd, VIDIOC_G_PARM, &parm) == 0 && parm.parm.capture.timeperframe.numerator > 0) {
        device->info.fps =
            (double)parm.parm.capture.timeperframe.denominator / (double)parm.parm.capture.timeperframe.numerator;
    }
    return 0;
}

static int map_buffers(assist_v4l2_device *device, uint32_t wanted, char *reason, size_t size) {
    struct v4l2_requestbuffers request;
    memset(&request, 0, sizeof request);
    request.count = wanted > ASSIST_V4L2_MAX_BUFFERS ? ASSIST_V4L2_MAX_BUFFERS : (wanted < 3 ? 3 : wanted);
    request.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    request.memory = V4L2_MEMORY_MMAP;
    if (xioctl(device->fd, VIDIOC_REQBUFS, &request) == -1) return fail(reason, size, errno, "asking for buffers");
    if (request.count < 2) return fail(reason, size, ENOMEM, "the camera gave too few buffers");
    device->count = request.count;
    device->info.buffers = request.count;
    for (uint32_t i = 0; i < request.count; i++) {
        struct v4l2_buffer buffer;
        memset(&buffer, 0, sizeof buffer);
        buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
        buffer.memory = V4L2_MEMORY_MMAP;
        buffer.index = i;
        if (xioctl(device->fd, VIDIOC_QUERYBUF, &buffer) == -1) return fail(reason, size, errno, "querying a buffer");
        device->length[i] = buffer.length;
        device->start[i] = v4l2_mmap(NULL, buffer.length, PROT_READ | PROT_WRITE, MAP_SHARED, device->fd,
                                     buffer.m.offset);
        if (device->start[i] == MAP_FAILED) return fail(reason, size, errno, "mapping a buffer");
        if (xioctl(device->fd, VIDIOC_QBUF, &buffer) == -1) return fail(reason, size, errno, "queueing a buffer");
    }
    enum v4l2_buf_type type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    if (xioctl(device->fd, VIDIOC_STREAMON, &type) == -1) return fail(reason, size, errno, "starting the stream");
    device->streaming = 1;
    return 0;
}

/* Checks that `path` is a V4L2 device before libv4l2 sees it: libv4l2 prints to stderr about anything else. */
static int precheck(const char *path, char *reason, size_t size) {
    int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return fail(reason, size, errno, "opening");
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    int result;
    do {
        result = ioctl(fd, VIDIOC_QUERYCAP, &capability);
    } while (result == -1 && errno == EINTR);
    int error = errno;
    close(fd);
    if (result == -1) {
        if (error == ENOTTY || error == EINVAL) return fail_plain(reason, size, ENODEV, "it is not a video device");
        return fail(reason, size, error, "it is not a video device");
    }
    return 0;
}

int assist_v4l2_open(const char *path, uint32_t fourcc, uint32_t width, uint32_t height, double fps,
                     uint32_t buffer_count, assist_v4l2_device **out, char *reason, size_t size) {
    *out = NULL;
    /* libv4l2 prints its errors to stderr unless given a log file; the host reports failures itself. */
    static FILE *quiet;
    if (quiet == NULL) quiet = fopen("/dev/null", "w");
    if (quiet != NULL) v4l2_log_file = quiet;
    int checked = precheck(path, reason, size);
    if (checked != 0) return checked;
    assist_v4l2_device *device = calloc(1, sizeof *device);
    if (device == NULL) return fail(reason, size, ENOMEM, "opening");
    device->fd = v4l2_open(path, O_RDWR | O_NONBLOCK, 0);
    if (device->fd < 0) {
        int error = errno;
        free(device);
        return fail(reason, size, error, "opening");
    }
    struct v4l2_capability capability;
    memset(&capability, 0, sizeof capability);
    if (xioctl(device->fd, VIDIOC_QUERYCAP, &capability) == -1) {
        int error = errno;
        assist_v4l2_close(device);
        if (error == ENOTTY) return fail_plain(reason, size, ENODEV, "it is not a video device");
        return fail(reason, size, error, "it is not a video device");
    }
    uint32_t caps = (capability.capabilities & V4L2_CAP_DEVICE_CAPS) ? capability.device_caps : capability.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_CAPTURE) || !(caps & V4L2_CAP_STREAMING)) {
        assist_v4l2_close(device);
        return fail(reason, size, ENODEV, "it cannot stream video");
    }
    snprintf(device->info.driver, sizeof device->info.driver, "%s", (const char *)capability.driver);
    snprintf(device->info.card, sizeof device->info.card, "%s", (const char *)capability.card);
    int status = negotiate(device, fourcc, width, height, fps, reason, size);
    if (status == 0) status = map_buffers(device, buffer_count, reason, size);
    if (status != 0) {
        assist_v4l2_close(device);
        return status;
    }
    *out = device;
    return 0;
}

void assist_v4l2_get_info(const assist_v4l2_device *device, assist_v4l2_info *info) { *info = device->info; }

int assist_v4l2_dequeue(assist_v4l2_device *device, int timeout_ms, const uint8_t **data, size_t *bytes,
                        uint64_t *timestamp_ns, uint32_t *sequence, uint32_t *index) {
    struct pollfd waiting = {.fd = device->fd, .events = POLLIN};
    int ready;
    do {
        ready = poll(&waiting, 1, timeout_ms);
    } while (ready == -1 && errno == EINTR);
    if (ready == 0) return -ETIMEDOUT;
    if (ready < 0) return -errno;
    if (waiting.revents & (POLLERR | POLLHUP | POLLNVAL)) return -ENODEV;
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    if (xioctl(device->fd, VIDIOC_DQBUF, &buffer) == -1) {
        if (errno == EAGAIN) return -ETIMEDOUT;
        /* EIO is not an unplugged camera: libv4l2 gives it after ten frames in a row it could not decode (a
           JPEG cut short on a busy USB bus), a driver after a transfer error. The caller skips such frames. */
        return errno == ENODEV || errno == EBADF ? -ENODEV : -errno;
    }
    if (buffer.index >= device->count) return -EIO;
    *data = device->start[buffer.index];
    *bytes = buffer.bytesused > 0 ? buffer.bytesused : device->length[buffer.index];
    *sequence = buffer.sequence;
    *index = buffer.index;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t captured = timeval_ns(buffer.timestamp);
    uint64_t monotonic = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    /* Drivers stamp with CLOCK_MONOTONIC; if the stamp is missing or from another clock, use now. */
    *timestamp_ns = (buffer.flags & V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC) && captured > 0 && captured <= monotonic
                        ? captured
                        : monotonic;
    return 0;
}

int assist_v4l2_requeue(assist_v4l2_device *device, uint32_t index) {
    struct v4l2_buffer buffer;
    memset(&buffer, 0, sizeof buffer);
    buffer.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer.memory = V4L2_MEMORY_MMAP;
    buffer.index = index;
    return xioctl(device->fd, VIDIOC_QBUF, &buffer) == -1 ? -errno : 0;
}

int assist_v4l2_control(assist_v4l2_device *device, const char *name, int64_t *value, int64_t *minimum,
                        int64_t *maximum) {
    uint32_t id;
    if (strcmp(name, "focus") == 0) {
        id = V4L2_CID_FOCUS_ABSOLUTE;
    } else if (strcmp(name, "exposure") == 0) {
        id = V4L2_CID_EXPOSURE_ABSOLUTE;
    } else if (strcmp(name, "zoom") == 0) {
        id = V4L2_CID_ZOOM_ABSOLUTE;
    } else {
        return -EINVAL;
    }
    struct v4l2_queryctrl query;
    memset(&query, 0, sizeof query);
    query.id = id;
    if (xioctl(device->fd, VIDIOC_QUERYCTRL, &query) == -1 || (query.flags & V4L2_CTRL_FLAG_DISABLED)) return -EINVAL;
    struct v4l2_control control = {.id = id, .value = 0};
    if (xioctl(device->fd, VIDIOC_G_CTRL, &control) == -1) return -errno;
    *value = control.value;
    *minimum = query.minimum;
    *maximum = query.maximum;
    return 0;
}
