/// One lexical element of a Swift source file, as far as the linter needs to understand it.
///
/// Positions are 1-based; columns count UTF-8 bytes from the start of the line, like the compiler's.
public struct Token: Sendable, Equatable {
    /// What kind of element a token is.
    public enum Kind: Sendable, Equatable {
        /// An identifier or keyword (`import`, `Timer`, `print`); backticks are removed.
        case word
        /// An attribute such as `@unchecked` or `@testable` (the text keeps the `@`).
        case attribute
        /// A compiler directive or literal such as `#if`, `#endif`, `#filePath` (the text keeps the `#`).
        case pound
        /// A number literal.
        case number
        /// A string literal of any form; ``Token/content`` holds its literal text.
        case string
        /// A regular-expression literal written `#/…/#`.
        case regex
        /// A `//` comment (the text is the whole comment, without the line break).
        case lineComment
        /// A `/* … */` comment, nested comments included.
        case blockComment
        /// Any other single character: `(`, `)`, `.`, `;`, operators.
        case punctuation
    }

    /// The kind of element.
    public var kind: Kind
    /// The element's text; for strings the source text of the opening delimiter only.
    public var text: String
    /// The 1-based line the element starts on.
    public var line: Int
    /// The 1-based column (UTF-8 bytes) the element starts at.
    public var column: Int
    /// The 1-based line the element ends on (differs from ``line`` for multi-line strings and comments).
    public var endLine: Int
    /// For a string literal: its literal text, escapes left as written, each interpolation replaced by `{}`.
    public var content: String

    /// Whether the token is a comment.
    public var isComment: Bool { kind == .lineComment || kind == .blockComment }
}

