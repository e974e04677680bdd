import Foundation
import JQCKit

/// A list `GET` sent with the `ETag` of the cached copy (issue 17 "conditional requests").
public enum ListReply: Sendable, Equatable {
    /// `304 Not Modified`: the cached copy is current; nothing was sent but the status.
    case notModified
    /// A `2xx` reply whose body is byte for byte the one the cached copy was built from (its
    /// ``/JQCKit/ContentDigest`` equals the one given): current like a 304, and neither parsed nor decoded. `etag` is
    /// the reply's usable `ETag`, or `nil`.
    case sameBody(etag: String?)
    /// A `2xx` reply: the envelope's `data`, the reply's `ETag` when it sent a usable one, and the
    /// ``/JQCKit/ContentDigest/hex(_:)`` of its body (to store with what is built from it).
    case fresh(JSONValue, etag: String?, digest: String)
}

extension APIClient {
    /// `GET path` with `If-None-Match: etag` when an ETag is given (issue 17): a `304` is ``ListReply/notModified``;
    /// a `2xx` whose body has the digest `knownDigest` is ``ListReply/sameBody(etag:)``; any other reply is
    /// classified as ``getJSON(_:query:)`` does. A server without ETags always answers
    /// ``ListReply/fresh(_:etag:digest:)`` with `etag` `nil` (or `sameBody`), and the client works unchanged.
    /// - Parameters:
    ///   - path: an `/api/v1/…` list path.
    ///   - query: query items, in order.
    ///   - etag: the ETag stored with the cached list, or `nil` (an unconditional `GET`). Only a value
    ///     ``usableETag(_:)`` accepts is ever sent.
    ///   - knownDigest: the ``/JQCKit/ContentDigest/hex(_:)`` of the reply body the cached list was built from,
    ///     or `nil`.
    /// - Throws: ``APIError``.
    public func getList(
        _ path: String, query: [URLQueryItem] = [], ifNoneMatch etag: String?, knownDigest: String? = nil
    ) async throws -> ListReply {
        let condition = etag.flatMap(APIClient.usableETag)
        let response = try await respond(
            .get, path: path, query: query, body: .none, kind: .api,
            extraHeaders: condition.map { [("If-None-Match", $0)] } ?? [])
        if response.status == 304, condition != nil { return .notModified }
        let tag = response.headers["ETag"].flatMap(APIClient.usableETag)
        var digest = ""
        if (200..<300).contains(response.status) {
            digest = ContentDigest.hex(response.body)
            if let knownDigest, digest == knownDigest { return .sameBody(etag: tag) }
        }
        let data = try interpret(response, path: path)
        return .fresh(data, etag: tag, digest: digest)
    }

    /// `value` when it is an entity tag fit to store and send back (RFC 9110 §8.8.3: `"…"` or `W/"…"` of
    /// visible ASCII without `"`, at most 200 characters), else `nil` — a server string never reaches a header
    /// unchecked (issue 21).
    public nonisolated static func usableETag(_ value: String) -> String? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        var bytes = Substring(trimmed).utf8[...]
        guard bytes.count <= 200 else { return nil }
        if bytes.starts(with: "W/".utf8) { bytes = bytes.dropFirst(2) }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "\""), bytes.last == UInt8(ascii: "\"") else { return nil }
        let inner = bytes.dropFirst().dropLast()
        guard inner.allSatisfy({ $0 >= 0x21 && $0 <= 0x7E && $0 != UInt8(ascii: "\"") }) else { return nil }
        return trimmed
    }
}

extension ListReply {
    /// Whether the cached copy is current: ``notModified`` or ``sameBody(etag:)``.
    public var isUnchanged: Bool {
        switch self {
        case .notModified, .sameBody: true
        case .fresh: false
        }
    }
}
