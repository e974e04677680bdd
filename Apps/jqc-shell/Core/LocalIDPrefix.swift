/// A unique prefix of a local id, as a person types it (`open 3f2a`, `issue show 9c1`): ids are long UUIDs,
/// and copying one whole from the terminal is the friction this removes (issue 14).
enum LocalIDPrefix {
    /// The id `typed` stands for among `ids`: itself when it is one of them; else the one id it is a prefix
    /// of; else `typed` unchanged, so the caller's lookup says there is no such item.
    /// - Parameters:
    ///   - typed: what was typed (an id or the start of one; matched case-insensitively).
    ///   - ids: every local id the command could mean.
    ///   - noun: the kind of item, plural (`inspections`), for the sentence.
    /// - Throws: ``ShellError/usage(_:)`` when the prefix matches several ids, naming up to five of them.
    static func resolve(_ typed: String, among ids: [String], noun: String) throws -> String {
        if ids.contains(typed) { return typed }
        let lowered = typed.lowercased()
        let matches = ids.filter { $0.lowercased().hasPrefix(lowered) }
        switch matches.count {
        case 0: return typed
        case 1: return matches[0]
        default:
            let shown = matches.prefix(5).joined(separator: ", ") + (matches.count > 5 ? ", …" : "")
            throw ShellError.usage(
                "'\(typed)' is the start of \(matches.count) \(noun) (\(shown)); type more of the id.")
        }
    }
}
