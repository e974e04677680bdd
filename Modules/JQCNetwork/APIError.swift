import Foundation

/// Every way a call to the JQC API can fail, classified once so the sync engine and the screens act on
/// the class, not on status codes (issue 4; SPEC.md §4 "Errors are classified"; CONTRACT.md).
///
/// ``message`` is a sentence a person can act on; it never contains markup, tokens or a raw reply.
public enum APIError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached (no network, name not resolved, connection refused).
    case offline
    /// The server did not answer in time.
    case timeout
    /// The connection failed in another way (dropped mid-reply, TLS refused), with the library's reason.
    case connectionFailed(String)
    /// The server failed (5xx), with its sentence when it gave one.
    case server(status: Int, message: String)
    /// Too many requests (429); `retryAfter` is the server's `Retry-After` in seconds, when given.
    case rateLimited(retryAfter: Double?)
    /// The server refused the credentials (401) and no refresh could fix it, with its sentence.
    case unauthorized(String)
    /// The server refused the request (any other 4xx), with its sentence; sending it again will not help.
    case rejected(status: Int, message: String)
    /// The server refuses this build (426); remembered until the build changes (seed 004).
    case updateRequired
    /// The reply could not be read (an HTML error page, a truncated or malformed body), with the reason.
    case undecodable(String)
    /// The caller cancelled the request.
    case cancelled
    /// Nobody is signed in, or the session ended because the refresh token was refused.
    case signedOut

    /// A stable machine code (`offline`, `timeout`, `server`, …) for JSON output and logs.
    public var code: String {
        switch self {
        case .offline: "offline"
        case .timeout: "timeout"
        case .connectionFailed: "connection_failed"
        case .server: "server"
        case .rateLimited: "rate_limited"
        case .unauthorized: "unauthorized"
        case .rejected: "rejected"
        case .updateRequired: "update_required"
        case .undecodable: "undecodable"
        case .cancelled: "cancelled"
        case .signedOut: "signed_out"
        }
    }

    /// What went wrong and what to do, as a sentence for a person.
    public var message: String {
        switch self {
        case .offline:
            return "The server could not be reached. Check the network connection; "
                + "your work is kept and will sync later."
        case .timeout:
            return "The server took too long to answer. Your work is kept; try again in a moment."
        case .connectionFailed(let reason):
            return "The connection to the server failed (\(reason)). Your work is kept; try again in a moment."
        case .server(let status, let message):
            return "The server had a problem (HTTP \(status)): \(message)"
        case .rateLimited(let retryAfter):
            if let retryAfter {
                return "The server is busy. Try again in \(Int(retryAfter.rounded(.up))) seconds."
            }
            return "The server is busy. Try again in a moment."
        case .unauthorized(let message):
            return message
        case .rejected(_, let message):
            return message
        case .updateRequired:
            return "This version of the app is no longer accepted by the server. "
                + "Update the app to keep syncing; your work is kept."
        case .undecodable(let reason):
            return "The server's reply could not be read (\(reason)). Your work is kept; try again later."
        case .cancelled:
            return "The request was cancelled."
        case .signedOut:
            return "You are signed out. Sign in again to sync; your work on this device is kept."
        }
    }

    /// The value as a sentence for logs and people (never a token).
    public var description: String { message }

    /// Whether the same request may succeed later unchanged: offline, timeout, connection failures,
    /// 5xx, 429 and unreadable replies. The sync engine keeps such items pending and retries with backoff.
    public var isTransient: Bool {
        switch self {
        case .offline, .timeout, .connectionFailed, .server, .rateLimited, .undecodable: true
        case .unauthorized, .rejected, .updateRequired, .cancelled, .signedOut: false
        }
    }

    /// Whether the server really answered, so the attempt counts toward the sync engine's 5-try limit
    /// (SPEC.md §4): 5xx, 429 and unreadable replies count; offline, timeout and dropped connections do not.
    public var countsAsServerAnswer: Bool {
        switch self {
        case .server, .rateLimited, .undecodable, .rejected, .unauthorized, .updateRequired: true
        case .offline, .timeout, .connectionFailed, .cancelled, .signedOut: false
        }
    }

    /// The classification of a transport failure (no reply arrived).
    public init(_ error: TransportError) {
        switch error {
        case .offline: self = .offline
        case .timeout: self = .timeout
        case .cancelled: self = .cancelled
        case .other(let reason): self = .connectionFailed(reason)
        }
    }
}
