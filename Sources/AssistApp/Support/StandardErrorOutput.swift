import AssistCore
import Foundation
import Interaction
import PluginHost
import PluginPackage

/// Lines on standard error, for refusals.
package struct StandardErrorOutput: LineOutput {
    package init() {}

    package func writeLine(_ line: String) {
        FileHandle.standardError.write(Data((PlainText.clean(line) + "\n").utf8))
    }
}
