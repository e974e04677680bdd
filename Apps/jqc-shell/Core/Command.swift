import Foundation
import JQCKit

/// One shell command: its name (one or two words, e.g. `issue show`), usage, help with an example,
/// and a handler returning a typed result that renders both for people and as JSON (SHELL.md).
struct Command: Sendable {
    /// The name typed at the prompt; two-word names are subcommands (`issue show`).
    let name: String
    /// The argument synopsis, e.g. `USER [--password P]`.
    let usage: String
    /// One line for `help`.
    let summary: String
    /// More text for `help COMMAND`, with an example.
    let help: String
    /// Offline tools never start a server or touch the network (SHELL.md).
    let isOfflineTool: Bool
    /// The work. Throws ``ShellError`` (or any error with a sentence) on failure.
    let run: @Sendable (CommandContext, [String]) async throws -> CommandOutput

    init(
        _ name: String, usage: String = "", summary: String, help: String = "", offlineTool: Bool = false,
        run: @escaping @Sendable (CommandContext, [String]) async throws -> CommandOutput
    ) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.help = help
        self.isOfflineTool = offlineTool
        self.run = run
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

/// The arguments of one invocation: positionals, `--flag value` options and bare `--switch`es.
struct ParsedArguments {
    private(set) var positionals: [String] = []
    private(set) var options: [String: [String]] = [:]
    private(set) var switches: Set<String> = []

    /// Parses `words` given which options take a value and which are bare switches.
    /// - Throws: ``ShellError/usage(_:)`` for an unknown option or a missing value.
    init(_ words: [String], valueOptions: Set<String> = [], switches allowedSwitches: Set<String> = [], usage: String)
        throws
    {
        var index = 0
        while index < words.count {
            let word = words[index]
            if word.hasPrefix("--") && word.count > 2 {
                var name = String(word.dropFirst(2))
                var inlineValue: String?
                if let equals = name.firstIndex(of: "=") {
                    inlineValue = String(name[name.index(after: equals)...])
                    name = String(name[..<equals])
                }
                if valueOptions.contains(name) {
                    if let inlineValue {
                        options[name, default: []].append(inlineValue)
                    } else {
                        guard index + 1 < words.count else {
                            throw ShellError.usage("--\(name) needs a value. Usage: \(usage)")
                        }
                        options[name, default: []].append(words[index + 1])
                        index += 1
                    }
                } else if allowedSwitches.contains(name), inlineValue == nil {
                    switches.insert(name)
                } else {
                    throw ShellError.usage("Unknown option --\(name). Usage: \(usage)")
                }
            } else {
                positionals.append(word)
            }
            index += 1
        }
    }

    /// The last value given for `--name`, or `nil`.
    func option(_ name: String) -> String? { options[name]?.last }
    /// Every value given for a repeatable `--name`.
    func all(_ name: String) -> [String] { options[name] ?? [] }
    /// Whether the bare `--name` was given.
    func has(_ name: String) -> Bool { switches.contains(name) }

    /// The integer value of `--name`, or `nil` when absent.
    /// - Throws: ``ShellError/usage(_:)`` when present but not an integer.
    func intOption(_ name: String, usage: String) throws -> Int? {
        guard let text = option(name) else { return nil }
        guard let value = Int(text) else {
            throw ShellError.usage("--\(name) must be a whole number, not '\(text)'. Usage: \(usage)")
        }
        return value
    }
}
