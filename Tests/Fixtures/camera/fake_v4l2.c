/*
 * A fake V4L2 camera for tests, loaded with LD_PRELOAD. libv4l2 makes its device calls with syscall(2), so
 * this library replaces syscall() and answers open, ioctl, mmap, munmap and close for one device path with
 * real frames; every other call goes to the kernel. The libc open, ioctl and close are replaced the same way
 * for callers that check a device before handing it to libv4l2. The file descriptor is a real eventfd, so
 * poll() works.
 *
 * Environment:
 *   FAKE_V4L2_PATH          the device path (default /dev/video-fake0)
 *   FAKE_V4L2_FORMAT        YUYV, RGB3 or MJPG (default YUYV)
 *   FAKE_V4L2_WIDTH/HEIGHT  frame size for YUYV and RGB3 (MJPG: any, libv4l2 reads the JPEG header)
 *   FAKE_V4L2_FRAMES        YUYV/RGB3: a raw file of whole frames; MJPG: JPEG files separated by ':'
 *   FAKE_V4L2_FPS           frame rate (default 30)
 *   FAKE_V4L2_UNPLUG_AFTER  after this many frames the device is unplugged (DQBUF fails with ENODEV)
 *   FAKE_V4L2_REPLUG_MS     and comes back this many ms later (opens fail with ENOENT until then)
 *   FAKE_V4L2_BUSY          1: another program is streaming (VIDIOC_REQBUFS fails with EBUSY)
 *   FAKE_V4L2_FOCUS         1: offer a focus_absolute control (value 120, range 0..255)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUFFERS 8
#define MAX_FRAMES 256

typedef long (*syscall_fn)(long, ...);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int device_fd = -1;
static uint32_t fourcc, width, height, frame_bytes, fps;
static uint8_t *frames[MAX_FRAMES];
static size_t frame_size[MAX_FRAMES];
static uint32_t frame_count;
static uint8_t *buffers[MAX_BUFFERS];
static size_t buffer_length;
static int queued[MAX_BUFFERS];
static uint32_t buffer_count, sequence, queue_order[MAX_BUFFERS], queue_head, queue_tail, streaming;
static uint64_t stream_start_ns, unplugged_at_ns;
static int unplugged;

static syscall_fn real_syscall(void) {
    static syscall_fn real;
    if (real == NULL) real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
    return real;
}

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static long env_long(const char *name, long fallback) {
    const char *text = getenv(name);
    return text != NULL && *text != '\0' ? strtol(text, NULL, 10) : fallback;
}

static const char *device_path(void) {
    const char *path = getenv("FAKE_V4L2_PATH");
    return path != NULL ? path : "/dev/video-fake0";
}

static uint8_t *read_file(const char *path, size_t *size) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return NULL;
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    uint8_t *data = length > 0 ? malloc((size_t)length) : NULL;
    if (data != NULL && fread(data, 1, (size_t)length, file) != (size_t)length) {
        free(data);
        data = NULL;
    }
    fclose(file);
    *size = data != NULL ? (size_t)length : 0;
    return data;
}

/* The frames of the last open, freed when the device is opened again (a replug opens it once more: a test that
 * unplugs the camera a hundred times must not see the fake's memory grow). */
static uint8_t *raw_block;

static void forget_frames(void) {
    if (fourcc == V4L2_PIX_FMT_MJPEG) {
        for (uint32_t i = 0; i < frame_count; i++) free(frames[i]);
    }
    free(raw_block);
    raw_block = NULL;
    frame_count = 0;
}

