import Interaction
import Testing

@testable import Speech

@Suite("Speech priorities (SSIP rules)")
struct SpeechQueueTests {
    static func entry(_ id: UInt64, _ priority: SpeechPriority) -> SpeechQueue.Entry {
        SpeechQueue.Entry(id: id, utterance: Utterance("u\(id)", priority: priority), callbacks: SpeechCallbacks())
    }

    @Test func importantPostponesMessageAndTextButCancelsNotifications() {
        var queue = SpeechQueue()
        #expect(queue.admit(Self.entry(1, .important), speaking: .message).interruption == .postpone)
        #expect(queue.admit(Self.entry(2, .important), speaking: .text).interruption == .postpone)
        #expect(queue.admit(Self.entry(3, .important), speaking: .notification).interruption == .cancel)
        #expect(queue.admit(Self.entry(4, .important), speaking: .important).interruption == .none)
    }

    @Test func messagePostponesTextAndCancelsNotificationAndProgress() {
        var queue = SpeechQueue()
        _ = queue.admit(Self.entry(1, .message), speaking: .message)
        _ = queue.admit(Self.entry(2, .text), speaking: .message)
        _ = queue.admit(Self.entry(3, .progress), speaking: .message)
        let (dropped, interruption) = queue.admit(Self.entry(4, .message), speaking: .text)
        #expect(interruption == .postpone, "a reading is never silently ended by a message")
        #expect(dropped.map(\.id) == [3])
        #expect(queue.waiting.map(\.id) == [1, 4, 2])
        #expect(queue.admit(Self.entry(5, .message), speaking: .notification).interruption == .cancel)
        #expect(queue.admit(Self.entry(6, .text), speaking: .text).interruption == .none)
    }

    @Test func orderIsImportantThenMessageThenText() {
        var queue = SpeechQueue()
        for (id, priority) in [(1, SpeechPriority.text), (2, .message), (3, .text), (4, .important), (5, .message)] {
            _ = queue.admit(Self.entry(UInt64(id), priority), speaking: .important)
        }
        #expect(queue.waiting.map(\.id) == [4, 2, 5, 1, 3])
    }

    @Test func notificationsAreDroppedWhenBusyAndTheLastProgressIsKept() {
        var queue = SpeechQueue()
        #expect(queue.admit(Self.entry(1, .notification), speaking: .message).dropped.map(\.id) == [1])
        #expect(queue.admit(Self.entry(2, .progress), speaking: .message).dropped.isEmpty)
        #expect(queue.admit(Self.entry(3, .progress), speaking: .message).dropped.map(\.id) == [2])
        #expect(queue.next(skippingOwners: [])?.id == 3, "the latest progress is spoken once idle")
        #expect(queue.admit(Self.entry(4, .notification), speaking: nil).dropped.isEmpty, "idle: spoken")
    }

    @Test func pausedOwnersAreSkippedAndPutBackEntriesGoFirst() {
        var queue = SpeechQueue()
        var mine = Self.entry(1, .message)
        mine.utterance.owner = 7
        _ = queue.admit(mine, speaking: nil)
        _ = queue.admit(Self.entry(2, .message), speaking: nil)
        #expect(queue.next(skippingOwners: [7])?.id == 2)
        queue.putBack(Self.entry(3, .message))
        #expect(queue.waiting.map(\.id) == [3, 1])
    }
}