/// A small Swift lexer: enough to tell code from comments and string contents.
///
/// It understands line comments, nested block comments, string literals (single-line, multi-line `"""`,
/// raw `#"…"#` with any number of `#`), interpolation `\( … )` (whose code is lexed as code, in place),
/// `#/…/#` regex literals, attributes, directives and backticked identifiers. Bare `/…/` regex literals
/// are lexed as operators. Unterminated constructs end at the end of the file; lexing never fails.
public enum SwiftLexer {
    /// Splits a source text into tokens in source order (interpolated code appears after its string token).
    /// - Parameter source: the file's text.
    /// - Returns: the tokens; whitespace is dropped.
    public static func tokenize(_ source: String) -> [Token] {
        var scanner = Scanner(bytes: Array(source.utf8))
        scanner.lexCode(insideInterpolation: false)
        return scanner.tokens
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var lineStart = 0
        var tokens: [Token] = []

        init(bytes: [UInt8]) { self.bytes = bytes }

        var column: Int { index - lineStart + 1 }

        func byte(at offset: Int) -> UInt8? {
            offset < bytes.count ? bytes[offset] : nil
        }

        mutating func newline() {
            index += 1
            line += 1
            lineStart = index
        }

        func text(_ start: Int, _ end: Int) -> String {
            String(decoding: bytes[start..<min(end, bytes.count)], as: UTF8.self)
        }

        mutating func emit(_ kind: Token.Kind, from start: Int, line startLine: Int, column startColumn: Int) {
            tokens.append(
                Token(
                    kind: kind, text: text(start, index), line: startLine, column: startColumn,
                    endLine: line, content: ""))
        }

        static func isIdentifierHead(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte >= 0x80
                || byte == 0x24
        }

        static func isIdentifierBody(_ byte: UInt8) -> Bool {
            isIdentifierHead(byte) || (byte >= 0x30 && byte <= 0x39)
        }

        /// Lexes code until the end of input, or (inside an interpolation) until its closing parenthesis.
        mutating func lexCode(insideInterpolation: Bool) {
            var depth = 0
            while index < bytes.count {
                let current = bytes[index]
                let startLine = line
                let startColumn = column
                let start = index
                switch current {
                case 0x0A:
                    newline()
                case 0x20, 0x09, 0x0D, 0x0B, 0x0C:
                    index += 1
                case 0x2F where byte(at: index + 1) == 0x2F:  // "//"
                    while index < bytes.count && bytes[index] != 0x0A { index += 1 }
                    emit(.lineComment, from: start, line: startLine, column: startColumn)
                case 0x2F where byte(at: index + 1) == 0x2A:  // "/*"
                    lexBlockComment()
                    emit(.blockComment, from: start, line: startLine, column: startColumn)
                case 0x22:  // '"'
                    lexString(hashes: 0, start: start)
                case 0x23:  // '#'
                    var hashes = 0
                    while byte(at: index + hashes) == 0x23 { hashes += 1 }
                    let next = byte(at: index + hashes)
                    if next == 0x22 {
                        lexString(hashes: hashes, start: start)
                    } else if next == 0x2F {
                        lexRegex(hashes: hashes)
                        emit(.regex, from: start, line: startLine, column: startColumn)
                    } else if hashes == 1, let next, Scanner.isIdentifierHead(next) {
                        index += 1
                        while let body = byte(at: index), Scanner.isIdentifierBody(body) { index += 1 }
                        emit(.pound, from: start, line: startLine, column: startColumn)
                    } else {
                        index += 1
                        emit(.punctuation, from: start, line: startLine, column: startColumn)
                    }
                case 0x40:  // '@'
                    index += 1
                    if let next = byte(at: index), Scanner.isIdentifierHead(next) {
                        while let body = byte(at: index), Scanner.isIdentifierBody(body) { index += 1 }
                        emit(.attribute, from: start, line: startLine, column: startColumn)
                    } else {
                        emit(.punctuation, from: start, line: startLine, column: startColumn)
                    }
                case 0x60:  // '`'
                    index += 1
                    while let body = byte(at: index), body != 0x60, body != 0x0A { index += 1 }
                    let name = text(start + 1, index)
                    if byte(at: index) == 0x60 { index += 1 }
                    tokens.append(
                        Token(
                            kind: .word, text: name, line: startLine, column: startColumn,
                            endLine: line, content: ""))
                case let head where Scanner.isIdentifierHead(head):
                    while let body = byte(at: index), Scanner.isIdentifierBody(body) { index += 1 }
                    emit(.word, from: start, line: startLine, column: startColumn)
                case 0x30...0x39:
                    while let body = byte(at: index) {
                        if Scanner.isIdentifierBody(body) {
                            index += 1
                        } else if body == 0x2E, let after = byte(at: index + 1), after >= 0x30, after <= 0x39 {
                            index += 1
                        } else {
                            break
                        }
                    }
                    emit(.number, from: start, line: startLine, column: startColumn)
                case 0x28:  // '('
                    depth += 1
                    index += 1
                    emit(.punctuation, from: start, line: startLine, column: startColumn)
                case 0x29:  // ')'
                    index += 1
                    if insideInterpolation && depth == 0 { return }
                    depth -= 1
                    emit(.punctuation, from: start, line: startLine, column: startColumn)
                default:
                    index += 1
                    emit(.punctuation, from: start, line: startLine, column: startColumn)
                }
            }
        }

        mutating func lexBlockComment() {
            index += 2
            var depth = 1
            while index < bytes.count && depth > 0 {
                let current = bytes[index]
                if current == 0x0A {
                    newline()
                } else if current == 0x2F && byte(at: index + 1) == 0x2A {
                    depth += 1
                    index += 2
                } else if current == 0x2A && byte(at: index + 1) == 0x2F {
                    depth -= 1
                    index += 2
                } else {
                    index += 1
                }
            }
        }

        mutating func lexRegex(hashes: Int) {
            index += hashes + 1
            while index < bytes.count {
                if bytes[index] == 0x0A {
                    newline()
                } else if bytes[index] == 0x5C {
                    index += 2
                } else if bytes[index] == 0x2F && hasHashes(hashes, at: index + 1) {
                    index += 1 + hashes
                    return
                } else {
                    index += 1
                }
            }
        }

        func hasHashes(_ count: Int, at offset: Int) -> Bool {
            for step in 0..<count where byte(at: offset + step) != 0x23 { return false }
            return true
        }

        /// Lexes a string literal whose opening `#…#"` starts at `start`; emits its token before any
        /// token of its interpolations.
        mutating func lexString(hashes: Int, start: Int) {
            let startLine = line
            let startColumn = column
            index += hashes
            let multiline = byte(at: index + 1) == 0x22 && byte(at: index + 2) == 0x22
            index += multiline ? 3 : 1
            let delimiter = text(start, index)
            let slot = tokens.count
            tokens.append(
                Token(
                    kind: .string, text: delimiter, line: startLine, column: startColumn,
                    endLine: startLine, content: ""))
            var content: [UInt8] = []
            while index < bytes.count {
                let current = bytes[index]
                if current == 0x5C && hasHashes(hashes, at: index + 1) {  // backslash + hashes
                    let after = index + 1 + hashes
                    if byte(at: after) == 0x28 {  // interpolation
                        index = after + 1
                        content.append(contentsOf: Array("{}".utf8))
                        var inner = Scanner(bytes: bytes)
                        inner.index = index
                        inner.line = line
                        inner.lineStart = lineStart
                        inner.lexCode(insideInterpolation: true)
                        index = inner.index
                        line = inner.line
                        lineStart = inner.lineStart
                        tokens.append(contentsOf: inner.tokens)
                        continue
                    }
                    if byte(at: after) == 0x0A {
                        index = after
                        newline()
                        continue
                    }
                    content.append(contentsOf: bytes[index..<min(after + 1, bytes.count)])
                    index = min(after + 1, bytes.count)
                    continue
                }
                if current == 0x22 {
                    let quotes = multiline ? 3 : 1
                    var closing = true
                    for step in 0..<quotes where byte(at: index + step) != 0x22 { closing = false }
                    if closing && hasHashes(hashes, at: index + quotes) {
                        index += quotes + hashes
                        break
                    }
                    content.append(current)
                    index += 1
                    continue
                }
                if current == 0x0A {
                    if !multiline { break }  // unterminated single-line string: stop at the line's end
                    content.append(current)
                    newline()
                    continue
                }
                content.append(current)
                index += 1
            }
            tokens[slot].endLine = line
            tokens[slot].content = String(decoding: content, as: UTF8.self)
        }
    }
}
