import Foundation

/// What Tab offers at the prompt. The line editor asks with the text before the cursor and inserts what the
/// answer allows: the rest of a single candidate (and a space), or the candidates' common part and a list.
/// ``CommandLineCompletion`` completes from the commands' declared arguments (``CommandArgument``).
protocol CompletionProvider: Sendable {
    /// The candidates for the text before the cursor.
    /// - Parameter textBeforeCursor: the line up to the cursor, as typed.
    /// - Returns: the part of the text the candidates extend and the candidates (whole replacements of
    ///   that part); no candidates when nothing fits.
    func complete(_ textBeforeCursor: String) -> Completion
}

/// One answer to Tab: `stem` is the end of the typed text that each candidate starts with and replaces.
struct Completion: Sendable, Equatable {
    /// The typed text being completed (a suffix of the text before the cursor).
    var stem: String
    /// Full replacements for `stem`, sorted; empty when nothing fits.
    var candidates: [String]

    /// What to insert after `stem`: the rest of the only candidate plus a space (no space after a
    /// directory's `/`, so the path can go on), or the part every candidate shares; `nil` when there is
    /// nothing to insert.
    var insertion: String? {
        guard let first = candidates.first else { return nil }
        if candidates.count == 1 { return String(first.dropFirst(stem.count)) + (first.hasSuffix("/") ? "" : " ") }
        var common = Substring(first)
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(common) { common = common.dropLast() }
        }
        return common.count > stem.count ? String(common.dropFirst(stem.count)) : nil
    }
}

/// Where the values of ids and fields come from when Tab asks for them (the store of a built engine).
protocol CompletionValues: Sendable {
    /// The local ids of the inspections on this device.
    func inspectionIDs() -> [String]
    /// The issues' server ids and local ids.
    func issueIDs() -> [String]
    /// The field ids of the current inspection's form.
    func fieldIDs() -> [String]
}

/// No values (before the engine is built, and in tests of names and options).
struct NoCompletionValues: CompletionValues {
    func inspectionIDs() -> [String] { [] }
    func issueIDs() -> [String] { [] }
    func fieldIDs() -> [String] { [] }
}

/// Completes from the registry's declarations: command names one word at a time (`iss` → `issue`,
/// `issue s` → `issue show`, `issue status`), then each command's `--options` and flags, and the value
/// the cursor is at by its declared type: a choice's words, a command name (`help`), a file path, and
/// local inspection ids, issue ids and the current form's field ids from `values`.
struct CommandLineCompletion: CompletionProvider {
    /// The commands and their declared arguments.
    let registry: CommandRegistry
    /// Ids and field ids.
    var values: any CompletionValues = NoCompletionValues()
    /// `~` in a typed path.
    var home: String? = ShellEnvironment.variables["HOME"]

    func complete(_ textBeforeCursor: String) -> Completion {
        // Only the last `;`-separated command counts.
        let segment =
            textBeforeCursor.split(separator: ";", omittingEmptySubsequences: false).last.map(String.init) ?? ""
        let typed = String(segment.drop { $0 == " " })
        let names = registry.completions(for: typed)
        if !names.isEmpty || !typed.contains(" ") { return Completion(stem: typed, candidates: names) }
        var words = typed.split(separator: " ").map(String.init)
        let stem = typed.hasSuffix(" ") ? "" : words.removeLast()
        guard let (command, arguments) = registry.resolve(words) else { return Completion(stem: stem, candidates: []) }
        return Completion(stem: stem, candidates: candidates(command, arguments, stem: stem).sorted())
    }

