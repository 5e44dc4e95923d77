/// The arguments of a camera feature that also reads one photo (light, colour): nothing for the camera,
/// `--image PHOTO` for a photo, `--help`. Wrong ones throw the feature's own sentence: `image-needs-path` when
/// `--image` has no path, `unknown-option` (with `{option}`) for anything else.
public enum PhotoArgument: Equatable, Sendable {
    case camera
    case photo(String)
    case help

    public static func parse(_ arguments: [String], phrases: PhraseTable) throws(PluginError) -> PhotoArgument {
        switch arguments {
        case []: return .camera
        case ["--help"], ["-h"]: return .help
        case ["--image"]: throw PluginError(phrases.text("image-needs-path"))
        case let given where given.count == 2 && given[0] == "--image": return .photo(given[1])
        default:
            let option = arguments.first { $0.hasPrefix("-") } ?? arguments[0]
            throw PluginError(phrases.text("unknown-option", ["option": option]))
        }
    }
}
