import CEdit
import Foundation
import JQCKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The interactive prompt: libedit line editing, history in the data directory, tab completion of
/// command names, Ctrl-C cancels the running command, Ctrl-D quits (issue 5).
struct InteractiveLoop {
    let context: CommandContext
    let runner: ShellRunner

    /// Runs until `quit` or end of input. Returns 0.
    func run() async -> Int32 {
        let output = context.output
        output.out(await Banner.text(context: context))
        let editor = LineEditor(historyFile: context.dataDirectory.file("history"), registry: context.registry)
        InterruptCounter.install()
        while !context.quitRequested.isSet {
            guard let line = await editor.readLine(prompt: "jqc> ") else {
                output.out("")
                break
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            editor.addToHistory(trimmed)
            let task = Task { await runner.run(line: trimmed) }
            let watcher = InterruptCounter.cancelOnInterrupt(task)
            _ = await task.value
            watcher.cancel()
        }
        editor.close()
        return 0
    }
}

/// Ctrl-C while a command runs cancels it instead of killing the shell. A `sigaction` handler (process-wide,
/// so whichever thread takes the signal) counts interrupts in an atomic; a watcher polls the count while a
/// command runs. (libdispatch's signal sources use signalfd on Linux, which needs SIGINT blocked in every
/// thread; an ignored signal never reaches them.)
enum InterruptCounter {
    /// SIGINTs received since start.
    static let count = Atomic<Int>(0)

    /// Installs the counting handler (replacing the default, which would end the process).
    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in InterruptCounter.count.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
    }

    /// Cancels `task` when an interrupt arrives after this call, until the task ends.
    static func cancelOnInterrupt(_ task: Task<Bool, Never>) -> Task<Void, Never> {
        let baseline = count.load(ordering: .relaxed)
        return Task {
            while !Task.isCancelled {
                if count.load(ordering: .relaxed) != baseline {
                    task.cancel()
                    return
                }
                try? await Task.sleep(nanoseconds: 50_000_000)
            }
        }
    }
}

/// A libedit line editor (CEdit's typed wrappers; callbacks are static functions, STYLE.md pitfalls).
final class LineEditor: @unchecked Sendable {  // because: used only by the interactive loop, one call at a time.
    private let editLine: OpaquePointer
    private let history: OpaquePointer
    private let historyFile: URL
    private let completer: Completer

    /// Tab-completion context reached from the C callback through `EL_CLIENTDATA`.
    final class Completer: Sendable {
        let registry: CommandRegistry
        init(registry: CommandRegistry) { self.registry = registry }
    }

    init(historyFile: URL, registry: CommandRegistry) {
        self.historyFile = historyFile
        completer = Completer(registry: registry)
        editLine = jqc_el_init("jqc-shell")
        history = history_init()
        var event = HistEvent()
        jqc_history_setsize(history, &event, 1000)
        jqc_history_setunique(history, &event, 1)
        jqc_history_load(history, &event, historyFile.path)
        jqc_el_set_editor(editLine, "emacs")
        jqc_el_set_history(editLine, history)
        jqc_el_set_signal(editLine, 1)
        jqc_el_set_prompt(editLine, jqc_el_shell_prompt)
        jqc_el_set_clientdata(editLine, Unmanaged.passUnretained(completer).toOpaque())
        jqc_el_add_function(editLine, "jqc-complete", "Complete a command name", LineEditor.completeCallback)
        jqc_el_bind(editLine, "^I", "jqc-complete")
        // At the prompt Ctrl-C clears the line (as in a shell); while a command runs the terminal is back in its
        // normal mode, where Ctrl-C is SIGINT and cancels the command.
        jqc_el_set_edit_tty(editLine, "-isig")
        jqc_el_bind(editLine, "^C", "ed-start-over")
    }

    private static let completeCallback: jqc_el_command_func = { editLine, _ in
        guard let editLine, let info = el_line(editLine)?.pointee,
            let data = jqc_el_get_clientdata(editLine)
        else { return UInt8(CC_ERROR) }
        let completer = Unmanaged<Completer>.fromOpaque(data).takeUnretainedValue()
        let length = info.cursor - info.buffer
        let typed = String(
            decoding: UnsafeRawBufferPointer(start: info.buffer, count: length).bindMemory(to: UInt8.self),
            as: UTF8.self)
        let prefix = typed.drop { $0 == " " }
        let matches = completer.registry.completions(for: String(prefix))
        guard !matches.isEmpty else { return UInt8(CC_REFRESH_BEEP) }
        if matches.count == 1 {
            let rest = String(matches[0].dropFirst(prefix.count)) + " "
            return el_insertstr(editLine, rest) == 0 ? UInt8(CC_REFRESH) : UInt8(CC_ERROR)
        }
        // Insert the common prefix, then list the candidates.
        var common = matches[0]
        for match in matches.dropFirst() { while !match.hasPrefix(common) { common.removeLast() } }
        if common.count > prefix.count { _ = el_insertstr(editLine, String(common.dropFirst(prefix.count))) }
        FileHandle.standardOutput.write(Data(("\n" + matches.joined(separator: "  ") + "\n").utf8))
        return UInt8(CC_REDISPLAY)
    }

    /// Reads one line on a thread of its own; `nil` at end of input (Ctrl-D).
    func readLine(prompt: String) async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                var count: Int32 = 0
                guard let line = el_gets(editLine, &count) else {
                    continuation.resume(returning: nil)
                    return
                }
                continuation.resume(returning: String(cString: line).trimmingCharacters(in: .newlines))
            }
        }
    }

    /// Records a line in the history and saves the history file (0600 by the process umask).
    func addToHistory(_ line: String) {
        var event = HistEvent()
        jqc_history_enter(history, &event, line)
        jqc_history_save(history, &event, historyFile.path)
    }

    /// Frees libedit's state.
    func close() {
        history_end(history)
        el_end(editLine)
    }
}
