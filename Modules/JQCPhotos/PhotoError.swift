import Foundation
import JQCJPEG
import JQCKit

/// The one error type of JQCPhotos (STYLE.md items 6 and 14): a stable ``code``, a sentence a person can
/// act on, and the underlying cause when there is one.
///
/// The code is `photos.<kind>`, except that a photo the import pipeline refused carries the pipeline's
/// reason: `photos.not_jpeg`, `photos.truncated`, … (`photos.` and the ``/JQCJPEG/JPEGError/Kind`` of its cause).
public struct PhotoError: CodedError, Equatable {
    /// Stable reasons.
    public enum Kind: String, CodedErrorKind {
        /// The import pipeline refused the file (not a JPEG, damaged, too large, …); nothing was written.
        /// `cause` holds JQCJPEG's ``/JQCJPEG/JPEGError`` (`not_jpeg`, `truncated`, …), which names the code.
        case refused
        /// The owner given does not fit (an inspection photo needs a field id; an issue photo has none;
        /// an empty local id).
        case invalidOwner = "invalid_owner"
        /// The photos folder or a photo's file could not be created, written or removed.
        case fileSystem = "file_system"
        /// The local store could not record the photo; nothing was kept.
        case storage
        /// No photo with that id (or not in the state the call needs).
        case notFound = "not_found"
        /// The codes' module part, `photos`.
        public static var module: String { "photos" }
    }

    /// The stable reason.
    public let kind: Kind
    /// What went wrong and what to do, as a sentence.
    public let message: String
    /// The underlying error (JQCJPEG's ``/JQCJPEG/JPEGError``, the store's or the file system's), when there is one.
    public let cause: (any Error)?

    /// An error with a sentence.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// `photos.<kind>`; for ``Kind/refused`` with a ``/JQCJPEG/JPEGError`` cause, `photos.<its kind>` (`photos.not_jpeg`).
    public var code: String {
        if kind == .refused, let refusal = cause as? JPEGError { return "\(Kind.module).\(refusal.kind.rawValue)" }
        return kind.code
    }

    /// Every code a photo error can carry: the kinds', then one per ``/JQCJPEG/JPEGError/Kind`` for refusals.
    public static var codes: [String] {
        Kind.codes + JPEGError.Kind.allCases.map { "\(Kind.module).\($0.rawValue)" }
    }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: PhotoError, second: PhotoError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }
}
