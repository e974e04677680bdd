import Foundation

/// Why a 2xx body is not a JSON text, as a phrase for ``APIError/undecodable(_:)`` (issue 21): each cause has its
/// own words, and the body itself is never repeated.
///
/// Checked in order: empty; a web page (`<`); not UTF-8; nested deeper than ``maximumDepth`` (the parser's own
/// limit, so a hostile reply cannot exhaust the stack); cut short (ended inside a string or an open list or
/// object); anything else is "not valid JSON" with the byte offset where the scan found it wrong, when known.
public enum ReplyText {
    /// The deepest nesting of lists and objects read: 512 levels, the JSON parser's limit.
    public static let maximumDepth = 512

    /// The phrase for an unreadable body.
    /// - Parameter body: the reply body as received.
    public static func problem(_ body: Data) -> String {
        let start = body.prefix(64).drop(while: { [0x20, 0x09, 0x0A, 0x0D].contains($0) })
        if start.isEmpty { return "the reply was empty" }
        if start.first == UInt8(ascii: "<") { return "the server sent a web page instead of data" }
        if String(data: body, encoding: .utf8) == nil { return "the reply is not valid UTF-8 text" }
        let scan = ReplyText.scan(body)
        if scan.deepest > maximumDepth {
            return "the reply is nested more than \(maximumDepth) levels deep"
        }
        if scan.open > 0 || scan.inString { return "the reply was cut short" }
        if let first = start.first, first != UInt8(ascii: "{"), first != UInt8(ascii: "["),
            first != UInt8(ascii: "\""), !(first >= 0x30 && first <= 0x39), first != UInt8(ascii: "-"),
            first != UInt8(ascii: "t"), first != UInt8(ascii: "f"), first != UInt8(ascii: "n")
        {
            return "the reply was not JSON"
        }
        return "the reply is not valid JSON"
    }

    /// The structure of `body` as far as brackets and strings go: the deepest nesting, the lists and objects
    /// still open at the end, and whether it ended inside a string.
    static func scan(_ body: Data) -> (deepest: Int, open: Int, inString: Bool) {
        var depth = 0, deepest = 0
        var inString = false, escaped = false
        for byte in body {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(0, depth - 1)
            default: break
            }
        }
        return (deepest, depth, inString)
    }
}
