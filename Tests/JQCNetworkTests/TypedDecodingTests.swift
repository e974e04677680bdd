import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// A signed-in client of `peer` (a JWT-shaped token, so it is sent).
func signedInClient(_ peer: HostilePeer) -> APIClient {
    hostileClient(
        peer,
        tokens: InMemoryTokenStore(
            Credentials(
                accessToken: HostilePeer.jwt(), refreshToken: "r1",
                user: User(id: 7, username: "alex", role: .inspector))))
}

@Suite("Typed decoding names the JSON path (issue 21)")
struct TypedDecodingTests {
    struct Facility: Decodable, Sendable {
        let id: Int64
        let name: String
        let projectId: Int?
        let tags: [Int]?
    }

    struct Shape: Sendable, CustomStringConvertible {
        let data: String
        let reason: String
        var description: String { data }
    }

    static let shapes: [Shape] = [
        Shape(data: #"[{"id":12.5,"name":"A"}]"#, reason: "data[0].id: expected an integer, got 12.5"),
        Shape(
            data: #"[{"id":1,"name":"A"},{"id":"7","name":"B"}]"#,
            reason: "data[1].id: expected an integer, got a string"),
        Shape(data: #"[{"id":1e300,"name":"A"}]"#, reason: "data[0].id: expected an integer in range, got 1e+300"),
        Shape(data: #"{"id":1}"#, reason: "data: expected a list, got an object"),
        Shape(data: #"[{"id":1,"name":null}]"#, reason: "data[0].name: expected a string, got null"),
        Shape(data: #"[{"id":1}]"#, reason: "data[0].name: the member is missing"),
        Shape(
            data: #"[{"id":1,"name":"A","project_id":true}]"#,
            reason: "data[0].project_id: expected an integer, got true"),
        Shape(
            data: #"[{"id":1,"name":"A","tags":[1,"<b>x</b>"]}]"#,
            reason: "data[0].tags[1]: expected an integer, got a string"),
        Shape(
            data: #"[{"id":1,"name":"A","project_id":-0.5}]"#,
            reason: "data[0].project_id: expected an integer, got -0.5"),
    ]

    @Test("a wrong type from the peer is refused with its path and what was there", arguments: shapes)
    func wrongShapes(_ shape: Shape) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/facilities", with: HostilePeer.envelope(shape.data))
        let error = await thrownError {
            _ = try await signedInClient(peer).get([Facility].self, path: "/api/v1/facilities")
        }
        #expect(error as? APIError == .undecodable(shape.reason))
        #expect(
            (error as? APIError)?.message
                == "The server's reply could not be read (\(shape.reason)). Your work is kept; try again later.")
    }

    @Test("a number too long for 64 bits is refused as out of range, not truncated")
    func hugeInteger() throws {
        let data = try JSONValue.parse(#"[{"id":123456789012345678901234567890,"name":"A"}]"#)
        let error = #expect(throws: APIError.self) { try APIClient.decode([Facility].self, from: data) }
        guard case .undecodable(let reason) = error else {
            Issue.record("expected undecodable, got \(String(describing: error))")
            return
        }
        #expect(reason.hasPrefix("data[0].id: expected an integer in range, got "))
    }

    @Test("well-typed replies decode: integral doubles as integers, snake_case keys, raw JSON untouched")
    func goodShapes() throws {
        struct Template: Decodable {
            let id: Int
            let formSchema: RawJSON
            let averageScore: Double?
        }
        let data = try JSONValue.parse(
            #"{"id":5.0,"form_schema":[{"col_headers":["a"],"weight":4.0}],"average_score":91}"#)
        let template = try APIClient.decode(Template.self, from: data)
        #expect(template.id == 5)
        #expect(template.averageScore == 91)
        #expect(template.formSchema.value == [["col_headers": ["a"], "weight": .double(4.0)]])
        #expect(ReplyDecoder.camelCase("project_id") == "projectId")
        #expect(ReplyDecoder.camelCase("_private_key_") == "_privateKey_")
        #expect(ReplyDecoder.camelCase("colSpan") == "colSpan")
    }

    @Test("a path shows odd keys quoted and bounded")
    func oddKeys() throws {
        struct Holder: Decodable { let counts: [String: Int] }
        let data = try JSONValue.parse(#"{"counts":{"a b\n":"x"}}"#)
        #expect(throws: APIError.undecodable(#"data.counts["a b\n"]: expected an integer, got a string"#)) {
            try APIClient.decode(Holder.self, from: data)
        }
    }

    struct Body: Sendable, CustomStringConvertible {
        let name: String
        let bytes: Data
        let reason: String
        var description: String { name }
    }

    static let bodies: [Body] = [
        Body(
            name: "nested 600 levels",
            bytes: Data(
                (#"{"ok":true,"data":"# + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}")
                    .utf8),
            reason: "the reply is nested more than 512 levels deep"),
        Body(
            name: "invalid UTF-8",
            bytes: Data(#"{"ok":true,"data":""#.utf8) + Data([0xC3, 0x28, 0xFF]) + Data(#""}"#.utf8),
            reason: "the reply is not valid UTF-8 text"),
        Body(
            name: "cut short", bytes: Data(#"{"ok":true,"data":[{"id":1},{"id""#.utf8),
            reason: "the reply was cut short"),
        Body(
            name: "a stray comma", bytes: Data(#"{"ok":true,"data":[1,,2]}"#.utf8),
            reason: "the reply is not valid JSON"),
        Body(name: "plain text", bytes: Data("Service Unavailable".utf8), reason: "the reply was not JSON"),
    ]

    @Test("deep nesting, invalid UTF-8 and a cut-short reply each have their own sentence", arguments: bodies)
    func unreadableBodies(_ body: Body) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie(
            "GET", "/api/v1/facilities",
            with: .reply(status: 200, headers: [("Content-Type", "application/json")], body: body.bytes))
        let error = await thrownError { _ = try await signedInClient(peer).getJSON("/api/v1/facilities") }
        #expect(error as? APIError == .undecodable(body.reason))
    }
}

@Suite("A pulled list fails item by item (issue 21)")
struct DecodedListTests {
    struct Item: Decodable, Sendable, Equatable {
        let id: Int
        let name: String
    }

    @Test("a malformed item fails alone; readable ids count as present; an unreadable id proves nothing absent")
    func itemByItem() throws {
        let data = try JSONValue.parse(
            #"[{"id":1,"name":"A"},{"id":2,"name":7},{"id":3,"name":"C"}]"#)
        let list = try DecodedList<Item>.decode(data)
        #expect(list.items == [Item(id: 1, name: "A"), Item(id: 3, name: "C")])
        #expect(list.failures == [ListItemFailure(index: 1, id: 2, reason: "data[1].name: expected a string, got 7")])
        #expect(list.presentIDs == [1, 2, 3])
        #expect(!list.provesAbsent(2))
        #expect(list.provesAbsent(4))
        #expect(list.problems("things") == ["things: data[1].name: expected a string, got 7"])

        let unreadableID = try DecodedList<Item>.decode(try JSONValue.parse(#"[{"id":1,"name":"A"},{"id":2.5}]"#))
        #expect(unreadableID.items.count == 1)
        #expect(!unreadableID.everyIDReadable)
        #expect(!unreadableID.provesAbsent(4))

        #expect(throws: APIError.undecodable("data: expected a list, got an object")) {
            try DecodedList<Item>.decode(.object([:]))
        }
    }
}
