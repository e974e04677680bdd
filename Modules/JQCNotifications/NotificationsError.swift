import Foundation
import JQCKit

/// What can go wrong in the notifications and dashboard feature, with a stable ``code``, a sentence a
/// person can act on and the error underneath (STYLE.md items 6 and 14). Transport and server failures stay
/// `APIError`s from JQCNetwork; this type covers what this module itself refuses.
public struct NotificationsError: CodedError, Equatable {
    /// The finer kind (`notifications.<raw value>`).
    public enum Kind: String, CodedErrorKind {
        /// The server's reply did not have the shape of CONTRACT.md's "Notifications, dashboard, health".
        case unexpectedReply = "unexpected_reply"
        /// No dashboard stats are cached and the refresh failed.
        case noDashboardStats = "no_dashboard_stats"
        /// The codes' module part, `notifications`.
        public static var module: String { "notifications" }
    }

    /// The kind.
    public let kind: Kind
    /// What went wrong and what to do, as a sentence.
    public let message: String
    /// The error underneath (the failed refresh, the unreadable reply), when there is one.
    public let cause: (any Error)?

    /// An error with a sentence and, when it wraps another error, that error.
    public init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// A stable machine code: `notifications.<kind>`.
    public var code: String { kind.code }

    /// Same kind, sentence and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: NotificationsError, second: NotificationsError) -> Bool {
        first.kind == second.kind && first.message == second.message && sameCause(first.cause, second.cause)
    }
}
