import Foundation

/// The one error type of JQCPhotos (STYLE.md item 6): a stable ``code``, a sentence a person can act on,
/// and the underlying cause when there is one.
public struct PhotoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable reasons.
    public enum Code: String, Sendable, CaseIterable {
        /// The import pipeline refused the file (not a JPEG, damaged, too large, …); nothing was written.
        /// `cause` holds JQCJPEG's code (`not-jpeg`, `truncated`, …).
        case refused
        /// The owner given does not fit (an inspection photo needs a field id; an issue photo has none;
        /// an empty local id).
        case invalidOwner = "invalid-owner"
        /// The photos folder or a photo's file could not be created, written or removed.
        case fileSystem = "file-system"
        /// The local store could not record the photo; nothing was kept.
        case storage
        /// No photo with that id (or not in the state the call needs).
        case notFound = "not-found"
    }

    /// The stable reason.
    public let code: Code
    /// What went wrong and what to do, as a sentence.
    public let message: String
    /// The underlying cause (JQCJPEG's code, the OS or store's text), when there is one.
    public let cause: String?

    /// An error with a sentence.
    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The message.
    public var description: String { message }
}
