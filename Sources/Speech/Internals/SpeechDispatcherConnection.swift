internal import CSpeechd
import Foundation

/// One connection to Speech Dispatcher through libspeechd, in threaded mode. Owns the `SPDConnection` and
/// closes it in `deinit`. libspeechd's callbacks carry no user pointer, so events go through
/// `SpeechDispatcherConnection.events`, set once per process (Assist opens one connection).
final class SpeechDispatcherConnection: @unchecked Sendable {  // because: libspeechd serialises calls on a connection
    private let connection: UnsafeMutablePointer<SPDConnection>

    /// What happened to a message: its id, and the index mark for `.mark`.
    enum Event {
        case begin(Int), end(Int), cancel(Int), mark(Int, String)
    }

    /// Receives every event, on libspeechd's event thread.
    nonisolated(unsafe) static var events: (@Sendable (Event) -> Void)?

    /// Connects (starting the server if it is not running), or throws the reason. Wraps `spd_open2`,
    /// `spd_set_notification_on` and `spd_set_data_mode(SPD_DATA_SSML)`.
    init(clientName: String) throws {
        var error: UnsafeMutablePointer<CChar>?
        guard let opened = spd_open2(clientName, "main", nil, SPD_MODE_THREADED, nil, 1, &error) else {
            let reason = error.map { String(cString: $0) } ?? "no answer"
            free(error)
            throw SpeechDispatcherError(reason: reason)
        }
        connection = opened
        connection.pointee.callback_begin = { id, _, _ in SpeechDispatcherConnection.events?(.begin(Int(id))) }
        connection.pointee.callback_end = { id, _, _ in SpeechDispatcherConnection.events?(.end(Int(id))) }
        connection.pointee.callback_cancel = { id, _, _ in SpeechDispatcherConnection.events?(.cancel(Int(id))) }
        connection.pointee.callback_im = { id, _, _, mark in
            SpeechDispatcherConnection.events?(.mark(Int(id), mark.map { String(cString: $0) } ?? ""))
        }
        for event in [SPD_BEGIN, SPD_END, SPD_CANCEL, SPD_INDEX_MARKS] {
            _ = spd_set_notification_on(connection, event)
        }
        _ = spd_set_data_mode(connection, SPD_DATA_SSML)
    }

    deinit {
        spd_close(connection)
    }

    /// Says SSML `text` at `priority` (1 important … 5 progress); returns the message id or nil. Wraps
    /// `spd_set_language`, `spd_set_synthesis_voice`, `spd_set_voice_rate` and `spd_say`.
    func say(_ text: String, priority: Int32, language: String, voice: String?, rate: Int32) -> Int? {
        _ = spd_set_language(connection, language)
        if let voice { _ = spd_set_synthesis_voice(connection, voice) }
        _ = spd_set_voice_rate(connection, rate)
        let id = spd_say(connection, SPDPriority(rawValue: UInt32(priority)), text)
        return id > 0 ? Int(id) : nil
    }

    /// Wraps `spd_stop` (the message speaking now).
    func stopCurrent() { _ = spd_stop(connection) }
    /// Wraps `spd_cancel` (everything of this connection).
    func cancelAll() { _ = spd_cancel(connection) }
    /// Wraps `spd_pause`; the server stops at the next index mark.
    func pause() { _ = spd_pause(connection) }
    /// Wraps `spd_resume`.
    func resume() { _ = spd_resume(connection) }
}

/// Speech Dispatcher could not be reached.
struct SpeechDispatcherError: Error {
    var reason: String
}
