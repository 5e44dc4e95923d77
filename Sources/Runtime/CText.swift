extension String {
    /// The text a C call wrote into `buffer` (a reason, a device name, a word heard), up to its first NUL; the
    /// whole buffer when it has none. Bytes that are not UTF-8 become U+FFFD.
    package init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The same for a fixed C array, which Swift imports as a tuple (`char card[32]` in `v4l2_capability`).
    package init<Tuple>(nulTerminatedTuple tuple: Tuple) {
        self = withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
