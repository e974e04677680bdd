import Foundation

/// The error codes as the repository documents and declares them, for the tests that keep the two in step
/// (issue 16: every code a `--json` error line can carry is listed in Docs/SHELL.md "Error codes").
public enum ErrorCodeTable {
    /// Whether `code` has a code's shape: `module.snake_case` (lower-case letters, digits and underscores
    /// after the dot, letters before it).
    public static func isWellFormed(_ code: String) -> Bool {
        (try? #/^[a-z]+\.[a-z][a-z0-9_]*$/#.wholeMatch(in: code)) != nil
    }

    /// The codes listed in Docs/SHELL.md's "Error codes" table, in table order: the first backquoted cell
    /// of each row between that heading and the next `## ` heading.
    /// - Throws: when Docs/SHELL.md cannot be read.
    /// - Returns: the codes (empty when the section is missing, so a test asserting on them fails).
    public static func documented() throws -> [String] {
        let text = try String(
            contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Docs/SHELL.md"), encoding: .utf8)
        var codes: [String] = []
        var inSection = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") {
                inSection = line == "## Error codes"
                continue
            }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cell = line.dropFirst(3)
            guard let end = cell.firstIndex(of: "`") else { continue }
            codes.append(String(cell[..<end]))
        }
        return codes
    }

    /// The shell's own codes, read from the `Kind` enum of Apps/jqc-shell/Core/ShellError.swift (the shell is
    /// an executable, so a test cannot import it): each `case name` or `case name = "raw"` line, as `shell.raw`.
    /// - Throws: when the file cannot be read.
    /// - Returns: the codes in declaration order (empty when the enum is not found).
    public static func declaredByShell() throws -> [String] {
        let text = try String(
            contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Apps/jqc-shell/Core/ShellError.swift"),
            encoding: .utf8)
        let casePattern = #/^\s*case (\w+)(?: = "(\w+)")?\s*$/#
        var codes: [String] = []
        var inKind = false
        for line in text.split(separator: "\n") {
            if line.contains("enum Kind: String, CodedErrorKind") {
                inKind = true
                continue
            }
            if inKind, line.contains("static var module") { break }
            guard inKind, let match = try? casePattern.wholeMatch(in: String(line)) else { continue }
            codes.append("shell." + String(match.output.2 ?? match.output.1))
        }
        return codes
    }
}
