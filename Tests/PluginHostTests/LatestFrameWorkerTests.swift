import Foundation
import HostTesting
import PluginAPI
import PluginKit
import Testing

@Suite("The latest frame to a worker (PluginKit)")
struct LatestFrameWorkerTests {
    /// Counts frames retained and not yet released, and the most at once.
    final class Ledger: @unchecked Sendable {  // because: the counters are guarded by `lock`
        let lock = NSLock()
        var held = 0
        var most = 0
        func retain() {
            lock.withLock {
                held += 1
                most = max(most, held)
            }
        }
        func release() { lock.withLock { held -= 1 } }

        /// A mailbox whose retain and release are counted here.
        func mailbox(process: @escaping @Sendable (CameraFrame) -> Double) -> LatestFrameWorker {
            LatestFrameWorker(
                name: "test-mailbox",
                retain: { frame in
                    self.retain()
                    return frame
                }, release: { _ in self.release() }, process: process)
        }
    }

    /// `count` grey 4x2 frames numbered from 1, over one picture; deallocate both.
    static func frames(_ count: Int) -> (UnsafeMutablePointer<assist_frame>, UnsafeMutablePointer<UInt8>) {
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
        pixels.initialize(repeating: 7, count: 8)
        let frames = UnsafeMutablePointer<assist_frame>.allocate(capacity: count)
        for index in 0..<count {
            var frame = assist_frame()
            frame.struct_size = UInt32(MemoryLayout<assist_frame>.size)
            frame.fourcc = ASSIST_FOURCC_GRAY8
            (frame.width, frame.height, frame.plane_count, frame.stride.0) = (4, 2, 1, 4)
            frame.plane.0 = UnsafePointer(pixels)
            frame.seq = UInt64(index + 1)
            (frames + index).initialize(to: frame)
        }
        return (frames, pixels)
    }

    @Test func aSlowSearchSeesOnlyTheNewestFramesInOrderWithinTheRetainBudget() throws {
        let (frames, pixels) = Self.frames(60)
        defer {
            frames.deallocate()
            pixels.deallocate()
        }
        let ledger = Ledger()
        let searched = Collected<UInt64>()
        let mailbox = ledger.mailbox { frame in
            searched.append(frame.sequence)
            Thread.sleep(forTimeInterval: 0.1)  // a slow search: about 3 frames arrive meanwhile
            return 0
        }
        for index in 0..<60 {
            mailbox.offer(try #require(CameraFrame(frames + index)))
            Thread.sleep(forTimeInterval: 1.0 / 30)
        }
        Thread.sleep(forTimeInterval: 0.25)
        mailbox.stop()
        Thread.sleep(forTimeInterval: 0.15)
        let seen = searched.values
        #expect(seen.count < 60 && seen.count > 5, "most frames were replaced while the search ran: \(seen)")
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "sequence numbers only increase: \(seen)")
        #expect(seen.last == 60, "the newest frame is always searched")
        #expect(ledger.most <= 3, "one searched, one waiting, and the newest while it replaces that one: under 4")
        #expect(ledger.held == 0, "every retained frame was released")
        #expect(mailbox.replaced + seen.count == 60)
    }

    @Test func stopWaitsUntilTheFrameBeingSearchedIsReleased() throws {
        let (frames, pixels) = Self.frames(1)
        defer {
            frames.deallocate()
            pixels.deallocate()
        }
        let frame = try #require(CameraFrame(frames))
        let ledger = Ledger()
        let started = DispatchSemaphore(value: 0)
        let mailbox = ledger.mailbox { _ in
            started.signal()
            Thread.sleep(forTimeInterval: 0.3)
            return 400  // a long back-off, which the stop cuts short
        }
        mailbox.offer(frame)
        #expect(started.wait(timeout: .now() + 5) == .success)
        mailbox.offer(frame)  // waiting while the first is searched
        mailbox.stop()
        #expect(ledger.held == 0, "the searched frame and the waiting one are both released before stop returns")
        #expect(ledger.most == 2)
    }
}

@Suite("Typed camera values (PluginKit)")
struct CameraFrameTests {
    @Test func aFrameIsReadAsItsFormatAndSizeAndItsRowsCopyPacked() throws {
        // 3x2 BGR with 2 bytes of padding after each row.
        var bytes = [UInt8](repeating: 0xEE, count: 22)
        for row in 0..<2 { for column in 0..<9 { bytes[row * 11 + column] = UInt8(row * 10 + column) } }
        try bytes.withUnsafeBufferPointer { buffer in
            var header = assist_frame()
            header.struct_size = UInt32(MemoryLayout<assist_frame>.size)
            header.fourcc = ASSIST_FOURCC_BGR24
            (header.width, header.height, header.plane_count, header.stride.0) = (3, 2, 1, 11)
            header.plane.0 = buffer.baseAddress
            header.timestamp_ns = 99
            header.seq = 4
            try withUnsafePointer(to: header) { raw in
                let frame = try #require(CameraFrame(raw))
                #expect(frame.format == .bgr24 && frame.width == 3 && frame.height == 2 && frame.stride == 11)
                #expect(frame.timestamp == 99 && frame.sequence == 4)
                #expect(frame.copyPixels() == Array(0..<9) + Array(10..<19))
            }
            // Refused: an unknown format, rows shorter than the width, no pixels, a struct below ABI 1.0's.
            for broken in [
                { (h: inout assist_frame) in h.fourcc = 0x1234_5678 }, { $0.stride.0 = 8 }, { $0.plane.0 = nil },
                { $0.struct_size = 8 },
            ] {
                var copy = header
                broken(&copy)
                withUnsafePointer(to: copy) { #expect(CameraFrame($0) == nil) }
            }
        }
        #expect(PixelFormat.allCases.allSatisfy { PixelFormat(fourcc: $0.fourcc) == $0 })
    }

    @Test func aRetainedFrameIsGivenBackOnceWhenItGoesOrWhenReleased() throws {
        let (frames, pixels) = LatestFrameWorkerTests.frames(2)
        defer {
            frames.deallocate()
            pixels.deallocate()
        }
        let given = Collected<UInt64>()
        do {
            let kept = RetainedFrame(try #require(CameraFrame(frames))) { given.append($0.pointee.seq) }
            #expect(kept.frame.sequence == 1 && given.values.isEmpty)
        }
        #expect(given.values == [1], "given back when the last reference went")
        let second = RetainedFrame(try #require(CameraFrame(frames + 1))) { given.append($0.pointee.seq) }
        second.release()
        second.release()
        #expect(given.values == [1, 2], "once, however often it is released")
    }
}
