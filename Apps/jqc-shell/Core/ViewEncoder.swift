import Foundation
import JQCKit

/// A command's `--json` data from an `Encodable` view type (issue 16 "Typed edges"): each property is one key,
/// named in snake_case from the Swift name (`inspectionLocalID` → `inspection_local_id`,
/// `photoServerURLs` → `photo_server_urls`), so no command maps keys by hand.
///
/// Unlike `JSONEncoder`, an absent optional is written as `null` (SHELL.md documents every key as always
/// present), a `JSONValue` property is embedded as it is (answers, raw server objects), and integers stay
/// integers while doubles stay doubles — so the JSON line reads byte for byte as the hand-built dictionaries did.
enum ViewJSON {
    /// The view as a JSON value.
    /// - Parameter view: any `Encodable` value (a struct of strings, numbers, bools, optionals, arrays,
    ///   `JSONValue`s and other such views).
    /// - Returns: its JSON; a value that fails to encode (none of ours can) becomes `null`.
    static func value(_ view: some Encodable) -> JSONValue {
        (try? encode(view)) ?? .null
    }

    /// The view as the members of a JSON object (the `data` of a command's line).
    /// - Parameter view: an `Encodable` struct.
    /// - Returns: its keys and values; empty when the view is not an object.
    static func object(_ view: some Encodable) -> [String: JSONValue] {
        value(view).objectValue ?? [:]
    }

    /// `camelCase` → `snake_case`; a run of capitals is one word (`URLs` → `urls`, `ID` → `id`).
    static func snakeCase(_ name: String) -> String {
        // Swift names are ASCII: byte by byte, the same rule without Unicode property lookups (a list of 100
        // rows asks this of every key of every row; issue 17).
        if name.utf8.allSatisfy({ $0 < 0x80 }) {
            var result: [UInt8] = []
            result.reserveCapacity(name.utf8.count + 4)
            var previous: UInt8?
            for byte in name.utf8 {
                let upper = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
                if upper, let previous,
                    (previous >= UInt8(ascii: "a") && previous <= UInt8(ascii: "z"))
                        || (previous >= UInt8(ascii: "0") && previous <= UInt8(ascii: "9"))
                {
                    result.append(UInt8(ascii: "_"))
                }
                result.append(upper ? byte + 32 : byte)
                previous = byte
            }
            return String(decoding: result, as: UTF8.self)
        }
        var result = ""
        var previous: Character?
        for character in name {
            if character.isUppercase, let previous, previous.isLowercase || previous.isNumber {
                result.append("_")
            }
            result += character.lowercased()
            previous = character
        }
        return result
    }

    static func encode(_ value: some Encodable) throws -> JSONValue {
        if let json = value as? JSONValue { return json }
        let encoder = ViewEncoder()
        try value.encode(to: encoder)
        return encoder.slot.resolved
    }
}

/// Where one encoded value lands; containers fill it, ``resolved`` reads the finished tree.
final class ViewSlot {
    enum Content {
        case value(JSONValue)
        case object([String: ViewSlot])
        case array([ViewSlot])
    }
    var content: Content = .value(.null)

    var resolved: JSONValue {
        switch content {
        case .value(let value): value
        case .object(let members): .object(members.mapValues(\.resolved))
        case .array(let items): .array(items.map(\.resolved))
        }
    }

    func member(_ key: String) -> ViewSlot {
        var members: [String: ViewSlot] = [:]
        if case .object(let existing) = content { members = existing }
        content = .value(.null)  // the dictionary's only owner is now `members`: the insert does not copy it
        let slot = ViewSlot()
        members[key] = slot
        content = .object(members)
        return slot
    }

    func append() -> ViewSlot {
        var items: [ViewSlot] = []
        if case .array(let existing) = content { items = existing }
        content = .value(.null)  // the same for the array
        let slot = ViewSlot()
        items.append(slot)
        content = .array(items)
        return slot
    }
}

/// The `Encoder` behind ``ViewJSON``.
final class ViewEncoder: Encoder {
    let slot: ViewSlot
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    init(slot: ViewSlot = ViewSlot()) { self.slot = slot }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .value = slot.content { slot.content = .object([:]) }
        return KeyedEncodingContainer(ViewKeyedContainer<Key>(slot: slot))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .value = slot.content { slot.content = .array([]) }
        return ViewUnkeyedContainer(slot: slot)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ViewSingleContainer(slot: slot) }

    /// Encodes `value` into `slot`: primitives and `JSONValue` directly, anything else through its `encode(to:)`.
    static func put(_ value: some Encodable, into slot: ViewSlot) throws {
        switch value {
        case let json as JSONValue: slot.content = .value(json)
        case let text as String: slot.content = .value(.string(text))
        case let flag as Bool: slot.content = .value(.bool(flag))
        case let number as Double: slot.content = .value(.double(number))
        case let number as Float: slot.content = .value(.double(Double(number)))
        case let number as any BinaryInteger: slot.content = .value(.int(Int64(clamping: number)))
        default: try value.encode(to: ViewEncoder(slot: slot))
        }
    }
}

private struct ViewKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: ViewSlot
    var codingPath: [any CodingKey] = []

    func name(_ key: Key) -> String { ViewJSON.snakeCase(key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { slot.member(name(key)).content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try ViewEncoder.put(value, into: slot.member(name(key)))
    }
    // An absent optional is `null`, never a missing key.
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = slot.member(name(key))
        child.content = .object([:])
        return KeyedEncodingContainer(ViewKeyedContainer<NestedKey>(slot: child))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = slot.member(name(key))
        child.content = .array([])
        return ViewUnkeyedContainer(slot: child)
    }
    mutating func superEncoder() -> any Encoder { ViewEncoder(slot: slot.member("super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { ViewEncoder(slot: slot.member(name(key))) }
}

private struct ViewUnkeyedContainer: UnkeyedEncodingContainer {
    let slot: ViewSlot
    var codingPath: [any CodingKey] = []
    var count: Int {
        if case .array(let items) = slot.content { return items.count }
        return 0
    }

    mutating func encodeNil() throws { slot.append().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try ViewEncoder.put(value, into: slot.append()) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = slot.append()
        child.content = .object([:])
        return KeyedEncodingContainer(ViewKeyedContainer<NestedKey>(slot: child))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = slot.append()
        child.content = .array([])
        return ViewUnkeyedContainer(slot: child)
    }
    mutating func superEncoder() -> any Encoder { ViewEncoder(slot: slot.append()) }
}

private struct ViewSingleContainer: SingleValueEncodingContainer {
    let slot: ViewSlot
    var codingPath: [any CodingKey] = []

    mutating func encodeNil() throws { slot.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try ViewEncoder.put(value, into: slot) }
}
