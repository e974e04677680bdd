/// Where things are in the policy file's JSON text, so findings about the policy point at a line and column.
///
/// Only strings and the structural characters are told apart (that is all a location needs); numbers,
/// `true`, `false` and `null` are skipped. Malformed text never fails: it was already refused by the decoder.
struct PolicyLocations {
    /// One string or structural character of the JSON text.
    struct Token: Equatable {
        /// `"` for a string (its ``content`` holds the text between the quotes, escapes as written), else the
        /// character: `{`, `}`, `[`, `]`, `:` or `,`.
        let kind: Character
        /// A string's text between its quotes; empty for structural characters.
        let content: String
        /// The 1-based line.
        let line: Int
        /// The 1-based column (UTF-8 bytes).
        let column: Int
    }

    /// The tokens in text order.
    let tokens: [Token]

    /// Reads a JSON text.
    init(_ text: String) {
        var tokens: [Token] = []
        let bytes = Array(text.utf8)
        var index = 0
        var line = 1
        var lineStart = 0
        while index < bytes.count {
            let byte = bytes[index]
            let column = index - lineStart + 1
            switch byte {
            case UInt8(ascii: "\n"):
                line += 1
                lineStart = index + 1
                index += 1
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < bytes.count && bytes[end] != UInt8(ascii: "\"") && bytes[end] != UInt8(ascii: "\n") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                let content = String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self)
                tokens.append(Token(kind: "\"", content: content, line: line, column: column))
                index = end < bytes.count && bytes[end] == UInt8(ascii: "\"") ? end + 1 : end
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: ":"),
                UInt8(ascii: ","):
                tokens.append(Token(kind: Character(Unicode.Scalar(byte)), content: "", line: line, column: column))
                index += 1
            default:
                index += 1
            }
        }
        self.tokens = tokens
    }

    /// The first string whose text is `content`.
    func firstString(_ content: String) -> Token? {
        tokens.first { $0.kind == "\"" && $0.content == content }
    }

    /// The line and column of each `{` that opens an entry of the top-level `exceptions` array, in order.
    func exceptionEntries() -> [(line: Int, column: Int)] {
        guard let key = tokens.firstIndex(where: { $0.kind == "\"" && $0.content == "exceptions" }) else {
            return []
        }
        var result: [(line: Int, column: Int)] = []
        var depth = 0
        for token in tokens[(key + 1)...] {
            if token.kind == "[" || token.kind == "{" {
                if token.kind == "{" && depth == 1 { result.append((token.line, token.column)) }
                depth += 1
            } else if token.kind == "]" || token.kind == "}" {
                depth -= 1
                if depth <= 0 { break }
            }
        }
        return result
    }
}
