import Foundation

/// One rule for the names people give things (collect-videos' things, find-object's taught things, labels): two
/// names that would be heard the same are the same name. A name is compared by its key: NFKC (full-width "Ｒｅｄ"
/// is "Red", a no-break space a space), control and invisible format characters (zero-width spaces, soft
/// hyphens, a byte-order mark) removed, case-folded ("STRASSE" and "Straße"), every run of whitespace one space,
/// trimmed. A name is kept as `cleaned` gives it: the same, but in the person's own case.
public enum NameKey {
    /// The form a name is compared in.
    public static func of(_ name: String) -> String {
        cleaned(name).folding(options: [.caseInsensitive], locale: nil)
    }

    /// The name as it is kept and said: NFKC, without control or format characters, single spaces, trimmed.
    public static func cleaned(_ name: String) -> String {
        var kept = String.UnicodeScalarView()
        for scalar in name.precomposedStringWithCompatibilityMapping.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .format: continue
            case .control where scalar.properties.isWhitespace: kept.append(" ")
            case .control: continue
            default: kept.append(scalar)
            }
        }
        return String(kept).split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Words that name nothing on their own ("my", "the"), in the four languages Assist speaks.
    public static let fillers: Set<String> = [
        "my", "the", "a", "an", "our", "this", "that", "it", "mine", "thing", "object",
        "мой", "моя", "моё", "мое", "это", "этот", "эта", "вещь", "предмет",
        "我的", "这个", "那个", "东西",
        "mi", "mis", "el", "la", "los", "las", "un", "una", "esto", "eso", "cosa", "objeto",
    ]

    /// True when `name` is only filler words ("my", "the thing"), or nothing at all.
    public static func isFillerOnly(_ name: String) -> Bool {
        of(name).split(separator: " ").allSatisfy {
            fillers.contains(String($0).trimmingCharacters(in: .punctuationCharacters))
        }
    }
}
