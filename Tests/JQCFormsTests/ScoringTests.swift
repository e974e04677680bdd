import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCForms

@Suite("Scoring (SCORING.md, seed 001 §18)")
struct ScoringTests {
    static let vectorsURL = TestPaths.sharedFixture("scoring/vectors.json")

    @Test(
        "every shared scoring vector gives exactly its expected score",
        .enabled(if: vectorsURL != nil, "../shared is absent, so the shared scoring vectors are skipped"))
    func sharedVectors() throws {
        let file = try JSONValue.parse(Data(contentsOf: try #require(Self.vectorsURL)))
        let vectors = try #require(file["vectors"]?.arrayValue)
        #expect(vectors.count == 72)
        for vector in vectors {
            let name = vector["name"]?.stringValue ?? "?"
            let schema = try #require(vector["schema"])
            let formData = try #require(vector["form_data"]?.objectValue)
            let expected = vector["score"]?.doubleValue
            let score = InspectionScorer.score(schema: schema, formData: formData)
            #expect(score == expected, "vector \(name)")
            // The explanation agrees with the score.
            let explanation = InspectionScorer.explain(schema: schema, formData: formData)
            #expect(explanation.score == expected, "vector \(name), explained")
            #expect(explanation.counted == explanation.parts.filter(\.counted).count, "vector \(name)")
        }
    }

    @Test("ratings count only as whole numbers 1 to 5, from JSON numbers or digit text")
    func ratingValues() {
        let cases: [(JSONValue?, Int?)] = [
            (4, 4), (.double(4.0), 4), ("4", 4), (" 04 ", 4), ("+5", 5), ("\t3\n", 3), ("1", 1),
            (0, nil), ("0", nil), ("4.5", nil), ("4.0", nil), (.double(4.5), nil), ("", nil), (nil, nil),
            (true, nil), (6, nil), (-1, nil), ("-1", nil), ("٣", nil), ("1_0", nil), ("00000000000000000000005", 5),
            ("99999999999999999999999", nil), (["4"], nil), (.null, nil), ("- 4", nil),
        ]
        for (value, expected) in cases {
            #expect(InspectionScorer.ratingValue(value) == expected, "\(String(describing: value))")
        }
    }

    @Test("each scoreable type earns its part as the table in SCORING.md says")
    func earnedParts() {
        #expect(InspectionScorer.earned(type: .rating, value: "4") == 0.8)
        #expect(InspectionScorer.earned(type: .rating, value: "0") == nil)
        #expect(InspectionScorer.earned(type: .checkbox, value: "true") == 1)
        #expect(InspectionScorer.earned(type: .checkbox, value: true) == 1)
        #expect(InspectionScorer.earned(type: .checkbox, value: "True") == 0)
        #expect(InspectionScorer.earned(type: .checkbox, value: nil) == 0)
        #expect(InspectionScorer.earned(type: .radio, value: "ACCEPTABLE") == 1)
        #expect(InspectionScorer.earned(type: .radio, value: " ok") == 0)
        #expect(InspectionScorer.earned(type: .radio, value: nil) == 0)
        #expect(InspectionScorer.earned(type: .passFail, value: "") == nil)
        #expect(InspectionScorer.earned(type: .passFail, value: 3) == nil)
        #expect(InspectionScorer.earned(type: .passFail, value: "Fail") == 0)
        #expect(InspectionScorer.earned(type: .passFail, value: "Compliant") == 1)
        #expect(InspectionScorer.earned(type: .text, value: "pass") == nil)
    }

    @Test("the first field of a known type owns a duplicated id; an unknown type never does")
    func duplicateIDs() throws {
        let schema = try JSONValue.parse(
            #"""
            [{"id":1,"type":"mystery"},{"id":1,"type":"rating"},{"id":1,"type":"checkbox"},
             {"id":2,"type":"section"},{"id":2,"type":"checkbox"}]
            """#)
        #expect(InspectionScorer.score(schema: schema, formData: ["1": "3", "2": "false"]) == 60)
    }

    @Test("the explanation lists each scoreable field's counted and earned part in schema order")
    func explanation() {
        let schema = DemoTemplates.schema(DemoTemplates.restroomQC)
        let explanation = InspectionScorer.explain(
            schema: schema,
            formData: DemoTemplates.answers(DemoTemplates.answers501))
        #expect(explanation.parts.map(\.fieldID) == ["2", "3", "4", "5", "6", "7"])
        #expect(explanation.parts.map(\.earned) == [0.4, 0.8, 0, 1, 1, 0])
        #expect(explanation.parts.allSatisfy { $0.counted })
        #expect(explanation.counted == 6)
        #expect(explanation.score == 53.33)
        #expect(
            explanation.lines == [
                "2  rating  \"Floors clean and dry\"  0.4 of 1",
                "3  rating  \"Mirrors and fixtures\"  0.8 of 1",
                "4  pass_fail  \"Soap dispensers filled\"  0 of 1",
                "5  pass_fail  \"Paper products stocked\"  1 of 1",
                "6  checkbox  \"Trash emptied\"  1 of 1",
                "7  radio  \"Odor\"  0 of 1",
                "total: 3.2 of 6 → 53.33",
            ])
        #expect(explanation.json["score"] == .double(53.33))
        #expect(
            explanation.json["fields"]?.arrayValue?.first == [
                "id": "2", "type": "rating", "label": "Floors clean and dry", "value": "2", "counted": true,
                "earned": .double(0.4),
            ])
    }

    @Test("a schema with nothing counted has no score, and the explanation says so")
    func noScore() {
        let explanation = InspectionScorer.explain(
            schema: DemoTemplates.schema(DemoTemplates.floorCare),
            formData: ["201": "", "203": "0"])
        #expect(explanation.score == nil)
        #expect(explanation.parts.map(\.counted) == [false, false, false])
        #expect(explanation.lines.last == "total: nothing counted → no score")
        #expect(InspectionScorer.score(schema: .string("not a schema"), formData: [:]) == nil)
        #expect(InspectionScorer.score(schema: .null, formData: ["1": "5"]) == nil)
    }
}

@Suite("Python rounding (round(x, 2) on the double)")
struct PythonRoundingTests {
    @Test("exact binary ties round to even and doubles just below a tie round down")
    func ties() {
        let cases: [(Double, Double)] = [
            (12.5, 12.5), (12.125, 12.12), (12.375, 12.38), (0.125, 0.12), (0.375, 0.38),
            (0.285, 0.28), (1.005, 1.0), (2.675, 2.67), (0.995, 0.99), (0.015, 0.01), (0.025, 0.03),
            (200.0 / 3.0, 66.67), (600.0 / 7.0, 85.71), (80.0 / 3.0, 26.67), (-2.675, -2.67), (-0.125, -0.12),
            (100, 100), (0, 0), (1e-300, 0), (.leastNonzeroMagnitude, 0), (0.005, 0.01), (0.0050000000000000001, 0.01),
            (1152921504606846976, 1152921504606846976), (33.33333333333333, 33.33), (45.0, 45),
        ]
        for (value, expected) in cases {
            #expect(PythonRounding.roundToHundredths(value) == expected, "round(\(value), 2)")
        }
        #expect(PythonRounding.roundToHundredths(-0.001).sign == .minus)
        #expect(PythonRounding.roundToHundredths(.infinity) == .infinity)
        #expect(PythonRounding.roundToHundredths(.nan).isNaN)
    }

    @Test("rounding agrees with the C library's exact %.2f on seeded doubles and every score-shaped tie")
    func agreesWithPrintf() {
        var generator = SeededGenerator(seed: 0x5c0_2e)
        func printfRounded(_ value: Double) -> Double { Double(String(format: "%.2f", value)) ?? .nan }
        for _ in 0..<100_000 {
            let value = Double.random(in: -1000...1000, using: &generator)
            #expect(PythonRounding.roundToHundredths(value) == printfRounded(value), "\(value)")
        }
        // Scores are 100 × earned / counted: every k/n for small n, and every exact eighth.
        for counted in 1...60 {
            for earnedFifths in 0...(counted * 5) {
                let value = 100 * (Double(earnedFifths) / 5) / Double(counted)
                #expect(PythonRounding.roundToHundredths(value) == printfRounded(value), "\(value)")
            }
        }
        for eighth in 0...8000 {
            let value = Double(eighth) / 800
            #expect(PythonRounding.roundToHundredths(value) == printfRounded(value), "\(value)")
        }
    }
}

@Suite("The score file of `jqc-shell score FILE` (SHELL.md)")
struct ScoreFileTests {
    @Test("a score file gives the score and its explanation")
    func reads() throws {
        let file = try ScoreFile(
            data: Data(
                #"""
                {"schema":[{"id":1,"type":"rating"},{"id":"2","type":"checkbox"}],"form_data":{"1":"4","2":"true"}}
                """#.utf8))
        #expect(file.score == 90)
        #expect(file.explanation.parts.map(\.earned) == [0.8, 1])
        let unanswered = try ScoreFile(data: Data(#"{"schema":[{"id":1,"type":"radio"}]}"#.utf8))
        #expect(unanswered.formData.isEmpty)
        #expect(unanswered.score == 0)
    }

    @Test("a malformed score file is refused with a sentence saying the expected shape")
    func refuses() {
        let cases: [(String, String)] = [
            ("{nope", "The score file is not valid JSON; it must be {\"schema\": [...], \"form_data\": {...}}."),
            (
                #"{"form_data":{}}"#,
                "The score file needs a \"schema\" array of fields, as in {\"schema\": [...], \"form_data\": {...}}."
            ),
            (
                #"{"schema":[],"form_data":[1]}"#,
                "The score file's \"form_data\" must be an object of field id → answer."
            ),
        ]
        for (text, message) in cases {
            do {
                _ = try ScoreFile(data: Data(text.utf8))
                Issue.record("\(text) was accepted")
            } catch let error as FormsError {
                #expect(error.kind == .malformedSchema)
                #expect(error.message == message)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }
}
