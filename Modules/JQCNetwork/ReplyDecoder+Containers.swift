import Foundation
import JQCKit

// MARK: - Scalars

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else {
            throw ReplyShapeError.mismatch(path, expected: "true or false", got: value)
        }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else {
            throw ReplyShapeError.mismatch(path, expected: "a string", got: value)
        }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double { try number() }
    func decode(_ type: Float.Type) throws -> Float {
        let number = try number()
        guard abs(number) <= Double(Float.greatestFiniteMagnitude) else {
            throw ReplyShapeError.mismatch(path, expected: "a number in range", got: value)
        }
        return Float(number)
    }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }

    /// Any JSON number as a double (an integer converted); anything else refused.
    func number() throws -> Double {
        switch value {
        case .int(let number): return Double(number)
        case .double(let number) where number.isFinite: return number
        default: throw ReplyShapeError.mismatch(path, expected: "a number", got: value)
        }
    }

    /// An integer that fits `T` exactly: a fraction, a number out of `T`'s range or any other kind is refused.
    func integer<T: FixedWidthInteger>(_ type: T.Type = T.self) throws -> T {
        let wanted = T.isSigned ? "an integer" : "a non-negative integer"
        switch value {
        case .int(let number):
            guard let exact = T(exactly: number) else {
                throw ReplyShapeError(path: path, problem: "expected \(wanted) in range, got \(number)")
            }
            return exact
        case .double(let number):
            guard number.isFinite, number.rounded() == number else {
                throw ReplyShapeError.mismatch(path, expected: wanted, got: value)
            }
            guard let exact = T(exactly: number) else {
                throw ReplyShapeError.mismatch(path, expected: "\(wanted) in range", got: value)
            }
            return exact
        default:
            throw ReplyShapeError.mismatch(path, expected: wanted, got: value)
        }
    }

    /// The scalar types decoded here (so their errors carry the path), or `nil` for any other `T`.
    func scalar<T>(_ type: T.Type) throws -> T? {
        switch type {
        case is Bool.Type: return try decode(Bool.self) as? T
        case is String.Type: return try decode(String.self) as? T
        case is Double.Type: return try number() as? T
        case is Float.Type: return try decode(Float.self) as? T
        case is Int.Type: return try integer(Int.self) as? T
        case is Int64.Type: return try integer(Int64.self) as? T
        case is Int32.Type: return try integer(Int32.self) as? T
        case is UInt64.Type: return try integer(UInt64.self) as? T
        case is UInt.Type: return try integer(UInt.self) as? T
        default: return nil
        }
    }
}

// MARK: - Objects

/// A keyed container over an object's members; a camelCase property finds its snake_case key.
struct ObjectContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let path: ReplyPath
    /// Converted name → the server's key (a key that converts to the same name as another is ignored).
    private let keysByName: [String: String]

    init(members: [String: JSONValue], path: ReplyPath) {
        self.members = members
        self.path = path
        var names: [String: String] = [:]
        for key in members.keys { names[ReplyDecoder.camelCase(key)] = names[ReplyDecoder.camelCase(key)] ?? key }
        keysByName = names
    }

    var codingPath: [any CodingKey] { ValueDecoder(value: .object(members), path: path).codingPath }
    var allKeys: [Key] {
        members.keys.compactMap { Key(stringValue: $0) ?? Key(stringValue: ReplyDecoder.camelCase($0)) }
    }

    /// The server's key for a property.
    private func serverKey(_ key: Key) -> String? {
        if members[key.stringValue] != nil { return key.stringValue }
        return keysByName[key.stringValue]
    }

    /// The member's decoder, or the missing-member error.
    private func member(_ key: Key) throws -> ValueDecoder {
        guard let name = serverKey(key), let value = members[name] else {
            throw ReplyShapeError(
                path: path.appending(key: ReplyPath.snakeCase(key.stringValue)), problem: "the member is missing")
        }
        return ValueDecoder(value: value, path: path.appending(key: name))
    }

    func contains(_ key: Key) -> Bool { serverKey(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key).value == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try member(key).decodeValue(T.self) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let name = serverKey(key), let value = members[name], value != .null else { return nil }
        return try ValueDecoder(value: value, path: path.appending(key: name)).decodeValue(T.self)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try member(key).container(keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members), path: path) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

// MARK: - Arrays

/// An unkeyed container over an array's elements.
struct ArrayContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: ReplyPath
    var currentIndex = 0

    init(elements: [JSONValue], path: ReplyPath) {
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { ValueDecoder(value: .array(elements), path: path).codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next() throws -> ValueDecoder {
        guard !isAtEnd else {
            throw ReplyShapeError(path: path.appending(index: currentIndex), problem: "the list ended early")
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], path: path.appending(index: currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(T.self) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try next().container(keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }

    mutating func superDecoder() throws -> any Decoder { try next() }
}

extension ReplyPath {
    /// A camelCase property name as the server would spell it (`projectId` → `project_id`), for a missing member.
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for character in name {
            if character.isUppercase, !out.isEmpty {
                out += "_" + character.lowercased()
            } else {
                out.append(character)
            }
        }
        return out
    }
}
