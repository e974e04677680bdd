import Foundation
import JQCKit

/// Runs commands and prints their results: one JSON line per command with `--json`, human text
/// otherwise (SHELL.md). In a script the first failing command stops the run with exit status 1.
struct ShellRunner: Sendable {
    let context: CommandContext

    /// Runs one line (which may hold several `;`-separated commands).
    /// - Returns: `true` when every command succeeded.
    func run(line: String) async -> Bool {
        let commands: [[String]]
        do {
            commands = try CommandLineSplitter.commands(line)
        } catch {
            report(command: line.split(separator: " ").first.map(String.init) ?? "", error: error)
            return false
        }
        for words in commands {
            guard await run(words: words) else { return false }
            if context.quitRequested.isSet { return true }
        }
        return true
    }

    /// Runs one command given as words.
    /// - Returns: `true` when it succeeded.
    func run(words: [String]) async -> Bool {
        guard let (command, arguments) = context.registry.resolve(words) else {
            let name = words.first ?? ""
            let group = context.registry.subcommands(of: name)
            if !group.isEmpty {
                // A group's first word alone (`inspection ID`): name its commands, not itself as a typo.
                let list = group.map { "'\($0)'" }.joined(separator: ", ")
                report(
                    command: name,
                    error: ShellError(.usage, "'\(name)' needs one of its commands: \(list). Type 'help' for the list.")
                )
                return false
            }
            let suggestion = context.registry.closest(to: name).map { " Did you mean '\($0)'?" } ?? ""
            report(
                command: name,
                error: ShellError(.unknownCommand, "Unknown command '\(name)'.\(suggestion) Type 'help' for the list."))
            return false
        }
        do {
            let result = try await command.run(context, arguments)
            if context.output.json {
                context.output.jsonLine(
                    #"{"ok":true,"command":\#(JSONValue.string(command.name).jsonString()),"data":\#(result.data.jsonString())}"#
                )
            } else if !result.text.isEmpty {
                context.output.out(result.text)
            }
            return true
        } catch is CancellationError {
            report(command: command.name, error: ShellError(.cancelled, "Cancelled."))
            return false
        } catch {
            report(command: command.name, error: error)
            return false
        }
    }

    /// Prints a failed command: `error: <sentence>` on stderr, or with `--json` the line
    /// `{"ok":false,"command":…,"error":"<sentence>","code":"<module>.<snake_case>"}` (SHELL.md). The code is
    /// the error's own (``CodedError``), else `shell.failed`.
    private func report(command: String, error: any Error) {
        let sentence = "\(error)"
        if context.output.json {
            let code = ShellRunner.code(of: error)
            context.output.jsonLine(
                #"{"ok":false,"command":\#(JSONValue.string(command).jsonString()),"error":\#(JSONValue.string(sentence).jsonString()),"code":\#(JSONValue.string(code).jsonString())}"#
            )
        } else {
            context.output.err(context.output.red("error: ") + sentence)
        }
    }

    /// The code a failed command's `--json` line carries: the error's own, else `shell.failed`.
    static func code(of error: any Error) -> String {
        errorCode(of: error, fallback: ShellError.Kind.failed.code)
    }

    /// Runs every line of a script; stops at the first failure.
    /// - Returns: the process exit status: 0, or 1 at the first failed command.
    func runScript(lines: [String]) async -> Int32 {
        var iterator = lines.makeIterator()
        return await runScript { iterator.next() }
    }

    /// Runs lines as `nextLine` yields them (stdin is read one line at a time, so a driver may wait for
    /// each reply); stops at the first failure.
    /// - Returns: 0, or 1 at the first failed command.
    func runScript(nextLine: () async -> String?) async -> Int32 {
        while let line = await nextLine() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard await run(line: line) else { return 1 }
            if context.quitRequested.isSet { break }
        }
        return 0
    }
}
