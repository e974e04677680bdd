import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where the shell writes: results to stdout (one JSON line per command with `--json`), and
/// diagnostics, progress and notification banners to stderr (SHELL.md). Color follows `--color`
/// and `NO_COLOR`.
final class ShellOutput: Sendable {
    /// Whether results are JSON lines.
    let json: Bool
    /// Whether ANSI color is used on stdout/stderr.
    let color: Bool
    /// Whether stderr is a terminal (progress lines are shown only then).
    let stderrIsTerminal: Bool
    /// Whether stdin is a terminal (interactive mode).
    let stdinIsTerminal: Bool

    init(options: ShellOptions, environment: [String: String] = ProcessInfo.processInfo.environment) {
        json = options.json
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
        stdinIsTerminal = isatty(STDIN_FILENO) == 1
        switch options.color {
        case .always: color = true
        case .never: color = false
        case .auto: color = (environment["NO_COLOR"] ?? "").isEmpty && isatty(STDOUT_FILENO) == 1
        }
    }

    /// Writes `text` and a newline to stdout, unbuffered (a waiting process sees it at once).
    func out(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes `text` and a newline to stderr.
    func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// A transient progress line on stderr, shown only on a terminal and never in JSON mode's stdout.
    func progress(_ text: String) {
        guard stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }

    /// Clears a progress line.
    func endProgress() {
        guard stderrIsTerminal else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }

    /// `text` in bold when color is on.
    func bold(_ text: String) -> String { paint(text, "1") }
    /// `text` in red when color is on.
    func red(_ text: String) -> String { paint(text, "31") }
    /// `text` in green when color is on.
    func green(_ text: String) -> String { paint(text, "32") }
    /// `text` in yellow when color is on.
    func yellow(_ text: String) -> String { paint(text, "33") }
    /// `text` dimmed when color is on.
    func dim(_ text: String) -> String { paint(text, "2") }

    private func paint(_ text: String, _ code: String) -> String {
        color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
