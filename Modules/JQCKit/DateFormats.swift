import Foundation

/// The shared date formats: one instance of each, thread-safe, `en_US_POSIX` (seed 001 rules 35, 82).
///
/// - Instants are ISO 8601 with an offset (`2026-07-14T09:30:00-04:00`, or `Z`), optionally with
///   fractional seconds when reading.
/// - Calendar days are `yyyy-MM-dd` (due dates, `inspection_date`); "today" comes from the server
///   (CONTRACT.md, seed 003), never from this device's clock.
///
/// Never allocate a formatter per call: use these.
public enum DateFormats {
    /// Formats an instant as ISO 8601 in UTC with a `Z` suffix (`2026-07-14T13:30:00Z`).
    public static func instantString(_ date: Date) -> String {
        date.formatted(instantStyle)
    }

    /// Formats an instant as ISO 8601 with milliseconds in UTC (`2026-07-14T13:30:00.123Z`), for
    /// values that must keep sub-second order such as notification cursors.
    public static func preciseInstantString(_ date: Date) -> String {
        date.formatted(preciseInstantStyle)
    }

    /// Reads an ISO 8601 instant with an offset or `Z`, with or without fractional seconds.
    /// - Returns: the instant, or `nil` when the text is not such an instant.
    public static func instant(from text: String) -> Date? {
        if let date = try? preciseInstantStyle.parse(text) { return date }
        if let date = try? instantStyle.parse(text) { return date }
        return nil
    }

    /// Formats a calendar day as `yyyy-MM-dd` in `timeZone` (UTC by default).
    public static func dayString(_ date: Date, timeZone: TimeZone = .gmt) -> String {
        var style = dayStyle
        style.timeZone = timeZone
        return date.formatted(style)
    }

    /// Reads a `yyyy-MM-dd` calendar day as midnight UTC of that day.
    /// - Returns: the day, or `nil` when the text is not a valid `yyyy-MM-dd` date (`2026-02-30` is not).
    public static func day(from text: String) -> Date? {
        guard text.count == 10, let date = try? dayStyle.parse(text) else { return nil }
        // Reject days the parser silently rolls over (2026-02-30 → 2026-03-02).
        return dayString(date) == text ? date : nil
    }

    private static let instantStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: false, timeZone: .gmt)
    private static let preciseInstantStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: .gmt)
    private static let dayStyle = Date.ISO8601FormatStyle(timeZone: .gmt).year().month().day()
        .dateSeparator(.dash)
}

/// A calendar day (`yyyy-MM-dd`) held as its text, ordered as the text sorts.
public struct CalendarDay: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The day as `yyyy-MM-dd`.
    public let text: String

    /// A day from `yyyy-MM-dd` text.
    /// - Returns: `nil` when the text is not a valid calendar day.
    public init?(_ text: String) {
        guard DateFormats.day(from: text) != nil else { return nil }
        self.text = text
    }

    /// The day `days` after this one (negative for before).
    public func adding(days: Int) -> CalendarDay {
        let date = DateFormats.day(from: text)!.addingTimeInterval(TimeInterval(days) * 86_400)
        return CalendarDay(DateFormats.dayString(date))!
    }

    /// Whole days from `self` to `other` (positive when `other` is later).
    public func days(until other: CalendarDay) -> Int {
        let start = DateFormats.day(from: text)!, end = DateFormats.day(from: other.text)!
        return Int((end.timeIntervalSince(start) / 86_400).rounded())
    }

    public static func < (lhs: CalendarDay, rhs: CalendarDay) -> Bool { lhs.text < rhs.text }
    public var description: String { text }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let day = CalendarDay(text) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "'\(text)' is not a yyyy-MM-dd day."))
        }
        self = day
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
