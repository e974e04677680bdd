import Foundation
import JQCKit

/// A command that failed in the shell itself, as a sentence a person can act on, with a `shell.*` code
/// (STYLE.md item 14; the codes are listed in Docs/SHELL.md "Error codes").
///
/// Errors of the engine's modules are not wrapped in this: they reach the runner as they are, so their own
/// code (`issues.not_found`) is what `--json` prints. When the shell puts a sentence of its own around one
/// (``failed(_:cause:)`` with a coded cause), the line keeps the cause's code.
struct ShellError: CodedError {
    /// The shell's own reasons (`shell.<raw value>`).
    enum Kind: String, CodedErrorKind {
        /// Wrong arguments: an unknown option, a missing value, a wrong count; the sentence has the usage line.
        case usage
        /// An option of `jqc-shell` itself is wrong (printed on stderr before anything runs; exit status 64).
        case badOption = "bad_option"
        /// No command has that name.
        case unknownCommand = "unknown_command"
        /// The line cannot be split into words (an unterminated quote, a trailing backslash).
        case syntax
        /// A file named on the command line cannot be read.
        case fileUnreadable = "file_unreadable"
        /// The command works on the open inspection and none is open.
        case noInspectionOpen = "no_inspection_open"
        /// The command would discard data and needs `--yes`.
        case confirmationNeeded = "confirmation_needed"
        /// The embedded dev server could not start.
        case embeddedServer = "embedded_server"
        /// The background timer's unit files or `systemctl` failed.
        case backgroundTimer = "background_timer"
        /// The data directory could not be created or used.
        case dataDirectory = "data_directory"
        /// The command was cancelled (Ctrl-C).
        case cancelled
        /// The command failed for a reason that has no code of its own.
        case failed
        /// The codes' module part, `shell`.
        static var module: String { "shell" }
    }

    /// Why.
    let kind: Kind
    /// The sentence.
    let message: String
    /// The error underneath, when the shell's sentence wraps one.
    let cause: (any Error)?

    init(_ kind: Kind, _ message: String, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.cause = cause
    }

    /// Wrong arguments: the sentence, with the usage line.
    static func usage(_ message: String) -> ShellError { ShellError(.usage, message) }

    /// The command could not do its work; with a coded `cause`, the line carries the cause's code.
    static func failed(_ message: String, cause: (any Error)? = nil) -> ShellError {
        ShellError(.failed, message, cause: cause)
    }

    /// `shell.<kind>`, except that ``Kind/failed`` around a coded error keeps that error's code.
    var code: String {
        if kind == .failed, let coded = cause as? any CodedError { return coded.code }
        return kind.code
    }
}
