import Foundation

/// Applies the text rules of the policy to what a file's syntax tree says (``SourceFacts``).
///
/// Each kind of rule reads one kind of syntax node, so comments, string contents and regex literals never
/// match a code rule, and code never matches a string rule: `reference` (a type or value used by name), `call`
/// (a free function called by name), `modifier` (a declaration modifier such as `nonisolated(unsafe)`),
/// `attribute` (such as `@unchecked`) and `string-literal` (a regular expression over each string literal).
public enum TextRuleMatcher {
    /// Where a text rule matched.
    public struct Match: Sendable, Equatable {
        /// The 1-based line of the matching node (a string literal's opening delimiter).
        public var line: Int
        /// The 1-based column (UTF-8 bytes).
        public var column: Int
        /// For string-literal rules: the matched text, whitespace collapsed, at most 60 characters.
        public var excerpt: String?
    }

    /// The places a rule matches in a source text (parses it and compiles a string-literal rule's pattern on
    /// each call).
    /// - Parameters:
    ///   - rule: a validated text rule.
    ///   - source: the file's text.
    /// - Returns: the matches in source order.
    public static func matches(of rule: Policy.TextRule, in source: String) -> [Match] {
        let file = ParsedSource(source)
        let expression = rule.pattern.flatMap { try? NSRegularExpression(pattern: $0) }
        return matches(of: rule, expression: expression, in: SourceFacts(file), comments: file.comments())
    }

    /// The places a rule matches in a file's facts.
    /// - Parameters:
    ///   - rule: a validated text rule.
    ///   - expression: the compiled pattern of a string-literal rule (nil for the other kinds).
    ///   - facts: the file's syntax facts.
    ///   - comments: the file's comments (read by `unlessCommentContains`).
    /// - Returns: the matches in source order.
    static func matches(
        of rule: Policy.TextRule, expression: NSRegularExpression?, in facts: SourceFacts,
        comments: [ParsedSource.Comment]
    ) -> [Match] {
        let names = Set(rule.names ?? [])
        let found: [Match]
        switch rule.check {
        case .reference: found = named(facts.references, names)
        case .call: found = named(facts.calls, names)
        case .modifier: found = named(facts.modifiers, names)
        case .attribute: found = named(facts.attributes, names)
        case .stringLiteral: found = expression.map { stringMatches(of: $0, in: facts.strings) } ?? []
        }
        guard let marker = rule.unlessCommentContains else { return found }
        return found.filter { match in
            !comments.contains { comment in
                comment.line <= match.line && comment.endLine >= match.line - 1 && comment.text.contains(marker)
            }
        }
    }

    private static func named(_ occurrences: [SourceFacts.Occurrence], _ names: Set<String>) -> [Match] {
        occurrences.filter { names.contains($0.text) }.map { Match(line: $0.line, column: $0.column, excerpt: nil) }
    }

    private static func stringMatches(of expression: NSRegularExpression, in strings: [SourceFacts.Occurrence])
        -> [Match]
    {
        var result: [Match] = []
        for literal in strings {
            let content = literal.text
            let range = NSRange(content.startIndex..., in: content)
            guard let found = expression.firstMatch(in: content, range: range),
                let matchRange = Range(found.range, in: content)
            else { continue }
            let words = content[matchRange].split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            let excerpt = words.count > 60 ? String(words.prefix(59)) + "…" : words
            result.append(Match(line: literal.line, column: literal.column, excerpt: excerpt))
        }
        return result
    }
}
