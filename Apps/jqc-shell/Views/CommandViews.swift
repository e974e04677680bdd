import JQCNetwork

/// One declared argument as `help COMMAND --json` lists it (SHELL.md "Offline tools").
struct ArgumentView: Encodable {
    let name: String
    /// `positional`, `option` or `flag`.
    let kind: String
    let synopsis: String
    let required: Bool
    let repeating: Bool
    let help: String
    /// The value type's name (``CommandArgument/Value/name``).
    let type: String
    /// A choice's words; empty otherwise.
    let choices: [String]

    init(_ argument: CommandArgument) {
        name = argument.name
        switch argument.kind {
        case .positional: kind = "positional"
        case .option: kind = "option"
        case .flag: kind = "flag"
        }
        synopsis = argument.synopsis
        required = argument.isRequired
        repeating = argument.isRepeating
        help = argument.help
        type = argument.value.name
        choices = argument.value.choices
    }
}

/// `login` and `whoami`'s data: who is signed in (every key `null` when nobody is).
struct UserView: Encodable {
    let username: String?
    let displayName: String?
    let role: String?
    let signedIn: Bool

    init(_ user: User?) {
        username = user?.username
        displayName = user?.displayName
        role = user?.role.rawValue
        signedIn = user != nil
    }
}
