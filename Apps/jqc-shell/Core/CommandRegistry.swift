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

extension CommandRegistry {
    /// The two-word commands whose first word is `word` (`inspection retry`, `inspection discard`), sorted:
    /// `word` alone names a group, not a command.
    func subcommands(of word: String) -> [String] {
        commands.map(\.name).filter { $0.hasPrefix(word + " ") }.sorted()
    }

    /// The command name (first word) closest to a mistyped `word` by edit distance, when it is close enough
    /// to be a likely typo (at most a third of its letters, at least 1), else `nil`.
    func closest(to word: String) -> String? {
        let names = Set(commands.map { $0.name.split(separator: " ").first.map(String.init) ?? $0.name })
        let scored = names.map { ($0, CommandRegistry.editDistance(word.lowercased(), $0)) }
        guard let best = scored.min(by: { $0.1 == $1.1 ? $0.0 < $1.0 : $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, word.count / 3) ? best.0 : nil
    }

    /// Edit distance with adjacent transpositions (optimal string alignment): `sycn` is 1 from `sync`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
