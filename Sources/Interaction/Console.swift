import Foundation

/// Reads the user's keys and typed lines from standard input on a thread of its own.
///
/// On a terminal it switches to single-key input (no canonical mode, no echo, no flow control, so Ctrl+S
/// arrives) and types lines itself, as `LineEditor` says for the mode the dispatcher sets: letters begin a
/// word at a menu or question, the command key ("/") opens a command line inside a feature, a text dialog
/// takes whole lines, and a paste is typed rather than taken as keys. It restores the terminal when it ends.
/// Elsewhere (a pipe, a file, a test) every line is one event: a lone character or key name is a key,
/// anything else is typed words. No cursor movement is ever written: output stays plain lines.
// because: mutable state is guarded by `lock`; termios only touched under it
package final class Console: @unchecked Sendable {
    private let lock = NSLock()
    private let input: Int32
    private let echo: @Sendable (String) -> Void
    private var savedTerminal: termios?
    private var editor = LineEditor()
    private var decoder = KeyDecoder()
    /// After a paste was sent or refused, what follows it is dropped until the terminal is quiet.
    private var discarding = false
    /// How long the terminal must be quiet to end a paste being dropped, in milliseconds.
    private static let pasteQuietMilliseconds: Int32 = 300
    private var started = false

    /// True when standard input is a terminal.
    package let isTerminal: Bool
    /// Ctrl+C, Ctrl+Z and Ctrl+\ arrive as keys instead of signals (the kiosk answers them itself).
    private let signalKeysAsKeys: Bool

    /// Creates a console over `fileDescriptor`; `echo` writes raw text for typed-line echo. With
    /// `signalKeysAsKeys` the terminal sends no signals for Ctrl+C, Ctrl+Z or Ctrl+\: they are keys.
    package init(
        fileDescriptor: Int32 = 0, signalKeysAsKeys: Bool = false,
        echo: @escaping @Sendable (String) -> Void = Console.writeRaw
    ) {
        self.input = fileDescriptor
        self.echo = echo
        self.signalKeysAsKeys = signalKeysAsKeys
        self.isTerminal = isatty(fileDescriptor) == 1
    }

    /// Starts reading; `handler` gets every event on the reader thread and must post it on.
    package func start(_ handler: @escaping @Sendable (InputEvent) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { return }
        started = true
        if isTerminal, savedTerminal == nil { enterKeyMode() }
        let thread = Thread { [self] in
            if isTerminal { readTerminal(handler) } else { readLines(handler) }
        }
        thread.name = "assist-console"
        thread.start()
    }

    /// Takes the terminal's keys now, before reading starts: what is typed meanwhile waits in the terminal's
    /// queue for `start`, instead of being echoed or, for Ctrl+C in a kiosk, taken by the line discipline as a
    /// signal nobody answers. `restore` gives the terminal back. Any thread.
    package func claimKeys() {
        lock.lock()
        defer { lock.unlock() }
        if isTerminal, savedTerminal == nil { enterKeyMode() }
    }

    /// Reads keys as `mode` says (a feature's keys, a menu's words, a text dialog's lines). Any thread.
    package func setMode(_ mode: TypingMode) {
        lock.withLock { editor.mode = mode }
    }

    /// Restores the terminal as it was. Safe to call more than once. Any thread.
    package func restore() {
        lock.lock()
        defer { lock.unlock() }
        if var saved = savedTerminal {
            tcsetattr(input, TCSANOW, &saved)
            savedTerminal = nil
        }
    }

    /// Writes `text` to standard output as it is, for echo.
    package static let writeRaw: @Sendable (String) -> Void = { text in
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }

    private func enterKeyMode() {
        var settings = termios()
        guard tcgetattr(input, &settings) == 0 else { return }
        savedTerminal = settings
        settings.c_lflag &= ~tcflag_t(ICANON | ECHO)
        if signalKeysAsKeys { settings.c_lflag &= ~tcflag_t(ISIG | IEXTEN) }
        settings.c_iflag &= ~tcflag_t(IXON | ICRNL)
        withUnsafeMutableBytes(of: &settings.c_cc) { bytes in
            bytes[Int(VMIN)] = 1
            bytes[Int(VTIME)] = 0
        }
        tcsetattr(input, TCSANOW, &settings)
    }

    private func readTerminal(_ handler: @Sendable (InputEvent) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            let (holding, dropping) = lock.withLock { (decoder.isHolding, discarding) }
            // A lone Escape is told from an escape sequence by 50 ms of quiet; a paste's end by 300 ms.
            let ready = poll(&descriptor, 1, dropping ? Self.pasteQuietMilliseconds : holding ? 50 : -1)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 {
                let outputs = lock.withLock {
                    discarding = false
                    return decoder.flush().flatMap { editor.take($0, at: Self.now) }
                }
                deliver(outputs, handler)
                continue
            }
            let count = read(input, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                handler(.endOfInput)
                return
            }
            deliver(lock.withLock { edit(decoder.feed(Array(buffer[0..<count]))) }, handler)
        }
    }

    /// What one read's keys give, under `lock`: a paste is typed, a person's keys one by one.
    private func edit(_ keys: [Key]) -> [LineEditor.Output] {
        guard !discarding else { return [] }
        let typed = keys.filter { key in
            if case .character = key { return true }
            return key == .space
        }
        guard typed.count >= LineEditor.pasteThreshold else { return keys.flatMap { editor.take($0, at: Self.now) } }
        let (outputs, dropRest) = editor.takePaste(keys, at: Self.now)
        if dropRest { discarding = true }
        return outputs
    }

    /// Shows what is typed and passes the events on, outside the lock.
    private func deliver(_ outputs: [LineEditor.Output], _ handler: @Sendable (InputEvent) -> Void) {
        var shown = ""
        for output in outputs {
            switch output {
            case .show(let text): shown += text
            case .event(let event):
                if !shown.isEmpty { echo(shown) }
                shown = ""
                handler(event)
            }
        }
        if !shown.isEmpty { echo(shown) }
    }

    private static var now: Double { ProcessInfo.processInfo.systemUptime }

    private func readLines(_ handler: @Sendable (InputEvent) -> Void) {
        let handle = FileHandle(fileDescriptor: input, closeOnDealloc: false)
        var pending = Data()
        while true {
            let chunk = handle.availableData
            if chunk.isEmpty {
                if !pending.isEmpty { handler(Self.event(forLine: String(decoding: pending, as: UTF8.self))) }
                handler(.endOfInput)
                return
            }
            pending.append(chunk)
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                let wantsLine = lock.withLock {
                    if case .line = editor.mode { return true }
                    return false
                }
                handler(wantsLine ? .line(line.trimmingCharacters(in: .newlines)) : Self.event(forLine: line))
            }
        }
    }

    /// A piped line: a lone character or a key name in angle brackets ("<space>") is a key; else words.
    package static func event(forLine raw: String) -> InputEvent {
        let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.count == 1, let char = line.first, !char.isLetter {
            return .key(char == " " ? .space : .character(char))
        }
        if line.hasPrefix("<"), line.hasSuffix(">"), line.count > 2,
            let key = Key(name: String(line.dropFirst().dropLast()))
        {
            return .key(key)
        }
        return .line(line)
    }
}
