import JQCForms
import JQCKit
import Testing

/// Issue 14: the form is drawn in linear time with one answer capped, and foreign text (labels, options, ids,
/// answers) is sanitised before it is measured, so a control character neither reaches the terminal nor
/// throws the columns out of line.
@Suite("Form rendering: long answers and hostile text")
struct FormRendererSafetyTests {
    static func schema(_ fields: [JSONValue]) -> FormSchema { FormSchema(json: .array(fields)) }

    @Test("a 1 MiB unbroken answer shows 20 lines, the last saying how many characters are left")
    func longAnswerIsCapped() {
        let schema = Self.schema([
            ["id": 2, "type": "textarea", "label": "Notes", "row": 1, "col": 1, "colSpan": 12, "rowSpan": 1]
        ])
        let answer = String(repeating: "x", count: 1 << 20)
        let text = FormRenderer.render(schema: schema, answers: ["2": .string(answer)], width: 60, style: .stacked)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 21)  // the label, then 20 lines of the answer
        #expect(lines[0] == "#2 Notes:")
        #expect(lines[1] == "    " + String(repeating: "x", count: 56))
        let shown = 19 * 56
        #expect(lines[20] == "    … (\((1 << 20) - shown) more characters: see --json)")
        #expect(lines.allSatisfy { $0.count <= 60 })
    }

    @Test("an answer of a few lines is drawn whole, its own line breaks kept and CRLF read as one")
    func shortAnswerIsWhole() {
        let schema = Self.schema([
            ["id": 2, "type": "textarea", "label": "Notes", "row": 1, "col": 1, "colSpan": 12, "rowSpan": 1]
        ])
        let text = FormRenderer.render(
            schema: schema, answers: ["2": "first line\r\nsecond line"], width: 60, style: .stacked)
        #expect(text == "#2 Notes:\n    first line\n    second line\n")
    }

    @Test("escape sequences in labels, options, ids and answers are shown escaped and the grid stays aligned")
    func hostileTextIsEscaped() {
        let schema = Self.schema([
            [
                "id": "7\u{1B}[H", "type": "radio", "label": "Odor\u{1B}[2J", "options": ["Good\r", "Poor\u{07}"],
                "row": 1, "col": 1, "colSpan": 6, "rowSpan": 1,
            ],
            ["id": 8, "type": "text", "label": "Who\u{202E}", "row": 1, "col": 7, "colSpan": 6, "rowSpan": 1],
        ])
        let answers: [String: JSONValue] = ["7\u{1B}[H": "Poor\u{07}", "8": "J. Park\u{1B}]52;c;aGk=\u{07}\nnext"]
        for style in FormRenderer.Style.allCases {
            for width in [60, 120] {
                let text = FormRenderer.render(schema: schema, answers: answers, width: width, style: style)
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                #expect(!text.unicodeScalars.contains { TerminalText.needsEscape($0, keepingLineFeeds: true) })
                #expect(lines.allSatisfy { $0.count <= width }, "\(style) at \(width):\n\(text)")
            }
        }
        let grid = FormRenderer.render(schema: schema, answers: answers, width: 120, style: .grid)
        #expect(grid.contains(#"#7\e[H Odor\e[2J"#))
        #expect(grid.contains(#"( ) Good\r  (•) Poor^G"#))
        #expect(grid.contains(#"Who<U+202E>"#))
        #expect(grid.contains(#"J. Park\e]52;c;aGk=^G"#))
        // The boxes of the first row keep their edges in line: top, middle and bottom.
        let rows = grid.split(separator: "\n").map(String.init)
        func columns(_ row: String, _ marks: String) -> [Int] {
            row.enumerated().filter { marks.contains($0.element) }.map(\.offset)
        }
        #expect(columns(rows[0], "┌┐") == columns(rows[2], "└┘"), "\(grid)")
        #expect(columns(rows[1], "│") == columns(rows[0], "┌┐"), "\(grid)")
    }
}
