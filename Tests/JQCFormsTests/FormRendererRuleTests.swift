import JQCKit
import Testing

@testable import JQCForms

@Suite("Form layout rules (seed 001 rules 58–60, 62, 77)")
struct FormRendererRuleTests {
    /// Fields stored out of row order, as the form editor leaves them (rule 62).
    static let shuffled = FormSchema(json: [
        ["id": 5, "type": "text", "label": "Notes", "row": 4, "col": 1, "colSpan": 12],
        ["id": 3, "type": "section", "label": "Second", "row": 3, "col": 1, "colSpan": 12],
        ["id": 2, "type": "rating", "label": "Floors", "row": 2, "col": 7, "colSpan": 6],
        ["id": 1, "type": "section", "label": "First", "row": 1, "col": 1, "colSpan": 12],
        ["id": 4, "type": "label", "label": "Say why", "row": 2, "col": 1, "colSpan": 6],
        ["id": 6, "type": "label", "label": "Orphan note", "row": 5, "col": 1, "colSpan": 12],
        ["id": 7, "type": "image", "label": "Photo", "row": 6, "col": 1, "colSpan": 4, "rowSpan": 3],
        ["id": 8, "type": "section", "label": "Empty section", "row": 9, "col": 1, "colSpan": 12],
        ["id": 9, "type": "checkbox", "label": "Unanswered", "row": 10, "col": 1, "colSpan": 12],
    ])

    @Test("fields are taken in (row, col) order before grouping, whatever their order in the schema")
    func readingOrder() {
        #expect(Self.shuffled.fieldsInReadingOrder.map(\.id) == ["1", "4", "2", "3", "5", "6", "7", "8", "9"])
        let stacked = FormRenderer.render(schema: Self.shuffled, answers: [:], width: 60, style: .stacked)
        #expect(
            stacked.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) == [
                "━━ First " + String(repeating: "━", count: 51),
                "Say why",
                "#2 Floors: ☆☆☆☆☆",
                "",
                "━━ Second " + String(repeating: "━", count: 50),
                "#5 Notes:",
                "Orphan note",
                "#7 Photo: [no photo]",
                "",
                "━━ Empty section " + String(repeating: "━", count: 43),
                "#9 Unanswered: [ ]",
            ])
    }

    @Test("the read-only view keeps answered fields, the label just before one and sections holding one")
    func fivePasses() {
        let answers: [String: JSONValue] = ["2": "0", "5": "Mopped", "7": "uploads/p.jpg", "9": ""]
        #expect(FormRenderer.answeredFieldIDs(schema: Self.shuffled, answers: answers) == ["5", "7"])
        let rows = FormRenderer.readOnlyRows(schema: Self.shuffled, answers: answers)
        #expect(rows.map { $0.map(\.id) } == [["3"], ["5"], ["6"], ["7"]])
        let rated = FormRenderer.readOnlyRows(schema: Self.shuffled, answers: ["2": 4, "9": "false"])
        #expect(rated.map { $0.map(\.id) } == [["1"], ["4", "2"], ["8"], ["9"]])
        #expect(FormRenderer.readOnlyRows(schema: Self.shuffled, answers: [:]).isEmpty)
        #expect(FormRenderer.render(schema: Self.shuffled, answers: [:], width: 120, style: .readOnly) == "")
    }

    @Test("read-only rows are one row high whatever the rowSpan, placed by their column")
    func rowSpansCollapse() {
        let text = FormRenderer.render(
            schema: Self.shuffled, answers: ["2": 4, "7": "local://x.jpg"], width: 104,
            style: .readOnly)
        #expect(
            text == """
                ━━ First \(String(repeating: "━", count: 86))
                Say why                                         Floors
                                                                ★★★★☆ 4/5
                ━━ Second \(String(repeating: "━", count: 85))
                Orphan note
                Photo
                [photo: x.jpg · not uploaded]

                """)
    }

    @Test("below 100 columns the grid is drawn stacked, one field per line (rule 77)")
    func narrowFallsBackToStacked() {
        let schema = DemoTemplates.schema(DemoTemplates.restroomQC)
        let answers = DemoTemplates.answers(DemoTemplates.answers501)
        for width in [20, 60, 99] {
            #expect(
                FormRenderer.render(schema: schema, answers: answers, width: width, style: .grid)
                    == FormRenderer.render(schema: schema, answers: answers, width: width, style: .stacked))
        }
        #expect(FormRenderer.render(schema: schema, answers: answers, width: 100, style: .grid).hasPrefix("━━"))
        #expect(FormRenderer.render(schema: schema, answers: answers, width: 100, style: .grid).contains("┌─ #2"))
        #expect(FormRenderer.minimumGridWidth == 100)
    }

    @Test("long answers wrap in the stacked layout and are cut with an ellipsis in a grid box")
    func wrapping() {
        let schema = FormSchema(json: [
            ["id": 1, "type": "textarea", "label": "Notes", "row": 1, "col": 1, "colSpan": 3],
            ["id": 2, "type": "mystery", "label": "Odd", "row": 2, "col": 1, "colSpan": 12],
        ])
        let answers: [String: JSONValue] = ["1": "one two three four five six seven eight nine ten eleven"]
        #expect(
            FormRenderer.render(schema: schema, answers: answers, width: 30, style: .stacked) == """
                #1 Notes:
                    one two three four five
                    six seven eight nine ten
                    eleven
                Odd (shown only: type
                "mystery")

                """)
        #expect(
            FormRenderer.render(schema: schema, answers: answers, width: 100, style: .grid) == """
                ┌─ #1 Notes ───────────┐
                │ one two three four…  │
                └──────────────────────┘
                Odd (shown only: type "mystery")

                """)
    }
}
