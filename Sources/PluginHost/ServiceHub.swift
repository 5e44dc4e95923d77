import Foundation
import Interaction
import Logging
import Runtime

/// The host's shared services, as the C tables reach them. Built once by the host and passed in; each
/// plugin's `PluginContext` points back to it.
package final class ServiceHub: @unchecked Sendable {  // because: its members are immutable or synchronise themselves
    package let loop: MainLoop
    package let workers: WorkerPool
    package let clock: MonotonicClock
    package let interaction: InteractionServices
    package let settings: SettingsStore
    package let events: EventBus
    package let paths: HostPaths
    package let logger: Logger
    /// Receives `session.finish` calls; set by the feature controller.
    package weak var sessionDelegate: SessionDelegate?

    package init(
        loop: MainLoop, workers: WorkerPool, clock: MonotonicClock, interaction: InteractionServices,
        settings: SettingsStore, events: EventBus, paths: HostPaths, logger: Logger
    ) {
        self.loop = loop
        self.workers = workers
        self.clock = clock
        self.interaction = interaction
        self.settings = settings
        self.events = events
        self.paths = paths
        self.logger = logger
    }

    /// The service ids this host serves.
    package static let serviceIDs: Set<String> = [
        "assist.log/1", "assist.dialog/1", "assist.input/1", "assist.session/1", "assist.events/1",
        "assist.settings/1", "assist.clock/1", "assist.worker/1", "assist.thread-check/1",
    ]
}

/// What the user talks with: the announcer, the dialogs and the command table. Used on the main loop.
// because: `router` is used only on the main loop; the rest is thread-safe
package final class InteractionServices: @unchecked Sendable {
    package let announcer: Announcer
    package let dialogs: DialogEngine
    package let phrases: PhraseBook
    package var router: CommandRouter

    package init(announcer: Announcer, dialogs: DialogEngine, phrases: PhraseBook, router: CommandRouter) {
        self.announcer = announcer
        self.dialogs = dialogs
        self.phrases = phrases
        self.router = router
    }
}

/// Told when a feature says it is done.
package protocol SessionDelegate: AnyObject, Sendable {
    /// `context`'s feature called `session.finish(status)`. Called on the main loop, after the plugin's call returned.
    func featureFinished(_ context: PluginContext, status: Int32)
}
