import Foundation

/// Strong entity tags for list replies and the `If-None-Match` test (CONTRACT.md, (ext) Conditional list
/// pulls; RFC 9110 §8.8.3 and §13.1.2).
enum EntityTag {
    /// The strong tag of a reply: `"` + 32 hex digits + `"`, the first 128 bits of
    /// SHA-256(`scope` ‖ 0x00 ‖ SHA-256(`body`)). `scope` is `user:<id>` for a reply that is per user, so
    /// another user's cached copy never matches, or `""` for a reply that is the same for everyone.
    /// - Parameters:
    ///   - bodyDigest: SHA-256 of the exact reply bytes (``ServerCrypto/sha256(_:)``).
    ///   - scope: whose reply it is.
    static func tag(bodyDigest: Data, scope: String) -> String {
        let digest = ServerCrypto.sha256([Data(scope.utf8), Data([0]), bodyDigest])
        return "\"" + ServerCrypto.hex(digest.prefix(16)) + "\""
    }

    /// True when an `If-None-Match` header value matches `tag`: `*`, or any tag in its comma-separated
    /// list whose quoted part equals `tag`'s (the weak comparison If-None-Match uses: a `W/` prefix is
    /// ignored). A malformed member matches nothing; the rest of the list is still read.
    static func ifNoneMatch(_ header: String, matches tag: String) -> Bool {
        let characters = Array(header.unicodeScalars)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == " " || character == "\t" || character == "," {
                index += 1
                continue
            }
            if character == "*" { return true }
            if character == "W", index + 1 < characters.count, characters[index + 1] == "/" { index += 2 }
            guard index < characters.count, characters[index] == "\"" else {
                // Not a tag: skip to the next member.
                while index < characters.count, characters[index] != "," { index += 1 }
                continue
            }
            var end = index + 1
            while end < characters.count, characters[end] != "\"" { end += 1 }
            guard end < characters.count else { return false }  // an unterminated tag ends the list
            var candidate = String.UnicodeScalarView()
            candidate.append(contentsOf: characters[index...end])
            if String(candidate) == tag { return true }
            index = end + 1
        }
        return false
    }
}
