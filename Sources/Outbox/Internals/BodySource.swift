import Foundation

/// Hands a request body to libcurl piece by piece: literal bytes from memory, files read from disk as they
/// are needed, so memory stays flat whatever the files' sizes. A file that is missing, shorter or longer than
/// when the body was laid out stops the request (its Content-Length would be wrong).
final class BodySource {
    private let segments: [MultipartLayout.Segment]
    private var index = 0
    private var offset = 0
    private var descriptor: Int32 = -1
    private var fileRemaining: Int64 = 0
    /// Why the body stopped, when it did.
    private(set) var failure: OutboxError?

    init(segments: [MultipartLayout.Segment]) { self.segments = segments }

    deinit { closeFile() }

    /// Fills up to `capacity` bytes at `buffer`; 0 at the end, nil when the body cannot be read.
    func read(into buffer: UnsafeMutableRawPointer, capacity: Int) -> Int? {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let data):
                if offset < data.count {
                    let count = min(capacity, data.count - offset)
                    data.withUnsafeBytes { bytes in
                        if let base = bytes.baseAddress {
                            buffer.copyMemory(from: base + offset, byteCount: count)
                        }
                    }
                    offset += count
                    return count
                }
            case .file(let path, let size, let identity):
                if descriptor < 0 && offset == 0 {
                    if let identity {
                        switch PinnedFile.open(path) {
                        case .failure(let error): return fail(path, error.reason)
                        case .success(let opened):
                            descriptor = opened
                            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                            guard PinnedFile.identity(of: descriptor) == identity else {
                                return fail(path, PinnedFile.PinError.changed.reason)
                            }
                        }
                    } else {
                        descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    }
                    guard descriptor >= 0 else { return fail(path, String(cString: strerror(errno))) }
                    fileRemaining = size
                    offset = 1
                }
                if fileRemaining > 0 {
                    let count = Foundation.read(descriptor, buffer, Int(min(Int64(capacity), fileRemaining)))
                    guard count > 0 else {
                        return fail(path, count == 0 ? "it became shorter" : String(cString: strerror(errno)))
                    }
                    fileRemaining -= Int64(count)
                    return count
                }
                var probe: UInt8 = 0
                if Foundation.read(descriptor, &probe, 1) > 0 { return fail(path, "it became longer") }
                closeFile()
            }
            index += 1
            offset = 0
        }
        return 0
    }

    private func fail(_ path: String, _ cause: String) -> Int? {
        closeFile()
        failure = .unreadableBody(path, cause: cause)
        return nil
    }

    private func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
