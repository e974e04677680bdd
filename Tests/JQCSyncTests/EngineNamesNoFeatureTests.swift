import Foundation
import JQCTestSupport
import Testing

/// SPEC.md §2 and issue 16: the sync engine knows no feature. Its code (comments aside) never names one —
/// no stage, table, kind or endpoint of a feature; features declare those themselves.
@Suite("JQCSync names no feature")
struct EngineNamesNoFeatureTests {
    /// Words that name a feature's records (any case, as part of an identifier or a string literal).
    static let featureWords = [
        "inspection", "issue", "photo", "notification", "dashboard", "scheduled", "follow-up", "followup",
        "follow_up", "facilit", "template", "mark-read",
    ]

    @Test("no line of Modules/JQCSync's code, with its comments removed, contains a feature's name")
    func noFeatureNames() throws {
        let folder = TestPaths.repositoryRoot.appendingPathComponent("Modules/JQCSync")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count >= 8, "the engine's sources were not found under \(folder.path)")
        var found: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                let lowered = code.lowercased()
                for word in Self.featureWords where lowered.contains(word) {
                    found.append("\(file):\(number + 1): \(word)")
                }
            }
        }
        #expect(found.isEmpty, "feature names in the engine: \(found)")
    }

    @Test("the check sees a feature's name when one is there")
    func plantedName() {
        let planted = #"let stage = "inspections"  // a comment may say photos"#
        let code = planted.range(of: "//").map { planted[..<$0.lowerBound] } ?? planted[...]
        #expect(Self.featureWords.contains { code.lowercased().contains($0) })
        #expect(!Self.featureWords.contains { "let stage = name".contains($0) })
    }
}
