import Foundation
import JQCKit
import JQCStorage

/// Whom a pass pushes for ([authorship], issue 20): the signed-in user and the current server. The driver
/// admits only items made by that user for that server (``OutboxAdmission``); the others wait, with the
/// reason, uncounted and never deleted.
public struct OutboxIdentity: Sendable, Hashable {
    /// The signed-in user's server id.
    public var userID: Int64
    /// Their login name.
    public var username: String
    /// The current server identity (`embedded`, `primary`, `secondary`, a URL), as items record it.
    public var server: String
    /// Whether this user may send items of the unknown author (an older store's rows when the data directory
    /// recorded nobody): they are the data directory's last signed-in user at the upgrade
    /// (``/JQCStorage/OutboxAuthorship/Session/unknownClaimantID``).
    public var claimsUnknownAuthor: Bool

    /// An identity.
    public init(userID: Int64, username: String, server: String, claimsUnknownAuthor: Bool = false) {
        self.userID = userID
        self.username = username
        self.server = server
        self.claimsUnknownAuthor = claimsUnknownAuthor
    }

    /// Whether `author` is this identity's own (same server — or an unknown one — and same user, or the
    /// unknown author when this user claims it).
    public func owns(_ author: OutboxAuthor) -> Bool {
        OutboxAdmission.reason(for: author, identity: self) == nil
    }
}

/// The admission rule of the push driver ([authorship], issue 20), and its sentences.
public enum OutboxAdmission {
    /// Why an item of `author` may not be sent by `identity`, or `nil` when it may: another server first
    /// ("was made for server primary"), then another user ("waits for alex to sign in").
    public static func reason(for author: OutboxAuthor, identity: OutboxIdentity) -> String? {
        if let server = author.server, server != identity.server { return serverReason(server) }
        if let userID = author.userID {
            return userID == identity.userID ? nil : userReason(author.displayName)
        }
        return identity.claimsUnknownAuthor ? nil : unknownAuthorReason
    }

    /// "was made for server X".
    public static func serverReason(_ server: String) -> String { "was made for server \(server)" }

    /// "waits for alex to sign in".
    public static func userReason(_ username: String) -> String { "waits for \(username) to sign in" }

    /// Why an item of the unknown author waits: only the data directory's last signed-in user at the upgrade
    /// may send it.
    public static let unknownAuthorReason =
        "waits for the inspector last signed in on this device before its author was recorded"
}
