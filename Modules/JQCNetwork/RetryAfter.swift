import Foundation

/// Reads a `Retry-After` header (RFC 9110 §10.2.3) from a server that may lie (issue 21).
///
/// Accepted: delta-seconds (ASCII digits only) or an IMF-fixdate, measured on the server's clock. The
/// result is clamped to ``range`` (1 s to 1 h). Anything else is ignored (`nil`): a sign, a fraction,
/// an exponent (`1e300`), `inf`, more digits than a 64-bit integer holds, words, a date in another format.
public enum RetryAfter {
    /// The seconds a ``APIError/rateLimited(retryAfter:)`` wait is clamped to.
    public static let range: ClosedRange<Double> = 1...3600

    /// The wait in seconds, within ``range``, or `nil` when `text` is neither form.
    /// - Parameters:
    ///   - text: the header's value.
    ///   - serverNow: the server's estimated now (a date is measured against it).
    public static func seconds(_ text: String, serverNow: Date) -> Double? {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            guard let seconds = Int64(trimmed) else { return nil }  // more than 19 digits: ignored
            return clamp(Double(seconds))
        }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return clamp(date.timeIntervalSince(serverNow))
    }

    /// `seconds` within ``range`` (a date in the past waits the least).
    static func clamp(_ seconds: Double) -> Double? {
        guard seconds.isFinite else { return nil }
        return min(max(seconds, range.lowerBound), range.upperBound)
    }
}
