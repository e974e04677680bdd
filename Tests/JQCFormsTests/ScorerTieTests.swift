import Foundation
import JQCKit
import Testing

@testable import JQCForms

/// Issue 18: the scorer itself rounds half to even on the exact double (Python's `round(x, 2)`), not only
/// `PythonRounding` in isolation: these vectors are exact binary ties, so half-up rounding gives the other answer.
@Suite("The scorer's ties (SCORING.md)")
struct ScorerTieTests {
    /// A schema of `count` pass/fail fields with ids 1…count, the first `passes` answered "Pass", the rest "Fail".
    private func score(passFail count: Int, passes: Int) -> Double? {
        let fields: [JSONValue] = (1...count).map { id in
            [
                "id": .int(Int64(id)), "type": "pass_fail", "label": .string("Check \(id)"), "row": .int(Int64(id)),
                "col": 1, "colSpan": 12,
            ]
        }
        var answers: [String: JSONValue] = [:]
        for id in 1...count { answers[String(id)] = id <= passes ? "Pass" : "Fail" }
        return InspectionScorer.score(schema: .array(fields), formData: answers)
    }

    @Test(
        "exact ties inside the scorer round to even: 1 of 32 → 3.12, 3 of 32 → 9.38, 5 of 32 → 15.62, 1 of 16 → 6.25",
        arguments: [
            (32, 1, 3.12), (32, 3, 9.38), (32, 5, 15.62), (32, 7, 21.88), (32, 9, 28.12), (16, 1, 6.25), (8, 1, 12.5),
            (8, 3, 37.5), (32, 32, 100.0), (32, 0, 0.0),
        ])
    func ties(count: Int, passes: Int, expected: Double) {
        #expect(score(passFail: count, passes: passes) == expected, "\(passes) of \(count)")
    }
}
