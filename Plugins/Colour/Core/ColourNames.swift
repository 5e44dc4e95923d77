/// The 11 basic colour terms (Berlin and Kay) with light and dark, and a finer name from a small table
/// (colour.md). Every name is a phrase key: `basic.<name>`, `basic.dark-<name>`, `basic.light-<name>` and
/// `fine.<name>` in the phrase tables, so each language words them its own way (Russian's light blue is
/// голубой, not a lighter синий).
public enum BasicColour: String, CaseIterable, Sendable {
    case black, white, grey, red, orange, yellow, green, blue, purple, pink, brown

    /// Prototypes in sRGB: each category has several (focal, and its light and dark members), so a colour is
    /// named by the nearest of them rather than by cutting hue into slices.
    static let prototypes: [(BasicColour, [String])] = [
        (.red, ["c8102e", "e32636", "ff0000", "b22222", "8b0000", "a52a2a", "dc143c", "9b1b30"]),
        (.orange, ["ff7f00", "ff8c00", "f28500", "ffa040", "e86100", "ffb347", "cc5500"]),
        (.yellow, ["ffd700", "ffff00", "fce883", "f5e050", "ffef00", "e4d00a", "fff59d"]),
        (
            .green,
            [
                "008000", "00a550", "32cd32", "228b22", "006400", "90ee90", "3cb371", "6b8e23", "98fb98",
                "2e8b57", "004225", "7cfc00", "00a86b",
            ]
        ),
        (
            .blue,
            [
                "0047ab", "0000ff", "1e50c8", "4169e1", "000080", "87ceeb", "4682b4", "add8e6", "191970",
                "0f52ba", "6495ed", "00bfff", "008b8b", "40e0d0",
            ]
        ),
        (.purple, ["800080", "8a2be2", "6a0dad", "9370db", "4b0082", "b57edc", "663399", "c8a2c8", "5d3954"]),
        (.pink, ["ffc0cb", "ff69b4", "ff1493", "e75480", "f4a6b7", "fc8eac", "de3163", "ff00ff", "f78fa7"]),
        (
            .brown,
            [
                "8b4513", "a0522d", "654321", "964b00", "7b3f00", "c19a6b", "5c4033", "8d6e63", "4a2c2a",
                "a67b5b", "d2b48c",
            ]
        ),
    ]

    /// Each chromatic category's usual lightness: a colour 15 and more darker is dark, 15 and more lighter
    /// is light, and so is a pale one (`paleChroma`). Yellow and pink are light by nature; blue and purple
    /// dark.
    static let usualLightness: [BasicColour: Double] = [
        .red: 48, .orange: 66, .yellow: 88, .green: 52, .blue: 42, .purple: 40, .pink: 70, .brown: 38,
    ]

    /// A colour at least as light as its category usually is, with less than this share of the category's
    /// focal chroma, is light: pastel yellow, pale pink, mint are "light", however light yellow is anyway.
    static let paleChroma = 0.6

    /// The chroma of each category's first (focal) prototype.
    static let focalChroma: [BasicColour: Double] = Dictionary(
        uniqueKeysWithValues: prototypes.map { ($0.0, Lab(hex: $0.1[0]).chroma) })

    static let labs: [(BasicColour, Lab)] = prototypes.flatMap { colour, hexes in
        hexes.map { (colour, Lab(hex: $0)) }
    }
}

/// A colour's name in the terms a person uses: basic, then light or dark.
public struct ColourName: Equatable, Sendable {
    public enum Shade: String, Sendable { case dark, plain, light }

    public var basic: BasicColour
    public var shade: Shade

    /// The phrase key: `basic.dark-blue`, `basic.green`.
    public var key: String { shade == .plain ? "basic.\(basic.rawValue)" : "basic.\(shade.rawValue)-\(basic.rawValue)" }

    public init(_ basic: BasicColour, _ shade: Shade = .plain) {
        self.basic = basic
        self.shade = shade
    }

