import Foundation
import JQCKit

/// One SQLite value, as stored: the five storage classes.
public enum DatabaseValue: Sendable, Hashable {
    /// `NULL`.
    case null
    /// `INTEGER`: a signed 64-bit integer (also booleans, 0 or 1).
    case integer(Int64)
    /// `REAL`: an 8-byte IEEE floating-point number.
    case real(Double)
    /// `TEXT`: a UTF-8 string.
    case text(String)
    /// `BLOB`: bytes, stored as given.
    case blob(Data)
}

/// A Swift type that can be bound to a statement parameter and read back from a column.
///
/// Conversions: `Int`, `Int64` ↔ integer; `Double` ↔ real; `String` ↔ text; `Data` ↔ blob;
/// `Bool` ↔ integer 0/1; `Date` ↔ UTC text `yyyy-MM-dd HH:mm:ss.SSS` (one fixed format, so it sorts);
/// `JSONValue` ↔ JSON text (lossless, sorted keys); `Optional` ↔ null.
public protocol DatabaseValueConvertible: Sendable {
    /// The value to bind.
    var databaseValue: DatabaseValue { get }
    /// Reads the type from a stored value.
    /// - Returns: `nil` when the stored value is null or of a class that does not convert.
    static func fromDatabaseValue(_ value: DatabaseValue) -> Self?
}

extension DatabaseValue: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> DatabaseValue? { value }
}

extension Int64: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int64? {
        switch value {
        case .integer(let int): int
        case .real(let double): Int64(exactly: double)
        case .text(let text): Int64(text)
        default: nil
        }
    }
}

extension Int: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(Int64(self)) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Int? {
        Int64.fromDatabaseValue(value).flatMap { Int(exactly: $0) }
    }
}

extension Double: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .real(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Double? {
        switch value {
        case .integer(let int): Double(int)
        case .real(let double): double
        case .text(let text): Double(text)
        default: nil
        }
    }
}

extension String: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .text(self) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> String? {
        switch value {
        case .text(let text): text
        case .integer(let int): String(int)
        case .real(let double): String(double)
        case .blob(let data): String(data: data, encoding: .utf8)
        case .null: nil
        }
    }
}

extension Data: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .blob(self) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Data? {
        switch value {
        case .blob(let data): data
        case .text(let text): Data(text.utf8)
        default: nil
        }
    }
}

extension Bool: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { .integer(self ? 1 : 0) }
    @inlinable
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Bool? {
        Int64.fromDatabaseValue(value).map { $0 != 0 }
    }
}

extension Date: DatabaseValueConvertible {
    /// UTC `yyyy-MM-dd HH:mm:ss.SSS`: fixed width, so text order is time order.
    public var databaseValue: DatabaseValue { .text(DatabaseDateFormat.string(self)) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Date? {
        guard case .text(let text) = value else { return nil }
        return DatabaseDateFormat.date(text)
    }
}

extension Date {
    /// The instant as the store's INTEGER time columns hold it (issue 17: `inspection_answers.answered_at`,
    /// 6 bytes where the text takes 23): milliseconds since 1970-01-01 00:00 UTC, rounded down exactly as the
    /// text form (`yyyy-MM-dd HH:mm:ss.SSS`) rounds, so both forms of an instant name the same millisecond.
    public var databaseMilliseconds: Int64 { DatabaseDateFormat.milliseconds(self) }

    /// The instant an INTEGER time column holds: `milliseconds` since 1970-01-01 00:00 UTC, built as the text
    /// form is read, so it compares equal to the same millisecond read from text and writes back unchanged.
    public init(databaseMilliseconds milliseconds: Int64) {
        self = DatabaseDateFormat.date(milliseconds: milliseconds)
    }

    /// The millisecond a stored date text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC) names, read from its fields
    /// exactly (for moving a text time column to INTEGER milliseconds), or `nil` when `text` is not one.
    public static func databaseMilliseconds(text: String) -> Int64? {
        DatabaseDateFormat.milliseconds(text: text)
    }
}

extension JSONValue: DatabaseValueConvertible {
    /// JSON text with sorted keys (lossless: `4.0` stays `4.0`).
    public var databaseValue: DatabaseValue { .text(jsonString()) }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> JSONValue? {
        guard case .text(let text) = value else { return nil }
        return try? JSONValue.parse(text)
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    public var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    public static func fromDatabaseValue(_ value: DatabaseValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.fromDatabaseValue(value).map { .some($0) }
    }
}

/// The one stored date format (UTC, millisecond precision, sortable as text).
enum DatabaseDateFormat {
    /// Milliseconds since 1970-01-01 UTC, rounded down: the millisecond the text names.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// The instant `milliseconds` after 1970-01-01 UTC (what ``date(_:)`` reads from the text): the nearest
    /// double, moved up by the few ulps it takes for ``milliseconds(_:)`` to floor it back to `milliseconds`
    /// (near 1970 the product with 1,000 can land just under the whole number, and the text written again
    /// named the millisecond before).
    static func date(milliseconds: Int64) -> Date {
        let seconds = milliseconds.floorDivided(by: 1000)
        var date = Date(
            timeIntervalSince1970: TimeInterval(seconds) + TimeInterval(milliseconds - seconds * 1000) / 1000)
        // A `Date` counts from 2001: step its own value, which is what `timeIntervalSince1970` is computed from.
        while Self.milliseconds(date) < milliseconds {
            date = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate.nextUp)
        }
        return date
    }

