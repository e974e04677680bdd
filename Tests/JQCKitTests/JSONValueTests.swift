import Foundation
import Testing

@testable import JQCKit

@Suite("JSONValue")
struct JSONValueTests {
    @Test("integers stay integers and 4.0 stays a double through parse and write")
    func integersAndDoublesKeepTheirKind() throws {
        let value = try JSONValue.parse(#"[4, 4.0, -0, 0.1, 9007199254740993, 1e2, true, false, null]"#)
        #expect(
            value
                == .array([
                    .int(4), .double(4.0), .int(0), .double(0.1), .int(9_007_199_254_740_993),
                    .double(100), .bool(true), .bool(false), .null,
                ]))
        #expect(value.jsonString() == "[4,4.0,0,0.1,9007199254740993,100.0,true,false,null]")
        #expect(try JSONValue.parse(value.jsonData()) == value)
    }

    @Test("large integers at the 64-bit limits round-trip exactly")
    func largeIntegers() throws {
        let value = try JSONValue.parse("[9223372036854775807, -9223372036854775807]")
        #expect(value == .array([.int(.max), .int(-9_223_372_036_854_775_807)]))
        #expect(value.jsonString() == "[9223372036854775807,-9223372036854775807]")
    }

    @Test("nested objects and arrays with unicode round-trip")
    func nestedUnicode() throws {
        let text = #"{"a":[1,{"b":"é😀 \"quoted\" \\ /"}],"c":{"d":[],"e":{}},"f":"line\nbreak\u0001"}"#
        let value = try JSONValue.parse(text)
        #expect(value["a"]?.arrayValue?[1]["b"]?.stringValue == "é😀 \"quoted\" \\ /")
        #expect(value["f"]?.stringValue == "line\nbreak\u{01}")
        #expect(try JSONValue.parse(value.jsonData()) == value)
        #expect(
            value.jsonString() == #"{"a":[1,{"b":"é😀 \"quoted\" \\ /"}],"c":{"d":[],"e":{}},"f":"line\nbreak\u0001"}"#)
    }

    @Test("a string with one character to escape is escaped, and one with none is written as it is")
    func escapesOneByOne() throws {
        let cases: [(String, String)] = [
            ("say \"hi\"", #""say \"hi\"""#), (#"C:\temp"#, #""C:\\temp""#), ("tab\there", #""tab\there""#),
            ("bell\u{07}", #""bell\u0007""#), ("Café — ✓ 😀 / <b>", #""Café — ✓ 😀 / <b>""#), ("", #""""#),
        ]
        for (text, written) in cases {
            #expect(JSONValue.string(text).jsonString() == written)
            #expect(try JSONValue.parse(written) == .string(text))
            #expect(JSONValue.object([text: .string(text)]).jsonString() == "{\(written):\(written)}")
        }
    }

    @Test("text that is not JSON is refused with a sentence")
    func invalidJSON() {
        #expect(throws: JSONValueError.self) { try JSONValue.parse("<html>502 Bad Gateway</html>") }
        #expect(throws: JSONValueError.self) { try JSONValue.parse(#"{"a": 1"#) }
    }

    @Test("Codable round-trip through Foundation keeps the structure")
    func codableRoundTrip() throws {
        let value: JSONValue = ["rating": 4, "note": "ok", "tags": ["a", "b"], "ratio": 0.25, "none": nil]
        let data = try JSONEncoder().encode(value)
        #expect(try JSONDecoder().decode(JSONValue.self, from: data) == value)
    }

    @Test("non-finite doubles are written as null")
    func nonFinite() {
        #expect(JSONValue.array([.double(.infinity), .double(.nan)]).jsonString() == "[null,null]")
    }
}

@Suite("Field ids (rule 9, SCORING.md usable id)")
struct FieldIDTests {
    @Test("integers and non-empty strings are usable; 5 and \"5\" are the same key; 05 is not")
    func usableIDs() throws {
        #expect(FieldID.normalize(.int(5)) == "5")
        #expect(FieldID.normalize(.string("5")) == "5")
        #expect(FieldID.normalize(.string("05")) == "05")
        #expect(FieldID.normalize(.int(-3)) == "-3")
        #expect(FieldID.normalize(.string("notes")) == "notes")
    }

    @Test("missing, null, empty, boolean, fractional and structured ids are not usable")
    func unusableIDs() throws {
        let unusable: [JSONValue?] = [
            nil, .null, .string(""), .bool(true), .double(2.5), .double(5.0), .array([]), .object([:]),
        ]
        for id in unusable { #expect(FieldID.normalize(id) == nil, "\(String(describing: id))") }
    }

    @Test("an id read from schema text never renders as Optional(…)")
    func noOptionalRendering() throws {
        let schema = try JSONValue.parse(#"[{"id": 7}, {"id": "8"}]"#)
        let keys = try #require(schema.arrayValue).compactMap { FieldID.normalize($0["id"]) }
        #expect(keys == ["7", "8"])
    }
}
