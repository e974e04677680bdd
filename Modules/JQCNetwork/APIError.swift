import Foundation
import JQCKit

/// Every way a call to the JQC API can fail, classified once so the sync engine and the screens act on
/// the class, not on status codes (issue 4; SPEC.md §4 "Errors are classified"; CONTRACT.md).
///
/// ``message`` is a sentence a person can act on; it never contains markup, tokens or a raw reply.
public enum APIError: CodedError, Hashable {
    /// The server could not be reached (no network, name not resolved, connection refused).
    case offline
    /// Airplane mode is on (the shell's `offline`), so nothing was sent; `online` leaves it.
    case airplaneMode
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
    /// The reply did not finish within the request's deadline in seconds (``RequestKind/timeout``).
    case deadlineExceeded(seconds: Double)
    /// The reply came slower than `bytesPerSecond` for `seconds` seconds and was stopped (``TransferLimits``).
    case tooSlow(bytesPerSecond: Int, seconds: Int)
    /// The reply was larger than `limitBytes` and was stopped; nothing of it was used (``TransferLimits``).
    case replyTooLarge(limitBytes: Int64)
    /// The secure connection was refused (certificate or handshake); nothing was sent.
    case tls(TLSProblem)
    /// Plain `http://` to a host that is not loopback, without `--allow-insecure-http`; nothing was sent.
    case insecureHTTP(host: String)
    /// The server answered with a redirect (3xx), which is never followed (so `Authorization` never goes
    /// elsewhere); `location` is its sanitised `Location`, when it gave a plausible one.
    case redirected(status: Int, location: String?)

    /// The finer kind behind ``code`` (`network.<raw value>`): one per case, and one per ``TLSProblem``.
    public enum Kind: String, CodedErrorKind {
        /// ``APIError/offline``.
        case offline
        /// ``APIError/airplaneMode``.
        case airplaneMode = "airplane_mode"
        /// ``APIError/timeout``.
        case timeout
        /// ``APIError/connectionFailed(_:)``.
        case connectionFailed = "connection_failed"
        /// ``APIError/server(status:message:)``.
        case server
        /// ``APIError/rateLimited(retryAfter:)``.
        case rateLimited = "rate_limited"
        /// ``APIError/unauthorized(_:)``.
        case unauthorized
        /// ``APIError/rejected(status:message:)``.
        case rejected
        /// ``APIError/updateRequired``.
        case updateRequired = "update_required"
        /// ``APIError/undecodable(_:)``.
        case undecodable
        /// ``APIError/cancelled``.
        case cancelled
        /// ``APIError/signedOut``.
        case signedOut = "signed_out"
        /// ``APIError/deadlineExceeded(seconds:)``.
        case deadlineExceeded = "deadline_exceeded"
        /// ``APIError/tooSlow(bytesPerSecond:seconds:)``.
        case tooSlow = "too_slow"
        /// ``APIError/replyTooLarge(limitBytes:)``.
        case replyTooLarge = "reply_too_large"
        /// ``TLSProblem/unknownAuthority(host:)``.
        case certificateUnknownAuthority = "certificate_unknown_authority"
        /// ``TLSProblem/expired(host:)``.
        case certificateExpired = "certificate_expired"
        /// ``TLSProblem/notYetValid(host:)``.
        case certificateNotYetValid = "certificate_not_yet_valid"
        /// ``TLSProblem/wrongHost(host:)``.
        case certificateWrongHost = "certificate_wrong_host"
        /// ``TLSProblem/certificateRefused(host:reason:)``.
        case certificateRefused = "certificate_refused"
        /// ``TLSProblem/trustFileUnusable(path:origin:reason:)``.
        case caFileUnusable = "ca_file_unusable"
        /// ``TLSProblem/handshakeFailed(host:reason:)``.
        case tlsHandshakeFailed = "tls_handshake_failed"
        /// ``APIError/insecureHTTP(host:)``.
        case insecureHTTP = "insecure_http"
        /// ``APIError/redirected(status:location:)``.
        case redirected
        /// The codes' module part, `network`.
        public static var module: String { "network" }
    }

    /// The kind of this error.
    public var kind: Kind {
        switch self {
        case .offline: .offline
        case .airplaneMode: .airplaneMode
        case .timeout: .timeout
        case .connectionFailed: .connectionFailed
        case .server: .server
        case .rateLimited: .rateLimited
        case .unauthorized: .unauthorized
        case .rejected: .rejected
        case .updateRequired: .updateRequired
        case .undecodable: .undecodable
        case .cancelled: .cancelled
        case .signedOut: .signedOut
        case .deadlineExceeded: .deadlineExceeded
        case .tooSlow: .tooSlow
        case .replyTooLarge: .replyTooLarge
        case .tls(let problem): problem.kind
        case .insecureHTTP: .insecureHTTP
        case .redirected: .redirected
        }
    }

    /// A stable machine code (`network.offline`, `network.timeout`, `network.server`, …) for JSON output and logs.
    public var code: String { kind.code }

    /// The sentence for airplane mode: the inspector switched it on, so the network is not the problem.
    static let airplaneModeSentence =
        "You are offline (airplane mode): type 'online' to reconnect. Your work is kept and will sync then."

