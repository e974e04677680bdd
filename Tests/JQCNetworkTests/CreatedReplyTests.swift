import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// Issue 17: a created record's reply is read for its `data.id` without building the tree, and answers only
/// where the full path (parse, envelope, `ReplyFields.int("id")`) gives the same id; a reply without a valid id
/// is a failure, never a success (CONTRACT.md `POST /inspections` → `inspection`).
@Suite("Created record replies: data.id read from the bytes (issue 17)")
struct CreatedReplyTests {
    /// What the full path gives: the id, or `nil` for any failure.
    static func fullPathID(_ text: String) -> Int? {
        guard let envelope = try? JSONValue.parse(text), case .object(let members) = envelope,
            members["ok"]?.boolValue == true
        else { return nil }
        return try? APIClient.createdID(in: members["data"] ?? .null)
    }

    static let record =
        #"{"id":3001,"local_id":"local-1","template_id":3,"facility_id":11,"area_id":null,"status":"completed","#
        + #""overall_score":90.0,"follow_up_required":false,"form_data":{"2":"4","14":{"first":"Jordan","last":"Lee"},"#
        + #""9":["a",1,-2.5,true,null,[]]},"form_media":{},"inspector_name":"Alex Rivera","submit_latitude":-33.8688}"#

    /// Texts the fast path must answer, with the id.
    static let answered: [(String, Int)] = [
        (#"{"ok":true,"data":\#(record),"error":null}"#, 3001),
        (#"{"error":null,"data":{"id":7},"ok":true}"#, 7),
        (" \n{ \"ok\" : true , \"data\" : { \"x\" : {}, \"id\" : -12 } }\t", -12),
        (#"{"ok":true,"data":{"id":0,"name":"Café","deep":[[[{"a":[1.25]}]]]}}"#, 0),
        (#"{"ok":true,"data":{"id":999999999999999999}}"#, 999_999_999_999_999_999),
    ]

    /// Texts the fast path leaves to the full path (which may still succeed, e.g. an escaped key).
    static let leftToFullPath: [String] = [
        #"{"ok":true,"data":{"id":"3001"}}"#,  // a string id
        #"{"ok":true,"data":{"id":12.5}}"#,  // a fraction
        #"{"ok":true,"data":{"id":3001.0}}"#,  // a whole fraction: the full path takes it
        #"{"ok":true,"data":{"id":null}}"#,
        #"{"ok":true,"data":{"local_id":"local-1"}}"#,  // no id
        #"{"ok":true,"data":null}"#,
        #"{"ok":true,"data":[{"id":1}]}"#,
        #"{"ok":true,"data":{"id":1,"id":2}}"#,  // a repeated key
        #"{"ok":true,"ok":true,"data":{"id":1}}"#,
        #"{"ok":true,"data":{"id":1},"data":{"id":2}}"#,
        #"{"ok":true,"data":{"i\u0064":5}}"#,  // an escaped key
        #"{"ok":true,"data":{"id":5,"note":"a\"b"}}"#,  // an escape anywhere
        #"{"ok":true,"data":{"id":5,"é":1,"é":2}}"#,  // non-ASCII keys (the same Swift string)
        #"{"ok":true,"data":{"id":1e3}}"#,  // an exponent
        #"{"ok":true,"data":{"id":1234567890123456789}}"#,  // 19 digits
        #"{"ok":true,"data":{"id":5,"x":0.123456789012345678}}"#,  // a long decimal elsewhere
        #"{"ok":true,"data":{"id":05}}"#,  // a leading zero
        #"{"ok":false,"data":{"id":5},"error":"nope"}"#,
        #"{"ok":"true","data":{"id":5}}"#,
        #"{"ok":1,"data":{"id":5}}"#,
        #"{"data":{"id":5}}"#,
        #"{"ok":true,"data":{"id":5}} trailing"#,
        #"{"ok":true,"data":{"id":5}"#,  // truncated
        #"{"ok":true,"data":{"id":5,}}"#,
        #"[{"ok":true,"data":{"id":5}}]"#,
        "\u{FEFF}{\"ok\":true,\"data\":{\"id\":5}}",  // a byte-order mark
        "<html><body>502 Bad Gateway</body></html>",
        "",
        "{\"ok\":true,\"data\":{\"id\":5,\"t\":\"tab\there\"}}",  // a control character in a string
        #"{"ok":true,"data":{"id":5,"deep":\#(String(repeating: "[", count: 70))\#(String(repeating: "]", count: 70))}}"#,
    ]

    @Test("a well-formed reply's id is read from the bytes, the same id the full path reads")
    func answeredTexts() {
        for (text, id) in Self.answered {
            #expect(CreatedReply.id(Data(text.utf8)) == id, "\(text)")
            #expect(Self.fullPathID(text) == id, "\(text)")
        }
    }

    @Test("anything else is left to the full path, and never answered differently from it")
    func leftTexts() {
        for text in Self.leftToFullPath {
            #expect(CreatedReply.id(Data(text.utf8)) == nil, "\(text)")
        }
        // Whatever the fast path answers, the full path answers the same (over every text and every cut of them).
        for text in Self.leftToFullPath + Self.answered.map(\.0) {
            let bytes = Array(text.utf8)
            for end in stride(from: 0, through: bytes.count, by: 1) {
                let cut = Data(bytes[..<end])
                if let fast = CreatedReply.id(cut) {
                    #expect(fast == Self.fullPathID(String(decoding: cut, as: UTF8.self)), "\(text) cut at \(end)")
                }
            }
        }
    }

    @Test("a repeated key is refused wherever it is, and the same key in two objects is not a repeat")
    func repeatedKeys() {
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"x":{"a":1,"a":2}}}"#.utf8)) == nil)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"x":[{"id":2},{"id":3}]}}"#.utf8)) == 1)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"x":{"id":2},"id":4}}"#.utf8)) == 4)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"":1,"":2}}"#.utf8)) == nil)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"a":1,"a":2}}"#.utf8)) == nil)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"abc":1,"abc":2}}"#.utf8)) == nil)
        #expect(CreatedReply.id(Data(#"{"ok":true,"data":{"id":1,"abc":1,"axc":2,"abd":3,"zbc":4,"":5}}"#.utf8)) == 1)
    }

    @Test("a quote, backslash, control or non-ASCII byte at any place of a long string is seen")
    func everyPlaceInAString() {
        let specials: [(String, Bool)] = [
            ("\\\"", false), ("\\n", false), ("\t", false), ("\u{1F}", false), ("é", true), ("✓", true),
        ]
        for length in 0..<24 {
            for position in 0...length {
                for (special, readable) in specials {
                    var text = String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    let reply = #"{"ok":true,"data":{"note":"\#(text)","id":9}}"#
                    let fast = CreatedReply.id(Data(reply.utf8))
                    #expect(fast == (readable ? 9 : nil), "\(reply)")
                    #expect(fast == nil || fast == Self.fullPathID(reply), "\(reply)")
                    // A string the fast reader leaves alone is never sent verbatim either.
                    #expect(VerbatimJSON.isObject(Data(#"{"note":"\#(text)"}"#.utf8)) == readable, "\(text)")
                }
            }
        }
        // Invalid UTF-8 deep in a long string.
        var bytes = Array(#"{"ok":true,"data":{"id":9,"note":"aaaaaaaaaaaaaaaaaaaa"#.utf8)
        bytes += [0xC3, 0x28] + Array(#"aaaaaaaaaaa"}}"#.utf8)
        #expect(CreatedReply.id(Data(bytes)) == nil)
    }

    static func signedInHarness(_ steps: [ScriptedTransport.Step]) throws -> Harness {
        let harness = Harness()
        try harness.signIn()
        harness.transport.route(.post, path: "/api/v1/inspections", steps)
        return harness
    }

    @Test("createRecord returns data.id, also through the full path, and sends the bytes as JSON on a fresh connection")
    func createRecordReturnsID() async throws {
        let harness = try Self.signedInHarness([
            .reply(201, #"{"ok":true,"data":\#(Self.record),"error":null}"#),
            .reply(200, #"{"ok":true,"data":{"i\u0064":42}}"#),
            .reply(200, #"{"ok":true,"data":{"id":43.0}}"#),
        ])
        let client = harness.client()
        let body = Data(#"{"local_id":"local-1"}"#.utf8)
        #expect(try await client.createRecord(path: "/api/v1/inspections", json: body) == 3001)
        #expect(try await client.createRecord(path: "/api/v1/inspections", json: body) == 42)
        #expect(try await client.createRecord(path: "/api/v1/inspections", json: body) == 43)
        let sent = harness.transport.requests(path: "/api/v1/inspections")
        #expect(sent.count == 3)
        #expect(sent.first?.body == .data(body))
        #expect(sent.first?.headers["Content-Type"] == "application/json")
        #expect(sent.first?.method == .post)
        #expect(sent.first?.isIdempotent == false)
    }

    struct Hostile: Sendable, CustomStringConvertible {
        let status: Int
        let body: String
        let error: APIError
        var description: String { "\(status) \(body.prefix(60))" }
    }

    static let hostile: [Hostile] = [
        Hostile(
            status: 201, body: #"{"ok":true,"data":{"local_id":"local-1"}}"#,
            error: .undecodable("data.id: the member is missing")),
        Hostile(
            status: 201, body: #"{"ok":true,"data":{"id":null}}"#, error: .undecodable("data.id: the member is missing")
        ),
        Hostile(
            status: 201, body: #"{"ok":true,"data":{"id":"3001"}}"#,
            error: .undecodable(#"data.id: expected an integer, got a string"#)),
        Hostile(
            status: 201, body: #"{"ok":true,"data":{"id":12.5}}"#,
            error: .undecodable("data.id: expected an integer, got 12.5")),
        Hostile(
            status: 201, body: #"{"ok":true,"data":null}"#, error: .undecodable("data: expected an object, got null")),
        Hostile(
            status: 201, body: #"{"ok":true,"data":[{"id":5}]}"#,
            error: .undecodable("data: expected an object, got a list")),
        Hostile(status: 200, body: #"{"data":{"id":5}}"#, error: .undecodable("the reply was not a JQC envelope")),
        Hostile(
            status: 200, body: "<html><body>502 Bad Gateway</body></html>",
            error: .undecodable(APIClient.unreadableReason(Data("<html><body>502 Bad Gateway</body></html>".utf8)))),
        Hostile(
            status: 200, body: #"{"ok":true,"data":{"id":5"#,
            error: .undecodable(APIClient.unreadableReason(Data(#"{"ok":true,"data":{"id":5"#.utf8)))),
        Hostile(
            status: 200, body: #"{"ok":false,"data":null,"error":"The facility 11 is not in your contracts."}"#,
            error: .rejected(status: 200, message: "The facility 11 is not in your contracts.")),
        Hostile(
            status: 422, body: #"{"ok":false,"data":null,"error":"form_data holds a local:// value"}"#,
            error: .rejected(status: 422, message: "form_data holds a local:// value")),
        Hostile(
            status: 500, body: #"{"ok":true,"data":{"id":5}}"#,
            error: .server(status: 500, message: "The server is unavailable. Try again later.")),
    ]

    @Test(
        "a reply without a valid id, not JSON, or refused is the same failure as through the full path",
        arguments: hostile)
    func hostileReplies(_ hostile: Hostile) async throws {
        let harness = try Self.signedInHarness([.reply(hostile.status, hostile.body)])
        let error = await thrownError {
            _ = try await harness.client().createRecord(path: "/api/v1/inspections", json: Data("{}".utf8))
        }
        #expect(error as? APIError == hostile.error)
    }
}

/// Issue 17: stored JSON a request body may carry as it stands.
@Suite("Verbatim JSON for request bodies (issue 17)")
struct VerbatimJSONTests {
    @Test("an object the fast reader reads exactly, without a refused value, is sent as it stands")
    func accepted() throws {
        let texts = [
            #"{}"#, #"{"2":"4","14":{"first":"Jordan","last":"Lee"}}"#, #"{"a":[1,-2.5,true,false,null,"x",{}]}"#,
            #"{"photo":"uploads/inspection_photos/ab.jpg","note":"Café","local://key":"kept"}"#,
            " { \"a\" : 1 } ", #"{"a":"localhost","b":"a local:// inside"}"#,
        ]
        for text in texts {
            #expect(VerbatimJSON.isObject(Data(text.utf8), refusing: "local://"), "\(text)")
            // The same value as the parsed and written one.
            let value = try JSONValue.parse(text)
            #expect(try JSONValue.parse(value.jsonData()) == value)
        }
    }

    @Test(
        "a refused value, an escape, an exponent, a long number, a repeated or non-ASCII key, or not an object is refused"
    )
    func refused() {
        let texts = [
            #"{"4":"local:///tmp/p.jpg"}"#, #"{"5":["kept","local://x"]}"#, #"{"7":{"row":{"photo":"local://a"}}}"#,
            #"{"a":"x\/y"}"#, #"{"a":"\u006cocal://x"}"#, #"{"a":1e2}"#, #"{"a":1234567890123456789}"#,
            #"{"a":0.123456789012345678}"#, #"{"a":1,"a":2}"#, #"{"é":1}"#, #"[1,2]"#, #""text""#, #"{"a":1} x"#,
            #"{"a":01}"#, #"{"a":1,}"#, "", "{\"a\":\"\u{1}\"}",
            #"{"a":\#(String(repeating: "[", count: 70))\#(String(repeating: "]", count: 70))}"#,
        ]
        for text in texts {
            #expect(!VerbatimJSON.isObject(Data(text.utf8), refusing: "local://"), "\(text)")
        }
        #expect(VerbatimJSON.isObject(Data(#"{"4":"local:///tmp/p.jpg"}"#.utf8)))  // no prefix refused
        // Not UTF-8 inside a string.
        #expect(!VerbatimJSON.isObject(Data([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D])))
    }
}
