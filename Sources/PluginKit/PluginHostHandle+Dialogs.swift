import Foundation
import PluginABI
import PluginAPI

extension PluginHostHandle {
    /// Asks a question with numbered choices; `answer` gets the chosen index, or nil when cancelled or timed
    /// out, once on [main]. Wraps `assist_dialog_service.ask_choice`. [main]
    public func askChoice(
        _ prompt: String, choices: [String], defaultIndex: Int? = nil, _ answer: @escaping (Int?) -> Void
    ) {
        guard let ask = tables.dialog?.pointee.ask_choice else {
            answer(nil)
            return
        }
        let box = Unmanaged.passRetained(
            DialogAnswerBox { result in
                answer(
                    result.status == ASSIST_OK && result.index >= 0 ? Int(result.index) : nil)
            })
        let copies = choices.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let status = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { pointers in
            ask(
                raw, prompt, pointers.baseAddress, Int32(choices.count), Int32(defaultIndex ?? -1),
                DialogAnswerBox.callback,
                box.toOpaque(), nil)
        }
        if status != ASSIST_OK {
            box.release()
            answer(nil)
        }
    }

    /// Asks a yes/no question; `answer` gets the answer (the safe `defaultYes` on Enter, on silence for
    /// `timeoutMilliseconds` (0: wait) and on "cancel"), once on [main]. Wraps `assist_dialog_service.confirm`.
    /// [main]
    ///
    ///     host.confirm("Delete Mug and its videos?", defaultYes: false, timeoutMilliseconds: 10_000) { yes in
    ///         if yes { deleteMug() }
    ///     }
    public func confirm(
        _ prompt: String, defaultYes: Bool = false, timeoutMilliseconds: UInt32 = 0,
        _ answer: @escaping (Bool) -> Void
    ) {
        guard let confirm = tables.dialog?.pointee.confirm else {
            answer(defaultYes)
            return
        }
        let box = Unmanaged.passRetained(
            DialogAnswerBox { result in answer(result.status == ASSIST_OK ? result.yes : defaultYes) })
        if confirm(raw, prompt, defaultYes, timeoutMilliseconds, DialogAnswerBox.callback, box.toOpaque(), nil)
            != ASSIST_OK
        {
            box.release()
            answer(defaultYes)
        }
    }

    /// Asks for a line of text; `answer` gets it trimmed, or nil when cancelled, once on [main]. `listed`: the
    /// answer is usually one of the words this plugin listens for after a phrase (`setChoices`), which an
    /// answer said aloud is judged against first (`ASSIST_TEXT_LISTED`). `secret`: a password, neither echoed,
    /// spoken nor logged by the host (`ASSIST_TEXT_SECRET`). Wraps `assist_dialog_service.ask_text`. [main]
    public func askText(
        _ prompt: String, listed: Bool = false, secret: Bool = false, _ answer: @escaping (String?) -> Void
    ) {
        guard let ask = tables.dialog?.pointee.ask_text else {
            answer(nil)
            return
        }
        let box = Unmanaged.passRetained(
            DialogAnswerBox { result in
                answer(result.status == ASSIST_OK ? result.text.map { String(cString: $0) } ?? "" : nil)
            })
        if ask(
            raw, prompt, secret ? ASSIST_TEXT_SECRET : listed ? ASSIST_TEXT_LISTED : ASSIST_TEXT_PLAIN,
            DialogAnswerBox.callback, box.toOpaque(), nil)
            != ASSIST_OK
        {
            box.release()
            answer(nil)
        }
    }
}

/// Carries a dialog's answer handler through the C callback; released after the one answer.
private final class DialogAnswerBox {
    let handle: (assist_dialog_result) -> Void
    init(_ handle: @escaping (assist_dialog_result) -> Void) { self.handle = handle }

    /// A result below ABI 1.0's size reads as cancelled, so the answer still arrives exactly once.
    static let callback: assist_dialog_cb = { user, result in
        guard let user else { return }
        let box = Unmanaged<DialogAnswerBox>.fromOpaque(user)
        var answer = assist_dialog_result.read(result) ?? assist_dialog_result()
        if answer.struct_size == 0 { answer.status = ASSIST_E_CANCELLED }
        box.takeUnretainedValue().handle(answer)
        box.release()
    }
}
