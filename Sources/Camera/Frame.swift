import CSharedFrames
import Foundation

/// Pixel memory shared by every frame that views it. Written once, by whoever made it, before any frame is
/// published; read-only afterwards, so it may be read from any thread.
package final class FrameStorage: @unchecked Sendable {  // because: immutable once published (see above)
    /// The first byte.
    package let bytes: UnsafeMutableRawPointer
    /// Bytes allocated.
    package let capacity: Int

    /// Bytes allocated past `capacity` and zeroed: SIMD readers such as swscale may read a block past a
    /// picture's last pixel (FFmpeg's AV_INPUT_BUFFER_PADDING_SIZE). Never counted, never written.
    package static let readPadding = 64

    /// True when the memory of a frame that is gone is kept for the next frame of its size (not in sanitizer
    /// builds).
    package static var reusesMemory: Bool { SpareFrameMemory.enabled }

    /// True when the bytes are in the shared frame arena, which plugins' helper processes map (a frame then
    /// reaches them with no copy; docs/plugin-isolation.md).
    private let isShared: Bool

    /// Allocates `capacity` bytes, 64-byte aligned for SIMD conversions, followed by `readPadding` zeros:
    /// from the shared frame arena once a helper process needs frames and the frame is large, else the heap.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        if let shared = assist_shared_frames_alloc(self.capacity + Self.readPadding) {
            bytes = shared
            isShared = true
        } else {
            bytes =
                SpareFrameMemory.shared.take(self.capacity + Self.readPadding)
                ?? UnsafeMutableRawPointer.allocate(byteCount: self.capacity + Self.readPadding, alignment: 64)
            isShared = false
        }
        (bytes + self.capacity).initializeMemory(as: UInt8.self, repeating: 0, count: Self.readPadding)
    }

    deinit {
        if isShared {
            assist_shared_frames_free(bytes)
        } else if !SpareFrameMemory.shared.keep(bytes, size: capacity + Self.readPadding) {
            bytes.deallocate()
        }
    }
}

/// Frames of one size come and go at up to 30 a second. Given back to malloc, each was a fresh mapping of a
/// megabyte or more, faulted in page by page, or a hole in whichever thread's arena took it, which grew the
/// process by tens of megabytes over a search; kept here, the next frame of the same size reuses the memory
/// already touched. A few blocks of each size are kept, 32 MB at most in all; small crops are not. Off in
/// sanitizer builds (`assist_frame_memory_reusable`), whose checks need each block back in their allocator.
final class SpareFrameMemory: @unchecked Sendable {  // because: every field is guarded by `lock`
    static let shared = SpareFrameMemory()
    static let enabled = assist_frame_memory_reusable()
    static let smallest = 64 * 1024
    static let perSize = 4
    static let mostBytes = 32 << 20

    private let lock = NSLock()
    private var spare: [Int: [UnsafeMutableRawPointer]] = [:]
    private var bytes = 0

    /// A kept block of exactly `size` bytes, 64-byte aligned, or nil.
    func take(_ size: Int) -> UnsafeMutableRawPointer? {
        guard Self.enabled, size >= Self.smallest else { return nil }
        return lock.withLock {
            guard let block = spare[size]?.popLast() else { return nil }
            bytes -= size
            return block
        }
    }

    /// Keeps `block` (allocated with `size` bytes, 64-byte aligned) for the next frame; false when it is not
    /// kept and the caller frees it.
    func keep(_ block: UnsafeMutableRawPointer, size: Int) -> Bool {
        guard Self.enabled, size >= Self.smallest else { return false }
        return lock.withLock {
            guard (spare[size]?.count ?? 0) < Self.perSize, bytes + size <= Self.mostBytes else { return false }
            spare[size, default: []].append(block)
            bytes += size
            return true
        }
    }
}

/// One picture: a view into `FrameStorage` with its format, size, row stride, capture time and sequence
/// number. Cropping makes a new view of the same memory, without copying.
package struct Frame: @unchecked Sendable {  // because: the storage is immutable once published
    package let storage: FrameStorage
    package let format: PixelFormat
    package let width: Int
    package let height: Int
    /// Bytes from one row to the next.
    package let stride: Int
    /// Where the first pixel is, in bytes from the start of the storage.
    package let offset: Int
    /// CLOCK_MONOTONIC at capture, in nanoseconds.
    package let timestampNs: UInt64
    /// +1 per captured frame; a gap means the source dropped some.
    package let sequence: UInt64

    package init(
        storage: FrameStorage, format: PixelFormat, width: Int, height: Int, stride: Int, offset: Int = 0,
        timestampNs: UInt64, sequence: UInt64
    ) {
        self.storage = storage
        self.format = format
        self.width = width
        self.height = height
        self.stride = stride
        self.offset = offset
        self.timestampNs = timestampNs
        self.sequence = sequence
    }

    /// The first pixel.
    package var pixels: UnsafeRawPointer { UnsafeRawPointer(storage.bytes + offset) }

    /// The same picture with a new time and sequence number (a still image repeated).
    package func restamped(timestampNs: UInt64, sequence: UInt64) -> Frame {
        Frame(
            storage: storage, format: format, width: width, height: height, stride: stride, offset: offset,
            timestampNs: timestampNs, sequence: sequence)
    }

    /// The rectangle at (`x`, `y`) of `width` x `height`, clamped to the frame and aligned to the format's
    /// pixel groups; shares this frame's memory.
    package func cropped(x: Int, y: Int, width: Int, height: Int) -> Frame {
        let align = format.horizontalAlignment
        let left = min(max(0, x), self.width - 1) / align * align
        let top = min(max(0, y), self.height - 1)
        let cropWidth = max(align, min(width, self.width - left) / align * align)
        let cropHeight = max(1, min(height, self.height - top))
        return Frame(
            storage: storage, format: format, width: cropWidth, height: cropHeight, stride: stride,
            offset: offset + top * stride + left * format.bytesPerPixel, timestampNs: timestampNs, sequence: sequence)
    }

    /// The centred crop for digital zoom `zoom` (1 = whole frame), optionally squared first.
    package func zoomed(_ zoom: Double, square: Bool) -> Frame {
        var base = self
        if square {
            let side = min(width, height)
            base = cropped(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
        }
        guard zoom > 1.0001 else { return base }
        let cropWidth = Int((Double(base.width) / zoom).rounded())
        let cropHeight = Int((Double(base.height) / zoom).rounded())
        return base.cropped(
            x: (base.width - cropWidth) / 2, y: (base.height - cropHeight) / 2, width: cropWidth, height: cropHeight)
    }

    /// Copies the pixels into a new, tightly packed storage.
    package func copied() -> Frame {
        let rowBytes = width * format.bytesPerPixel
        let target = FrameStorage(capacity: rowBytes * height)
        for row in 0..<height {
            (target.bytes + row * rowBytes).copyMemory(from: pixels + row * stride, byteCount: rowBytes)
        }
        return Frame(
            storage: target, format: format, width: width, height: height, stride: rowBytes, timestampNs: timestampNs,
            sequence: sequence)
    }
}
