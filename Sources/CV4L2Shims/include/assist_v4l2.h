/* assist_v4l2.h - V4L2 capture through libv4l2, for the host's camera service.
 *
 * The ioctl request codes are function-like macros Swift cannot import, so the capture steps live here in
 * C: open, negotiate a format (libv4l2 converts YUYV, MJPEG and RGB to BGR24 or GREY), mmap streaming with
 * several buffers, dequeue and requeue, and read-only control queries. One thread uses a device at a time.
 */
#ifndef ASSIST_V4L2_H
#define ASSIST_V4L2_H

#include <stddef.h>
#include <stdint.h>

typedef struct assist_v4l2_device assist_v4l2_device;

/** What a negotiated stream delivers. */
typedef struct assist_v4l2_info {
    uint32_t width;
    uint32_t height;
    uint32_t stride;        /* bytes per row */
    uint32_t fourcc;        /* the format delivered: the device's own (YUYV, GREY, BGR3, RGB3) or BGR3 */
    uint32_t native_fourcc; /* the device's own format before libv4l2's conversion */
    double fps;             /* the frame rate the device agreed to; 0 if it does not say */
    uint32_t buffers;       /* mmap buffers in the ring */
    char driver[32];
    char card[64];
} assist_v4l2_info;

/** Opens `path`, checks it captures video with streaming I/O, chooses the format from `fourcc` (what the
    first subscriber wants: the device's own format when that is it, or GREY from a YUYV device; else BGR3
    or RGB3 converted by libv4l2) at about `width` x `height` and `fps`, maps `buffer_count` buffers (at least 3) and starts streaming.
    Returns 0, or a negative errno with a short reason in `reason`. */
int assist_v4l2_open(const char *path, uint32_t fourcc, uint32_t width, uint32_t height, double fps,
                     uint32_t buffer_count, assist_v4l2_device **out, char *reason, size_t reason_size);

/** The stream's format. */
void assist_v4l2_get_info(const assist_v4l2_device *device, assist_v4l2_info *info);

/** Waits up to `timeout_ms` for a frame and dequeues it. Returns 0 with the frame's bytes, size, capture
    time (CLOCK_MONOTONIC ns), driver sequence and buffer index; -ETIMEDOUT; -ENODEV when unplugged; -EIO
    when frames came that could not be decoded or transferred (the camera is still there); or another negative
    errno. The bytes stay valid until assist_v4l2_requeue(index). */
int assist_v4l2_dequeue(assist_v4l2_device *device, int timeout_ms, const uint8_t **data, size_t *bytes,
                        uint64_t *timestamp_ns, uint32_t *sequence, uint32_t *index);

/** Gives buffer `index` back to the driver. Returns 0 or a negative errno. */
int assist_v4l2_requeue(assist_v4l2_device *device, uint32_t index);

/** Reads control `name` ("focus", "exposure", "zoom") with its range. Returns 0, or -EINVAL when the
    device has no such control. */
int assist_v4l2_control(assist_v4l2_device *device, const char *name, int64_t *value, int64_t *minimum,
                        int64_t *maximum);

/** Stops streaming, unmaps and closes. */
void assist_v4l2_close(assist_v4l2_device *device);

#endif