    /// What went wrong and what to do, as a sentence for a person.
    public var message: String {
        switch self {
        case .offline:
            return "The server could not be reached. Check the network connection; "
                + "your work is kept and will sync later."
        case .airplaneMode:
            return APIError.airplaneModeSentence
        case .timeout:
            return "The server took too long to answer. Your work is kept; try again in a moment."
        case .connectionFailed(let reason):
            return "The connection to the server failed (\(reason)). Your work is kept; try again in a moment."
        case .server(let status, let message):
            return "The server had a problem (HTTP \(status)): \(message)"
        case .rateLimited(let retryAfter):
            // Checked: a wait outside 1 s…1 h (RetryAfter's clamp) is never printed, and never traps.
            if let retryAfter, RetryAfter.range.contains(retryAfter),
                let seconds = Int(exactly: retryAfter.rounded(.up))
            {
                return "The server is busy. Try again in \(seconds) \(seconds == 1 ? "second" : "seconds")."
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
        case .deadlineExceeded(let seconds):
            return "The server's reply did not finish within the \(TransportError.seconds(seconds))-second limit "
                + "for this request, so it was stopped. Your work is kept; try again in a moment."
        case .tooSlow(let rate, let seconds):
            return "The server's reply came too slowly (fewer than \(rate) bytes a second for \(seconds) "
                + "\(seconds == 1 ? "second" : "seconds")), "
                + "so it was stopped. Your work is kept; try again when the connection is better."
        case .replyTooLarge(let limit):
            return "The server's reply was larger than the \(TransferLimits.describe(limit)) allowed, so it was "
                + "stopped and none of it was used. Your work is kept. If this server really sends replies that "
                + "large, raise the limit with --max-reply-mb N."
        case .tls(let problem):
            return problem.message
        case .insecureHTTP(let host):
            return
                "Plain HTTP (no TLS) to \(host) is refused: passwords and tokens would cross the network unencrypted. "
                + "Use the server's https address, or start jqc-shell with --allow-insecure-http if you accept "
                + "that risk. Nothing was sent."
        case .redirected(let status, let location):
            let target = location.map { " to \($0)" } ?? ""
            return "The server answered with a redirect (HTTP \(status)\(target)), which is not followed, so the "
                + "request did not reach the API. Check the server address (--server); a Wi-Fi sign-in page can "
                + "also do this. Your work is kept."
        }
    }

    /// The value as a sentence for logs and people (never a token).
    public var description: String { message }

    /// Whether the same request may succeed later unchanged: offline, timeout, connection failures,
    /// 5xx, 429 and unreadable replies. The sync engine keeps such items pending and retries with backoff.
    public var isTransient: Bool {
        switch self {
        case .offline, .airplaneMode, .timeout, .connectionFailed, .server, .rateLimited, .undecodable: true
        case .deadlineExceeded, .tooSlow, .replyTooLarge, .tls, .redirected: true
        case .unauthorized, .rejected, .updateRequired, .cancelled, .signedOut, .insecureHTTP: false
        }
    }

    /// Whether the server really answered, so the attempt counts toward the sync engine's 5-try limit
    /// (SPEC.md §4): 5xx, 429, unreadable and oversized replies count; offline, timeouts, slow or dropped
    /// connections, refused TLS, plain http and redirects (a proxy or a Wi-Fi sign-in page, not the API) do not.
    public var countsAsServerAnswer: Bool {
        switch self {
        case .server, .rateLimited, .undecodable, .rejected, .unauthorized, .updateRequired, .replyTooLarge: true
        case .offline, .airplaneMode, .timeout, .connectionFailed, .cancelled, .signedOut: false
        case .deadlineExceeded, .tooSlow, .tls, .insecureHTTP, .redirected: false
        }
    }

    /// The classification of a transport failure (no reply arrived).
    public init(_ error: TransportError) {
        switch error {
        case .offline: self = .offline
        case .airplaneMode: self = .airplaneMode
        case .timeout: self = .timeout
        case .cancelled: self = .cancelled
        case .other(let reason): self = .connectionFailed(reason)
        case .deadlineExceeded(let seconds): self = .deadlineExceeded(seconds: seconds)
        case .tooSlow(let rate, let seconds): self = .tooSlow(bytesPerSecond: rate, seconds: seconds)
        case .replyTooLarge(let limit): self = .replyTooLarge(limitBytes: limit)
        case .tls(let problem): self = .tls(problem)
        case .insecureHTTP(let host): self = .insecureHTTP(host: host)
        case .invalidHeader(let name):
            self = .undecodable(
                "a value for the \(name) header contains control characters, so the request was not sent")
        }
    }

    /// A redirect's `Location` fit for a sentence: at most 200 characters of visible ASCII, else `nil`.
    static func sanitizedLocation(_ location: String?) -> String? {
        guard let location, !location.isEmpty, location.utf8.count <= 200,
            location.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E && $0 != UInt8(ascii: "<") && $0 != UInt8(ascii: ">") })
        else { return nil }
        return location
    }
}
