/// What Tab offers at the prompt. The line editor asks with the text before the cursor and inserts what the
/// answer allows: the rest of a single candidate (and a space), or the candidates' common part and a list.
/// Command names today (``CommandNameCompletion``); options, local ids, field ids and paths plug in here
/// once commands declare their arguments.
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

    /// What to insert after `stem`: the rest of the only candidate plus a space, or the part every
    /// candidate shares; `nil` when there is nothing to insert.
    var insertion: String? {
        guard let first = candidates.first else { return nil }
        if candidates.count == 1 { return String(first.dropFirst(stem.count)) + " " }
        var common = Substring(first)
        for candidate in candidates.dropFirst() {
            while !candidate.hasPrefix(common) { common = common.dropLast() }
        }
        return common.count > stem.count ? String(common.dropFirst(stem.count)) : nil
    }
}

/// Completes command names, one word at a time (`iss` → `issue`, `issue s` → `issue show`, `issue status`).
struct CommandNameCompletion: CompletionProvider {
    let registry: CommandRegistry

    func complete(_ textBeforeCursor: String) -> Completion {
        let typed = String(textBeforeCursor.drop { $0 == " " })
        return Completion(stem: typed, candidates: registry.completions(for: typed))
    }
}