    /// The candidates for `stem` after `arguments` of `command`.
    private func candidates(_ command: Command, _ arguments: [String], stem: String) -> [String] {
        let declared = command.arguments
        if stem.hasPrefix("-") {
            let given = Set(arguments)
            return declared.filter { $0.kind != .positional }.map { "--" + $0.name }
                .filter { $0.hasPrefix(stem) && (!given.contains($0) || isRepeating($0, declared)) }
        }
        // The value of an option just typed (`--photo `), else the positional at this place.
        if let last = arguments.last, last.hasPrefix("--"), let option = declared.named(String(last.dropFirst(2))),
            option.kind == .option
        {
            return values(option.value, stem: stem, before: [])
        }
        var positionalIndex = 0
        var index = 0
        var before: [String] = []
        while index < arguments.count {
            let word = arguments[index]
            if word.hasPrefix("--"), let option = declared.named(String(word.dropFirst(2))) {
                index += option.kind == .option ? 2 : 1
                continue
            }
            before.append(word)
            positionalIndex += 1
            index += 1
        }
        let positionals = declared.positionals
        guard let last = positionals.last else { return [] }
        let argument = positionalIndex < positionals.count ? positionals[positionalIndex] : last
        guard positionalIndex < positionals.count || last.isRepeating || last.value == .command else { return [] }
        let leading = positionals.firstIndex(of: argument).map { before.suffix(before.count - $0) } ?? []
        return values(argument.value, stem: stem, before: Array(leading))
    }

    private func isRepeating(_ option: String, _ declared: [CommandArgument]) -> Bool {
        declared.named(String(option.dropFirst(2)))?.isRepeating == true
    }

    /// The values of a type that start with `stem`; `before` holds the words already given to a repeating
    /// positional (a command name's first words for `help`).
    private func values(_ value: CommandArgument.Value, stem: String, before: [String]) -> [String] {
        switch value {
        case .choice(let words): return words.filter { $0.hasPrefix(stem) }
        case .command:
            let prefix = (before + [stem]).joined(separator: " ")
            return registry.completions(for: prefix).compactMap { name in
                let parts = name.split(separator: " ").map(String.init)
                return parts.count > before.count ? parts[before.count] : nil
            }.filter { $0.hasPrefix(stem) }
        case .file: return paths(stem)
        case .inspectionID: return values.inspectionIDs().filter { $0.hasPrefix(stem) }
        case .issueID: return values.issueIDs().filter { $0.hasPrefix(stem) }
        case .fieldID: return values.fieldIDs().filter { $0.hasPrefix(stem) }
        case .text, .integer, .none: return []
        }
    }

    /// The entries of the directory `stem` points into whose names extend its last component; directories
    /// end in `/`; hidden entries only when the component starts with `.`.
    private func paths(_ stem: String) -> [String] {
        let slash = stem.lastIndex(of: "/")
        let directoryPart = slash.map { String(stem[...$0]) } ?? ""
        let namePart = slash.map { String(stem[stem.index(after: $0)...]) } ?? stem
        var directory = directoryPart.isEmpty ? "." : directoryPart
        if let home, directory == "~/" || directory.hasPrefix("~/") { directory = home + directory.dropFirst() }
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return entries.filter { $0.hasPrefix(namePart) && (namePart.hasPrefix(".") || !$0.hasPrefix(".")) }.map {
            var isDirectory: ObjCBool = false
            let full = (directory as NSString).appendingPathComponent($0)
            _ = FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory)
            return directoryPart + $0 + (isDirectory.boolValue ? "/" : "")
        }
    }
}

/// Ids and field ids from the engine of this session, once a command has built it (Tab never starts a
/// server): the inspections and issues in the store, and the fields of the current inspection's form.
struct EngineCompletionValues: CompletionValues {
    let context: CommandContext

    func inspectionIDs() -> [String] {
        guard let engine = context.engineIfBuilt else { return [] }
        return ((try? engine.app.inspections.list()) ?? []).map(\.localID)
    }

    func issueIDs() -> [String] {
        guard let engine = context.engineIfBuilt else { return [] }
        return ((try? engine.app.issues.list(includeResolved: true)) ?? []).flatMap { issue in
            [issue.localID] + (issue.serverID.map { [String($0)] } ?? [])
        }
    }

    func fieldIDs() -> [String] {
        guard let engine = context.engineIfBuilt, let id = context.dataDirectory.readText("current"),
            let inspection = try? engine.app.inspections.inspection(localID: id)
        else { return [] }
        return inspection.schema.fields.map(\.id)
    }
}
