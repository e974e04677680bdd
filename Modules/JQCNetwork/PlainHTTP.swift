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
}
