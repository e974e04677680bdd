import Foundation
import JQCKit

/// Instants shown to people in this device's time zone (issue 14: "timestamps shown to people in the local
/// time zone"), `2026-12-02 09:41 CET`. JSON output keeps the contract's UTC ISO 8601 text.
enum LocalTime {
    /// `date` as `yyyy-MM-dd HH:mm ZONE` in the local time zone (`$TZ`, else the system's); the zone is its
    /// abbreviation (`CET`, `UTC`) or, when it has none, its offset (`GMT+5:30`).
    static func text(_ date: Date, in zone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        func two(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        let day = "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day))"
        return "\(day) \(two(parts.hour)):\(two(parts.minute)) \(zone.abbreviation(for: date) ?? zone.identifier)"
    }

    /// A server's ISO 8601 instant (CONTRACT.md) in the local time zone; text that is not one, as it came.
    static func text(serverInstant: String) -> String {
        DateFormats.instant(from: serverInstant).map { text($0) } ?? serverInstant
    }
}
