import Foundation
import ObjectDetection
import PluginKit

/// A thing the person taught (docs/find-object.md, "Your own things"): its name in their words, the
/// embeddings of its best views (prototypes) and the similarity above which a region of a picture is taken for
/// it, calibrated when it was taught against the background it was filmed on.
struct Thing: Equatable, Sendable {
    /// The name as matched: its `NameKey` (heard the same, compared the same), without a leading "my", "the",
    /// "a" or "an".
    var key: String
    /// The name as the person gave it, for speaking.
    var words: String
    var threshold: Double
    var prototypes: [[Float]]
    /// Where it was taught from: "camera", "video" or "collect-videos".
    var source: String

    /// The key `name` is matched by; nil when nothing is left of it.
    static func key(for name: String) -> String? {
        var words = NameKey.of(name).split(separator: " ").map(String.init)
        while words.count > 1, ["my", "the", "a", "an", "our"].contains(words[0]) { words.removeFirst() }
        let key = words.joined(separator: " ").trimmingCharacters(in: .punctuationCharacters)
        return key.isEmpty ? nil : key
    }

    /// Why `name` cannot name a thing (a phrase key), or nil when it can.
    static func problem(with name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || key(for: trimmed) == nil { return "thing-name-empty" }
        if NameKey.isFillerOnly(trimmed) { return "thing-name-filler" }
        if trimmed.count > 40 { return "thing-name-too-long" }
        if trimmed.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) }) {
            return "thing-name-control"
        }
        if !trimmed.contains(where: { $0.isLetter || $0.isNumber }) { return "thing-name-empty" }
        return nil
    }

    /// The best similarity of `embedding` to the prototypes (each a unit vector: the dot product).
    func similarity(_ embedding: [Float]) -> Double { Self.similarity(of: embedding, to: prototypes) }

    /// The best similarity of `embedding` to any of `prototypes`; 0 when there are none.
    static func similarity(of embedding: [Float], to prototypes: [[Float]]) -> Double {
        prototypes.map { Double(dot($0, embedding)) }.max() ?? 0
    }

    static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        for index in 0..<min(a.count, b.count) { sum += a[index] * b[index] }
        return sum
    }
}

/// The taught things in find-object's own database ("things"): one row per thing, one per prototype. A thing
/// and its views are written in one transaction; a prototype that cannot be read (damaged) is skipped, and a
/// thing left without any is reported, never guessed at.
struct ThingStore {
    let database: PluginDatabaseHandle

    init(host: PluginHostHandle) throws(PluginStatus) {
        database = try PluginDatabaseHandle(
            host: host, name: "things",
            migrations: [
                """
                CREATE TABLE things (key TEXT PRIMARY KEY, words TEXT NOT NULL, threshold REAL NOT NULL,
                  source TEXT NOT NULL, taught_at INTEGER NOT NULL);
                CREATE TABLE views (key TEXT NOT NULL REFERENCES things(key) ON DELETE CASCADE,
                  position INTEGER NOT NULL, embedding TEXT NOT NULL, PRIMARY KEY (key, position));
                """
            ])
    }

    /// Every thing, by name; `damaged` gets the words of those without a readable prototype.
    func all(damaged: inout [String]) throws(PluginStatus) -> [Thing] {
        var rows: [[String]] = []
        try database.execute("SELECT key, words, threshold, source FROM things ORDER BY key") { rows.append($0) }
        var things: [Thing] = []
        for row in rows where row.count == 4 {
            var prototypes: [[Float]] = []
            try database.execute("SELECT embedding FROM views WHERE key = ? ORDER BY position", [.text(row[0])]) {
                if let first = $0.first, let embedding = Self.decode(first) { prototypes.append(embedding) }
            }
            guard !prototypes.isEmpty, let threshold = Double(row[2]), threshold > 0, threshold < 1 else {
                damaged.append(row[1])
                continue
            }
            things.append(
                Thing(key: row[0], words: row[1], threshold: threshold, prototypes: prototypes, source: row[3]))
        }
        return things
    }

    func all() throws(PluginStatus) -> [Thing] {
        var damaged: [String] = []
        return try all(damaged: &damaged)
    }

    /// The thing `name` names, if taught (whatever state its prototypes are in: `exists`).
    func exists(_ key: String) throws(PluginStatus) -> String? {
        var words: String?
        try database.execute("SELECT words FROM things WHERE key = ?", [.text(key)]) { words = $0.first }
        return words
    }

    /// Saves `thing`, replacing one of the same key, in one transaction.
    func save(_ thing: Thing) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("DELETE FROM views WHERE key = ?", [.text(thing.key)])
            try database.execute("DELETE FROM things WHERE key = ?", [.text(thing.key)])
            try database.execute(
                "INSERT INTO things (key, words, threshold, source, taught_at) VALUES (?, ?, ?, ?, ?)",
                [
                    .text(thing.key), .text(thing.words), .real(thing.threshold), .text(thing.source),
                    .integer(Int64(Date().timeIntervalSince1970)),
                ])
            for (position, prototype) in thing.prototypes.enumerated() {
                try database.execute(
                    "INSERT INTO views (key, position, embedding) VALUES (?, ?, ?)",
                    [.text(thing.key), .integer(Int64(position)), .text(Self.encode(prototype))])
            }
        }
    }

    /// Removes the thing `key`; false when there was none.
    func forget(_ key: String) throws(PluginStatus) -> Bool {
        guard try exists(key) != nil else { return false }
        try database.transaction { () throws(PluginStatus) in
            try database.execute("DELETE FROM views WHERE key = ?", [.text(key)])
            try database.execute("DELETE FROM things WHERE key = ?", [.text(key)])
        }
        return true
    }

    /// Gives the thing `key` a new name (`words`, whose key is `newKey`).
    func rename(_ key: String, to words: String, newKey: String) throws(PluginStatus) {
        try database.transaction { () throws(PluginStatus) in
            try database.execute("UPDATE views SET key = ? WHERE key = ?", [.text(newKey), .text(key)])
            try database.execute(
                "UPDATE things SET key = ?, words = ? WHERE key = ?", [.text(newKey), .text(words), .text(key)])
        }
    }

    /// A prototype as text: its 1,280 little-endian floats in base64.
    static func encode(_ embedding: [Float]) -> String {
        var data = Data(capacity: embedding.count * 4)
        for value in embedding { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data.base64EncodedString()
    }

    /// A prototype read back; nil when it is not 1,280 finite numbers of length about 1.
    static func decode(_ text: String) -> [Float]? {
        guard let data = Data(base64Encoded: text), data.count == ObjectEmbedder.dimension * 4 else { return nil }
        let values = stride(from: 0, to: data.count, by: 4).map { offset -> Float in
            let bits = data[data.startIndex + offset..<data.startIndex + offset + 4].enumerated().reduce(UInt32(0)) {
                $0 | UInt32($1.element) << (8 * UInt32($1.offset))
            }
            return Float(bitPattern: bits)
        }
        guard values.allSatisfy(\.isFinite) else { return nil }
        let norm = values.reduce(0) { $0 + $1 * $1 }
        return abs(norm - 1) < 0.01 ? values : nil
    }
}
