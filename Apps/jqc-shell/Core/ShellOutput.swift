import Foundation
import JQCKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The one place the shell writes to the terminal (SHELL.md "Output"): results to stdout (one JSON line per
/// command with `--json`), diagnostics, progress and notification banners to stderr.
///
/// - **Terminal-safe** (STYLE.md item 18): every human line is passed through ``TerminalText/sanitized(_:keepingLineFeeds:)``
///   as a backstop, so no control byte other than LF reaches the terminal from any command, whatever it
///   interpolated. Colours are not escape sequences in the text: ``bold(_:)`` and friends insert markers
///   carrying a per-process random token, and only this writer turns them into SGR sequences after
///   sanitising — so a server string holding `ESC[31m` is shown escaped, never obeyed. `--json` lines are
///   written as they are (JSON escapes for itself).
/// - **Serialised**: writes from any thread (commands, background banners) go through one lock.
/// - **Prompt-aware**: while the line editor reads a line (``beginEditing(wake:)``), writes are queued and the
///   editor is woken; it clears the prompt line, prints them above and redraws the half-typed line.
/// - **Progress-aware**: a message written while a progress line shows clears it first and redraws it after.
final class ShellOutput: Sendable {
    /// Whether results are JSON lines.
    let json: Bool
    /// Whether our own SGR colours are written (`--color always`, or `auto` on a TTY without `NO_COLOR`).
    let color: Bool
    /// Whether stderr is a terminal (progress lines are shown only then).
    let stderrIsTerminal: Bool
    /// Whether stdin is a terminal (interactive mode).
    let stdinIsTerminal: Bool

    /// Opens a colour marker: this, the SGR parameter digits, then `markerEnd`. The token makes it impossible
    /// for foreign text to forge a marker.
    private let markerStart: String
    private static let markerEnd: Character = "\u{E001}"

    /// One queued write: the file descriptor and the finished bytes (rendered, with the final newline).
    struct QueuedWrite: Sendable {
        let descriptor: Int32
        let text: String
    }

    private struct State {
        var wakeEditor: (@Sendable () -> Void)?
        var queued: [QueuedWrite] = []
        var progress: String?
    }
    private let state = Mutex(State())

    init(options: ShellOptions, environment: [String: String] = ShellEnvironment.variables) {
        json = options.json
        stderrIsTerminal = isatty(STDERR_FILENO) == 1
        stdinIsTerminal = isatty(STDIN_FILENO) == 1
        switch options.color {
        case .always: color = true
        case .never: color = false
        case .auto: color = (environment["NO_COLOR"] ?? "").isEmpty && isatty(STDOUT_FILENO) == 1
        }
        markerStart = "\u{E000}" + String(UInt64.random(in: 1...UInt64.max), radix: 36) + ";"
    }

    // MARK: Writing

    /// Writes human `text` and a newline to stdout (sanitised; our colours applied).
    func out(_ text: String) { emit(STDOUT_FILENO, render(text) + "\n") }

    /// Writes human `text` and a newline to stderr (sanitised; our colours applied).
    func err(_ text: String) { emit(STDERR_FILENO, render(text) + "\n") }

    /// Writes one `--json` line to stdout as it is (JSON escapes every control character itself).
    func jsonLine(_ line: String) { emit(STDOUT_FILENO, line + "\n") }

    /// A transient progress line on stderr, shown only on a terminal; replaced by the next one.
    func progress(_ text: String) {
        guard stderrIsTerminal else { return }
        let line = render(text)
        state.withLock { state in
            guard state.wakeEditor == nil else { return }
            state.progress = line
            ShellOutput.write(STDERR_FILENO, "\r\u{1B}[2K" + line)
        }
    }

    /// Clears the progress line.
    func endProgress() {
        guard stderrIsTerminal else { return }
        state.withLock { state in
            guard state.progress != nil else { return }
            state.progress = nil
            ShellOutput.write(STDERR_FILENO, "\r\u{1B}[2K")
        }
    }

    private func emit(_ descriptor: Int32, _ text: String) {
        let wake = state.withLock { state -> (@Sendable () -> Void)? in
            if let wake = state.wakeEditor {
                state.queued.append(QueuedWrite(descriptor: descriptor, text: text))
                return wake
            }
            if let progress = state.progress {
                ShellOutput.write(STDERR_FILENO, "\r\u{1B}[2K")
                ShellOutput.write(descriptor, text)
                ShellOutput.write(STDERR_FILENO, progress)
            } else {
                ShellOutput.write(descriptor, text)
            }
            return nil
        }
        wake?()
    }

    /// `write(2)` until every byte is out (EINTR retried; a closed pipe drops the rest).
    static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    // MARK: The line editor's side

    /// The line editor starts reading a line: from now on writes are queued and `wake` is called (from the
    /// writing thread) so the editor prints them above its prompt.
    func beginEditing(wake: @escaping @Sendable () -> Void) {
        state.withLock { state in
            state.progress = nil
            state.wakeEditor = wake
        }
    }

    /// The writes queued since the last call (the editor prints them, in order).
    func takeQueued() -> [QueuedWrite] {
        state.withLock { state in
            defer { state.queued.removeAll() }
            return state.queued
        }
    }

    /// The line editor has returned a line: writes go straight out again; anything still queued is written now.
    func endEditing() {
        state.withLock { state in
            state.wakeEditor = nil
            for write in state.queued { ShellOutput.write(write.descriptor, write.text) }
            state.queued.removeAll()
        }
    }

    // MARK: Colour

    /// `text` in bold when colour is on.
    func bold(_ text: String) -> String { paint(text, "1") }
    /// `text` in red when colour is on.
    func red(_ text: String) -> String { paint(text, "31") }
    /// `text` in green when colour is on.
    func green(_ text: String) -> String { paint(text, "32") }
    /// `text` in yellow when colour is on.
    func yellow(_ text: String) -> String { paint(text, "33") }
    /// `text` dimmed when colour is on.
    func dim(_ text: String) -> String { paint(text, "2") }

    private func paint(_ text: String, _ code: String) -> String {
        color
            ? markerStart + code + String(ShellOutput.markerEnd) + text + markerStart + "0"
                + String(ShellOutput.markerEnd) : text
    }

    /// Human text as it is written: sanitised (LF kept), then our colour markers turned into SGR sequences
    /// (or dropped without colour).
    func render(_ text: String) -> String {
        let safe = TerminalText.sanitized(text, keepingLineFeeds: true)
        // A marker starts with U+E000 (UTF-8 EE 80 80): text without the byte 0xEE has none, and the byte scan
        // costs a fraction of Foundation's substring search over a long list (issue 17).
        guard safe.utf8.contains(0xEE), safe.contains(markerStart) else { return safe }
        let pieces = safe.components(separatedBy: markerStart)
        var result = pieces[0]
        for piece in pieces.dropFirst() {
            guard let end = piece.firstIndex(of: ShellOutput.markerEnd),
                piece[..<end].allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                result += piece
                continue
            }
            if color { result += "\u{1B}[" + piece[..<end] + "m" }
            result += piece[piece.index(after: end)...]
        }
        return result
    }
}
