import Foundation
import JQCKit

/// `help`, `quit`, `echo`: the shell's own commands.
enum CoreCommands {
    static let commands: [Command] = [help, quit, echo, complete]

    /// One declared argument as `help COMMAND --json` lists it.
    static func json(_ argument: CommandArgument) -> JSONValue { ViewJSON.value(ArgumentView(argument)) }

    static let help = Command(
        "help",
        arguments: [
            .positional("COMMAND", .command, optional: true, help: "a command name (two words for a subcommand)")
        ],
        summary: "List the commands, or explain one.", help: "Example: help answer", offlineTool: true
    ) { context, arguments in
        let registry = context.registry
        if !arguments.positionals.isEmpty {
            let name = arguments.positionals.joined(separator: " ")
            let subcommands = registry.commands.filter { $0.name.hasPrefix(name + " ") }
            guard let (command, rest) = registry.resolve(arguments.positionals), rest.isEmpty else {
                // A group without a command of its own (`help issue`): its subcommands.
                guard !subcommands.isEmpty else {
                    throw ShellError.usage("There is no command '\(name)'. Type 'help' for the list.")
                }
                return CommandOutput(
                    "\(name) subcommands (help \(name) SUBCOMMAND for more):\n"
                        + subcommands.map { "  \($0.synopsis)\n      \($0.summary)" }.joined(separator: "\n"),
                    data: ["name": .string(name), "subcommands": .array(subcommands.map { .string($0.name) })])
            }
            let text =
                command.helpText
                + (subcommands.isEmpty
                    ? "" : "\n  Subcommands:\n" + subcommands.map { "    \($0.synopsis)" }.joined(separator: "\n"))
            return CommandOutput(
                text,
                data: [
                    "name": .string(command.name), "usage": .string(command.usage),
                    "summary": .string(command.summary), "help": .string(command.help),
                    "arguments": .array(command.arguments.map(json)),
                    "subcommands": .array(subcommands.map { .string($0.name) }),
                ])
        }
        // Synopses up to 30 characters share a line with their summary; longer ones put it on the next line.
        let column = 30
        let lines = registry.commands.map { command -> String in
            let synopsis = command.synopsis
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
        "echo", arguments: [.positional("WORDS", repeating: true, help: "the words to print, one per line")],
        rawWords: true,
        summary: "Print the words as the shell split them (one per line); for scripts.",
        help: #"Example: echo "two words" 'single quoted' back\ slash"#, offlineTool: true
    ) { _, arguments in
        CommandOutput(
            arguments.words.joined(separator: "\n"), data: ["words": .array(arguments.words.map(JSONValue.string))])
    }
}

extension CoreCommands {
    static let complete = Command(
        "complete", arguments: [.positional("\"LINE\"", help: "the text before the cursor, quoted")], rawWords: true,
        summary: "Print what Tab offers after LINE, one candidate per line (for scripts and shell completion).",
        help: "The same completion as Tab at the prompt: command names, the command's --options, and its values\n"
            + "(choices, file paths, local ids and field ids once the session has opened the store).\n"
            + "Example: complete \"issue new --\"",
        offlineTool: true
    ) { context, arguments in
        let line = arguments.words.joined(separator: " ")
        let completion = CommandLineCompletion(
            registry: context.registry, values: EngineCompletionValues(context: context)
        )
        .complete(line)
        return CommandOutput(
            completion.candidates.joined(separator: "\n"),
            data: [
                "line": .string(line), "stem": .string(completion.stem),
                "candidates": .array(completion.candidates.map(JSONValue.string)),
            ])
    }
}
