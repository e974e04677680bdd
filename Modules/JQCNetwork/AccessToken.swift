import Foundation

/// Reads the claims of an access token (a JWT) without checking its signature: the client only needs
/// `exp` (and `iat`) to refresh before the server would refuse it (issue 4, issue 15). The server remains
/// the judge.
public enum AccessToken {
    /// The longest refresh margin, seconds before `exp` (on the server's clock).
    public static let longestRefreshMargin: Double = 60

    /// The `exp` claim of `token` as an instant, or `nil` when the token is not a JWT or has no numeric `exp`.
    /// - Parameter token: `header.payload.signature`, each part base64url without padding.
    public static func expiry(of token: String) -> Date? {
        claim("exp", of: token)
    }

    /// The `iat` (issued at) claim of `token` as an instant, or `nil` when absent or not a number.
    public static func issuedAt(of token: String) -> Date? {
        claim("iat", of: token)
    }

    /// How long before `exp` a token is refreshed: `min(60 s, lifetime / 2)`, so a token is used for at
    /// least half its life and refreshed at most once per lifetime, however short the server makes it
    /// (issue 15: 30 s tokens were refreshed before every request with a fixed 60 s margin).
    /// - Parameter lifetime: `exp − iat` (or `exp −` the time of issue) in seconds; `nil` when unknown.
    /// - Returns: seconds; 60 when the lifetime is unknown, 0 for a lifetime of 0 or less.
    public static func refreshMargin(lifetime: Double?) -> Double {
        guard let lifetime else { return longestRefreshMargin }
        return min(longestRefreshMargin, max(0, lifetime) / 2)
    }

    private static func claim(_ name: String, of token: String) -> Date? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let payload = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let value = object[name] as? NSNumber
        else { return nil }
        return Date(timeIntervalSince1970: value.doubleValue)
    }
}

/// Parses the HTTP `Date` header (IMF-fixdate, RFC 9110 §5.6.7: `Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The instant, or `nil` when `text` is not an IMF-fixdate with a real date and time (year 1…9999,
    /// hours 0…23, minutes 0…59, seconds 0…60). Out-of-range parts are refused, never computed with, so a
    /// hostile `Date` or `Retry-After` header cannot overflow the arithmetic (issue 21).
    static func parse(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        guard words.count == 6, words[5] == "GMT", words[1].count <= 2, words[3].count == 4,
            let day = Int(words[1]), let monthIndex = months.firstIndex(of: words[2].lowercased()),
            let year = Int(words[3]), (1...9999).contains(year)
        else { return nil }
        let clock = words[4].split(separator: ":", omittingEmptySubsequences: false)
        let time = clock.compactMap { $0.count == 2 ? Int($0) : nil }
        guard clock.count == 3, time.count == 3, (1...31).contains(day), (0...23).contains(time[0]),
            (0...59).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        let days = daysFromCivil(year: year, month: monthIndex + 1, day: day)
        let seconds = Double(days) * 86_400 + Double(time[0] * 3600 + time[1] * 60 + time[2])
        return Date(timeIntervalSince1970: seconds)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}

/// What the client reads from one access token before sending it (issue 17): the problem that keeps it
/// from being sent (``TokenCheck/problem(accessToken:)``), and its `exp` and `iat` claims
/// (``AccessToken``). Read once per token and kept by ``APIClient`` until the token changes, so a request
/// does not decode the token's base64 and JSON again.
struct TokenFacts: Sendable, Equatable {
    /// The token the facts are about.
    let token: String
    /// Why the token cannot be sent, or `nil`.
    let problem: String?
    /// `exp`, or `nil` when absent or unreadable.
    let expiry: Date?
    /// `iat`, or `nil` when absent or unreadable.
    let issuedAt: Date?

    /// The facts of `token`, read now.
    init(_ token: String) {
        self.token = token
        problem = TokenCheck.problem(accessToken: token)
        expiry = problem == nil ? AccessToken.expiry(of: token) : nil
        issuedAt = problem == nil ? AccessToken.issuedAt(of: token) : nil
    }
}