static void load_frames(void) {
    forget_frames();
    const char *format = getenv("FAKE_V4L2_FORMAT");
    fourcc = format != NULL && strcmp(format, "MJPG") == 0   ? V4L2_PIX_FMT_MJPEG
             : format != NULL && strcmp(format, "RGB3") == 0 ? V4L2_PIX_FMT_RGB24
                                                             : V4L2_PIX_FMT_YUYV;
    width = (uint32_t)env_long("FAKE_V4L2_WIDTH", 640);
    height = (uint32_t)env_long("FAKE_V4L2_HEIGHT", 480);
    fps = (uint32_t)env_long("FAKE_V4L2_FPS", 30);
    frame_count = 0;
    const char *list = getenv("FAKE_V4L2_FRAMES");
    if (list == NULL) return;
    if (fourcc == V4L2_PIX_FMT_MJPEG) {
        char *copy = strdup(list), *save = NULL;
        for (char *path = strtok_r(copy, ":", &save); path != NULL && frame_count < MAX_FRAMES;
             path = strtok_r(NULL, ":", &save)) {
            frames[frame_count] = read_file(path, &frame_size[frame_count]);
            if (frames[frame_count] != NULL) frame_count++;
        }
        free(copy);
        frame_bytes = width * height * 2;
        for (uint32_t i = 0; i < frame_count; i++) {
            if (frame_size[i] > frame_bytes) frame_bytes = (uint32_t)frame_size[i];
        }
    } else {
        frame_bytes = width * height * (fourcc == V4L2_PIX_FMT_RGB24 ? 3 : 2);
        size_t size = 0;
        uint8_t *all = read_file(list, &size);
        raw_block = all;
        for (size_t offset = 0; all != NULL && offset + frame_bytes <= size && frame_count < MAX_FRAMES;
             offset += frame_bytes) {
            frames[frame_count] = all + offset;
            frame_size[frame_count++] = frame_bytes;
        }
    }
}

static void fill_format(struct v4l2_format *format) {
    format->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format->fmt.pix.width = width;
    format->fmt.pix.height = height;
    format->fmt.pix.pixelformat = fourcc;
    format->fmt.pix.field = V4L2_FIELD_NONE;
    format->fmt.pix.bytesperline = fourcc == V4L2_PIX_FMT_MJPEG ? 0 : width * (fourcc == V4L2_PIX_FMT_RGB24 ? 3 : 2);
    format->fmt.pix.sizeimage = frame_bytes;
    format->fmt.pix.colorspace = V4L2_COLORSPACE_SRGB;
}

static long fail(int error) {
    errno = error;
    return -1;
}

static long dequeue(struct v4l2_buffer *buffer) {
    if (unplugged) return fail(ENODEV);
    long unplug_after = env_long("FAKE_V4L2_UNPLUG_AFTER", -1);
    if (unplug_after >= 0 && sequence >= (uint32_t)unplug_after) {
        unplugged = 1;
        unplugged_at_ns = now_ns();
        return fail(ENODEV);
    }
    if (queue_head == queue_tail) return fail(EAGAIN);
    uint64_t due = stream_start_ns + (uint64_t)sequence * 1000000000ull / (fps > 0 ? fps : 30);
    uint64_t now = now_ns();
    if (due > now) {
        pthread_mutex_unlock(&lock);
        struct timespec pause = {(time_t)((due - now) / 1000000000ull), (long)((due - now) % 1000000000ull)};
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
    }
    uint32_t index = queue_order[queue_head++ % MAX_BUFFERS];
    queued[index] = 0;
    size_t size = frame_count > 0 ? frame_size[sequence % frame_count] : frame_bytes;
    if (frame_count > 0) {
        memcpy(buffers[index], frames[sequence % frame_count], size);
    } else {
        memset(buffers[index], (int)(sequence * 7 % 255), size);
    }
    memset(buffer, 0, sizeof *buffer);
    buffer->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer->memory = V4L2_MEMORY_MMAP;
    buffer->index = index;
    buffer->bytesused = (uint32_t)size;
    buffer->length = (uint32_t)buffer_length;
    buffer->m.offset = index * (uint32_t)buffer_length;
    buffer->sequence = sequence++;
    buffer->flags = V4L2_BUF_FLAG_MAPPED | V4L2_BUF_FLAG_DONE | V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
    uint64_t stamp = now_ns();
    buffer->timestamp.tv_sec = (time_t)(stamp / 1000000000ull);
    buffer->timestamp.tv_usec = (suseconds_t)(stamp % 1000000000ull / 1000ull);
    return 0;
}