    /// Below this chroma a colour is a grey, black or white. Set between the greys of a camera's noise and the
    /// palest pastel that still reads as a colour.
    static let greyChroma = 9.0

    /// Names `lab`.
    public init(_ lab: Lab) {
        // Greys get more room as they darken: noise and the camera's tint move dark colours' axes more.
        let greyLimit = lab.l < 30 ? ColourName.greyChroma + (30 - lab.l) * 0.25 : ColourName.greyChroma
        if lab.chroma < greyLimit || (lab.l > 94 && lab.chroma < 14) {
            switch lab.l {
            case ..<20: self.init(.black)
            case ..<38: self.init(.grey, .dark)
            case ..<72: self.init(.grey)
            case ..<90: self.init(.grey, .light)
            default: self.init(.white)
            }
            return
        }
        var best = (colour: BasicColour.grey, distance: Double.infinity)
        for (colour, prototype) in BasicColour.labs {
            let distance = lab.distance(to: prototype)
            if distance < best.distance { best = (colour, distance) }
        }
        // Very dark colours with a little colour left: black, unless they are clearly coloured.
        if lab.l < 12 && lab.chroma < 20 { self.init(.black); return }
        let usual = BasicColour.usualLightness[best.colour] ?? 50
        let pale = lab.l >= usual && lab.chroma < BasicColour.paleChroma * (BasicColour.focalChroma[best.colour] ?? 0)
        let shade: Shade = lab.l < usual - 15 ? .dark : lab.l > usual + 15 || pale ? .light : .plain
        self.init(best.colour, shade)
    }
}

/// The finer names (navy, beige, maroon…): the nearest in the table, each with its sRGB value.
public enum FineColour {
    public static let table: [(name: String, hex: String)] = [
        ("navy", "000080"), ("midnight-blue", "191970"), ("royal-blue", "4169e1"), ("sky-blue", "87ceeb"),
        ("turquoise", "40e0d0"),
        ("teal", "008080"), ("cyan", "00ffff"), ("indigo", "4b0082"), ("violet", "8f00ff"), ("lavender", "b57edc"),
        ("lilac", "c8a2c8"), ("magenta", "ff00ff"), ("plum", "8e4585"), ("maroon", "800000"), ("burgundy", "800020"),
        ("crimson", "dc143c"), ("scarlet", "ff2400"), ("coral", "ff7f50"), ("salmon", "fa8072"), ("peach", "ffcba4"),
        ("hot-pink", "ff69b4"), ("baby-pink", "f4c2c2"), ("beige", "f5f5dc"), ("cream", "fffdd0"), ("ivory", "fffff0"),
        ("khaki", "c3b091"), ("tan", "d2b48c"), ("camel", "c19a6b"), ("chocolate", "7b3f00"), ("rust", "b7410e"),
        ("mustard", "e1ad01"), ("gold", "ffd700"), ("lemon", "fff44f"), ("amber", "ffbf00"), ("olive", "808000"),
        ("lime", "bfff00"), ("mint", "98ff98"), ("emerald", "50c878"), ("forest-green", "228b22"),
        ("bottle-green", "006a4e"), ("charcoal", "36454f"), ("silver", "c0c0c0"), ("slate-grey", "708090"),
        ("jet-black", "0a0a0a"), ("snow-white", "fffafa"), ("denim", "1560bd"), ("sapphire", "0f52ba"),
        ("terracotta", "e2725b"), ("apricot", "fbceb1"), ("sand", "c2b280"), ("ochre", "cc7722"),
    ]

    private static let labs = table.map { ($0.name, Lab(hex: $0.hex)) }

    /// The phrase key (`fine.navy`) of the table's name nearest `lab`.
    public static func key(for lab: Lab) -> String {
        var best = (name: "", distance: Double.infinity)
        for (name, prototype) in labs {
            let distance = lab.distance(to: prototype)
            if distance < best.distance { best = (name, distance) }
        }
        return "fine." + best.name
    }
}
