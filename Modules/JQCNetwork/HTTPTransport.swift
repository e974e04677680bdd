import Foundation
import JQCKit

/// Sends one HTTP request and returns the reply; the seam between the API client and the network
/// (SPEC.md §3: `HTTPTransport` replaces `URLSession`; STYLE.md item 3).
///
/// A transport reports any status as a reply (a 500 is not an error here); it throws only when no
/// reply arrived.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for the whole reply.
    /// - Parameters:
    ///   - request: what to send.
    ///   - progress: called with (bytes sent, bytes to send) while the body goes out, on any thread; or `nil`.
    /// - Returns: the reply, whatever its status.
    /// - Throws: ``TransportError`` when no reply arrived (offline, timeout, cancelled, other).
    func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// Sends `request` without progress reports. See ``send(_:progress:)``.
    /// - Throws: ``TransportError``.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, progress: nil)
    }
}

/// Why no reply arrived (or why the transport stopped one). The API client turns it into ``APIError``.
public enum TransportError: CodedError, Hashable {
    /// The server could not be reached: the name did not resolve or the connection was refused.
    case offline(String)
    /// Airplane mode is on (the shell's `offline`): nothing was sent; `online` leaves it.
    case airplaneMode
    /// Connecting (TCP, then TLS) took longer than allowed.
    case timeout(String)
    /// The caller's task was cancelled; the transfer was aborted.
    case cancelled
    /// Any other failure (connection dropped mid-reply, malformed reply framing…), with the library's message.
    case other(String)
    /// The whole transfer took longer than its deadline (``HTTPRequest/timeout``), in seconds.
    case deadlineExceeded(seconds: Double)
    /// The transfer moved fewer than `bytesPerSecond` bytes a second for `seconds` seconds (``TransferLimits``).
    case tooSlow(bytesPerSecond: Int, seconds: Int)
    /// The reply (its body, or its header block) was larger than `limitBytes`; the transfer was aborted.
    case replyTooLarge(limitBytes: Int64)
    /// The secure connection was refused; see ``TLSProblem``. Nothing was sent.
    case tls(TLSProblem)
    /// Plain `http://` to `host`, which is not loopback, without `--allow-insecure-http`. Nothing was sent.
    case insecureHTTP(host: String)
    /// The header field `name` had a value with control characters (or an invalid name). Nothing was sent.
    case invalidHeader(name: String)

    /// The code of the ``APIError`` this becomes (`network.offline`, `network.timeout`, …): the API client
    /// classifies it so, and a transport failure seen on its own reads the same to a script.
    public var code: String { APIError(self).code }

    /// The value as a sentence for logs and people (never a token).
    public var message: String {
        switch self {
        case .offline(let reason): "The server could not be reached (\(reason))."
        case .airplaneMode: APIError.airplaneModeSentence
        case .timeout(let reason): "The server took too long to answer (\(reason))."
        case .cancelled: "The request was cancelled."
        case .other(let reason): "The connection to the server failed (\(reason))."
        case .deadlineExceeded(let seconds): "The reply did not finish within \(TransportError.seconds(seconds)) s."
        case .tooSlow(let rate, let seconds):
            "The transfer moved fewer than \(rate) bytes a second for \(seconds) s and was stopped."
        case .replyTooLarge(let limit): "The reply was larger than \(TransferLimits.describe(limit)) and was stopped."
        case .tls(let problem): problem.message
        case .insecureHTTP(let host): "Plain HTTP (no TLS) to \(host) is refused without --allow-insecure-http."
        case .invalidHeader(let name): "The \(name) header had control characters; the request was not sent."
        }
    }

    /// `seconds` without a needless fraction (`30`, `0.5`).
    static func seconds(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "?" }
        if let whole = Int(exactly: seconds.rounded()), abs(seconds - seconds.rounded()) < 0.001 {
            return String(whole)
        }
        return String(format: "%.1f", seconds)
    }
}