static long handle_ioctl(unsigned long request, void *argument) {
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *capability = argument;
        memset(capability, 0, sizeof *capability);
        strcpy((char *)capability->driver, "fake_v4l2");
        strcpy((char *)capability->card, "Assist test camera");
        strcpy((char *)capability->bus_info, "platform:fake");
        capability->version = 0x050a00;
        capability->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        capability->capabilities = capability->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *description = argument;
        if (description->index > 0 || description->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        description->pixelformat = fourcc;
        description->flags = fourcc == V4L2_PIX_FMT_MJPEG ? V4L2_FMT_FLAG_COMPRESSED : 0;
        snprintf((char *)description->description, sizeof description->description, "fake");
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *sizes = argument;
        if (sizes->index > 0 || sizes->pixel_format != fourcc) return fail(EINVAL);
        sizes->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        sizes->discrete.width = width;
        sizes->discrete.height = height;
        return 0;
    }
    case VIDIOC_ENUM_FRAMEINTERVALS: {
        struct v4l2_frmivalenum *intervals = argument;
        if (intervals->index > 0) return fail(EINVAL);
        intervals->type = V4L2_FRMIVAL_TYPE_DISCRETE;
        intervals->discrete.numerator = 1;
        intervals->discrete.denominator = fps;
        return 0;
    }
    case VIDIOC_G_FMT:
    case VIDIOC_S_FMT:
    case VIDIOC_TRY_FMT:
        fill_format(argument);
        return 0;
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM: {
        struct v4l2_streamparm *parm = argument;
        memset(&parm->parm, 0, sizeof parm->parm);
        parm->parm.capture.capability = V4L2_CAP_TIMEPERFRAME;
        parm->parm.capture.timeperframe.numerator = 1;
        parm->parm.capture.timeperframe.denominator = fps;
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *request_buffers = argument;
        if (env_long("FAKE_V4L2_BUSY", 0) == 1) return fail(EBUSY);
        uint32_t count = request_buffers->count > MAX_BUFFERS ? MAX_BUFFERS : request_buffers->count;
        long page = sysconf(_SC_PAGESIZE);
        buffer_length = ((size_t)frame_bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
        for (uint32_t i = buffer_count; i < count; i++) {
            buffers[i] = mmap(NULL, buffer_length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        }
        buffer_count = count;
        request_buffers->count = count;
        queue_head = queue_tail = 0;
        memset(queued, 0, sizeof queued);
        return 0;
    }
    case VIDIOC_QUERYBUF: {
        struct v4l2_buffer *buffer = argument;
        if (buffer->index >= buffer_count) return fail(EINVAL);
        buffer->length = (uint32_t)buffer_length;
        buffer->m.offset = buffer->index * (uint32_t)buffer_length;
        buffer->flags = V4L2_BUF_FLAG_MAPPED | (queued[buffer->index] ? V4L2_BUF_FLAG_QUEUED : 0);
        return 0;
    }
    case VIDIOC_QBUF: {
        struct v4l2_buffer *buffer = argument;
        if (buffer->index >= buffer_count || queued[buffer->index]) return fail(EINVAL);
        queued[buffer->index] = 1;
        queue_order[queue_tail++ % MAX_BUFFERS] = buffer->index;
        return 0;
    }
    case VIDIOC_DQBUF:
        return dequeue(argument);
    case VIDIOC_STREAMON:
        streaming = 1;
        stream_start_ns = now_ns();
        return 0;
    case VIDIOC_STREAMOFF:
        streaming = 0;
        queue_head = queue_tail = 0;
        memset(queued, 0, sizeof queued);
        return 0;
    case VIDIOC_QUERYCTRL: {
        struct v4l2_queryctrl *query = argument;
        if (query->id != V4L2_CID_FOCUS_ABSOLUTE || env_long("FAKE_V4L2_FOCUS", 0) != 1) return fail(EINVAL);
        query->type = V4L2_CTRL_TYPE_INTEGER;
        strcpy((char *)query->name, "Focus, Absolute");
        query->minimum = 0;
        query->maximum = 255;
        query->step = 1;
        query->default_value = 120;
        query->flags = 0;
        return 0;
    }
    case VIDIOC_G_CTRL: {
        struct v4l2_control *control = argument;
        if (control->id != V4L2_CID_FOCUS_ABSOLUTE || env_long("FAKE_V4L2_FOCUS", 0) != 1) return fail(EINVAL);
        control->value = 120;
        return 0;
    }
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *input = argument;
        if (input->index > 0) return fail(EINVAL);
        /* Every field, as a driver fills it: libv4l reads `status` for the upside-down bits. */
        memset(input, 0, sizeof *input);
        strcpy((char *)input->name, "Camera");
        input->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_INPUT:
        *(int *)argument = 0;
        return 0;
    case VIDIOC_S_INPUT:
        return 0;
    default:
        return fail(ENOTTY);
    }
}

static long fake_open(void) {
    if (unplugged) {
        long replug = env_long("FAKE_V4L2_REPLUG_MS", -1);
        if (replug < 0 || now_ns() - unplugged_at_ns < (uint64_t)replug * 1000000ull) return fail(ENOENT);
        unplugged = 0;
        setenv("FAKE_V4L2_UNPLUG_AFTER", "-1", 1);
    }
    if (device_fd >= 0) return fail(EBUSY);
    load_frames();
    device_fd = eventfd(1, EFD_CLOEXEC);
    sequence = 0;
    buffer_count = 0;
    return device_fd;
}

long syscall(long number, ...) {
    va_list list;
    va_start(list, number);
    long a[6];
    for (int i = 0; i < 6; i++) a[i] = va_arg(list, long);
    va_end(list);
    const char *path = NULL;
    if (number == SYS_openat) path = (const char *)a[1];
#ifdef SYS_open
    if (number == SYS_open) path = (const char *)a[0];
#endif
    pthread_mutex_lock(&lock);
    long result;
    int handled = 1;
    if (path != NULL && strcmp(path, device_path()) == 0) {
        result = fake_open();
    } else if (number == SYS_ioctl && device_fd >= 0 && a[0] == device_fd) {
        result = handle_ioctl((unsigned long)a[1], (void *)a[2]);
    } else if (number == SYS_mmap && device_fd >= 0 && a[4] == device_fd) {
        uint32_t index = buffer_length > 0 ? (uint32_t)((size_t)a[5] / buffer_length) : MAX_BUFFERS;
        result = index < buffer_count ? (long)buffers[index] : fail(EINVAL);
    } else if (number == SYS_munmap && buffer_count > 0) {
        handled = 0;
        for (uint32_t i = 0; i < buffer_count; i++) {
            if ((void *)a[0] == buffers[i]) handled = 1;
        }
        result = 0;
    } else if (number == SYS_close && device_fd >= 0 && a[0] == device_fd) {
        device_fd = -1;
        handled = 0;
        result = 0;
    } else {
        handled = 0;
        result = 0;
    }
    pthread_mutex_unlock(&lock);
    return handled ? result : real_syscall()(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

/* The libc entry points, for the same device. */
typedef int (*open_fn)(const char *, int, ...);
typedef int (*ioctl_fn)(int, unsigned long, ...);
typedef int (*close_fn)(int);

static int open_common(const char *name, const char *path, int flags, va_list list) {
    mode_t mode = (flags & O_CREAT) ? (mode_t)va_arg(list, int) : 0;
    if (path != NULL && strcmp(path, device_path()) == 0) {
        pthread_mutex_lock(&lock);
        long result = fake_open();
        pthread_mutex_unlock(&lock);
        return (int)result;
    }
    open_fn real = (open_fn)dlsym(RTLD_NEXT, name);
    return real(path, flags, mode);
}

int open(const char *path, int flags, ...) {
    va_list list;
    va_start(list, flags);
    int result = open_common("open", path, flags, list);
    va_end(list);
    return result;
}

int open64(const char *path, int flags, ...) {
    va_list list;
    va_start(list, flags);
    int result = open_common("open64", path, flags, list);
    va_end(list);
    return result;
}

int ioctl(int fd, unsigned long request, ...) {
    va_list list;
    va_start(list, request);
    void *argument = va_arg(list, void *);
    va_end(list);
    pthread_mutex_lock(&lock);
    if (device_fd >= 0 && fd == device_fd) {
        long result = handle_ioctl(request, argument);
        pthread_mutex_unlock(&lock);
        return (int)result;
    }
    pthread_mutex_unlock(&lock);
    ioctl_fn real = (ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
    return real(fd, request, argument);
}

int close(int fd) {
    pthread_mutex_lock(&lock);
    if (device_fd >= 0 && fd == device_fd) device_fd = -1;
    pthread_mutex_unlock(&lock);
    close_fn real = (close_fn)dlsym(RTLD_NEXT, "close");
    return real(fd);
}
