import Foundation

/// What can go wrong in the notifications and dashboard feature, with a stable ``code`` and a sentence a
/// person can act on (STYLE.md item 6). Transport and server failures stay `APIError`s from JQCNetwork; this
/// type covers what this module itself refuses.
public struct NotificationsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: String, Sendable {
        /// The server's reply did not have the shape of CONTRACT.md's "Notifications, dashboard, health".
        case unexpectedReply = "unexpected_reply"
        /// No dashboard stats are cached and the refresh failed.
        case noDashboardStats = "no_dashboard_stats"
    }

    /// The kind.
    public let kind: Kind
    /// What went wrong and what to do, as a sentence.
    public let message: String

    /// An error with a sentence.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// A stable machine code: `notifications.<kind>`.
    public var code: String { "notifications.\(kind.rawValue)" }

    /// The sentence (``message``).
    public var description: String { message }
}
