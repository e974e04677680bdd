import Foundation
import JQCTestSupport
import Testing

@testable import JQCLint

@Suite("The repository itself passes its own policy")
struct RepositoryTests {
    @Test("the repository has no violations and its policy has no exceptions")
    func repositoryIsClean() throws {
        let linter = try Repository.linter()
        let report = try linter.run()
        #expect(report.findings.map(\.text) == [])
        #expect(linter.policy.exceptions.isEmpty)
        #expect(report.filesChecked > 0)
    }

    @Test("every target of Package.swift is placed by the policy, or is a test or C target")
    func everyTargetIsPlaced() throws {
        let policy = try Repository.policy.get()
        let package = try Repository.package.get()
        let placed = Set(policy.placedModules).union(policy.protected.map(\.module))
        let unplaced = package.targets.filter { !$0.isTest && !placed.contains($0.name) }.map(\.name)
        #expect(unplaced == [])
    }

    @Test(
        "the tier table lists the tiers of SPEC.md §2 in order",
        arguments: [
            "| 0 foundation | JQCKit |", "| 1 adapters | JQCStorage (only home of CSQLite), JQCNetwork",
            "| 2 engine | JQCSync |",
            "| 3 features | in this order: JQCForms (imports only JQCKit) → JQCPhotos → JQCInspections → JQCIssues → "
                + "JQCScheduling → JQCFollowUps → JQCNotifications |",
            "| 4 composition | JQCComposition |",
            "| 5 apps | jqc-shell (only home of CEdit), jqc-devserver, jqc-lint |",
        ])
    func tierTable(_ row: String) throws {
        let table = TierTable.markdown(for: try Repository.policy.get())
        #expect(table.split(separator: "\n").contains { $0.hasPrefix(row) })
    }

    @Test(
        "Docs/ARCHITECTURE.md holds the tier table exactly as --print-tiers prints it",
        .enabled(
            if: FileManager.default.fileExists(
                atPath: TestPaths.repositoryRoot.appendingPathComponent("Docs/ARCHITECTURE.md").path)))
    func architectureDocumentIsGenerated() throws {
        let document = try String(
            contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Docs/ARCHITECTURE.md"),
            encoding: .utf8)
        let table = TierTable.markdown(for: try Repository.policy.get())
        #expect(document.contains(table))
    }
}
