import Foundation
import JQCKit

/// One shell command: its name (one or two words, e.g. `issue show`), its declared arguments, help with an
/// example, and a handler returning a typed result that renders both for people and as JSON (SHELL.md).
/// The usage line, option parsing, `help COMMAND` and Tab completion all derive from ``arguments``.
struct Command: Sendable {
    /// The name typed at the prompt; two-word names are subcommands (`issue show`).
    let name: String
    /// The declared arguments, in usage order.
    let arguments: [CommandArgument]
    /// Alternative forms (each a list of argument names), or empty for one form holding every argument.
    let forms: [[String]]
    /// The argument synopsis derived from ``arguments``, e.g. `USER [--password P]`.
    let usage: String
    /// One line for `help`.
    let summary: String
    /// More text for `help COMMAND`, with an example.
    let help: String
    /// Offline tools never start a server or touch the network (SHELL.md).
    let isOfflineTool: Bool
    /// Whether the words reach the handler as typed (``ParsedArguments/words``), unparsed: for commands whose
    /// values may start with `--` (`echo`) or that parse their own words (`answer`).
    let takesRawWords: Bool
    /// The work, given the words after the name; parses them against ``arguments`` and calls the handler.
    /// Throws ``ShellError`` (or any error with a sentence) on failure.
    let run: @Sendable (CommandContext, [String]) async throws -> CommandOutput

    /// Declares a command.
    /// - Parameters:
    ///   - name: one or two words.
    ///   - arguments: every positional, option and flag it takes (the single source of its usage line).
    ///   - forms: alternative forms by argument name, when the arguments form more than one synopsis.
    ///   - rawWords: hand the words over unparsed (the arguments are still declared for usage and completion).
    ///   - summary: one line for `help`.
    ///   - help: more text for `help COMMAND`, with an example.
    ///   - offlineTool: never starts a server or touches the network.
    ///   - run: the handler, given the words parsed against `arguments`.
    init(
        _ name: String, arguments: [CommandArgument] = [], forms: [[String]] = [], rawWords: Bool = false,
        summary: String, help: String = "", offlineTool: Bool = false,
        run: @escaping @Sendable (CommandContext, ParsedArguments) async throws -> CommandOutput
    ) {
        self.name = name
        self.arguments = arguments
        self.forms = forms
        let usage = arguments.usage(forms: forms)
        self.usage = usage
        self.summary = summary
        self.help = help
        self.isOfflineTool = offlineTool
        self.takesRawWords = rawWords
        let synopsis = usage.isEmpty ? name : "\(name) \(usage)"
        self.run = { context, words in
            let parsed =
                rawWords
                ? ParsedArguments(raw: words, usage: synopsis)
                : try ParsedArguments(words, declared: arguments, usage: synopsis)
            return try await run(context, parsed)
        }
    }

    /// The name and usage, e.g. `facilities [--contract ID]`.
    var synopsis: String { usage.isEmpty ? name : "\(name) \(usage)" }

    /// `help COMMAND`'s text: the synopsis, the summary, one line per declared argument, then the help text.
    var helpText: String {
        var lines = [synopsis, "  " + summary]
        let width = min(24, arguments.map(\.term.count).max() ?? 0)
        for argument in arguments {
            let term = argument.term.padding(toLength: max(width, argument.term.count), withPad: " ", startingAt: 0)
            lines.append("    \(term)  \(argument.help)")
        }
        if !help.isEmpty { lines.append("  " + help.replacingOccurrences(of: "\n", with: "\n  ")) }
        return lines.joined(separator: "\n")
    }
}

/// What a command produced: text for people and a JSON object for machines (`--json`).
struct CommandOutput: Sendable {
    /// Human output (may be empty); printed to stdout without `--json`.
    let text: String
    /// The `data` member of the JSON line; always an object.
    let data: JSONValue

    init(_ text: String, data: [String: JSONValue] = [:]) {
        self.text = text
        self.data = .object(data)
    }
}

/// The arguments of one invocation, parsed against the command's declaration: positionals, `--name value`
/// options and bare `--switch`es, with the command's derived usage line for the handler's own sentences.
struct ParsedArguments: Sendable {
    /// The words as typed after the command name.
    let words: [String]
    /// `name usage`, for `Usage: …` in sentences.
    let usage: String
    private(set) var positionals: [String] = []
    private(set) var options: [String: [String]] = [:]
    private(set) var switches: Set<String> = []

    /// Parses `words` against the declared options and flags; integer options are checked here.
    /// - Parameters:
    ///   - words: the words after the command name.
    ///   - declared: the command's ``CommandArgument``s.
    ///   - usage: the command's synopsis (`name usage`), quoted in every sentence.
    /// - Throws: ``ShellError/usage(_:)`` for an unknown option, a missing value, a value to a flag or a
    ///   non-integer value of an integer option.
    init(_ words: [String], declared: [CommandArgument], usage: String) throws {
        self.words = words
        self.usage = usage
        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            guard word.hasPrefix("--") && word.count > 2 else {
                positionals.append(word)
                continue
            }
            var name = String(word.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            switch declared.named(name)?.kind {
            case .option:
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else {
                        throw ShellError.usage("--\(name) needs a value. Usage: \(usage)")
                    }
                    value = words[index]
                    index += 1
                }
                if declared.named(name)?.value == .integer, Int(value) == nil {
                    throw ShellError.usage("--\(name) must be a whole number, not '\(value)'. Usage: \(usage)")
                }
                options[name, default: []].append(value)
            case .flag where inlineValue == nil:
                switches.insert(name)
            default:
                throw ShellError.usage("Unknown option --\(name). Usage: \(usage)")
            }
        }
    }

    /// The words as they came, every one a positional (a command declared with `rawWords`).
    /// - Parameters:
    ///   - words: the words after the command name.
    ///   - usage: the command's synopsis.
    init(raw words: [String], usage: String) {
        self.words = words
        self.usage = usage
        self.positionals = words
    }

    /// The last value given for `--name`, or `nil`.
    func option(_ name: String) -> String? { options[name]?.last }
    /// Every value given for a repeatable `--name`.
    func all(_ name: String) -> [String] { options[name] ?? [] }
    /// Whether the bare `--name` was given.
    func has(_ name: String) -> Bool { switches.contains(name) }

    /// The integer value of `--name`, or `nil` when absent.
    /// - Throws: ``ShellError/usage(_:)`` when present but not an integer (an undeclared-integer option).
    func intOption(_ name: String) throws -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text) else {
            throw ShellError.usage("--\(name) must be a whole number, not '\(text)'. Usage: \(usage)")
        }
        return value
    }
}
