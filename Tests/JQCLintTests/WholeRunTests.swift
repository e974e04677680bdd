import Foundation
import Testing

@testable import JQCLint

@Suite("A whole run checks Package.swift, every file, the policy's names and its exceptions")
struct WholeRunTests {
    func found(_ report: LintReport) -> [String] {
        report.findings.map { "\($0.rule)@\($0.path):\($0.line):\($0.column)" }
    }

    @Test("a declared dependency on a sibling and a print in a library are reported where they are")
    func declarationAndTextFindings() throws {
        let mini = try MiniPackage()
        let report = try mini.linter().run()
        #expect(found(report) == ["layering@Package.swift:8:50", "no-print@Sources/Upper/Upper.swift:4:5"])
        #expect(report.filesChecked == 4)
        #expect(report.targetsChecked == 4)
        let layering = try #require(report.findings.first)
        #expect(
            layering.message == "Package.swift declares that Side imports Upper from its own tier "
                + "(tier 1 upper); modules of one tier are independent.")
    }

    @Test("exceptions with a reason silence exactly the findings they match")
    func exceptionsSilence() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "import": "Upper", "because": "Side is being split."},
                {"rule": "no-print", "path": "Sources/Upper/", "contains": "print(\\"up\\")", "because": "A demo."}
                """)
        let result = found(try mini.linter().run())
        #expect(result == [])
    }

    @Test("an exception that matches nothing is itself an error, located at its entry in the policy")
    func staleException() throws {
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."},
                {"rule": "no-print", "path": "Sources/Upper/Upper.swift", "because": "A demo."},
                ⚑{"rule": "no-print", "path": "Sources/Base/Base.swift", "because": "Was needed once."}
                """)
        let report = try mini.linter().run()
        #expect(found(report) == ["stale-exception@jqc-lint.json:\(mini.policyMarker)"])
        #expect(
            report.findings.first?.message
                == "The exception for [no-print] at Sources/Base/Base.swift matches no finding.")
    }

    @Test("a target in no tier and a policy module missing from Package.swift are reported")
    func placement() throws {
        var targets = MiniPackage.targets
        targets.append(.init(name: "Extra", type: "regular", path: "Sources/Extra", dependencies: []))
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."},
                {"rule": "no-print", "module": "Upper", "because": "A demo."}
                """, extraModules: ["⚑Ghost"], targets: targets)
        let result = found(try mini.linter().run())
        #expect(
            result == [
                "unplaced-target@Package.swift:1:1", "unknown-policy-module@jqc-lint.json:\(mini.policyMarker)",
            ])
    }

    @Test("a door, a sibling and an undeclared import are reported at the import")
    func undeclaredImportInRun() throws {
        var sources = MiniPackage.sources
        sources["Sources/Side/Side.swift"] = "import Base\nimport Upper\nimport CLib\n"
        sources["Tests/UpperTests/UpperTests.swift"] =
            "import Testing\n@testable import Upper\nimport Base\nimport Side\n"
        var targets = MiniPackage.targets
        targets[3].dependencies = ["Base"]
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "no-print", "module": "Upper", "because": "A demo."}
                """, targets: targets, sources: sources)
        let result = found(try mini.linter().run())
        #expect(
            result == [
                "layering@Sources/Side/Side.swift:2:8", "clib-door@Sources/Side/Side.swift:3:8",
                "undeclared-dependency@Tests/UpperTests/UpperTests.swift:4:8",
            ])
    }
}

@Suite("The doc-comment rule knows the whole package's protocols")
struct DocCommentRunTests {
    static let sources: [String: String] = [
        "Sources/Base/Sink.swift": "/// Where lines go.\npublic protocol Sink {\n    /// Writes one line.\n    "
            + "func write(_ line: String)\n}\n",
        "Sources/Upper/Drop.swift": "import Base\n\n/// Drops lines.\npublic struct Drop {}\n\nextension Drop: Sink {\n"
            + "    public func write(_ line: String) {}\n    public func flush() {}\n}\n",
    ]

    @Test("a witness of a protocol declared in another file and target needs no comment; other members do")
    func witnessAcrossFiles() throws {
        var sources = MiniPackage.sources.merging(DocCommentRunTests.sources) { _, new in new }
        sources["Sources/Upper/Upper.swift"] = "import Base\n"
        let mini = try MiniPackage(
            exceptions: """
                {"rule": "layering", "module": "Side", "because": "Side is being split."}
                """, sources: sources)
        let report = try mini.linter().run()
        #expect(
            report.findings.map { "\($0.rule)@\($0.path):\($0.line):\($0.column) \($0.message)" } == [
                "undocumented-public@Sources/Upper/Drop.swift:8:5 The public func flush() has no /// doc comment."
            ])
        // Checked alone, the file knows no Sink, so its write(_:) is not known as a witness.
        let alone = try mini.linter().check(
            source: DocCommentRunTests.sources["Sources/Upper/Drop.swift"] ?? "", path: "Sources/Upper/Drop.swift",
            target: "Upper")
        #expect(alone.map(\.line) == [7, 8])
    }
}
