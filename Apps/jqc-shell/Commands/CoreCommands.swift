import Foundation
import JQCKit

/// `help`, `quit`, `echo`: the shell's own commands.
enum CoreCommands {
    static let commands: [Command] = [help, quit, echo]

    static let help = Command(
        "help", usage: "[COMMAND]", summary: "List the commands, or explain one.",
        help: "Example: help answer", offlineTool: true
    ) { context, arguments in
        let registry = context.registry
        if !arguments.isEmpty {
            let name = arguments.joined(separator: " ")
            guard let (command, rest) = registry.resolve(arguments), rest.isEmpty else {
                throw ShellError.usage("There is no command '\(name)'. Type 'help' for the list.")
            }
            let text = [
                "\(command.name) \(command.usage)".trimmingCharacters(in: .whitespaces), "  \(command.summary)",
                command.help.isEmpty ? "" : "  " + command.help.replacingOccurrences(of: "\n", with: "\n  "),
            ]
            .filter { !$0.isEmpty }.joined(separator: "\n")
            return CommandOutput(
                text,
                data: [
                    "name": .string(command.name), "usage": .string(command.usage),
                    "summary": .string(command.summary), "help": .string(command.help),
                ])
        }
        // Synopses up to 30 characters share a line with their summary; longer ones put it on the next line.
        let column = 30
        let lines = registry.commands.map { command -> String in
            let synopsis = "\(command.name) \(command.usage)".trimmingCharacters(in: .whitespaces)
            if synopsis.count > column {
                return "  \(synopsis)\n  " + String(repeating: " ", count: column + 2) + command.summary
            }
            return "  " + synopsis.padding(toLength: column, withPad: " ", startingAt: 0) + "  " + command.summary
        }
        return CommandOutput(
            "Commands (help COMMAND for more):\n" + lines.joined(separator: "\n"),
            data: [
                "commands": .array(
                    registry.commands.map {
                        .object([
                            "name": .string($0.name), "usage": .string($0.usage),
                            "summary": .string($0.summary),
                        ])
                    })
            ])
    }

    static let quit = Command("quit", summary: "Leave the shell (Ctrl-D does too).", offlineTool: true) { context, _ in
        context.quitRequested.set()
        return CommandOutput("")
    }

    static let echo = Command(
        "echo", usage: "WORDS…", summary: "Print the words as the shell split them (one per line); for scripts.",
        help: #"Example: echo "two words" 'single quoted' back\ slash"#, offlineTool: true
    ) { _, arguments in
        CommandOutput(arguments.joined(separator: "\n"), data: ["words": .array(arguments.map(JSONValue.string))])
    }
}
