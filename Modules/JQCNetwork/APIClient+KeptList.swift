import Foundation
import JQCKit

/// What a conditional pull of a kept list applies (issue 17, "the same for the other pulls"): the pulls whose
/// outcome depends on local state that changes between pulls (assigned issues, follow-up requests) keep the
/// JSON text of the reply they last applied with its `ETag`, and on a `304` apply that text again exactly as
/// if the server had sent it.
public struct KeptListReply: Sendable {
    /// The list to apply: the fresh reply's `data`, the kept reply after a `304`, or the caller's `empty`
    /// value when there is neither (a `304` with nothing kept that a second, unconditional GET did not mend).
    public let reply: JSONValue
    /// The ETag and the JSON text to keep with what is applied: the fresh reply's (`nil` when it sent no
    /// usable ETag), or the kept ones after a `304`.
    public let condition: (etag: String, reply: String)?
}

extension APIClient {
    /// `GET path` conditionally on the kept reply's ETag (``getList(_:query:ifNoneMatch:knownDigest:)``). On a
    /// `304` the kept text is parsed back; when it cannot be (it always can), the list is fetched again
    /// without a condition, so a `304` never stands for a list this device does not hold.
    /// - Parameters:
    ///   - path: an `/api/v1/…` list path.
    ///   - query: query items, in order.
    ///   - kept: the ETag and JSON text stored with the list last applied, or `nil` (an unconditional GET).
    ///   - empty: what to apply when there is no list at all (`.null` for an object reply, `.array([])`).
    /// - Returns: the list to apply and what to keep with it.
    /// - Throws: ``APIError``.
    public func getKeptList(
        _ path: String, query: [URLQueryItem] = [], kept: (etag: String, reply: String)?, empty: JSONValue
    ) async throws -> KeptListReply {
        var answer = try await getList(path, query: query, ifNoneMatch: kept?.etag)
        var keptReply: JSONValue?
        if answer.isUnchanged {
            keptReply = kept.flatMap { try? JSONValue.parse($0.reply) }
            if keptReply == nil { answer = try await getList(path, query: query, ifNoneMatch: nil) }
        }
        if case .fresh(let data, let etag, _) = answer {
            return KeptListReply(reply: data, condition: etag.map { ($0, data.jsonString()) })
        }
        return KeptListReply(reply: keptReply ?? empty, condition: kept)
    }
}
