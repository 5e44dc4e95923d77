import AssistCore
import Audio
import Camera
import Foundation
import Interaction
import Logging
import Outbox
import Runtime
import Speech
import Storage

/// assist.session/1: the plugin's language and folders, and how it says it is done.
package protocol SessionProviding: Sendable {
    /// The session's language ("en", "ru" or "zh").
    var language: String { get }
    var folders: PluginFolders { get }
    /// The feature is done with `status` (0 is success). Main loop; acted on after the plugin's call returns.
    func finish(status: Int32)
}

struct LocalSession: SessionProviding {
    weak var hub: HostServices?
    let language: String
    let folders: PluginFolders
    let owner: String

    func finish(status: Int32) {
        guard let hub else { return }
        let owner = owner
        hub.loop.post { [weak hub] in hub?.sessionDelegate?.featureFinished(owner: owner, status: status) }
    }
}