    static func string(_ date: Date) -> String {
        let milliseconds = milliseconds(date)
        let seconds = milliseconds.floorDivided(by: 1000)
        let fraction = milliseconds - seconds * 1000
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        let year = Int(parts.tm_year) + 1900
        guard (0...9999).contains(year) else { return padded(parts, fraction: Int(fraction)) }
        // Written digit by digit into the string's own 23 bytes (issue 17: an answer binds a date, and the
        // interpolated form below was ~7,000 instructions of each answer's own cost).
        let fields: [(value: Int, width: Int, separator: UInt8)] = [
            (year, 4, UInt8(ascii: "-")), (Int(parts.tm_mon) + 1, 2, UInt8(ascii: "-")),
            (Int(parts.tm_mday), 2, UInt8(ascii: " ")), (Int(parts.tm_hour), 2, UInt8(ascii: ":")),
            (Int(parts.tm_min), 2, UInt8(ascii: ":")), (Int(parts.tm_sec), 2, UInt8(ascii: ".")),
            (Int(fraction), 3, 0),
        ]
        return String(unsafeUninitializedCapacity: 23) { buffer in
            var offset = 0
            for field in fields {
                var value = field.value
                for index in stride(from: offset + field.width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                offset += field.width
                if field.separator != 0 {
                    buffer[offset] = field.separator
                    offset += 1
                }
            }
            return offset
        }
    }

    /// The same text by interpolation, for a year outside 0…9999 (each number as `String(value)` writes it).
    static func padded(_ parts: tm, fraction: Int) -> String {
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2)) "
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(Int(fraction), 3))"
    }

    /// Parses the stored format. Read in place from the text's bytes, and the day count computed from the
    /// civil date (issue 17: an inspection row carries several dates, and `Array(text.utf8)` plus `timegm`
    /// cost ~1,500 instructions each); a month outside 1…12 goes through `timegm`, which normalises it.
    static func date(_ text: String) -> Date? {
        milliseconds(text: text).map { date(milliseconds: $0) }
    }

    /// The millisecond the stored text names (its fields, exactly: no floating point), or `nil` when it is
    /// not the store's date text.
    static func milliseconds(text: String) -> Int64? {
        guard let parts = StoredDateParts(text) else { return nil }
        let (year, month, day) = (parts.year, parts.month, parts.day)
        let (hour, minute, second, millisecond) = (parts.hour, parts.minute, parts.second, parts.millisecond)
        let seconds: Int
        if (1...12).contains(month) {
            let days = daysFromCivil(year: year, month: month, day: day)
            seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        } else {
            var parts = tm()
            parts.tm_year = Int32(year - 1900)
            parts.tm_mon = Int32(month - 1)
            parts.tm_mday = Int32(day)
            parts.tm_hour = Int32(hour)
            parts.tm_min = Int32(minute)
            parts.tm_sec = Int32(second)
            seconds = Int(timegm(&parts))
        }
        return Int64(seconds) * 1000 + Int64(millisecond)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (month 1…12; a day past the month's end runs on
    /// into the next, as `timegm` does) — H. Hinnant's `days_from_civil`.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

/// The parts of a date as JQCStorage stores it (UTC `yyyy-MM-dd HH:mm:ss.SSS`, 23 ASCII bytes; see
/// `Date`'s ``DatabaseValueConvertible`` conformance), read digit by digit in place: the one reader of that
/// text for the store (``Row`` dates) and for whoever rewrites it without a `Date` (JQCInspections' push
/// body, issue 17). The separators are not checked and the values not range-checked.
public struct StoredDateParts: Sendable, Hashable {
    /// The year (4 digits), month (1…12 when valid), day, hour, minute, second and millisecond.
    public let year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int

    /// The parts of `text`, or `nil` when it is not 23 bytes or a digit's place holds something else.
    public init?(_ text: String) {
        var text = text
        guard
            let parts = text.withUTF8({ bytes -> StoredDateParts? in
                guard bytes.count == 23 else { return nil }
                func number(_ range: Range<Int>) -> Int? {
                    var value = 0
                    for index in range {
                        let digit = Int(bytes[index]) &- 48
                        guard (0...9).contains(digit) else { return nil }
                        value = value * 10 + digit
                    }
                    return value
                }
                guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                    let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                    let millisecond = number(20..<23)
                else { return nil }
                return StoredDateParts(
                    year: year, month: month, day: day, hour: hour, minute: minute, second: second,
                    millisecond: millisecond)
            })
        else { return nil }
        self = parts
    }

    private init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

/// One result row: column name → value, in the statement's column order.
public struct Row: Sendable, Hashable {
    /// Column names, in order.
    public let columns: [String]
    /// Values, in column order.
    public let values: [DatabaseValue]

    /// A row from parallel arrays.
    public init(columns: [String], values: [DatabaseValue]) {
        self.columns = columns
        self.values = values
    }

    /// The raw value of `column`, or `nil` when the row has no such column.
    @inlinable
    public func databaseValue(_ column: String) -> DatabaseValue? {
        // Lengths first (issue 17): a decoded row looks up each of its ~40 columns by name, and most names
        // differ in length, which a stored count tells at once; `==` only for the same length.
        let length = column.utf8.count
        for index in columns.indices where columns[index].utf8.count == length && columns[index] == column {
            return values[index]
        }
        return nil
    }

    /// The value of `column` converted to `T`. Inlinable (issue 17), so a caller's read of a concrete type is
    /// specialised in the caller: no generic metadata or witness lookups per column.
    /// - Returns: `nil` when the column is missing, null, or does not convert.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ column: String) -> T? {
        databaseValue(column).flatMap(T.fromDatabaseValue)
    }

    /// The value at `index` converted to `T`, or `nil`.
    @inlinable
    public subscript<T: DatabaseValueConvertible>(_ index: Int) -> T? {
        index < values.count ? T.fromDatabaseValue(values[index]) : nil
    }
}
