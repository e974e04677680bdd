import Foundation

/// The `jqc-lint` command line, runnable in-process (the executable only writes out the result).
///
/// Exit status: 0 clean, 1 violations, 64 bad policy, usage or package description (with a sentence).
public enum LintCommand {
    /// What a run printed and how it ended.
    public struct Result: Sendable, Equatable {
        /// The exit status: 0, 1 or 64.
        public var status: Int32
        /// Text for standard output (findings, JSON or the tier table).
        public var standardOutput: String
        /// Text for standard error (the summary line or the error sentence).
        public var standardError: String
    }

    /// The usage text.
    public static let usage = """
        usage: jqc-lint [--root DIR] [--policy FILE] [--package-json FILE | --scratch-path DIR]
                [--format text|json] [--print-tiers]

          --root DIR           the package to check (default: the current directory)
          --policy FILE        the policy (default: ROOT/jqc-lint.json)
          --package-json FILE  the output of `swift package dump-package` (default: run it in ROOT)
          --scratch-path DIR   the build folder dump-package uses (default: ROOT/.build)
          --format text|json   findings as compiler-style text (default) or one JSON object
          --print-tiers        print the Markdown tier table generated from the policy, then exit
        Exit status: 0 clean, 1 violations, 64 bad policy or usage.

        """

    /// Runs the command.
    /// - Parameters:
    ///   - arguments: the arguments after the program name.
    ///   - currentDirectory: where relative paths start.
    /// - Returns: the exit status and the text to print.
    public static func run(arguments: [String], currentDirectory: URL) -> Result {
        let started = ContinuousClock.now
        do {
            let options = try Options(arguments: arguments, currentDirectory: currentDirectory)
            if options.help { return Result(status: 0, standardOutput: usage, standardError: "") }
            let policyData: Data
            do {
                policyData = try Data(contentsOf: options.policy)
            } catch {
                throw LintError(
                    .policyUnreadable,
                    "The policy file \(options.policy.path) cannot be read; create "
                        + "it or pass --policy FILE.")
            }
            let policy = try Policy.decode(policyData, source: options.policy.path)
            if options.printTiers {
                return Result(status: 0, standardOutput: TierTable.markdown(for: policy), standardError: "")
            }
            let package: PackageModel
            if let file = options.packageJSON {
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    throw LintError(
                        .packageUnreadable,
                        "The package description \(file.path) cannot be read; "
                            + "create it with `swift package dump-package > FILE`.")
                }
                package = try PackageModel.decode(data, source: file.path)
            } else {
                package = try PackageModel.dump(root: options.root, scratchPath: options.scratchPath)
            }
            let linter = Linter(
                policy: policy, package: package, root: options.root,
                policyPath: relativePath(of: options.policy, to: options.root),
                policyText: String(decoding: policyData, as: UTF8.self))
            let report = try linter.run()
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let summary = report.summary.dropLast() + String(format: " (%.2f s).\n", seconds)
            let output = options.json ? report.json : report.text
            return Result(status: report.isClean ? 0 : 1, standardOutput: output, standardError: String(summary))
        } catch let error as LintError {
            let extra = error.code == .usage ? "\n" + usage : ""
            return Result(status: 64, standardOutput: "", standardError: error.description + "\n" + extra)
        } catch {
            return Result(status: 64, standardOutput: "", standardError: "jqc-lint: \(error)\n")
        }
    }

    static func relativePath(of file: URL, to root: URL) -> String {
        let filePath = file.standardizedFileURL.path
        let rootPath = root.standardizedFileURL.path
        let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
        return filePath.hasPrefix(prefix) ? String(filePath.dropFirst(prefix.count)) : filePath
    }

    struct Options {
        var root: URL
        var policy: URL
        var packageJSON: URL?
        var scratchPath: URL?
        var json = false
        var printTiers = false
        var help = false

        init(arguments: [String], currentDirectory: URL) throws {
            func resolve(_ path: String) -> URL {
                path.hasPrefix("/")
                    ? URL(fileURLWithPath: path)
                    : currentDirectory.appendingPathComponent(path)
            }
            var root = currentDirectory
            var policy: URL?
            var rest = arguments[...]
            func value(for option: String) throws -> String {
                guard let next = rest.popFirst(), !next.hasPrefix("--") else {
                    throw LintError(.usage, "The option \(option) needs a value.")
                }
                return next
            }
            while let argument = rest.popFirst() {
                switch argument {
                case "--root": root = resolve(try value(for: argument))
                case "--policy": policy = resolve(try value(for: argument))
                case "--package-json": packageJSON = resolve(try value(for: argument))
                case "--scratch-path": scratchPath = resolve(try value(for: argument))
                case "--format":
                    let format = try value(for: argument)
                    guard format == "text" || format == "json" else {
                        throw LintError(.usage, "The format \"\(format)\" is unknown; use text or json.")
                    }
                    json = format == "json"
                case "--print-tiers": printTiers = true
                case "--help", "-h": help = true
                default:
                    throw LintError(.usage, "The argument \"\(argument)\" is not an option of jqc-lint.")
                }
            }
            self.root = root.standardizedFileURL
            self.policy = (policy ?? root.appendingPathComponent("jqc-lint.json")).standardizedFileURL
        }
    }
}
