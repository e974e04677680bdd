import Foundation
import JQCKit

/// Chooses the mode (script, `-c`, stdin, interactive), builds the context, and runs.
enum ShellMain {
    /// Runs the shell; returns the process exit status (0, 1 at the first failed script command).
    static func run(options: ShellOptions) async -> Int32 {
        let output = ShellOutput(options: options)
        let directory: DataDirectory
        do {
            directory = try DataDirectory.prepare(DataDirectory.resolve(option: options.dataDirectory))
        } catch {
            output.err("jqc-shell: \(error)")
            return 1
        }
        let context = CommandContext(
            options: options, dataDirectory: directory, output: output, registry: AllCommands.registry)
        let runner = ShellRunner(context: context)
        let status: Int32
        if let file = options.scriptFile {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                output.err("jqc-shell: cannot read the script \(file).")
                return 1
            }
            status = await runner.runScript(lines: text.components(separatedBy: "\n"))
        } else if let commands = options.commandString {
            status = await runner.runScript(lines: [commands])
        } else if !output.stdinIsTerminal {
            status = await runner.runScript { await StandardInput.readLine() }
        } else {
            status = await InteractiveLoop(context: context, runner: runner).run()
        }
        await context.builtEngine()?.shutdown()
        return status
    }
}

/// Reads stdin one line at a time on a thread of its own, so a blocking read never holds a thread of
/// Swift's cooperative pool (which the engine's background work needs).
enum StandardInput {
    /// The next line without its newline, or `nil` at end of input.
    static func readLine() async -> String? {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: Swift.readLine(strippingNewline: true))
            }
        }
    }
}
