/// Why find-object cannot work: a sentence for the user and what to do.
public struct FindObjectError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }

    public init(message: String) { self.message = message }
}
