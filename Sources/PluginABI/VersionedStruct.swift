import PluginAPI

/// A C struct of the plugin ABI that begins with `struct_size` and grows only at its end.
///
/// `minimumSize` is the struct's size through its last field in the ABI version that introduced it
/// (`ASSIST_SIZE_THROUGH`): a reader refuses anything smaller and reads anything larger as far as it knows.
public protocol VersionedStruct {
    static var minimumSize: Int { get }
}

extension VersionedStruct {
    /// The size of `Self` through `field`, for writing `minimumSize`.
    public static func size<Field>(through field: KeyPath<Self, Field>) -> Int {
        guard let offset = MemoryLayout<Self>.offset(of: field) else {
            preconditionFailure("\(Self.self): the key path is not a stored field")
        }
        return offset + MemoryLayout<Field>.size
    }

    /// Reads the struct at `pointer`, written by the other side, by the ABI's one rule (`assist_struct_copy`):
    /// `min(struct_size, MemoryLayout<Self>.size)` bytes into a zeroed value whose `struct_size` then says how
    /// many arrived. Nil for a NULL pointer or a `struct_size` below `minimumSize`.
    ///
    ///     guard let options = assist_speech_options.read(pointer) else { return ASSIST_E_INVALID }
    public static func read(_ pointer: UnsafeRawPointer?) -> Self? {
        let size = MemoryLayout<Self>.size
        let local = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<Self>.alignment)
        defer { local.deallocate() }
        guard assist_struct_copy(local, size, pointer, minimumSize) else { return nil }
        return local.load(as: Self.self)
    }

    /// Fills a struct the other side handed over to be written (an `out` argument whose `struct_size` the
    /// caller set to the size it knows): `min(its struct_size, MemoryLayout<Self>.size)` bytes of `value`, then
    /// `struct_size` set to the bytes written. False, writing nothing, when its `struct_size` is below
    /// `minimumSize`.
    public static func write(_ value: Self, to pointer: UnsafeMutableRawPointer) -> Bool {
        let declared = declaredSize(pointer)
        guard declared >= minimumSize else { return false }
        let count = min(declared, MemoryLayout<Self>.size)
        withUnsafeBytes(of: value) { bytes in
            guard let source = bytes.baseAddress else { return }
            pointer.copyMemory(from: source, byteCount: count)
        }
        pointer.storeBytes(of: UInt32(count), as: UInt32.self)
        return true
    }

    /// The `struct_size` the writer declared at `pointer`, for messages about a refused struct.
    public static func declaredSize(_ pointer: UnsafeRawPointer) -> Int {
        Int(pointer.loadUnaligned(as: UInt32.self))
    }

    /// Reads `count` elements of an array whose stride is the elements' `struct_size` (`ASSIST_ELEMENT`).
    /// Nil when the array is NULL with a count, or an element is below `minimumSize` or not the first's size.
    public static func readArray(_ pointer: UnsafeRawPointer?, count: Int) -> [Self]? {
        guard count > 0 else { return [] }
        guard let pointer else { return nil }
        let stride = declaredSize(pointer)
        guard stride >= minimumSize else { return nil }
        var elements: [Self] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            let element = pointer + index * stride
            guard declaredSize(element) == stride, let value = read(element) else { return nil }
            elements.append(value)
        }
        return elements
    }

    /// True when a value read with `read` holds `field`: the writer's struct reached past it (`ASSIST_HAS_FIELD`).
    public static func has<Field>(_ field: KeyPath<Self, Field>, in declared: UInt32) -> Bool {
        size(through: field) <= Int(declared)
    }
}
