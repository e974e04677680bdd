import Foundation
import JQCKit

/// Where a value sits in a reply, written the way a person reads it: `data[0].id`, `data.inspections[3].form_data`
/// (issue 21 "Typed decoding with paths"). Keys are the server's own (snake_case), never the converted names.
public struct ReplyPath: Sendable, Hashable, CustomStringConvertible {
    /// One step down: an object member or an array element.
    public enum Step: Sendable, Hashable {
        /// An object member, by the key the server sent.
        case key(String)
        /// An array element, from 0.
        case index(Int)
    }

    /// The steps from the envelope's `data`.
    public var steps: [Step]

    /// The path of the envelope's `data` itself (`steps` empty), or a path below it.
    public init(_ steps: [Step] = []) { self.steps = steps }

    /// This path one member further down.
    public func appending(key: String) -> ReplyPath { ReplyPath(steps + [.key(key)]) }

    /// This path one element further down.
    public func appending(index: Int) -> ReplyPath { ReplyPath(steps + [.index(index)]) }

    /// `data`, then `.key` per member (a key that is not a plain name is written `["…"]`, escaped and at most
    /// 40 characters) and `[i]` per element.
    public var description: String {
        var text = "data"
        for step in steps {
            switch step {
            case .index(let index): text += "[\(index)]"
            case .key(let key): text += ReplyPath.written(key)
            }
        }
        return text
    }

    private static func written(_ key: String) -> String {
        let plain =
            !key.isEmpty && key.utf8.count <= 40
            && key.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
        if plain { return "." + key }
        let shown = key.count > 40 ? String(key.prefix(40)) + "…" : key
        return "[" + JSONValue.string(shown).jsonString() + "]"
    }
}

/// A reply member that does not have the shape the client needs: the path and what was wrong
/// (`data[0].id: expected an integer, got 12.5`). ``APIClient`` turns it into ``APIError/undecodable(_:)``.
public struct ReplyShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where.
    public var path: ReplyPath
    /// What was wrong, as a phrase (`expected an integer, got 12.5`; `the member is missing`).
    public var problem: String

    /// A shape error at `path`.
    public init(path: ReplyPath, problem: String) {
        self.path = path
        self.problem = problem
    }

    /// `path: problem`.
    public var description: String { "\(path): \(problem)" }

    /// `expected <wanted>, got <what value is>`; the value is named by its kind (a string's text is never
    /// repeated, so no markup or token reaches a sentence), a number by itself.
    static func mismatch(_ path: ReplyPath, expected wanted: String, got value: JSONValue) -> ReplyShapeError {
        ReplyShapeError(path: path, problem: "expected \(wanted), got \(ReplyShapeError.describe(value))")
    }

    /// A value named for a sentence: `null`, `true`, `12.5`, `a string`, `a list`, `an object`.
    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? "\(number)" : "a number out of range"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

/// Decodes `Decodable` models straight from a parsed reply (``/JQCKit/JSONValue``), with no second JSON pass
/// (issue 17 "envelope decoding straight into typed values"; issue 21): snake_case keys are matched to camelCase
/// properties (as `JSONDecoder.KeyDecodingStrategy.convertFromSnakeCase`), ``RawJSON`` and `JSONValue` members are
/// taken losslessly, and every failure is a ``ReplyShapeError`` naming the server's path — including the cases
/// swift-foundation on Linux reports with an empty coding path. Integers are checked exactly: a fraction
/// (`12.5`), a number out of the type's range, or a string where a number belongs is refused; an integral
/// double (`12.0`) is accepted as an integer.
public enum ReplyDecoder {
    /// Decodes `T` from `value`, which sits at `path` in the reply.
    /// - Throws: ``ReplyShapeError``.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: ReplyPath = ReplyPath())
        throws -> T
    {
        try ValueDecoder(value: value, path: path).decodeValue(T.self)
    }

    /// A snake_case key as `convertFromSnakeCase` writes it (`project_id` → `projectId`; a key without `_`
    /// unchanged; leading and trailing underscores kept).
    static func camelCase(_ key: String) -> String {
        guard key.contains("_") else { return key }
        guard let first = key.firstIndex(where: { $0 != "_" }) else { return key }
        guard let last = key.lastIndex(where: { $0 != "_" }) else { return key }
        let core = key[first...last]
        let parts = core.split(separator: "_")
        guard parts.count > 1 else { return key }
        let joined = ([parts[0].lowercased()] + parts.dropFirst().map { $0.capitalized }).joined()
        return String(key[..<first]) + joined + String(key[key.index(after: last)...])
    }
}

/// A coding key of a reply path (a server key or an index).
struct ReplyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// The `Decoder` over one value of the reply.
struct ValueDecoder: Decoder {
    let value: JSONValue
    let path: ReplyPath
    var codingPath: [any CodingKey] {
        path.steps.map { step in
            switch step {
            case .key(let key): ReplyCodingKey(stringValue: ReplyDecoder.camelCase(key))
            case .index(let index): ReplyCodingKey(intValue: index)
            }
        }
    }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw ReplyShapeError.mismatch(path, expected: "an object", got: value)
        }
        return KeyedDecodingContainer(ObjectContainer<Key>(members: members, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw ReplyShapeError.mismatch(path, expected: "a list", got: value)
        }
        return ArrayContainer(elements: elements, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    /// `T` from this value: raw JSON losslessly, scalars checked here, anything else through its own
    /// `init(from:)`; a `DecodingError` it throws is given this decoder's path.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if let raw = RawJSON(value) as? T { return raw }
        if let json = value as? T { return json }
        if let scalar = try scalar(T.self) { return scalar }
        do {
            return try T(from: self)
        } catch let error as DecodingError {
            throw ValueDecoder.shape(error, near: path)
        }
    }

    /// A `DecodingError` from a model's own `init(from:)` (a day that is not `yyyy-MM-dd`), at `path`.
    static func shape(_ error: DecodingError, near path: ReplyPath) -> ReplyShapeError {
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
            let detail = context.debugDescription.trimmingCharacters(in: CharacterSet(charactersIn: ". "))
            return ReplyShapeError(path: path, problem: detail.isEmpty ? "the value is not valid" : detail)
        case .keyNotFound(let key, _):
            return ReplyShapeError(path: path, problem: "the member '\(key.stringValue)' is missing")
        @unknown default:
            return ReplyShapeError(path: path, problem: "the value is not valid")
        }
    }
}
