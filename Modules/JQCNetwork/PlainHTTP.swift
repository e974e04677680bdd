import Foundation

/// When plain `http://` may be used (issue 21; SHELL.md "Invocation"): to a loopback host always (the dev
/// server), to any other host only with `--allow-insecure-http` — and then the transport warns before a
/// password goes out (``HTTPRequest/carriesPassword``).
public enum PlainHTTP {
    /// Whether `host` names this machine by itself: `localhost` (libcurl resolves it to loopback without
    /// asking DNS), an IPv4 address in 127.0.0.0/8 written as a dotted quad, or `::1`. The host is judged
    /// as written; nothing is resolved.
    /// - Parameter host: a URL's host, with or without IPv6 brackets, any letter case.
    public static func isLoopback(host: String) -> Bool {
        // A plain dotted quad is judged on its bytes (issue 17: every request to the dev server asks, and the
        // lowercasing and splitting below were ~17,000 instructions of each); anything else as before.
        if let first = dottedQuadFirstOctet(host.utf8) { return first == 127 }
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "localhost." || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4 else { return false }
        let values = octets.map { octet -> Int? in
            guard (1...3).contains(octet.count), octet.allSatisfy(\.isASCII), octet.allSatisfy(\.isNumber) else {
                return nil
            }
            return Int(octet).flatMap { (0...255).contains($0) ? $0 : nil }
        }
        return values.allSatisfy { $0 != nil } && values.first == 127
    }

    /// Whether `url` is plain `http://` to a host that is not loopback (its traffic, tokens and passwords
    /// included, can be read and changed on the way).
    public static func isInsecure(_ url: URL) -> Bool {
        url.scheme?.lowercased() == "http" && !isLoopback(host: url.host ?? "")
    }

    /// The first number of `host` when it is exactly four dot-separated decimal numbers of one to three
    /// ASCII digits, each at most 255 (what ``isLoopback(host:)`` reads as an IPv4 address), else `nil`.
    private static func dottedQuadFirstOctet(_ host: String.UTF8View) -> Int? {
        var dots = 0
        var digits = 0
        var value = 0
        var first = 0
        for byte in host {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, dots < 3 else { return nil }
                if dots == 0 { first = value }
                dots += 1
                digits = 0
                value = 0
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                guard digits <= 3, value <= 255 else { return nil }
            } else {
                return nil
            }
        }
        return dots == 3 && digits > 0 ? first : nil
    }
}
