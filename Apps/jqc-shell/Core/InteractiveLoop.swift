import Foundation
import JQCKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The interactive prompt (issue 5, issue 14): the banner, then one line at a time from the ``LineEditor``
/// (or, without a UTF-8 locale, plain lines with a sentence saying why), each checked (``PromptLine``),
/// kept masked in the ``HistoryFile``, and run with Ctrl-C cancelling it. Ctrl-D or `quit` ends the loop.
struct InteractiveLoop {
    let context: CommandContext
    let runner: ShellRunner

    /// Runs until `quit` or end of input. Returns 0.
    func run() async -> Int32 {
        let output = context.output
        output.out(await Banner.text(context: context))
        let (limit, limitWarning) = HistoryFile.limit(environment: ShellEnvironment.variables)
        let history = HistoryFile(url: context.dataDirectory.file("history"), limit: limit)
        for warning in [limitWarning].compactMap({ $0 }) + history.load() {
            output.err(output.yellow("warning: ") + warning)
        }
        InterruptCounter.install()
        let editor: LineEditor?
        if TerminalLocale.prepareUTF8() {
            editor = LineEditor(
                output: output,
                completion: CommandLineCompletion(
                    registry: context.registry, values: EngineCompletionValues(context: context)), historySize: limit)
            editor?.loadHistory(history.entries)
            context.setTypeaheadDiscarder(editor?.discardTypeahead)
        } else {
            editor = nil
            output.err(output.yellow("warning: ") + TerminalLocale.unavailableSentence)
        }
        while !context.quitRequested.isSet {
            let read: LineEditor.Read
            if let editor {
                read = await editor.readLine()
            } else {
                read = await StandardInput.readLine().map { .line($0, []) } ?? .end
            }
            guard case .line(let line, let problems) = read else {
                output.out("")
                break
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if let refusal = PromptLine.refusal(trimmed, problems: problems) {
                output.err(output.red("error: ") + refusal)
                continue
            }
            guard !trimmed.isEmpty else { continue }
            let kept = SecretMask.masked(trimmed)
            editor?.addHistory(kept)
            if let warning = history.append(kept) { output.err(output.yellow("warning: ") + warning) }
            let task = Task { await runner.run(line: trimmed) }
            let watcher = InterruptCounter.cancelOnInterrupt(task)
            _ = await task.value
            watcher.cancel()
        }
        editor?.close()
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
