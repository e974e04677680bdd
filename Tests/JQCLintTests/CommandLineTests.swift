import Foundation
import JQCTestSupport
import Testing

@testable import JQCLint

/// Runs the built `jqc-lint` binary and captures what it printed.
func runLinter(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let binary = TestPaths.productsDirectory.appendingPathComponent("jqc-lint")
    try #require(
        FileManager.default.isExecutableFile(atPath: binary.path),
        "build jqc-lint first: swift build --product jqc-lint")
    let process = TestProcess()
    process.executableURL = binary
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (
        process.terminationStatus, String(decoding: outputData, as: UTF8.self),
        String(decoding: errorData, as: UTF8.self)
    )
}

@Suite("The jqc-lint binary: findings, formats and exit status")
struct CommandLineTests {
    func arguments(_ mini: MiniPackage, _ extra: [String] = []) -> [String] {
        ["--root", mini.root.path, "--package-json", mini.root.appendingPathComponent("package.json").path] + extra
    }

    @Test("violations print compiler-style findings with note and hint, and exit 1")
    func violationsExitOne() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."}
                """)
        let run = try runLinter(arguments(mini))
        #expect(run.status == 1)
        #expect(
            run.output == """
                Sources/Upper/Upper.swift:4:5: error: [no-print] print is used.
                    note: Libraries log.
                    hint: Use the logger.

                """)
        #expect(run.errors.hasPrefix("jqc-lint: 1 violation in 4 files of 4 targets ("))
    }

    @Test("a clean package exits 0 and prints nothing on standard output")
    func cleanExitsZero() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."},
                {"rule": "no-print", "module": "Upper", "because": "A demo."}
                """)
        let run = try runLinter(arguments(mini))
        #expect(run.status == 0)
        #expect(run.output == "")
        #expect(run.errors.hasPrefix("jqc-lint: clean in 4 files of 4 targets ("))
    }

    @Test("--format json prints the findings as one JSON object")
    func jsonFormat() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "no-print", "module": "Upper", "because": "A demo."}
                """)
        let run = try runLinter(arguments(mini, ["--format", "json"]))
        #expect(run.status == 1)
        let report = try JSONDecoder().decode(LintReport.self, from: Data(run.output.utf8))
        #expect(
            report.findings == [
                Finding(
                    path: "Package.swift", line: 8, column: 50, rule: "layering",
                    message:
                        "Package.swift declares that Side imports Upper from its own tier (tier 1 upper); modules of "
                        + "one tier are independent.",
                    note: report.findings.first?.note ?? "", hint: report.findings.first?.hint ?? "",
                    module: "Side", importedModule: "Upper")
            ])
        #expect(report.findings.first?.note.hasPrefix("SPEC.md §2") == true)
    }

    @Test("a malformed policy exits 64 with a sentence")
    func malformedPolicy() throws {
        let mini = try MiniPackage()
        try Data("{\"policyVersion\": 1,".utf8).write(to: mini.root.appendingPathComponent("broken.json"))
        let run = try runLinter(arguments(mini, ["--policy", mini.root.appendingPathComponent("broken.json").path]))
        #expect(run.status == 64)
        #expect(run.output == "")
        let prefix = "jqc-lint: policy-unreadable: The policy file \(mini.root.path)/broken.json is not valid JSON"
        #expect(run.errors.hasPrefix(prefix))
        #expect(run.errors.hasSuffix("; fix its syntax.\n"))
    }

    @Test("a stale exception makes the run fail with exit 1")
    func staleExceptionFails() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."},
                {"rule": "no-print", "module": "Upper", "because": "A demo."},
                ⚑{"rule": "no-print", "module": "Base", "because": "Left over."}
                """)
        let run = try runLinter(arguments(mini))
        #expect(run.status == 1)
        #expect(run.output.hasPrefix("jqc-lint.json:\(mini.policyMarker): error: [stale-exception] "))
    }

    @Test("an unknown option exits 64 with a sentence and the usage")
    func unknownOption() throws {
        let run = try runLinter(["--fast"])
        #expect(run.status == 64)
        #expect(
            run.errors.hasPrefix("jqc-lint: usage: The argument \"--fast\" is not an option of jqc-lint.\n\nusage:"))
        let format = try runLinter(["--format", "xml"])
        #expect(format.status == 64)
        #expect(format.errors.hasPrefix("jqc-lint: usage: The format \"xml\" is unknown; use text or json.\n"))
    }

    @Test("--print-tiers prints the tier table generated from the policy")
    func printTiers() throws {
        let mini = try MiniPackage()
        let run = try runLinter(["--root", mini.root.path, "--print-tiers"])
        #expect(run.status == 0)
        let lines = run.output.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(
            Array(lines.dropFirst(2).prefix(4)) == [
                "| tier | targets | may import |",
                "|---|---|---|",
                "| 0 base | Base (only home of CLib) | platform modules only |",
                "| 1 upper | Upper, Side | tier 0 |",
            ])
    }
}
