/// Why the linter could not run at all (as opposed to findings in the code): the policy, the usage or the
/// package description is at fault. The command exits 64 with ``message``.
public struct LintError: Error, Equatable, CustomStringConvertible {
    /// A stable code for each kind of failure.
    public enum Code: String, Sendable {
        /// The policy file is missing, unreadable, not JSON, or not shaped like a policy.
        case policyUnreadable = "policy-unreadable"
        /// The policy decodes but contradicts itself (duplicate ids, unknown names, empty `because`).
        case policyInvalid = "policy-invalid"
        /// The command line is wrong (unknown option, missing value).
        case usage = "usage"
        /// `swift package dump-package` failed, or its JSON (or the file given) could not be read.
        case packageUnreadable = "package-unreadable"
    }

    /// The stable code.
    public var code: Code
    /// A sentence a person can act on: what went wrong and how to fix it.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, prefixed with the code.
    public var description: String { "jqc-lint: \(code.rawValue): \(message)" }
}
