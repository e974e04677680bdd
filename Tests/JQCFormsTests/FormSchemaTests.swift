import Foundation
import JQCKit
import Testing

@testable import JQCForms

@Suite("Form schema reading (seed 001 §12, rule 9)")
struct FormSchemaTests {
    @Test("integer and string ids become the same string keys and never Optional(5)")
    func idsNormalise() throws {
        let schema = FormSchema(
            json: try JSONValue.parse(
                #"[{"id":5,"type":"text"},{"id":"6","type":"text"},"#
                    + #"{"id":"05","type":"text"}]"#))
        #expect(schema.fields.map(\.id) == ["5", "6", "05"])
        #expect(schema.field(id: "5")?.type == .text)
        #expect(schema.field(id: "05") != schema.field(id: "5"))
        #expect(!schema.fields.contains { $0.id.contains("Optional") })
    }

    @Test("fields without a usable id are ignored and noted")
    func unusableIDs() throws {
        let schema = FormSchema(
            json: try JSONValue.parse(
                #"[{"type":"text"},{"id":null,"type":"text"},{"id":"","type":"text"},{"id":true,"type":"text"},"#
                    + #"{"id":2.5,"type":"text"},{"id":[1],"type":"text"},"text",{"id":7,"type":"text"}]"#))
        #expect(schema.fields.map(\.id) == ["7"])
        #expect(schema.notes.filter { $0.fieldID == nil }.map(\.index) == [0, 1, 2, 3, 4, 5, 6])
        #expect(schema.notes.map(\.index) == [0, 1, 2, 3, 4, 5, 6, 7, 7])  // schema order; field 8 has no row or col
        let duplicate = FormSchema(json: [["id": 1, "type": "text"], ["id": 1, "type": "text"]])
        #expect(duplicate.notes.map(\.index) == [0, 0, 1])  // schema order, though the duplicate is found first
        #expect(
            schema.notes[0].description
                == "field 1: Its id (missing) is not an integer or non-empty text; ignored.")
        #expect(schema.notes[6].message == "It is not a JSON object; it was ignored.")
    }

    @Test("a duplicated id keeps the first field of a known type; unknown types yield to known ones")
    func duplicates() throws {
        let schema = FormSchema(
            json: try JSONValue.parse(
                #"[{"id":1,"type":"rating","label":"A"},{"id":1,"type":"text","label":"B"},"#
                    + #"{"id":2,"type":"mystery","label":"C"},{"id":2,"type":"checkbox","label":"D"},"#
                    + #"{"id":3,"type":"mystery","label":"E"},{"id":3,"type":"weird","label":"F"}]"#))
        #expect(schema.fields.map(\.label) == ["A", "D", "E"])
        #expect(schema.fields.map(\.type) == [.rating, .checkbox, .unknown("mystery")])
        #expect(
            schema.notes.filter { $0.message.hasPrefix("Another field with this id wins") }.map(\.index)
                == [1, 2, 5])
    }

    @Test("every web type is read, buttons and unknown types are display-only")
    func types() throws {
        for raw in FormFieldType.knownRawValues {
            #expect(FormFieldType(rawValue: raw).rawValue == raw)
            #expect(FormFieldType(rawValue: raw).isKnown)
        }
        #expect(FormFieldType(rawValue: "button_submit") == .button("button_submit"))
        #expect(FormFieldType(rawValue: "button_submit").isDisplayOnly)
        #expect(FormFieldType(rawValue: "mystery") == .unknown("mystery"))
        #expect(FormFieldType(rawValue: "mystery").isDisplayOnly && !FormFieldType(rawValue: "mystery").isKnown)
        #expect([FormFieldType.rating, .checkbox, .radio, .passFail].allSatisfy { $0.isScoreable })
        #expect(FormFieldType.allInputTypesAreAnswerable)
        let schema = FormSchema(json: try JSONValue.parse(#"[{"id":1},{"id":2,"type":7,"required":true}]"#))
        #expect(schema.fields.map(\.type) == [.unknown(""), .unknown("")])
        #expect(schema.fields[1].required == false)
        #expect(schema.notes.map(\.message).contains("It has no type; it is shown as display-only."))
    }

    @Test("missing and odd grid positions are defaulted and clamped to the 12 columns, with notes")
    func placement() throws {
        let schema = FormSchema(
            json: try JSONValue.parse(
                #"""
                [{"id":1,"type":"text","row":2,"col":7,"colSpan":20,"rowSpan":0},
                 {"id":2,"type":"text","row":"3","col":0},
                 {"id":3,"type":"text","col":14,"colSpan":"x"},
                 {"id":4,"type":"text","row":4.0,"col":3.0,"colSpan":2,"rowSpan":2},
                 {"id":5,"type":"text","row":-1,"col":"x","rowSpan":99},
                 {"id":6,"type":"text","row":1}]
                """#))
        let placed = schema.fields.map { [$0.row, $0.col, $0.colSpan, $0.rowSpan] }
        #expect(
            placed == [[2, 7, 6, 1], [3, 1, 12, 1], [5, 12, 1, 1], [4, 3, 2, 2], [6, 1, 12, 50], [1, 1, 12, 1]])
        #expect(
            schema.notes.map(\.description) == [
                "field 1 (id 1): Its colSpan 20 does not fit from column 7; it was clamped to 6.",
                "field 1 (id 1): Its rowSpan 0 is outside 1…50; it was clamped to 1.",
                "field 2 (id 2): Its col 0 is outside 1…12; it was clamped to 1.",
                "field 3 (id 3): It has no row; it was placed on row 5.",
                "field 3 (id 3): Its col 14 is outside 1…12; it was clamped to 12.",
                "field 3 (id 3): Its colSpan is not a whole number; it spans to the right edge.",
                "field 5 (id 5): Its row is not a whole number from 1; it was placed on row 6.",
                "field 5 (id 5): Its col is not a whole number; it was placed in column 1.",
                "field 5 (id 5): Its rowSpan 99 is outside 1…50; it was clamped to 50.",
                "field 6 (id 6): It has no col; it was placed in column 1.",
            ])
        #expect(schema.fieldsInReadingOrder.map(\.id) == ["6", "1", "2", "4", "3", "5"])
    }

    @Test("labels, options, table headers, rows, placeholders and required flags are read")
    func attributes() {
        let schema = DemoTemplates.schema(DemoTemplates.officeCleaning)
        let table = schema.field(id: "106")
        #expect(table?.columnHeaders == ["Item", "Count", "Reorder?"])
        #expect(table?.tableRows == 3)
        #expect(table?.rowSpan == 3)
        #expect(schema.field(id: "102")?.options == ["Vacuumed", "Dusted", "Trash", "Windows", "Kitchenette"])
        #expect(schema.field(id: "109")?.required == true)
        #expect(schema.field(id: "110")?.type == .button("button_submit"))
        #expect(schema.field(id: "101")?.reference == "\"Office Areas\" (id 101)")
        #expect(schema.notes.isEmpty)
        let odd = FormSchema(json: [
            [
                "id": 1, "type": "text", "label": 12, "placeholder": "Name",
                "options": ["a", 2, .double(2.5), ["label": "L"], .null],
            ]
        ])
        #expect(odd.fields[0].label == "12")
        #expect(odd.fields[0].placeholder == "Name")
        #expect(odd.fields[0].options == ["a", "2", "2.5", "L"])
        #expect(FormField(id: "9", type: .text).displayLabel == "Field 9")
    }

    @Test("the raw JSON is kept and its hash is FNV-1a 64 over the sorted-key JSON")
    func hashAndRaw() throws {
        #expect(FNV1a64.hex([UInt8]()) == "cbf29ce484222325")
        #expect(FNV1a64.hex(Array("a".utf8)) == "af63dc4c8601ec8c")
        #expect(FNV1a64.hex(Array("foobar".utf8)) == "85944171f73967e8")
        let one = FormSchema(json: try JSONValue.parse(#"[{"id":1,"type":"text","label":"A"}]"#))
        let reordered = FormSchema(json: try JSONValue.parse(#"[{"label":"A","type":"text","id":1}]"#))
        let changed = FormSchema(json: try JSONValue.parse(#"[{"id":1,"type":"text","label":"B"}]"#))
        #expect(one.hash == reordered.hash)
        #expect(one.hash != changed.hash)
        #expect(one.hash == FNV1a64.hex(Array(#"[{"id":1,"label":"A","type":"text"}]"#.utf8)))
        #expect(one.hash.count == 16)
        #expect(one.raw == (try JSONValue.parse(#"[{"id":1,"type":"text","label":"A"}]"#)))
    }

    @Test("malformed schema text is refused with a sentence; non-array schemas have no fields")
    func malformed() throws {
        #expect(throws: FormsError.self) { try FormSchema(data: Data("[{\"id\":1,".utf8)) }
        do {
            _ = try FormSchema(data: Data("{oops".utf8))
            Issue.record("malformed text was accepted")
        } catch let error as FormsError {
            #expect(error.kind == .malformedSchema)
            #expect(error.message == "The form schema is not valid JSON; fetch the template again or fix its JSON.")
        }
        let object = try FormSchema(data: Data(#"{"id":1}"#.utf8))
        #expect(object.isEmpty)
        #expect(object.notes.map(\.message) == ["The schema is not a JSON array of fields; it has no fields."])
        let text = FormSchema(json: .string(#"[{"id":1,"type":"rating"}]"#))
        #expect(text.fields.map(\.id) == ["1"])
        #expect(FormSchema(json: .null).isEmpty && FormSchema.empty.isEmpty)
        #expect(FormSchema(json: .string("nope")).isEmpty)
    }
}

extension FormFieldType {
    /// Every known non-display type takes answers.
    static var allInputTypesAreAnswerable: Bool {
        knownRawValues.map(FormFieldType.init(rawValue:)).filter { !$0.isDisplayOnly }.count == 14
    }
}

@Suite("Field summaries for --json output")
struct FormFieldSummaryTests {
    @Test("a field's summary carries its normalised placement, options and table shape")
    func summary() {
        let office = DemoTemplates.schema(DemoTemplates.officeCleaning)
        #expect(
            office.field(id: "106")?.summaryJSON == [
                "id": "106", "type": "table", "label": "Supply counts", "row": 4, "col": 1, "colSpan": 12,
                "rowSpan": 3, "required": false, "options": [], "col_headers": ["Item", "Count", "Reorder?"],
                "table_rows": 3,
            ])
        #expect(
            office.field(id: "105")?.summaryJSON == [
                "id": "105", "type": "radio", "label": "Overall appearance", "row": 3, "col": 9, "colSpan": 4,
                "rowSpan": 1, "required": false, "options": ["Yes", "No"],
            ])
    }
}
