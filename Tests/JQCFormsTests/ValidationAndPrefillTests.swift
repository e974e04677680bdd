import JQCKit
import Testing

@testable import JQCForms

@Suite("Required fields (SCORING.md) and re-inspection prefill (seed 001 §15, rule 79)")
struct ValidationAndPrefillTests {
    @Test("missing required fields are listed by label in schema order, display-only types excepted")
    func requiredFields() {
        let schema = FormSchema(json: [
            ["id": 3, "type": "text", "label": "Third", "required": true],
            ["id": 1, "type": "rating", "label": "First", "required": true],
            ["id": 2, "type": "section", "label": "Heading", "required": true],
            ["id": 4, "type": "checkbox_group", "label": "Group", "required": true],
            ["id": 5, "type": "text", "label": "Optional"],
        ])
        #expect(RequiredFields.missingLabels(in: schema, answers: [:]) == ["Third", "First", "Group"])
        #expect(RequiredFields.missingLabels(in: schema, answers: ["3": "x", "1": "4", "4": ["a"]]).isEmpty)
        #expect(
            RequiredFields.missingLabels(in: schema, answers: ["3": "0", "1": 0, "4": []])
                == ["Third", "First", "Group"])
        let office = DemoTemplates.schema(DemoTemplates.officeCleaning)
        #expect(RequiredFields.missingLabels(in: office, answers: ["109": "false"]) == ["Client walkthrough done"])
        #expect(RequiredFields.missing(in: office, answers: DemoTemplates.answers(DemoTemplates.answers502)).isEmpty)
    }

    @Test("exactly absent, null, empty, \"false\", false, \"0\", 0 and [] count as missing")
    func missingValues() {
        let missing: [JSONValue?] = [nil, .null, "", "false", false, "0", 0, .double(0), []]
        let present: [JSONValue?] = [" ", "False", "no", true, "true", 1, "00", ["a"], ["k": "v"], [:], "x"]
        #expect(missing.allSatisfy { RequiredFields.isMissing($0) })
        #expect(!present.contains { RequiredFields.isMissing($0) })
    }

    @Test("a re-inspection copies the parent's answers except rating, pass_fail, image and signature")
    func prefillExcludes() {
        let schema = DemoTemplates.schema(DemoTemplates.restroomQC)
        let copied = ReinspectionPrefill.answers(
            fromParent: DemoTemplates.answers(DemoTemplates.answers501),
            schema: schema)
        #expect(
            copied == [
                "6": "true", "7": "Poor", "8": "Men", "10": "Floor wet near sinks", "13": "2026-07-10",
                "14": "J. Park",
            ])
    }

    @Test("prefilled arrays stay arrays, never joined into text")
    func prefillArrays() {
        let copied = ReinspectionPrefill.answers(
            fromParent: DemoTemplates.answers(DemoTemplates.answers502),
            schema: DemoTemplates.schema(DemoTemplates.officeCleaning))
        #expect(copied["102"] == ["Vacuumed", "Trash"])
        #expect(copied["106"] == [["Item": "Towels", "Count": "12", "Reorder?": "no"]])
        #expect(copied["103"] == nil && copied["104"] == nil)
        #expect(copied.keys.sorted() == ["102", "105", "106", "107", "108", "109"])
    }

    @Test("without a schema, or with an empty one, nothing is prefilled (rule 79)")
    func prefillNeedsSchema() {
        let parent = DemoTemplates.answers(DemoTemplates.answers501)
        #expect(ReinspectionPrefill.answers(fromParent: parent, schema: nil).isEmpty)
        #expect(ReinspectionPrefill.answers(fromParent: parent, schema: .empty).isEmpty)
        #expect(ReinspectionPrefill.answers(fromParent: parent, schema: FormSchema(json: [["id": .null]])).isEmpty)
    }

    @Test("an excluded type blocks its id even on a duplicate the schema ignores")
    func prefillDuplicates() {
        let schema = FormSchema(json: [
            ["id": 1, "type": "text"], ["id": 1, "type": "image"],
            ["id": 2, "type": "text"],
        ])
        let copied = ReinspectionPrefill.answers(
            fromParent: ["1": "uploads/a.jpg", "2": "kept", "9": "extra"],
            schema: schema)
        #expect(copied == ["2": "kept", "9": "extra"])
    }
}
