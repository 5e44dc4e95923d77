import Foundation

/// The bytes of a multipart/form-data body as segments: literal bytes, and files to stream from disk, so a
/// 1 GB recording is never in memory. The total length is known up front (Content-Length), and the body
/// always ends with the closing `--boundary--` line.
package struct MultipartLayout: Equatable, Sendable {
    package enum Segment: Equatable, Sendable {
        case bytes(Data)
        case file(path: String, size: Int64, identity: String? = nil)
    }

    package var segments: [Segment]
    package var contentType: String

    /// Lays out `parts` with `boundary`, reading the files' sizes. Throws when a file is missing.
    package init(boundary: String, parts: [OutboxRequest.Part]) throws {
        var segments: [Segment] = []
        func add(_ text: String) {
            if case .bytes(let previous) = segments.last {
                segments[segments.count - 1] = .bytes(previous + Data(text.utf8))
            } else {
                segments.append(.bytes(Data(text.utf8)))
            }
        }
        for part in parts {
            add("--\(boundary)\r\n")
            let name = Self.quoted(part.name)
            if let path = part.path {
                let size = try Self.size(of: path, identity: part.identity)
                add(
                    "Content-Disposition: form-data; name=\"\(name)\"; filename=\"\(Self.quoted(part.filename ?? "file"))\"\r\n"
                )
                add("Content-Type: \(part.contentType ?? "application/octet-stream")\r\n\r\n")
                segments.append(.file(path: path, size: size, identity: part.identity))
                add("\r\n")
            } else {
                add("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(part.text ?? "")\r\n")
            }
        }
        add("--\(boundary)--\r\n")
        self.segments = segments
        contentType = "multipart/form-data; boundary=\(boundary)"
    }

    /// Bytes in the whole body.
    package var length: Int64 { Self.length(of: segments) }

    /// Bytes in `segments`.
    package static func length(of segments: [Segment]) -> Int64 {
        segments.reduce(0) { total, segment in
            switch segment {
            case .bytes(let data): return total + Int64(data.count)
            case .file(_, let size, _): return total + size
            }
        }
    }

    /// The whole body in memory: for small bodies and tests only.
    package func render() throws -> Data {
        var data = Data()
        for segment in segments {
            switch segment {
            case .bytes(let bytes): data.append(bytes)
            case .file(let path, _, _): data.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
        }
        return data
    }

    /// The size of the file at `path`; with `identity`, of that file only, opened without following a link.
    static func size(of path: String, identity: String? = nil) throws -> Int64 {
        guard let identity else {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
            }
            return size.int64Value
        }
        guard case .success(let descriptor) = PinnedFile.open(path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        defer { close(descriptor) }
        var info = stat()
        guard PinnedFile.identity(of: descriptor) == identity, fstat(descriptor, &info) == 0 else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path])
        }
        return Int64(info.st_size)
    }

    /// Quotes and line breaks cannot break out of a header value.
    static func quoted(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
