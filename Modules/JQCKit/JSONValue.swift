import Foundation

/// A JSON value held losslessly: integers stay integers, `4.0` stays a double, key order is
/// irrelevant (objects compare as dictionaries), and unicode survives unchanged.
///
/// Parse bytes with ``JSONValue/parse(_:)-(Data)`` and write them with ``JSONValue/jsonData(sortedKeys:)``:
/// that pair round-trips exactly. The `Codable` conformance is for embedding a value in `Codable`
/// models; Foundation's `JSONDecoder` cannot tell `4.0` from `4`, so it is lossy on that one point.
///
/// Used for form schemas and answers (`form_data`), which are opaque JSON and must never be
/// key-converted (CONTRACT.md, "Form schema JSON").
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in 64 bits.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array, in order.
    case array([JSONValue])
    /// An object: key → value.
    case object([String: JSONValue])
}

/// A JSON text that could not be read, with the parser's reason (JQCKit's error shape, STYLE.md item 14).
public struct JSONValueError: CodedError {
    /// Why: `kit.invalid_json` (the text is not JSON) or `kit.not_json_value` (a value JSON cannot hold).
    public enum Kind: String, CodedErrorKind {
        /// The bytes are not JSON text.
        case invalidJSON = "invalid_json"
        /// A Foundation object of a type JSON cannot hold.
        case notJSONValue = "not_json_value"
        /// The codes' module part, `kit`.
        public static var module: String { "kit" }
    }

    /// Which reason.
    public let kind: Kind
    /// What was wrong, as a sentence.
    public let message: String
    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// `kit.<kind>`.
    public var code: String { kind.code }
}

extension JSONValue {
    /// Parses JSON text (any value at the top level, not only objects and arrays).
    /// - Parameter data: UTF-8 JSON text.
    /// - Returns: the value; numbers written as integers become ``int(_:)``, all others ``double(_:)``.
    /// - Throws: ``JSONValueError`` when the bytes are not JSON.
    public static func parse(_ data: Data) throws -> JSONValue {
        if let value = FastJSONReader.parse(data) { return value }  // the same value, ~10× cheaper (issue 17)
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            throw JSONValueError(
                .invalidJSON,
                "The text is not valid JSON"
                    + (detail.map { ": " + $0.trimmingCharacters(in: CharacterSet(charactersIn: ".")) } ?? "") + ".")
        }
        return try JSONValue(foundationObject: object)
    }

    /// Parses JSON text given as a string. See ``parse(_:)``.
    public static func parse(_ text: String) throws -> JSONValue {
        try parse(Data(text.utf8))
    }

    /// Converts a Foundation JSON object (from `JSONSerialization`) to a value.
    /// - Throws: ``JSONValueError`` for a type JSON cannot hold.
    public init(foundationObject object: Any) throws {
        switch object {
        case is NSNull:
            self = .null
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = JSONValue(number: number)
        case let array as [Any]:
            self = .array(try array.map(JSONValue.init(foundationObject:)))
        case let dictionary as [String: Any]:
            self = .object(try dictionary.mapValues(JSONValue.init(foundationObject:)))
        default:
            throw JSONValueError(.notJSONValue, "A value of type \(type(of: object)) cannot be held as JSON.")
        }
    }

    private init(number: NSNumber) {
        if type(of: number) != NSNumber.self && type(of: number) != NSDecimalNumber.self
            && String(cString: number.objCType) == "c"
        {
            self = .bool(number.boolValue)
            return
        }
        switch String(cString: number.objCType) {
        case "c" where number.int64Value == 0 || number.int64Value == 1:
            self = .bool(number.boolValue)
        case "q", "i", "l", "s":
            self = .int(number.int64Value)
        case "Q", "I", "L", "S":
            if let exact = Int64(exactly: number.uint64Value) {
                self = .int(exact)
            } else {
                self = .double(number.doubleValue)
            }
        default:
            if let decimal = number as? NSDecimalNumber, let exact = Int64(decimal.stringValue) {
                self = .int(exact)  // very large negatives arrive as decimals; their text is exact
            } else {
                self = .double(number.doubleValue)
            }
        }
    }

    /// The value as UTF-8 JSON text. Doubles keep a fraction (`4.0`), non-finite doubles become
    /// `null`, and `/` is not escaped.
    /// - Parameter sortedKeys: write object keys in sorted order (stable output for hashing and tests).
    public func jsonData(sortedKeys: Bool = true) -> Data {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys)
        return Data(out.utf8)
    }

    /// The value as JSON text; see ``jsonData(sortedKeys:)``.
    public func jsonString(sortedKeys: Bool = true) -> String {
        var out = ""
        write(to: &out, sortedKeys: sortedKeys)
        return out
    }

    private func write(to out: inout String, sortedKeys: Bool) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            out += value.isFinite ? "\(value)" : "null"
        case .string(let value): JSONValue.writeString(value, to: &out)
        case .array(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                value.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "]"
        case .object(let members):
            out += "{"
            let keys = sortedKeys ? members.keys.sorted() : Array(members.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { out += "," }
                JSONValue.writeString(key, to: &out)
                out += ":"
                members[key]!.write(to: &out, sortedKeys: sortedKeys)
            }
            out += "}"
        }
    }

    private static func writeString(_ string: String, to out: inout String) {
        out += "\""
        // Most strings need no escape: copied whole, not scalar by scalar (a 100-draft `drafts --json` line
        // spent 10 M instructions here; issue 17). Only ASCII bytes can be `"`, `\` or a control (< 0x20).
        let escaped = string.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
        guard escaped else {
            out += string
            out += "\""
            return
        }
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    /// A Foundation object (`NSNull`, `String`, `NSNumber`, arrays, dictionaries) for APIs that need one.
    public var foundationObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .int(let value): return NSNumber(value: value)
        case .double(let value): return NSNumber(value: value)
        case .string(let value): return value
        case .array(let values): return values.map(\.foundationObject)
        case .object(let members): return members.mapValues(\.foundationObject)
        }
    }
}

// MARK: - Accessors

extension JSONValue {
    /// The string, when this is a string.
    public var stringValue: String? { if case .string(let value) = self { value } else { nil } }
    /// The boolean, when this is a boolean.
    public var boolValue: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The integer, when this is an integer (a double with an integral value is not converted).
    public var intValue: Int64? { if case .int(let value) = self { value } else { nil } }
    /// The number as a double, when this is an integer or a double.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var objectValue: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The member `key` of an object; `nil` for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

// MARK: - Literals

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { first, _ in first }))
    }
}

// MARK: - Codable

extension JSONValue: Codable {
    /// Decodes any JSON value. Through Foundation's `JSONDecoder` a number with an integral value
    /// (`4.0`) arrives as ``int(_:)``; use ``parse(_:)-(Data)`` where that difference matters.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; a non-finite double is encoded as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): if value.isFinite { try container.encode(value) } else { try container.encodeNil() }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text with sorted keys.
    public var description: String { jsonString() }
}
