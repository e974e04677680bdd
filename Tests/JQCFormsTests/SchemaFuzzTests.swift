import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCForms

/// Mutated schema text through the parser, scorer, validator and renderers (issue 11 "Fuzzing").
@Suite("Schema text fuzzing")
struct SchemaFuzzTests {
    static let seed = #"""
        [{"id":1,"type":"section","label":"General","row":1,"col":1,"colSpan":12},
         {"id":2,"type":"rating","label":"Floors","row":2,"col":1,"colSpan":6,"required":true},
         {"id":"3","type":"pass_fail","label":"Soap","row":2,"col":7,"colSpan":6,"options":["Pass","Fail"]},
         {"id":4,"type":"table","label":"Stalls","row":3,"col":1,"colSpan":12,"col_headers":["Stall","Note"],"table_rows":2},
         {"id":5,"type":"checkbox_group","label":"Supplies","row":4,"col":1,"options":["Towels","Soap"]},
         {"id":6,"type":"image","label":"Photo","row":5,"col":1,"rowSpan":3}]
        """#

    @Test("mutated schema text is refused with a sentence or parsed, scored, validated and drawn without a trap")
    func mutatedSchemas() throws {
        var generator = FuzzGenerator(seed: 0x5343_4845)
        let iterations = FuzzBudget.iterations(default: 400)
        let answers: [String: JSONValue] = [
            "2": "4", "3": "Pass", "4": [["Stall": "1", "Note": "ok"]], "5": ["Soap"], "6": "x",
        ]
        var parsed = 0, refused = 0
        for _ in 0..<iterations {
            let text = Mutator.mutate(Data(SchemaFuzzTests.seed.utf8), using: &generator)
            do {
                let schema = try FormSchema(data: text)
                _ = InspectionScorer.score(schema: schema.raw, formData: answers)
                _ = RequiredFields.missingLabels(in: schema, answers: answers)
                for style in [FormRenderer.Style.grid, .stacked, .readOnly] {
                    _ = FormRenderer.render(schema: schema, answers: answers, width: 120, style: style)
                }
                parsed += 1
            } catch {
                #expect("\(error)".hasSuffix("."), "\(error)")
                refused += 1
            }
        }
        #expect(parsed + refused == iterations)
        #expect(parsed > 0 && refused > 0)
    }
}
