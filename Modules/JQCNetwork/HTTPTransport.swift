import Foundation

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

/// Why no reply arrived. The API client turns it into ``APIError``.
public enum TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached: the name did not resolve or the connection was refused.
    case offline(String)
    /// The connection or the whole transfer took longer than allowed.
    case timeout(String)
    /// The caller's task was cancelled; the transfer was aborted.
    case cancelled
    /// Any other failure (connection dropped mid-reply, TLS refused, …), with the library's message.
    case other(String)

    /// The value as a sentence for logs and people (never a token).
    public var description: String {
        switch self {
        case .offline(let reason): "The server could not be reached (\(reason))."
        case .timeout(let reason): "The server took too long to answer (\(reason))."
        case .cancelled: "The request was cancelled."
        case .other(let reason): "The connection to the server failed (\(reason))."
        }
    }
}
