/// A value the server sends as one of a known set of strings (a severity, a status, a role), typed, yet
/// open: a value this build does not know — a newer server's — is kept as sent in the type's `other` case,
/// so it is stored, shown and sent back unchanged instead of failing the decode (issue 16, typed wire values).
///
/// An adopter is an enum with its known cases, `case other(String)`, and a `rawValue` switch; this
/// protocol gives it ``init(rawValue:)`` (never `nil`), ``init(known:)`` for validating typed input,
/// `Codable` as the bare string (from `RawRepresentable`), and ``description``.
///
/// ```swift
/// let severity = IssueSeverity(rawValue: "urgent")   // .other("urgent"): a newer server's value, kept
/// IssueSeverity(known: "urgent")                      // nil: not a value to send from this build
/// ```
public protocol WireValue: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible
where RawValue == String {
    /// The values this build knows, in the order people see them (e.g. least to most urgent).
    static var known: [Self] { get }
    /// A value this build does not know, kept exactly as the server sent it.
    static func other(_ rawValue: String) -> Self
}

extension WireValue {
    /// The known value whose wire string is `rawValue`, else ``other(_:)`` holding it (never `nil`).
    /// - Parameter rawValue: the string as sent (compared exactly).
    public init(rawValue: String) {
        self = Self.known.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    /// The known value whose wire string is `text`, or `nil` when this build does not know it (for input a
    /// person typed, which must be one of ``known``).
    /// - Parameter text: the string, compared exactly (normalise case before).
    public init?(known text: String) {
        guard let value = Self.known.first(where: { $0.rawValue == text }) else { return nil }
        self = value
    }

    /// Whether this is one of ``known`` (not a newer server's value).
    public var isKnown: Bool { Self.known.contains(self) }

    /// The known values' wire strings joined for a sentence: `low, medium, high, critical`.
    public static var knownList: String { known.map(\.rawValue).joined(separator: ", ") }

    /// The wire string.
    public var description: String { rawValue }
}
