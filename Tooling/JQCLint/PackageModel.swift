import Foundation

/// The targets of a package, as `swift package dump-package` describes them.
public struct PackageModel: Sendable, Equatable {
    /// One target of the package.
    public struct Target: Sendable, Equatable {
        /// The target's name (`JQCKit`, `JQCKitTests`, `jqc-shell`).
        public var name: String
        /// SwiftPM's type: `regular`, `test`, `executable`, `system`, `plugin`, `macro`, `binary`.
        public var type: String
        /// The target's folder relative to the package root, without a trailing `/`.
        public var path: String
        /// The names of the targets and products it depends on, in declaration order.
        public var dependencies: [String]
        /// Paths (relative to ``path``) excluded from its sources.
        public var exclude: [String]

        /// Whether this is a test target.
        public var isTest: Bool { type == "test" }

        /// Creates a target description.
        public init(name: String, type: String, path: String, dependencies: [String], exclude: [String] = []) {
            self.name = name
            self.type = type
            self.path = path
            self.dependencies = dependencies
            self.exclude = exclude
        }
    }

    /// The targets in manifest order.
    public var targets: [Target]

    /// Creates a model from targets.
    public init(targets: [Target]) {
        self.targets = targets
    }

    /// Decodes the JSON printed by `swift package dump-package`.
    /// - Parameters:
    ///   - data: the JSON.
    ///   - source: where it came from, for error messages.
    /// - Returns: the model.
    /// - Throws: ``LintError`` (`package-unreadable`) when the JSON has no target list.
    public static func decode(_ data: Data, source: String) throws -> PackageModel {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let targets = object["targets"] as? [[String: Any]]
        else {
            throw LintError(
                .packageUnreadable,
                "The package description from \(source) is not the JSON of "
                    + "`swift package dump-package` (no \"targets\" list); regenerate it.")
        }
        var result: [Target] = []
        for target in targets {
            guard let name = target["name"] as? String, let type = target["type"] as? String else {
                throw LintError(
                    .packageUnreadable,
                    "The package description from \(source) has a target "
                        + "without a name or type; regenerate it with `swift package dump-package`.")
            }
            let defaultFolder = type == "test" ? "Tests" : "Sources"
            var path = (target["path"] as? String) ?? "\(defaultFolder)/\(name)"
            while path.hasSuffix("/") { path.removeLast() }
            var dependencies: [String] = []
            for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
                for key in ["byName", "target", "product"] {
                    if let values = dependency[key] as? [Any], let dependencyName = values.first as? String {
                        dependencies.append(dependencyName)
                    }
                }
            }
            let exclude = target["exclude"] as? [String] ?? []
            result.append(Target(name: name, type: type, path: path, dependencies: dependencies, exclude: exclude))
        }
        return PackageModel(targets: result)
    }

    /// Runs `swift package dump-package` in a package folder and decodes its output. The child is started with
    /// `posix_spawnp` (``ChildProcess``), never Foundation's `Process`, and `swift` is looked up on PATH.
    /// - Parameters:
    ///   - root: the package root (where Package.swift is).
    ///   - scratchPath: a build folder other than ROOT/.build, so a running build's lock does not block.
    /// - Returns: the model.
    /// - Throws: ``LintError`` (`package-unreadable`) when swift cannot be run or fails.
    public static func dump(root: URL, scratchPath: URL? = nil) throws -> PackageModel {
        let arguments =
            ["package", "--package-path", root.path]
            + (scratchPath.map { ["--scratch-path", $0.path] } ?? []) + ["dump-package"]
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess.run("swift", arguments)
        } catch {
            throw LintError(
                .packageUnreadable,
                "`swift package dump-package` could not be started (\(error)); "
                    + "put swift on PATH or pass --package-json FILE.")
        }
        guard outcome.status == 0 else {
            let detail = String(decoding: outcome.errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw LintError(
                .packageUnreadable,
                "`swift package dump-package` failed in \(root.path) with status "
                    + "\(outcome.status) (\(detail)); fix Package.swift or pass --package-json FILE.")
        }
        return try decode(outcome.output, source: "swift package dump-package")
    }
}
