import Foundation
import JQCKit

/// An opaque JSON member inside a decoded model, kept exactly as the server sent it: keys are never
/// key-converted and `4.0` stays a double (CONTRACT.md "Form schema JSON"; issue 4).
///
/// Declare `form_data` and `form_schema` members as `RawJSON` (`let formData: RawJSON?`). When the model
/// is decoded by ``APIClient`` (or ``APIClient/decode(_:from:at:)``), the value is taken from the
/// losslessly parsed reply at the member's coding path, bypassing `.convertFromSnakeCase`, which would
/// otherwise rename keys such as `col_headers` inside the object. Decoded by any other decoder it falls
/// back to ``/JQCKit/JSONValue``'s own decoding.
public struct RawJSON: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The value.
    public var value: JSONValue

    /// A wrapper around `value`.
    public init(_ value: JSONValue) { self.value = value }

    /// The `userInfo` key under which ``APIClient`` passes the parsed reply to the decoder.
    public static let rootKey = CodingUserInfoKey(rawValue: "jqc.rawJSON.root")!

    /// The parsed reply ``APIClient/decode(_:from:at:)`` is decoding on this task, which its shared decoder
    /// cannot carry in `userInfo`; `nil` outside such a decode.
    @TaskLocal static var decodingRoot: JSONValue?

    /// Decodes the value (`Decodable`).
    public init(from decoder: any Decoder) throws {
        if let root = decoder.userInfo[RawJSON.rootKey] as? JSONValue ?? RawJSON.decodingRoot,
            let found = RawJSON.lookup(root, path: decoder.codingPath)
        {
            value = found
        } else {
            value = try JSONValue(from: decoder)
        }
    }

    /// The value as a sentence for logs and people (never a token).
    public var description: String { value.description }

    /// The member of `root` at a decoder's coding path, whose keys may have been converted from snake_case.
    static func lookup(_ root: JSONValue, path: [any CodingKey]) -> JSONValue? {
        var current = root
        for key in path {
            switch current {
            case .array(let elements):
                guard let index = key.intValue, elements.indices.contains(index) else { return nil }
                current = elements[index]
            case .object(let members):
                if let exact = members[key.stringValue] {
                    current = exact
                } else {
                    let wanted = key.stringValue.lowercased()
                    let matches = members.keys.filter {
                        $0.replacingOccurrences(of: "_", with: "").lowercased() == wanted
                    }
                    guard matches.count == 1 else { return nil }
                    current = members[matches[0]]!
                }
            default:
                return nil
            }
        }
        return current
    }
}

/// A reply whose `data` carries nothing the caller needs (`{}`); decodes from any JSON value.
public struct EmptyReply: Sendable, Hashable, Decodable {
    /// An empty reply.
    public init() {}
    /// Decodes the value (`Decodable`).
    public init(from decoder: any Decoder) throws {}
}

/// `GET /api/v1/health` (no token): the connectivity probe and the source of the server's today
/// (CONTRACT.md "Notifications, dashboard, health"; seed 003).
public struct HealthStatus: Sendable, Hashable, Decodable {
    /// `ok` when the server is healthy.
    public var status: String
    /// The server's time, ISO 8601 with offset, when given.
    public var time: String?
    /// The server's calendar day, `yyyy-MM-dd`, when given.
    public var today: String?
    /// The server's time zone identifier (`America/New_York`), when given.
    public var timezone: String?

    /// A health reply.
    public init(status: String, time: String? = nil, today: String? = nil, timezone: String? = nil) {
        self.status = status
        self.time = time
        self.today = today
        self.timezone = timezone
    }
}
