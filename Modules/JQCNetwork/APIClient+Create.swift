import Foundation
import JQCKit

extension APIClient {
    /// `POST path` with a JSON body already written as bytes, for a record the server creates: returns the
    /// new record's server id, the reply's `data.id` (CONTRACT.md: `POST /inspections` → `inspection`). Only the
    /// id is read from a well-formed reply (`CreatedReply`, issue 17); the reply is still checked as a whole —
    /// it must be a JQC envelope with `ok: true` — and every failure is classified as by ``sendJSON(_:path:body:query:idempotent:)``.
    /// - Parameters:
    ///   - path: an `/api/v1/…` path.
    ///   - json: the request body, UTF-8 JSON text with literal snake_case keys (rule 65); sent as
    ///     `Content-Type: application/json`.
    ///   - idempotent: `true` when the server dedupes the request (on `local_id`), so the transport may reuse a
    ///     kept-alive connection; `nil` follows the method (a `POST` goes out on a fresh connection, never re-sent).
    /// - Returns: `data.id`: an integer (a whole number written as a fraction is taken, as ``ReplyFields/int(_:)`` does).
    /// - Throws: ``APIError``; ``APIError/undecodable(_:)`` when the reply has no valid id — `data` is not an
    ///   object (`data: expected an object, got null`), `id` is missing (`data.id: the member is missing`) or not
    ///   an integer (`data.id: expected an integer, got a string`): a reply without an id is a failure, never a
    ///   success (the outbox keeps the item and tries it again).
    public func createRecord(path: String, json: Data, idempotent: Bool? = nil) async throws -> Int {
        let response = try await respond(
            .post, path: path, query: [], body: .data(json), kind: .api, idempotent: idempotent)
        if (200..<300).contains(response.status), let id = CreatedReply.id(response.body) { return id }
        return try APIClient.createdID(in: try interpret(response, path: path))
    }

    /// The `id` of a created record's `data`, read as ``ReplyFields`` reads it.
    /// - Throws: ``APIError/undecodable(_:)`` naming the path and the problem.
    static func createdID(in data: JSONValue) throws -> Int {
        do {
            return try ReplyFields(data, at: ReplyPath()).int("id")
        } catch let error as ReplyShapeError {
            throw APIError.undecodable(error.description)
        }
    }
}
