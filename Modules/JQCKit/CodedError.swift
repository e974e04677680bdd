/// The one error shape every module's error adopts (STYLE.md item 14): a stable machine code, a sentence
/// for a person, and the underlying cause (swift-nio's `FileSystemError`, GRDB's `DatabaseError`).
///
/// Scripts see ``code`` (the shell's `--json` error lines carry it, SHELL.md); people see ``message``.
/// Codes are `module.snake_case` (`issues.not_found`, `network.offline`) and never change once documented
/// in `Docs/SHELL.md`; sentences may. A module's error keeps its own finer enum as `kind`.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    /// The stable code, `module.snake_case` (e.g. `storage.disk_full`).
    var code: String { get }
    /// What went wrong and what to do, as a sentence a person can act on (never a token or a raw reply).
    var message: String { get }
    /// The error underneath, when this one wraps another (a store failure under a feature error); `nil` otherwise.
    var cause: (any Error)? { get }
}

extension CodedError {
    /// No underlying error unless the adopter says otherwise.
    public var cause: (any Error)? { nil }
    /// The sentence.
    public var description: String { message }
}

/// The code of any error: its ``CodedError/code`` when it has one, else `fallback`.
/// - Parameters:
///   - error: any error.
///   - fallback: the code to use for an error that has none (e.g. `shell.failed`).
/// - Returns: a `module.snake_case` code.
public func errorCode(of error: any Error, fallback: String) -> String {
    (error as? any CodedError)?.code ?? fallback
}
