import Foundation

/// The process's environment variables, read once. `ProcessInfo.processInfo.environment` builds a new
/// dictionary of every variable on each call (~0.35 M instructions with a few dozen variables, callgrind), and
/// a cold start asked it up to eight times (issue 17: `-c "echo ready"`, `status`, `drafts`). The shell never
/// changes its own environment (no `setenv`), so one snapshot is the same answer.
enum ShellEnvironment {
    /// Name → value, as the process started.
    static let variables: [String: String] = ProcessInfo.processInfo.environment
}
