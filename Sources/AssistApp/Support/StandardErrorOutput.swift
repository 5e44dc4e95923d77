import AssistCore
import Foundation
import Interaction
import PluginHost
import PluginPackage

/// Lines on standard error, for refusals.
package struct StandardErrorOutput: LineOutput {
    package init() {}

    package func writeLine(_ line: String) {
        try? FileHandle.standardError.write(contentsOf: Data((PlainText.clean(line) + "\n").utf8))
    }
}
