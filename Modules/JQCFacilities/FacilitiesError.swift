import Foundation

/// Why a reference-data operation failed, with a stable code and a sentence a person can act on.
public struct FacilitiesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable code (`facilities.<code>`).
    public enum Code: String, Sendable, Hashable {
        /// The local store failed.
        case storage
        /// The server's reply could not be used.
        case badReply = "bad_reply"
    }

    /// What kind of failure.
    public let code: Code
    /// The sentence.
    public let message: String
    /// The underlying error's description, when there is one.
    public let cause: String?

    /// A failure with a sentence and an optional cause.
    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    public var description: String { message }
}
