import Foundation
import Testing

@testable import JQCKit

/// The fast reader (issue 17) answers exactly what the `JSONSerialization` path answers, or leaves the text to it.
@Suite("FastJSONReader: the fast path of JSONValue.parse")
struct FastJSONReaderTests {
    /// Texts the fast reader must read itself (the common reply shapes).
    static let read: [String] = [
        #"{"ok":true,"data":{"id":7,"username":"alex","role":"inspector","full_name":"Alex Kim","email":null}}"#,
        #"{"ok": true, "data": [ {"id": 1, "score": 4.0, "ratio": -0.25, "tags": []}, {"id": 2} ], "meta": {}}"#,
        #"{"ok":true,"data":{"form_schema":[{"id":2,"type":"rating","colSpan":6,"col_headers":["a","b"]}]}}"#,
        "{\"ok\":false,\"error\":\"Nope.\",\"data\":null}\n",
        #"[1, -2, 0, 123456789012345678, 3.5, true, false, null, "é ✓ 𝄞"]"#,
        #""just a string""#, "42", "4.0", "true", "null", "  {}  ",
    ]

    /// Texts the fast reader leaves to `JSONValue.parse` (escapes, exponents, long numbers, repeated keys,
    /// invalid JSON).
    static let leftAlone: [String] = [
        #"{"a":"line\nbreak"}"#, #"{"a":"\u00e9"}"#, #"{"a":1e3}"#, #"{"a":1E-2}"#,
        #"{"a":1234567890123456789}"#, #"{"a":1.23456789012345678}"#, #"{"a":1,"a":2}"#,
        #"{"a":01}"#, #"{"a":.5}"#, #"{"a":1.}"#, #"{"a":-}"#, #"{"a":1,}"#, #"[1,]"#, #"{"a" 1}"#,
        #"{"a":1} trailing"#, "", "   ", "<html>", #"{"a":tru}"#, "\u{FEFF}{}", #"{"a":"open"#,
        "{\"a\":\"tab\there\"}", String(repeating: "[", count: 70) + String(repeating: "]", count: 70),
    ]

    /// The value through `JSONSerialization` (what `JSONValue.parse` gave before issue 17, and gives for the rest).
    static func slow(_ text: String) throws -> JSONValue {
        try JSONValue(
            foundationObject: try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]))
    }

    @Test("reads the common reply shapes itself, with the value JSONValue.parse gives", arguments: read)
    func readsCommonShapes(text: String) throws {
        let fast = try #require(FastJSONReader.parse(Data(text.utf8)), "left alone: \(text)")
        #expect(fast == (try Self.slow(text)))
    }

    @Test(
        "leaves escapes, exponents, long numbers, repeated keys and bad text to JSONValue.parse", arguments: leftAlone)
    func leavesTheRest(text: String) {
        #expect(FastJSONReader.parse(Data(text.utf8)) == nil)
    }

    @Test("integers stay integers and 4.0 stays a double; invalid UTF-8 is left alone")
    func kinds() throws {
        let value = try #require(FastJSONReader.parse(Data(#"{"i":4,"d":4.0,"n":-12,"z":0.0}"#.utf8)))
        #expect(value["i"] == .int(4))
        #expect(value["d"] == .double(4.0))
        #expect(value["n"] == .int(-12))
        #expect(value["z"] == .double(0))
        #expect(FastJSONReader.parse(Data([0x22, 0xC3, 0x28, 0x22])) == nil)
    }

    @Test("JSONValue.parse takes the fast path and the fallback to the same value; bad text still throws")
    func parseBothWays() throws {
        let fast = #"{"ok":true,"data":{"name":"North","id":3}}"#
        let escaped = #"{"ok":true,"data":{"name":"Nor\u0074h","id":3}}"#
        #expect(FastJSONReader.parse(Data(escaped.utf8)) == nil)
        #expect(try JSONValue.parse(Data(escaped.utf8)) == (try JSONValue.parse(Data(fast.utf8))))
        #expect(try JSONValue.parse(Data(fast.utf8)) == (try Self.slow(fast)))
        #expect(throws: JSONValueError.self) { try JSONValue.parse(Data(#"{"a":}"#.utf8)) }
    }
}
