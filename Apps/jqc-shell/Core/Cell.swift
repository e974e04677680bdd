import JQCKit

/// Foreign text placed inside one line of human output (a row of `facilities`, `issues`, `notifications`, …):
/// ``TerminalText/sanitized(_:keepingLineFeeds:)`` with line feeds shown as `\n` too (issue 14, SHELL.md
/// "Terminal-safe human output"). `ShellOutput` keeps LF in a whole block, since our layout's line breaks are
/// LFs; a server string's own LF or CR must not start a line of its own, where it could pass for a row or a
/// sentence of ours.
enum Cell {
    /// `text` safe to print inside one line: every control character, LF and CR included, shown escaped.
    static func shown(_ text: String) -> String { TerminalText.sanitized(text, keepingLineFeeds: false) }

    /// ``shown(_:)`` of an optional string, or `nil`.
    static func shown(_ text: String?) -> String? { text.map(shown) }
}
