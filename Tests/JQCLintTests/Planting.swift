import Foundation
import JQCTestSupport
import Testing

@testable import JQCLint

/// A source with the offending place marked by `⚑` (removed before linting).
struct PlantedSource {
    /// The source without the marker.
    let source: String
    /// The marker's 1-based line, or nil when there is none.
    let line: Int?
    /// The marker's 1-based column in UTF-8 bytes, or nil when there is none.
    let column: Int?

    static let marker = "⚑"

    init(_ marked: String) {
        guard let range = marked.range(of: PlantedSource.marker) else {
            source = marked
            line = nil
            column = nil
            return
        }
        let before = marked[..<range.lowerBound]
        line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        column = before[lineStart...].utf8.count + 1
        source = marked.replacingCharacters(in: range, with: "")
    }
}

/// The repository's own policy and package, loaded once for the planted-source tests.
enum Repository {
    static let policyURL = TestPaths.repositoryRoot.appendingPathComponent("jqc-lint.json")

    static let policy: Result<Policy, LintError> = Result { try Policy.load(from: policyURL) }
        .mapError { $0 as? LintError ?? LintError(.policyUnreadable, "\($0)") }

    /// The package as `swift package dump-package` describes it, dumped into a scratch folder of its own so
    /// the lock of a running `swift test` on `.build` does not block it.
    static let package: Result<PackageModel, LintError> = Result {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("jqc-lint-dump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        return try PackageModel.dump(root: TestPaths.repositoryRoot, scratchPath: scratch)
    }.mapError { $0 as? LintError ?? LintError(.packageUnreadable, "\($0)") }

    static func linter() throws -> Linter {
        Linter(
            policy: try policy.get(), package: try package.get(), root: TestPaths.repositoryRoot,
            policyText: (try? String(contentsOf: policyURL, encoding: .utf8)) ?? "")
    }
}

/// Writes files under a temporary root: `files` maps relative paths to contents.
func writeTree(_ files: [String: String], in directory: TemporaryDirectory) throws {
    for (path, text) in files {
        let url = directory.path(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }
}
