import Foundation
import JQCKit

/// The members of one reply object read by their server keys, each checked and named by its path when it is
/// wrong (issue 21): for models read member by member rather than through `Decodable`. A missing or `null`
/// member is `nil` for the optional readers; a member of the wrong type is an error, never `nil`.
public struct ReplyFields: Sendable {
    /// The object's members.
    public let members: [String: JSONValue]
    /// Where the object sits (`data[3]`).
    public let path: ReplyPath

    /// The members of `value`, which sits at `path`.
    /// - Throws: ``ReplyShapeError`` when `value` is not an object.
    public init(_ value: JSONValue, at path: ReplyPath) throws {
        guard case .object(let members) = value else {
            throw ReplyShapeError.mismatch(path, expected: "an object", got: value)
        }
        self.members = members
        self.path = path
    }

    private func present(_ key: String) -> ValueDecoder? {
        guard let value = members[key], value != .null else { return nil }
        return ValueDecoder(value: value, path: path.appending(key: key))
    }

    private func required(_ key: String) throws -> ValueDecoder {
        guard let member = present(key) else {
            throw ReplyShapeError(path: path.appending(key: key), problem: "the member is missing")
        }
        return member
    }

    /// A required integer (`Int` range; a fraction or a string is refused).
    /// - Throws: ``ReplyShapeError``.
    public func int(_ key: String) throws -> Int { try required(key).integer() }

    /// An optional integer.
    /// - Throws: ``ReplyShapeError`` when present and not an integer.
    public func optionalInt(_ key: String) throws -> Int? { try present(key)?.integer() }

    /// A required string.
    /// - Throws: ``ReplyShapeError``.
    public func string(_ key: String) throws -> String { try required(key).decode(String.self) }

    /// An optional string.
    /// - Throws: ``ReplyShapeError`` when present and not a string.
    public func optionalString(_ key: String) throws -> String? { try present(key)?.decode(String.self) }

    /// An optional `true`/`false`.
    /// - Throws: ``ReplyShapeError`` when present and not a boolean.
    public func optionalBool(_ key: String) throws -> Bool? { try present(key)?.decode(Bool.self) }

    /// An optional number (an integer or a fraction).
    /// - Throws: ``ReplyShapeError`` when present and not a number.
    public func optionalDouble(_ key: String) throws -> Double? { try present(key)?.number() }

    /// A required calendar day written `yyyy-MM-dd`.
    /// - Throws: ``ReplyShapeError``.
    public func day(_ key: String) throws -> CalendarDay {
        guard let day = try optionalDay(key) else {
            throw ReplyShapeError(path: path.appending(key: key), problem: "the member is missing")
        }
        return day
    }

    /// An optional calendar day written `yyyy-MM-dd`.
    /// - Throws: ``ReplyShapeError`` when present and not such a day.
    public func optionalDay(_ key: String) throws -> CalendarDay? {
        guard let member = present(key) else { return nil }
        guard case .string(let text) = member.value, let day = CalendarDay(text) else {
            throw ReplyShapeError.mismatch(member.path, expected: "a yyyy-MM-dd day", got: member.value)
        }
        return day
    }

    /// An optional object member, as its members.
    /// - Throws: ``ReplyShapeError`` when present and not an object.
    public func optionalObject(_ key: String) throws -> [String: JSONValue]? {
        guard let member = present(key) else { return nil }
        guard case .object(let members) = member.value else {
            throw ReplyShapeError.mismatch(member.path, expected: "an object", got: member.value)
        }
        return members
    }
}
