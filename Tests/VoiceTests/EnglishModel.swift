import Foundation
import HostTesting
import Testing
import Voice

extension VoiceModel {
    /// The English model the tests listen with (Debian's pocketsphinx-en-us, with the share folder's dictionary
    /// additions); nil, with the test's issue recorded, where it is missing.
    static func english(data: URL) -> VoiceModel? {
        guard
            case .success(let model) = VoiceModel.find(
                language: "en", data: data, share: BuildProducts.packageRoot.appendingPathComponent("share"))
        else {
            Issue.record("no English voice model (Debian's pocketsphinx-en-us)")
            return nil
        }
        return model
    }
}
