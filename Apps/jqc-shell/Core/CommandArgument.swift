/// One argument a command takes, declared once beside the command (issue 16 "Typed edges"): the usage
/// line, `help COMMAND`, option parsing and Tab completion are all derived from these declarations, so
/// no command writes its synopsis or its option set by hand.
struct CommandArgument: Sendable, Equatable {
    /// How the argument is written on the line.
    enum Kind: Sendable, Equatable {
        /// A word by position (`FACILITY_ID`).
        case positional
        /// `--name VALUE` (or `--name=VALUE`).
        case option
        /// A bare `--name` switch.
        case flag
    }

    /// What the value is, for validation and completion.
    enum Value: Sendable, Equatable {
        /// Free text (no completion).
        case text
        /// A whole number; parsing refuses anything else with a sentence.
        case integer
        /// A file path (completed from the file system).
        case file
        /// A local inspection id (completed from the inspections on this device).
        case inspectionID
        /// An issue's server id or local id (completed from the issues on this device).
        case issueID
        /// A field id of the current inspection's form (completed from its schema).
        case fieldID
        /// A command name (completed from the registry, one word at a time).
        case command
        /// One of a fixed set of words (completed from the set).
        case choice([String])
        /// A flag's absence of a value.
        case none
    }

    /// The name: for a positional the placeholder shown in usage (`FACILITY_ID`, `"DESCRIPTION"`); for an
    /// option or flag the long name without `--` (`contract`).
    let name: String
    /// Positional, option or flag.
    let kind: Kind
    /// The value's type (``Value/none`` for a flag).
    let value: Value
    /// An option's value placeholder in usage (`ID`, `FILE`); empty for positionals and flags.
    let placeholder: String
    /// Whether the command needs it (usage shows optional ones in brackets).
    let isRequired: Bool
    /// Whether it may be given more than once (usage adds `…`).
    let isRepeating: Bool
    /// One line for `help COMMAND`.
    let help: String

    /// A positional word.
    /// - Parameters:
    ///   - name: the placeholder shown in usage, e.g. `FACILITY_ID`.
    ///   - value: its type (default free text).
    ///   - optional: shown as `[NAME]`.
    ///   - repeating: takes every remaining word, shown as `NAME…`.
    ///   - help: one line for `help COMMAND`.
    static func positional(
        _ name: String, _ value: Value = .text, optional: Bool = false, repeating: Bool = false, help: String
    ) -> CommandArgument {
        CommandArgument(
            name: name, kind: .positional, value: value, placeholder: "", isRequired: !optional,
            isRepeating: repeating, help: help)
    }

    /// A `--name VALUE` option.
    /// - Parameters:
    ///   - name: the long name without `--`, e.g. `contract`.
    ///   - placeholder: the value's placeholder in usage, e.g. `ID`.
    ///   - value: its type (default free text).
    ///   - required: shown without brackets (the handler checks it).
    ///   - repeating: may be given more than once, shown as `[--photo FILE]…`.
    ///   - help: one line for `help COMMAND`.
    static func option(
        _ name: String, _ placeholder: String, _ value: Value = .text, required: Bool = false,
        repeating: Bool = false, help: String
    ) -> CommandArgument {
        CommandArgument(
            name: name, kind: .option, value: value, placeholder: placeholder, isRequired: required,
            isRepeating: repeating, help: help)
    }

    /// A bare `--name` switch.
    /// - Parameters:
    ///   - name: the long name without `--`, e.g. `yes`.
    ///   - required: shown without brackets (`--yes` on a destructive command; the handler checks it).
    ///   - help: one line for `help COMMAND`.
    static func flag(_ name: String, required: Bool = false, help: String) -> CommandArgument {
        CommandArgument(
            name: name, kind: .flag, value: .none, placeholder: "", isRequired: required, isRepeating: false,
            help: help)
    }

    /// How it is written in a usage line: `FACILITY_ID`, `[--contract ID]`, `[--photo FILE]…`, `VALUE…`, `--yes`.
    var synopsis: String {
        let written: String
        switch kind {
        case .positional: written = name
        case .option: written = "--\(name) \(placeholder)"
        case .flag: written = "--\(name)"
        }
        let shown = isRequired ? written : "[\(written)]"
        return isRepeating ? shown + "…" : shown
    }

    /// How it is written in the `help COMMAND` argument list: the synopsis without brackets.
    var term: String {
        switch kind {
        case .positional: name + (isRepeating ? "…" : "")
        case .option: "--\(name) \(placeholder)"
        case .flag: "--\(name)"
        }
    }
}

extension Array where Element == CommandArgument {
    /// The usage line of these arguments: each one's synopsis in declaration order; with `forms` (the
    /// argument names of each alternative form), the forms joined by ` | `.
    /// - Parameter forms: alternative forms, e.g. `[["template", "facility", "area"], ["schedule", "area"]]`;
    ///   empty for the one form holding every argument.
    /// - Returns: e.g. `FACILITY_ID`, `[--contract ID]`, `--schedule ID [--area ID] | --follow-up PARENT_ID`.
    func usage(forms: [[String]] = []) -> String {
        guard !forms.isEmpty else { return map(\.synopsis).joined(separator: " ") }
        return forms.map { names in
            names.compactMap { name in first(where: { $0.name == name })?.synopsis }.joined(separator: " ")
        }.joined(separator: " | ")
    }

    /// The declared option or flag named `name` (without `--`), or `nil`.
    func named(_ name: String) -> CommandArgument? {
        first { $0.kind != .positional && $0.name == name }
    }

    /// The declared positionals, in order.
    var positionals: [CommandArgument] { filter { $0.kind == .positional } }
}

extension CommandArgument.Value {
    /// The type's name in `help COMMAND --json`: `text`, `integer`, `file`, `inspection_id`, `issue_id`,
    /// `field_id`, `command`, `choice` or `none`.
    var name: String {
        switch self {
        case .text: "text"
        case .integer: "integer"
        case .file: "file"
        case .inspectionID: "inspection_id"
        case .issueID: "issue_id"
        case .fieldID: "field_id"
        case .command: "command"
        case .choice: "choice"
        case .none: "none"
        }
    }

    /// A choice's words; empty for every other type.
    var choices: [String] {
        if case .choice(let words) = self { return words }
        return []
    }
}
