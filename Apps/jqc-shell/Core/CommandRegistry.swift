/// Every command the shell knows, contributed one file per feature (SHELL.md "Commands").
struct CommandRegistry: Sendable {
    /// The commands, in `help` order.
    let commands: [Command]

    init(_ commands: [Command]) {
        var seen = Set<String>()
        for command in commands {
            precondition(seen.insert(command.name).inserted, "command \(command.name) registered twice")
        }
        self.commands = commands
    }

    /// The command named by the first one or two words, and the remaining arguments.
    /// Two-word names (`issue show`) win over one-word names (`issue`).
    func resolve(_ words: [String]) -> (Command, [String])? {
        guard let first = words.first else { return nil }
        if words.count >= 2, let command = commands.first(where: { $0.name == "\(first) \(words[1])" }) {
            return (command, Array(words.dropFirst(2)))
        }
        if let command = commands.first(where: { $0.name == first }) {
            return (command, Array(words.dropFirst()))
        }
        return nil
    }

    /// Names starting with `prefix` (for tab completion), sorted.
    func completions(for prefix: String) -> [String] {
        Set(
            commands.map(\.name).filter { $0.hasPrefix(prefix) }.map { name in
                // Complete one word at a time.
                let rest = name.dropFirst(prefix.count)
                if let space = rest.firstIndex(of: " "), !prefix.contains(" ") { return String(name[..<space]) }
                return name
            }
        ).sorted()
    }
}
