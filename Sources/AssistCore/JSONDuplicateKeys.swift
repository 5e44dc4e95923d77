import Foundation

/// A key given twice in one JSON object. JSON leaves such a file's meaning open, and readers differ: Foundation
/// takes the first `"id"` of a manifest, Python's `json` the last, so a tool that checks a plugin could see
/// another id than Assist loads. Files from third parties (manifests, survey definitions) are refused instead.
package enum JSONDuplicateKeys {
    /// The first key given twice in one object of `data`, with the keys of the objects around it ("id",
    /// "services.required"); nil when there is none, and for text that is not JSON (its reader says why).
    /// Keys are compared as JSON reads them: `"\u0069d"` is `"id"`.
    package static func first(in data: Data) -> String? {
        let bytes = [UInt8](data)
        // Each open object or array: an object's keys so far, whether a key comes next, the key last read.
        var stack: [(object: Bool, keys: Set<String>, expectKey: Bool, key: String?)] = []
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                stack.append((true, [], true, nil))
            case UInt8(ascii: "["):
                stack.append((false, [], false, nil))
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
            case UInt8(ascii: ","):
                if let last = stack.indices.last, stack[last].object { stack[last].expectKey = true }
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                guard let last = stack.indices.last, stack[last].object, stack[last].expectKey else { break }
                let token = Data(bytes[start...index])
                guard
                    let key = try? JSONSerialization.jsonObject(with: token, options: .fragmentsAllowed) as? String
                else { return nil }
                stack[last].expectKey = false
                stack[last].key = key
                if !stack[last].keys.insert(key).inserted {
                    return (stack.dropLast().compactMap(\.key) + [key]).joined(separator: ".")
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
