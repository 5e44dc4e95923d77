import AssistCore
import Foundation
import Interaction
import PluginHost
import Speech
import View
import ViewState

/// What `--view` asked for: a page on loopback, on this port (nil: `view.port`, else any free one), opened in a
/// browser or not.
package struct ViewRequest: Sendable, Equatable {
    package var port: Int?
    package var open: Bool

    package init(port: Int? = nil, open: Bool = false) {
        self.port = port
        self.open = open
    }
}

/// The low-vision view joined to a session (docs/view.md): what is heard goes to the page as it is heard, the
/// question asked as buttons, the feature in front as its title; keys, clicks and typed words on the page come
/// in as the terminal's do; the page's settings are the settings file's. Made and used on the main loop.
package final class ViewAttachment: @unchecked Sendable {  // because: made, changed and stopped on the main loop
    package let hub: ViewHub
    package let server: ViewServer
    private weak var session: HostSession?
    private var timer: UInt64?
    private var printed: Bool
    private var preview: ViewPreview?
    private var subscriptions: [UInt64] = []
    /// The preview's zoom, as the last page asked.
    private var zoom = 1.0

    private init(hub: ViewHub, server: ViewServer, session: HostSession, printed: Bool) {
        self.hub = hub
        self.server = server
        self.session = session
        self.printed = printed
    }

    /// Starts the view for `session` as `request` says, prints `View: URL` once to standard error and says what
    /// went wrong, if anything (Assist goes on without a view then). Main loop, before input starts.
    package static func start(session: HostSession, request: ViewRequest) -> ViewAttachment? {
        let phrases = session.phrases
        let folder = session.paths.share.appendingPathComponent("view")
        let hub = ViewHub(settings: pageSettings(session, printed: session.speech == nil))
        // A kiosk's page is on a fixed port, so that its view's unit finds it (KioskView).
        let port =
            request.port
            ?? (session.kiosk != nil
                ? KioskView.port(session.settings) : session.settings.value("view.port")?.integer.map(Int.init))
        let server: ViewServer
        do {
            server = try ViewServer.start(
                hub: hub, folder: folder, port: port, token: token(in: session.deviceFolder), logger: session.logger)
        } catch {
            let reason: String
            switch error {
            case ViewError.cannotListen(let why): reason = why
            case let error as CocoaError where error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile:
                reason = phrases.text("view.no-page", ["path": folder.path])
            default: reason = String(describing: error)
            }
            session.announcer.say(phrases.text("view.cannot-start", ["reason": reason]), remember: false)
            return nil
        }
        let attachment = ViewAttachment(hub: hub, server: server, session: session, printed: session.speech == nil)
        attachment.connect()
        FileHandle.standardError.write(Data("View: \(server.url)\n".utf8))
        if let taken = server.portTaken {
            session.announcer.say(
                phrases.text("view.port-taken", ["port": String(taken), "new": String(server.port)]), remember: false)
        }
        if request.open { attachment.openBrowser() }
        return attachment
    }

    /// The page's token, kept in the data folder (`view-token`, 0600) so that an open page finds its way back
    /// after Assist restarts on the same port; made on first use, and made again when the file is not one.
    static func token(in data: URL) -> String {
        let file = data.appendingPathComponent("view-token")
        if let kept = try? String(contentsOf: file, encoding: .utf8), ViewServer.isToken(kept) { return kept }
        let made = ViewServer.randomToken()
        do { try PrivateFile.write(Data(made.utf8), to: file) } catch {}  // this session's only, then
        return made
    }

    /// Closes every page and stops listening.
    package func stop() {
        if let timer { _ = session?.loop.cancelTimer(timer) }
        subscriptions.forEach { session?.services.events.unsubscribe($0) }
        preview?.stop()
        session?.sound?.speechWatch.watch(nil)
        session?.printedLines.watch(nil)
        hub.closeAll()
        server.stop()
    }

    private func connect() {
        guard let session else { return }
        let hub = self.hub
        if printed {
            // Nothing is spoken: what is printed for people is what the page shows.
            session.printedLines.watch { line in hub.printed(line) }
        } else {
            session.sound?.speechWatch.watch { sighting in
                switch sighting {
                case .queued(let id, let text, _, let echo):
                    // The echo of a key typed is heard, not read: the page shows lines.
                    if !echo { hub.queued(id: id, text: text) }
                case .word(let id, let start, let length): hub.word(id: id, start: start, length: length)
                case .ended(let id, let finished): hub.ended(id: id, finished: finished)
                }
            }
        }
        let dialogs = session.services.interaction.dialogs
        hub.ask(Self.question(dialogs.question))
        dialogs.observeQuestions { [weak hub] question in hub?.ask(Self.question(question)) }
        let loop = session.loop
        hub.onInput = { [weak self] input in
            loop.post { [weak self] in self?.take(input) }
        }
        if let camera = session.services.camera {
            preview = ViewPreview(camera: camera, hub: hub)
            hub.onPreview = { [weak self] _, zoom in
                loop.post { [weak self] in
                    self?.zoom = zoom
                    self?.preview?.follow(zoom: zoom)
                }
            }
        }
        // What features show besides their lines, from their events (EventJournal never keeps the `.view.` ones).
        let events = session.services.events
        subscriptions = [
            events.subscribe(prefix: "assist.read-text.view.") { name, json in
                switch name {
                case "assist.read-text.view.page": hub.panel("reading", json)
                case "assist.read-text.view.picture": hub.panel("page-picture", json)
                default: hub.panel("sentence", json)
                }
            },
            events.subscribe(prefix: "assist.photo-sensor.view.photos") { _, json in
                hub.panel("photos", json.contains(#""photos":[]"#) ? nil : json)
            },
            events.subscribe(prefix: "assist.collect-videos.view.recording") { _, json in
                hub.panel("recording", json.contains(#""recording":true"#) ? json : nil)
            },
            events.subscribe(prefix: "assist.find-object.") { name, json in
                switch name {
                case "assist.find-object.guidance": hub.panel("target", json)
                case "assist.find-object.lost", "assist.find-object.paused": hub.panel("target", nil)
                default: break
                }
            },
        ]
        // A feature that ends takes what it showed with it; the next one starts clean.
        session.focusObservers.append { [weak self] _ in
            self?.hub.clearPanels()
            self?.follow()
        }
        let logger = session.logger
        hub.onDropped = { count in logger.warning("view: \(count) messages from a page came too fast and were dropped")
        }
        // The feature in front and the settings (changed by ear in Settings): followed twice a second.
        timer = loop.addTimer(milliseconds: 500, repeating: true) { [weak self] in self?.follow() }
        follow()
    }

    private func follow() {
        guard let session else { return }
        hub.focus(session.features.focused?.name)
        preview?.follow(zoom: zoom)
        hub.update(settings: Self.pageSettings(session, printed: printed))
    }

    /// The view's settings, and what the page needs to know of the session: whether Assist speaks (a screen
    /// reader then leaves the spoken line to it) and its language (the page's own words).
    static func pageSettings(_ session: HostSession, printed: Bool) -> [String: String] {
        var settings = ViewSettings.forPage(session.settings)
        settings["assist.speech"] = printed ? "off" : "on"
        settings["assist.language"] = session.phrases.language
        return settings
    }

    /// What a page asked for, as the terminal's keys and lines are taken. Main loop.
    private func take(_ input: ViewHub.Input) {
        guard let session else { return }
        switch input {
        case .key(let name):
            guard let key = Key(name: name) else { return }
            session.dispatcher.dispatch(.key(key))
        case .line(let text):
            session.dispatcher.dispatch(.line(text))
        case .choose(let index):
            // Only a choice asked now, and one of its choices: a click on a page that is behind does nothing.
            guard case .choice(_, let choices, _) = session.services.interaction.dialogs.question,
                index < choices.count
            else { return }
            session.dispatcher.dispatch(.line(String(index + 1)))
        case .preview:
            break  // the hub keeps it (`onPreview`)
        case .setting(let key, let text):
            guard let value = ViewSettings.value(text, for: key) else { return }
            do { try session.settings.set(key, value) } catch {
                session.announcer.say(
                    session.phrases.text("settings.locked", ["label": session.phrases.text("settings.\(key)")]),
                    remember: false)
            }
            follow()
        }
    }

    /// A dialog's question as the page shows it; a secret's prompt is shown, never what is typed.
    static func question(_ request: DialogRequest?) -> ViewHub.Question? {
        switch request {
        case .choice(let prompt, let choices, _): return .init(kind: .choice, prompt: prompt, choices: choices)
        case .confirm(let prompt, _, _): return .init(kind: .confirm, prompt: prompt)
        case .text(let prompt, let kind): return .init(kind: kind == .secret ? .secret : .text, prompt: prompt)
        case nil: return nil
        }
    }

    /// Starts `view.browser` on the page's address, else Debian's chromium as an app window, else xdg-open; says
    /// which package to install when there is none.
    private func openBrowser() {
        guard let session else { return }
        var command: [String]
        if case .string(let configured) = session.settings.value("view.browser"), !configured.isEmpty {
            command = configured.split(separator: " ").map(String.init) + [server.url]
        } else if let chromium = Self.find("chromium") {
            command = [chromium, "--app=\(server.url)"]
        } else if let opener = Self.find("xdg-open") {
            command = [opener, server.url]
        } else {
            session.announcer.say(session.phrases.text("view.no-browser"), remember: false)
            return
        }
        if !command[0].contains("/"), let found = Self.find(command[0]) { command[0] = found }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            session.announcer.say(session.phrases.text("view.no-browser"), remember: false)
        }
    }

    /// `name` on the PATH, if there.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

/// Lines printed for people, told to whoever watches them (the view, when nothing is spoken).
package typealias PrintedLines = Watch<String>

/// A line output that also tells `PrintedLines` each line.
struct WatchedOutput: LineOutput {
    let inner: any LineOutput
    let watch: PrintedLines

    init(_ inner: any LineOutput, watch: PrintedLines) {
        self.inner = inner
        self.watch = watch
    }

    func writeLine(_ line: String) {
        inner.writeLine(line)
        watch.post(line)
    }

    func writeRow(_ line: String) {
        inner.writeRow(line)
        watch.post(line)
    }
}
