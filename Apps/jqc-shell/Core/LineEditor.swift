import CEdit
import Foundation
import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt's line editor: libedit's wide-character API (`el_wgets`, `history_w`, `el_wline`,
/// `el_winsertstr`) over our own character reader (``EditorSession``), emacs bindings: ↑/↓ and Ctrl-P/Ctrl-N
/// recall, Ctrl-R incremental search (`em-inc-search-prev`), Backspace removes one character, Tab asks the
/// ``CompletionProvider``, Ctrl-C clears the line, Ctrl-D on an empty line ends input.
///
/// Needs a UTF-8 `LC_CTYPE` set before it is built (``TerminalLocale/prepareUTF8()``). The history here is
/// libedit's in-memory list only; the file is ``HistoryFile``'s (libedit's `H_LOAD`/`H_SAVE` follow symlinks).
final class LineEditor: @unchecked Sendable {  // because: one line is read at a time; the loop awaits each.
    /// What one read produced.
    enum Read: Equatable {
        /// A line (without its newline) and what was wrong with the input that made it.
        case line(String, InputProblems)
        /// End of input (Ctrl-D on an empty line, or the terminal closed).
        case end
    }

    /// Input that was not taken as typed while reading a line.
    struct InputProblems: OptionSet, Equatable {
        let rawValue: Int
        /// Bytes that are not UTF-8 arrived (each shown as U+FFFD in the line).
        static let invalidUTF8 = InputProblems(rawValue: 1)
        /// Characters past ``EditorSession/maximumLineLength`` were dropped.
        static let tooLong = InputProblems(rawValue: 2)
    }

    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let session: EditorSession
    private let historySize: Int

    /// Builds the editor on the process's terminal.
    /// - Parameters:
    ///   - output: the shell's writer (messages arriving while a line is edited are printed above it).
    ///   - completion: what Tab offers.
    ///   - historySize: how many lines ↑ can recall (0: none are kept).
    init(output: ShellOutput, completion: any CompletionProvider, historySize: Int) {
        session = EditorSession(output: output, completion: completion)
        self.historySize = historySize
        editLine = jqc_el_init("jqc-shell")
        history = history_winit()
        jqc_history_setsize(history, Int32(max(1, historySize)))
        jqc_history_setunique(history, 1)
        LineEditor.wide("emacs") { jqc_el_set_editor(editLine, $0) }
        jqc_el_set_history(editLine, history)
        jqc_el_set_signal(editLine, 1)
        jqc_el_set_prompt(editLine)
        jqc_el_set_clientdata(editLine, Unmanaged.passUnretained(session).toOpaque())
        jqc_el_set_read_function(editLine, LineEditor.readCharacter)
        LineEditor.wide("jqc-complete") { name in
            LineEditor.wide("Complete the word before the cursor") { help in
                jqc_el_add_function(editLine, name, help, LineEditor.completeCallback)
            }
        }
        bind("^I", "jqc-complete")
        // At the prompt Ctrl-C clears the line (as in a shell); while a command runs the terminal is back in its
        // normal mode, where Ctrl-C is SIGINT and cancels the command.
        LineEditor.wide("-isig") { jqc_el_set_edit_tty(editLine, $0) }
        bind("^C", "ed-start-over")
        // The emacs map binds these already; bound again so the behaviour does not hang on a default.
        bind("^R", "em-inc-search-prev")
        bind("^P", "ed-prev-history")
        bind("^N", "ed-next-history")
    }

    private func bind(_ key: String, _ function: String) {
        LineEditor.wide(key) { key in LineEditor.wide(function) { jqc_el_bind(editLine, key, $0) } }
    }

    /// Adds lines ↑ can recall, oldest first (the history file's contents at start).
    func loadHistory(_ lines: [String]) {
        for line in lines.suffix(historySize) { addHistory(line) }
    }

    /// Adds one line ↑ can recall (already masked: ``SecretMask``).
    func addHistory(_ line: String) {
        guard historySize > 0 else { return }
        LineEditor.wide(line) { _ = jqc_history_enter(history, $0) }
    }

    /// Drops input typed ahead of the next prompt (see ``EditorSession/discardTypeahead()``), from any thread
    /// while no line is being read: a command that prompts for a secret calls it first.
    var discardTypeahead: @Sendable () -> Int {
        let session = session
        return { session.discardTypeahead() }
    }

    /// Reads one line on a thread of its own (a blocking read never holds a thread of Swift's cooperative
    /// pool). Messages written meanwhile are printed above the prompt, the line redrawn intact.
    func readLine() async -> Read {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in continuation.resume(returning: readLineBlocking()) }
        }
    }

    private func readLineBlocking() -> Read {
        session.startLine()
        let wake = session.wake
        session.output.beginEditing(wake: wake)
        jqc_el_prepare_terminal(editLine)
        var count: Int32 = 0
        let line = el_wgets(editLine, &count)
        session.output.endEditing()
        guard let line, count > 0 else { return .end }
        var text = LineEditor.string(line, count: Int(count))
        while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
        return .line(text, session.problems)
    }

    /// Frees libedit's state (restoring the terminal).
    func close() {
        el_end(editLine)
        history_wend(history)
        session.close()
    }

    // MARK: C callbacks (libedit calls them on the reading thread; context through EL_CLIENTDATA)

    static let readCharacter: jqc_el_read_func = { editLine, character in
        guard let editLine, let character, let data = jqc_el_get_clientdata(editLine) else { return -1 }
        let session = Unmanaged<EditorSession>.fromOpaque(data).takeUnretainedValue()
        return session.readCharacter(editLine, into: character)
    }

    static let completeCallback: jqc_el_command_func = { editLine, _ in
        guard let editLine, let info = el_wline(editLine)?.pointee, let data = jqc_el_get_clientdata(editLine)
        else { return UInt8(CC_ERROR) }
        let session = Unmanaged<EditorSession>.fromOpaque(data).takeUnretainedValue()
        let typed = LineEditor.string(info.buffer, count: info.buffer.distance(to: info.cursor))
        let completion = session.completion.complete(typed)
        guard !completion.candidates.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if let insertion = completion.insertion {
            guard LineEditor.wide(insertion, { el_winsertstr(editLine, $0) }) == 0 else { return UInt8(CC_ERROR) }
        }
        guard completion.candidates.count > 1 else { return UInt8(CC_REFRESH) }
        let list = session.output.render(completion.candidates.joined(separator: "  ")) + "\n"
        session.printAboveLine(editLine, [ShellOutput.QueuedWrite(descriptor: STDOUT_FILENO, text: list)])
        return UInt8(CC_NORM)
    }

    // MARK: Wide strings

    /// `text` as a NUL-terminated `wchar_t` string for the duration of `body`.
    @discardableResult
    static func wide<Result>(_ text: String, _ body: (UnsafePointer<wchar_t>) -> Result) -> Result {
        let characters = text.unicodeScalars.map { wchar_t(bitPattern: $0.value) } + [0]
        return characters.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    /// `count` wide characters at `pointer` as a String (a value that is no Unicode scalar becomes U+FFFD).
    static func string(_ pointer: UnsafePointer<wchar_t>?, count: Int) -> String {
        guard let pointer, count > 0 else { return "" }
        var scalars = String.UnicodeScalarView()
        for index in 0..<count {
            scalars.append(Unicode.Scalar(UInt32(bitPattern: pointer[index])) ?? "\u{FFFD}")
        }
        return String(scalars)
    }
}
