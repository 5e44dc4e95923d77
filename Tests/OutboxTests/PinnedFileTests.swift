import Foundation
import HostTesting
import Outbox
import Testing

/// An upload is held to the file it named when it was queued (issue 68): a file replaced since by a link, or by
/// another file, is not sent; a job that names a file outside its owner's folders is never sent.
@Suite("Pinned upload files")
struct PinnedFileTests {
    func request(_ path: String, identity: String?) -> OutboxRequest {
        OutboxRequest(
            method: "POST", url: "http://127.0.0.1:9/upload",
            body: .multipart(
                boundary: "b",
                parts: [.file("file", path: path, filename: "clip.bin", contentType: "video/mp4", identity: identity)]))
    }

    @Test func theFileQueuedIsTheFileSentOrNothingIs() throws {
        let folder = try TemporaryDirectory("assist-pinned")
        let own = folder.path("plugins/org.example.x")
        try FileManager.default.createDirectory(
            at: own.appendingPathComponent("media"), withIntermediateDirectories: true)
        let clip = own.appendingPathComponent("media/clip.bin")
        try Data("own clip".utf8).write(to: clip)
        let key = folder.path("id_rsa")
        try Data("the key".utf8).write(to: key)
        let identity = try PinnedFile.identity(clip.path).get()
        #expect(PinnedFile.problem(in: request(clip.path, identity: identity), roots: [own]) == nil)
        // A job queued before files were pinned: its own plain file still goes.
        #expect(PinnedFile.problem(in: request(clip.path, identity: nil), roots: [own]) == nil)
        // Another feature's, or the user's, file in a row it did not queue.
        #expect(PinnedFile.problem(in: request(key.path, identity: nil), roots: [own])?.contains("own folders") == true)

        // Replaced by another file of its own: not the file queued.
        try FileManager.default.removeItem(at: clip)
        try Data("another".utf8).write(to: clip)
        #expect(
            PinnedFile.problem(in: request(clip.path, identity: identity), roots: [own])?.contains("replaced") == true)
        // Replaced by a link to the key.
        try FileManager.default.removeItem(at: clip)
        try FileManager.default.createSymbolicLink(at: clip, withDestinationURL: key)
        #expect(PinnedFile.problem(in: request(clip.path, identity: identity), roots: [own]) != nil)
        #expect(PinnedFile.problem(in: request(clip.path, identity: nil), roots: [own]) != nil)
        #expect(throws: PinnedFile.PinError.link) { try PinnedFile.identity(clip.path).get() }
        // A link inside its folder that leads to another file of its own is still a link.
        let other = own.appendingPathComponent("media/other.bin")
        try Data("own too".utf8).write(to: other)
        try FileManager.default.removeItem(at: clip)
        try FileManager.default.createSymbolicLink(at: clip, withDestinationURL: other)
        #expect(PinnedFile.problem(in: request(clip.path, identity: nil), roots: [own])?.contains("link") == true)

        // The body itself refuses a swapped file: nothing of the key is read into it.
        let layout = try? MultipartLayout(
            boundary: "b",
            parts: [.file("file", path: clip.path, filename: "c", contentType: "x", identity: identity)])
        #expect(layout == nil, "the layout refuses a file that is not the one queued")
    }
}
