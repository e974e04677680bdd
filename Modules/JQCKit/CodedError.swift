/// The one error shape every module's error adopts (STYLE.md item 14): a stable machine code, a sentence
/// for a person, and the underlying cause (swift-nio's `FileSystemError`, GRDB's `DatabaseError`).
///
/// Scripts see ``code`` (the shell's `--json` error lines carry it, SHELL.md); people see ``message``.
/// Codes are `module.snake_case` (`issues.not_found`, `network.offline`) and never change once documented
/// in `Docs/SHELL.md`; sentences may. A module's error keeps its own finer enum as `kind` (a
/// ``CodedErrorKind``, whose cases are every code the error can carry).
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

/// The finer enum of a module's error (its `kind`): each case's raw value is the snake_case part of one
/// code, and ``module`` the part before the dot, so `allCases` lists every code the error can carry
/// (the test that every code is documented in `Docs/SHELL.md` reads ``codes``).
public protocol CodedErrorKind: RawRepresentable, CaseIterable, Sendable where RawValue == String {
    /// The code's module part (`issues`, `storage`, `network`).
    static var module: String { get }
}

extension CodedErrorKind {
    /// This kind's code, `module.snake_case` (`issues.not_found`).
    public var code: String { "\(Self.module).\(rawValue)" }
    /// Every code of this kind, in declaration order.
    public static var codes: [String] { allCases.map(\.code) }
}

/// The code of any error: its ``CodedError/code`` when it has one, else `fallback`.
/// - Parameters:
///   - error: any error.
///   - fallback: the code to use for an error that has none (e.g. `shell.failed`).
/// - Returns: a `module.snake_case` code.
public func errorCode(of error: any Error, fallback: String) -> String {
    (error as? any CodedError)?.code ?? fallback
}

/// Whether two errors' causes read the same (same type and same sentence, or both absent), for the
/// `Equatable` conformance of an error that carries a ``CodedError/cause`` (`any Error` is not `Equatable`).
/// - Parameters:
///   - first: one cause, or `nil`.
///   - second: the other, or `nil`.
/// - Returns: `true` when both are `nil`, or both are present with the same type and description.
public func sameCause(_ first: (any Error)?, _ second: (any Error)?) -> Bool {
    switch (first, second) {
    case (nil, nil): true
    case (let first?, let second?):
        type(of: first) == type(of: second) && String(describing: first) == String(describing: second)
    default: false
    }
}
