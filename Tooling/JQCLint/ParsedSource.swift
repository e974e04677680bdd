import Dispatch
import SwiftParser
import SwiftSyntax
import Synchronization

/// A Swift source file parsed once by the toolchain's own SwiftParser, with what every check needs: the syntax
/// tree, line and column conversion, and the comments.
///
/// Parsing never fails: a file the compiler would refuse still yields a tree (with missing or unexpected
/// nodes), so the linter reports what it can read. Positions are 1-based; columns count UTF-8 bytes from the
/// start of the line, like the compiler's (a byte-order mark counts on line 1).
struct ParsedSource: Sendable {
    /// One comment of the file.
    struct Comment: Sendable {
        /// The comment's text, delimiters included (`// because: …`, `/* … */`, `/// …`).
        let text: String
        /// The 1-based line it starts on.
        let line: Int
        /// The 1-based line it ends on (differs from ``line`` for a block comment over several lines).
        let endLine: Int
    }

    /// The syntax tree.
    let tree: SourceFileSyntax
    /// Converts byte offsets to lines and columns.
    let converter: SourceLocationConverter

    /// Parses a source text.
    /// - Parameter text: the file's text.
    init(_ text: String) {
        tree = Parser.parse(source: text)
        converter = SourceLocationConverter(fileName: "", tree: tree)
    }

    /// Parses several texts on every core (parsing is most of a lint run); the results are in the texts' order.
    /// - Parameter texts: the files' texts.
    /// - Returns: one parsed file per text.
    static func parseAll(_ texts: [String]) -> [ParsedSource] {
        let results = Mutex<[ParsedSource?]>(Array(repeating: nil, count: texts.count))
        DispatchQueue.concurrentPerform(iterations: texts.count) { index in
            let parsed = ParsedSource(texts[index])
            results.withLock { $0[index] = parsed }
        }
        return results.withLock { $0.compactMap { $0 } }
    }

    /// The line and column of a position in the file.
    func place(_ position: AbsolutePosition) -> (line: Int, column: Int) {
        let location = converter.location(for: position)
        return (location.line, location.column)
    }

    /// The line and column where a node's first token starts (after its leading trivia).
    func place(of node: some SyntaxProtocol) -> (line: Int, column: Int) {
        place(node.positionAfterSkippingLeadingTrivia)
    }

    /// Every comment of the file, in source order (found in the trivia around the tokens).
    func comments() -> [Comment] {
        var result: [Comment] = []
        for token in tree.tokens(viewMode: .sourceAccurate) {
            var offset = token.position
            collect(token.leadingTrivia, from: &offset, into: &result)
            offset = token.endPositionBeforeTrailingTrivia
            collect(token.trailingTrivia, from: &offset, into: &result)
        }
        return result
    }

    private func collect(_ trivia: Trivia, from offset: inout AbsolutePosition, into result: inout [Comment]) {
        for piece in trivia {
            let start = offset
            offset = offset.advanced(by: piece.sourceLength.utf8Length)
            switch piece {
            case .lineComment(let text), .blockComment(let text), .docLineComment(let text),
                .docBlockComment(let text):
                let end = offset.advanced(by: -1)
                result.append(Comment(text: text, line: place(start).line, endLine: place(end).line))
            default:
                continue
            }
        }
    }
}
