import Foundation

/// Applies the text rules of the policy to a file's tokens.
public enum TextRuleMatcher {
    /// Where a text rule matched.
    public struct Match: Sendable, Equatable {
        /// The 1-based line of the first matching token (the string literal's opening delimiter).
        public var line: Int
        /// The 1-based column (UTF-8 bytes).
        public var column: Int
        /// For string-literal rules: the matched text, whitespace collapsed, at most 60 characters.
        public var excerpt: String?
    }

    /// A file's tokens sorted out once for every rule: code, comments, strings, and where each
    /// interesting token text occurs.
    public struct PreparedFile {
        let code: [Token]
        let comments: [Token]
        let strings: [Token]
        let positions: [String: [Int]]

        /// Sorts out a file's tokens.
        /// - Parameters:
        ///   - tokens: the file's tokens from ``SwiftLexer/tokenize(_:)``.
        ///   - firstTokens: the texts token rules start with; only their positions are indexed.
        public init(tokens: [Token], firstTokens: Set<String>) {
            var code: [Token] = []
            var comments: [Token] = []
            var strings: [Token] = []
            var positions: [String: [Int]] = [:]
            code.reserveCapacity(tokens.count)
            for token in tokens {
                switch token.kind {
                case .lineComment, .blockComment:
                    comments.append(token)
                case .string:
                    strings.append(token)
                    code.append(token)
                default:
                    if token.kind != .regex && firstTokens.contains(token.text) {
                        positions[token.text, default: []].append(code.count)
                    }
                    code.append(token)
                }
            }
            self.code = code
            self.comments = comments
            self.strings = strings
            self.positions = positions
        }
    }

    /// The places a rule matches in a file (compiles a string-literal rule's pattern on each call).
    /// - Parameters:
    ///   - rule: a validated text rule.
    ///   - tokens: the file's tokens from ``SwiftLexer/tokenize(_:)``.
    /// - Returns: the matches in source order.
    public static func matches(of rule: Policy.TextRule, in tokens: [Token]) -> [Match] {
        let file = PreparedFile(tokens: tokens, firstTokens: Set(rule.tokens?.prefix(1) ?? []))
        let expression = rule.pattern.flatMap { try? NSRegularExpression(pattern: $0) }
        return matches(of: rule, expression: expression, in: file)
    }

    /// The places a rule matches in a prepared file.
    /// - Parameters:
    ///   - rule: a validated text rule.
    ///   - expression: the compiled pattern of a string-literal rule (nil for token rules).
    ///   - file: the file, prepared with this rule's first token among `firstTokens`.
    /// - Returns: the matches in source order.
    public static func matches(of rule: Policy.TextRule, expression: NSRegularExpression?, in file: PreparedFile)
        -> [Match]
    {
        switch rule.check {
        case .tokens: tokenMatches(of: rule, in: file)
        case .stringLiteral: expression.map { stringMatches(of: $0, in: file) } ?? []
        }
    }

    private static func tokenMatches(of rule: Policy.TextRule, in file: PreparedFile) -> [Match] {
        guard let wanted = rule.tokens, let first = wanted.first, let starts = file.positions[first] else {
            return []
        }
        let code = file.code
        let notAfter = rule.notAfter ?? []
        var result: [Match] = []
        var covered = -1
        for start in starts where start > covered && start + wanted.count <= code.count {
            var matched = true
            for offset in 1..<wanted.count {
                let token = code[start + offset]
                if token.kind == .string || token.kind == .regex || token.text != wanted[offset] {
                    matched = false
                    break
                }
            }
            if matched && start > 0 && code[start - 1].kind != .string && notAfter.contains(code[start - 1].text) {
                matched = false
            }
            let line = code[start].line
            if matched, let marker = rule.unlessCommentContains {
                let excused = file.comments.contains { comment in
                    comment.line <= line && comment.endLine >= line - 1 && comment.text.contains(marker)
                }
                if excused { matched = false }
            }
            if matched {
                result.append(Match(line: line, column: code[start].column, excerpt: nil))
                covered = start + wanted.count - 1
            }
        }
        return result
    }

    private static func stringMatches(of expression: NSRegularExpression, in file: PreparedFile) -> [Match] {
        var result: [Match] = []
        for token in file.strings {
            let content = token.content
            let range = NSRange(content.startIndex..., in: content)
            guard let found = expression.firstMatch(in: content, range: range),
                let matchRange = Range(found.range, in: content)
            else { continue }
            let words = content[matchRange].split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            let excerpt = words.count > 60 ? String(words.prefix(59)) + "…" : words
            result.append(Match(line: token.line, column: token.column, excerpt: excerpt))
        }
        return result
    }
}
