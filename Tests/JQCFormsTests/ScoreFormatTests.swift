import Testing

@testable import JQCForms

@Suite("Score formatting of numbers a server may send")
struct ScoreFormatTests {
    @Test("a huge or non-finite overall score is printed, never converted with a trap (issue 21)")
    func hostileScores() {
        #expect(ScoreExplanation.format(85.714) == "85.71")
        #expect(ScoreExplanation.format(100) == "100")
        #expect(ScoreExplanation.format(1e300) == "1e+300")
        #expect(ScoreExplanation.format(-1e300) == "-1e+300")
        #expect(!ScoreExplanation.format(.infinity).isEmpty)
    }
}
