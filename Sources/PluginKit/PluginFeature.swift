import PluginAPI

/// A failure a feature reports to the host: one short speakable sentence.
public struct PluginError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

/// What a Swift plugin implements; `PluginExport` turns it into the C tables. Every method runs on [main].
public protocol PluginFeature: AnyObject {
    /// Starts the feature with its command-line arguments.
    func start(arguments: [String]) throws(PluginError)
    /// Pauses; keeps state.
    func pause()
    /// Resumes after pause.
    func resume()
    /// Stops; the instance is destroyed right after.
    func stop()
    /// A routed command ("next", or one the feature registered).
    func handle(command: String, argument: String?)
    /// A camera frame, borrowed until return. Runs on the plugin's camera delivery thread, not [main].
    func handle(frame: CameraFrame)
}

extension PluginFeature {
    public func pause() {}
    public func resume() {}
    public func stop() {}
    public func handle(command: String, argument: String?) {}
    public func handle(frame: CameraFrame) {}
}
