import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

@Suite("Server scoring")
struct ScoringTests {
    @Test(
        "every shared scoring vector scores to the last digit",
        .enabled(if: TestPaths.shared != nil, "../shared is absent; set JQC_SHARED_DIR"))
    func vectors() throws {
        let url = try #require(TestPaths.sharedFixture("scoring/vectors.json"), "../shared is missing")
        let vectors = try #require(try JSONValue.parse(Data(contentsOf: url))["vectors"]?.arrayValue)
        #expect(vectors.count == 72)
        for vector in vectors {
            let score = ServerScoring.score(
                schema: vector["schema"] ?? .null,
                formData: vector["form_data"]?.objectValue ?? [:])
            let expected = vector["score"]?.doubleValue
            #expect(score == expected, "\(vector["name"]?.stringValue ?? "?")")
        }
    }

    @Test("rounding follows Python's round on the double")
    func rounding() {
        #expect(ServerScoring.roundedToHundredths(12.5) == 12.5)
        #expect(ServerScoring.roundedToHundredths(2.675) == 2.67)
        #expect(ServerScoring.roundedToHundredths(66.66666666) == 66.67)
    }
}
