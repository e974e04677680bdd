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

    /// The codes every error kind declares in the sources: each `enum Kind: String, CodedErrorKind` under
    /// `folders` (relative to the repository root), its `case name` / `case name = "raw"` lines up to its
    /// `static var module: String { "prefix" }` line, as `prefix.raw`. This reads the shell's codes too (an
    /// executable, which a test cannot import), and a new feature's without any list to edit.
    /// - Parameter folders: where to look (default: the library modules, the tooling and the apps).
    /// - Throws: when a folder cannot be listed or a file read.
    /// - Returns: file path (relative to the root) → the codes declared there, in declaration order.
    public static func declaredInSources(under folders: [String] = ["Modules", "Tooling", "Apps"]) throws
        -> [String: [String]]
    {
        let casePattern = #/^\s*case (\w+)(?: = "(\w+)")?\s*$/#
        let modulePattern = #/static var module: String \{ "(\w+)" \}/#
        var declared: [String: [String]] = [:]
        for folder in folders {
            let root = TestPaths.repositoryRoot.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in files where file.pathExtension == "swift" {
                let text = try String(contentsOf: file, encoding: .utf8)
                guard text.contains("enum Kind: String, CodedErrorKind") else { continue }
                var raws: [String]?
                for line in text.split(separator: "\n").map(String.init) {
                    if line.contains("enum Kind: String, CodedErrorKind") {
                        raws = []
                    } else if let match = try? modulePattern.firstMatch(in: line), let found = raws {
                        let path = folder + "/" + file.path.dropFirst(root.path.count + 1)
                        declared[path, default: []] += found.map { "\(match.output.1).\($0)" }
                        raws = nil
                    } else if raws != nil, let match = try? casePattern.wholeMatch(in: line) {
                        raws?.append(String(match.output.2 ?? match.output.1))
                    }
                }
            }
        }
        return declared
    }
}
