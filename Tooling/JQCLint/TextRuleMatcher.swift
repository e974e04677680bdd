import Foundation

/// Applies one text rule of the policy to a file's tokens.
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

    /// The places a rule matches in a file.
    /// - Parameters:
    ///   - rule: a validated text rule.
    ///   - tokens: the file's tokens from ``SwiftLexer/tokenize(_:)``.
    /// - Returns: the matches in source order.
    public static func matches(of rule: Policy.TextRule, in tokens: [Token]) -> [Match] {
        switch rule.check {
        case .tokens: tokenMatches(of: rule, in: tokens)
        case .stringLiteral: stringMatches(of: rule, in: tokens)
        }
    }

    private static func tokenMatches(of rule: Policy.TextRule, in tokens: [Token]) -> [Match] {
        let wanted = rule.tokens ?? []
        guard !wanted.isEmpty else { return [] }
        let code = tokens.filter { !$0.isComment }
        let comments = tokens.filter(\.isComment)
        let notAfter = Set(rule.notAfter ?? [])
        var result: [Match] = []
        var index = 0
        while index + wanted.count <= code.count {
            var matched = true
            for offset in 0..<wanted.count {
                let token = code[index + offset]
                if token.kind == .string || token.kind == .regex || token.text != wanted[offset] {
                    matched = false
                    break
                }
            }
            if matched && index > 0 && notAfter.contains(code[index - 1].text) && code[index - 1].kind != .string {
                matched = false
            }
            let first = code[index]
            if matched, let marker = rule.unlessCommentContains {
                let line = first.line
                let excused = comments.contains { comment in
                    comment.text.contains(marker) && comment.line <= line && comment.endLine >= line - 1
                }
                if excused { matched = false }
            }
            if matched {
                result.append(Match(line: first.line, column: first.column, excerpt: nil))
                index += wanted.count
            } else {
                index += 1
            }
        }
        return result
    }

    private static func stringMatches(of rule: Policy.TextRule, in tokens: [Token]) -> [Match] {
        guard let pattern = rule.pattern, let expression = try? NSRegularExpression(pattern: pattern) else {
            return []
        }
        var result: [Match] = []
        for token in tokens where token.kind == .string {
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
