import JQCKit

/// What the prompt refuses to run (issue 14 "Bad input"): a line that held bytes that are not UTF-8, a line
/// longer than ``EditorSession/maximumLineLength`` characters, or a line holding a control character (only
/// Ctrl-V puts one in). Such a line gets a sentence, is not run and is not kept in the history, so nothing
/// corrupted is stored.
enum PromptLine {
    /// The sentence refusing `line`, or `nil` when it may run.
    /// - Parameters:
    ///   - line: the line as read (without its newline).
    ///   - problems: what the reader noticed while the line was typed.
    static func refusal(_ line: String, problems: LineEditor.InputProblems) -> String? {
        if problems.contains(.tooLong) {
            return "The line is longer than \(EditorSession.maximumLineLength) characters, so it was cut off; "
                + "it was not run and not kept. Put long text in a file instead."
        }
        if problems.contains(.invalidUTF8) || line.unicodeScalars.contains("\u{FFFD}") {
            return "The line held bytes that are not UTF-8 (shown as \u{FFFD}); it was not run and not kept. "
                + "Check that the terminal sends UTF-8."
        }
        if let control = line.unicodeScalars.first(where: isControl) {
            let shown = TerminalText.sanitized(String(Character(control)))
            return "The line holds a control character (\(shown)); it was not run and not kept. "
                + "Type it again without Ctrl-V."
        }
        return nil
    }

    /// A C0 or C1 control character or DEL (bidirectional marks may be typed: they are escaped only on display).
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
