import Foundation

/// Paths and scratch space shared by every test target.
public enum TestPaths {
    /// The repository's root folder (where Package.swift is).
    public static let repositoryRoot: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }()

    /// `../shared` beside the repository (fixtures, scoring vectors, photos), or `nil` when absent.
    /// `JQC_SHARED_DIR` overrides the location.
    public static let shared: URL? = {
        let environment = ProcessInfo.processInfo.environment["JQC_SHARED_DIR"]
        let candidate =
            environment.map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: candidate.appendingPathComponent("SPEC.md").path)
            ? candidate : nil
    }()

    /// A file under `../shared/fixtures`, or `nil` when ../shared is absent (tests then say so and skip).
    public static func sharedFixture(_ relativePath: String) -> URL? {
        shared?.appendingPathComponent("fixtures").appendingPathComponent(relativePath)
    }

    /// The folder holding built products (`.build/debug`), found beside the running test bundle.
    public static let productsDirectory: URL = {
        let bundle = Bundle.main.bundleURL
        var directory = bundle.hasDirectoryPath ? bundle : bundle.deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("jqc-shell").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        return repositoryRoot.appendingPathComponent(".build/debug")
    }()
}

/// A temporary directory removed when the value is deinitialised.
public final class TemporaryDirectory: @unchecked Sendable {  // because: immutable after init.
    /// The directory.
    public let url: URL

    /// Creates an empty directory under the system's temporary folder.
    public init(prefix: String = "jqc-test") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        // No try!: a failure here shows as the first write into the directory failing, not a crashed process.
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A path inside the directory.
    public func path(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
