import Foundation
import JQCKit

/// A successful reply with the SHA-256 of its bytes, ready to be tagged.
struct DigestedReply: Sendable {
    let response: HTTPResponse
    let bodyDigest: Data

    init(_ response: HTTPResponse) {
        self.response = response
        bodyDigest = ServerCrypto.sha256(response.body)
    }
}

extension DevServerRouter {
    /// How many reference replies are kept at most (one per contract scope and query).
    static let referenceReplyLimit = 256

    /// The reply of a reference list (facilities, areas, templates) for `key` — the path, the user's
    /// contracts and the query — built once and kept: reference data never changes while the server runs, so
    /// a repeated pull and its 304 cost a dictionary lookup (issue 17).
    /// - Throws: what `build` throws (nothing is kept then).
    func referenceReply(_ key: String, _ build: () throws -> JSONValue) throws -> DigestedReply {
        if let kept = referenceReplies.withLock({ $0[key] }) { return kept }
        let reply = DigestedReply(Envelope.success(try build()))
        referenceReplies.withLock { replies in
            if replies.count < Self.referenceReplyLimit { replies[key] = reply }
        }
        return reply
    }

    /// The cache key part naming the user's contracts (`1,2,3`).
    func contractsKey(_ user: AuthUser) -> String {
        user.projectIDs.sorted().map(String.init).joined(separator: ",")
    }

    /// `reply` with a strong `ETag` (CONTRACT.md, (ext) Conditional list pulls), or `304 Not Modified` with
    /// no body and the same tag when the request's `If-None-Match` matches it.
    /// A server started with `--no-etags` (``DevServerConfiguration/etags`` `false`) sends the reply as it is: no
    /// tag, never a 304.
    /// - Parameter scope: `user:<id>` for a reply that is per user, `""` for one that is the same for all.
    func conditional(_ reply: DigestedReply, _ context: RouteContext, scope: String) -> HTTPResponse {
        guard configuration.etags else { return reply.response }
        let tag = EntityTag.tag(bodyDigest: reply.bodyDigest, scope: scope)
        if let header = context.request.header("if-none-match"), EntityTag.ifNoneMatch(header, matches: tag) {
            return HTTPResponse(status: 304, contentType: "", body: Data(), headers: ["ETag": tag])
        }
        var response = reply.response
        response.headers["ETag"] = tag
        return response
    }

    /// The scope of replies that are per user.
    func scope(_ user: AuthUser) -> String { "user:\(user.id)" }
}
