import JQCKit
import Testing

@testable import JQCForms

@Suite("Typed answers (AnswerValue, issue 16): each kind checked on its field and stored as the shell stores it")
struct AnswerValueTests {
    let restroom = DemoTemplates.schema(DemoTemplates.restroomQC)
    let office = DemoTemplates.schema(DemoTemplates.officeCleaning)

    /// The stored value (`nil`: cleared) or the refusal's sentence.
    func stored(_ fieldID: String, _ value: AnswerValue, in schema: FormSchema, current: JSONValue? = nil)
        -> Result<JSONValue?, FormsError>
    {
        do {
            let field = try schema.answerField(id: fieldID)
            switch try value.change(for: field, current: current) {
            case .set(let stored): return .success(stored)
            case .clear: return .success(nil)
            }
        } catch let error as FormsError {
            return .failure(error)
        } catch {
            return .failure(FormsError(.invalidAnswer, "unexpected \(error)"))
        }
    }

    func refusal(_ fieldID: String, _ value: AnswerValue, in schema: FormSchema) -> String? {
        if case .failure(let error) = stored(fieldID, value, in: schema) { return error.message }
        return nil
    }

    @Test("rating: 1…5 stored as the digit's text, 0 clears, 6 and -1 refused")
    func rating() {
        #expect(stored("2", .rating(4), in: restroom) == .success("4"))
        #expect(stored("2", .rating(5), in: restroom) == .success("5"))
        #expect(stored("2", .rating(0), in: restroom) == .success(nil))
        #expect(
            refusal("2", .rating(6), in: restroom)
                == "Field \"Floors clean and dry\" (id 2) takes a rating from 0 to 5 (0 clears it); \"6\" is not accepted."
        )
        #expect(refusal("2", .rating(-1), in: restroom) != nil)
    }

    @Test("bool: a checkbox stores \"true\" or \"false\"")
    func bool() {
        #expect(stored("6", .bool(true), in: restroom) == .success("true"))
        #expect(stored("6", .bool(false), in: restroom) == .success("false"))
    }

    @Test("option: radio, select and pass_fail store the option's own spelling; others refused")
    func option() {
        #expect(stored("7", .option("acceptable"), in: restroom) == .success("Acceptable"))
        #expect(stored("8", .option("FAMILY"), in: restroom) == .success("Family"))
        #expect(stored("4", .option("fail"), in: restroom) == .success("Fail"))
        #expect(stored("7", .option(" "), in: restroom) == .success(nil))
        #expect(
            refusal("7", .option("Bad"), in: restroom)
                == "Field \"Odor\" (id 7) takes one of \"Good\", \"Acceptable\", \"Poor\"; \"Bad\" is not accepted.")
        let plain = FormSchema(json: [["id": 1, "type": "pass_fail", "label": "Plain"]])
        #expect(stored("1", .option("PASS"), in: plain) == .success("Pass"))
        #expect(refusal("1", .option("Maybe"), in: plain)?.contains("\"Pass\", \"Fail\", or \"\" to clear") == true)
    }

    @Test("options: a checkbox_group stores option texts in option order; [] clears; unknown ones refused")
    func options() {
        #expect(stored("102", .options(["windows", "Dusted"]), in: office) == .success(["Dusted", "Windows"]))
        #expect(stored("102", .options([]), in: office) == .success(nil))
        #expect(
            refusal("102", .options(["Dusted", "Mopped"]), in: office)
                == "Field \"Tasks completed\" (id 102) takes one or more of \"Vacuumed\", \"Dusted\", \"Trash\", "
                + "\"Windows\", \"Kitchenette\"; \"Mopped\" is not accepted.")
    }

    @Test("text: text and textarea as given (blank clears); email checked and trimmed")
    func text() {
        #expect(stored("14", .text("J. Park"), in: restroom) == .success("J. Park"))
        #expect(stored("10", .text("Floor wet\nnear sinks"), in: restroom) == .success("Floor wet\nnear sinks"))
        #expect(stored("14", .text("  "), in: restroom) == .success(nil))
        #expect(stored("108", .text(" pat@example.com "), in: office) == .success("pat@example.com"))
        #expect(
            refusal("108", .text("pat@"), in: office)
                == "Field \"Client contact\" (id 108) takes an e-mail address such as name@example.com; "
                + "\"pat@\" is not accepted.")
    }

    @Test("date: a calendar day stored as yyyy-MM-dd")
    func date() throws {
        let day = try #require(CalendarDay("2026-07-14"))
        #expect(stored("13", .date(day), in: restroom) == .success("2026-07-14"))
    }

    @Test("number: decimal text stored as typed; anything else refused")
    func number() {
        #expect(stored("107", .number("12"), in: office) == .success("12"))
        #expect(stored("107", .number("-4.50"), in: office) == .success("-4.50"))
        #expect(stored("107", .number(""), in: office) == .success(nil))
        #expect(
            refusal("107", .number("4,5"), in: office)
                == "Field \"Occupants present\" (id 107) takes a number such as 12 or 4.5; \"4,5\" is not accepted.")
    }

    @Test("table cell: written over the stored rows (padded to table_rows and every header); blank table clears")
    func tableCell() {
        let current: JSONValue = [["Item": "Towels", "Count": "12", "Reorder?": "no"]]
        #expect(
            stored("106", .tableCell(row: 2, column: "item", text: "Soap"), in: office, current: current)
                == .success([
                    ["Item": "Towels", "Count": "12", "Reorder?": "no"],
                    ["Item": "Soap", "Count": "", "Reorder?": ""],
                    ["Item": "", "Count": "", "Reorder?": ""],
                ]))
        #expect(stored("106", .tableCell(row: 1, column: "Count", text: ""), in: office) == .success(nil))
        let accepts =
            "Field \"Supply counts\" (id 106) is a table and takes ROW COLUMN VALUE, with ROW from 1 to 3 "
            + "and COLUMN one of \"Item\", \"Count\", \"Reorder?\" or its number"
        #expect(
            refusal("106", .tableCell(row: 4, column: "Item", text: "x"), in: office)
                == accepts + "; \"4 Item x\" is not accepted.")
        #expect(refusal("106", .tableCell(row: 1, column: "Price", text: "x"), in: office) != nil)
    }

    @Test("clear removes any input field's answer, image and signature included")
    func clear() {
        for id in ["2", "4", "6", "7", "9", "10", "12", "13", "14"] {
            #expect(stored(id, .clear, in: restroom) == .success(nil), "field \(id)")
        }
        #expect(stored("106", .clear, in: office) == .success(nil))
    }

    @Test("a value of another kind is refused with a sentence naming what the field takes")
    func wrongKind() {
        #expect(
            refusal("2", .bool(true), in: restroom)
                == "Field \"Floors clean and dry\" (id 2) is a rating field and takes a rating from 0 to 5, "
                + "not a true/false value.")
        #expect(refusal("6", .text("true"), in: restroom)?.hasSuffix("takes true or false, not text.") == true)
        #expect(refusal("13", .text("2026-07-14"), in: restroom)?.hasSuffix("takes a date, not text.") == true)
        #expect(refusal("107", .rating(3), in: office)?.hasSuffix("takes a number, not a rating.") == true)
        #expect(refusal("102", .option("Dusted"), in: office) != nil)
    }

    @Test("image and signature fields refuse every value but clear (issue 18); display-only fields refuse all")
    func photoAndDisplayOnly() {
        #expect(
            refusal("9", .text("not-a-photo"), in: restroom)
                == "Field \"Photo of condition\" (id 9) is an image field and takes a photo only through "
                + "'photo 9 FILE'; clear it with 'photo 9 --clear' or 'answer 9 \"\"'.")
        #expect(refusal("12", .text("uploads/sig.jpg"), in: restroom)?.contains("is a signature field") == true)
        #expect(refusal("9", .option("x"), in: restroom) != nil)
        if case .failure(let error) = stored("1", .text("x"), in: restroom) {
            #expect(error.kind == .notAnswerable)
        } else {
            Issue.record("a section took an answer")
        }
        if case .failure(let error) = stored("1", .clear, in: restroom) {
            #expect(error.kind == .notAnswerable)
        } else {
            Issue.record("a section took a clear")
        }
    }

    @Test("the shell's words map onto AnswerValue: both give the same stored values")
    func wordsMatchTypedValues() throws {
        let day = try #require(CalendarDay("2026-07-14"))
        let cases: [(String, [String], AnswerValue, FormSchema)] = [
            ("2", ["4"], .rating(4), restroom), ("6", ["yes"], .bool(true), restroom),
            ("7", ["poor"], .option("poor"), restroom), ("4", ["PASS"], .option("PASS"), restroom),
            ("102", ["Trash,windows"], .options(["Trash", "windows"]), office),
            ("14", ["J.", "Park"], .text("J. Park"), restroom), ("13", ["2026-07-14"], .date(day), restroom),
            ("107", ["-4.5"], .number("-4.5"), office), ("108", ["a@b.co"], .text("a@b.co"), office),
            ("106", ["2", "3", "yes"], .tableCell(row: 2, column: "Reorder?", text: "yes"), office),
            ("9", [""], .clear, restroom),
        ]
        for (id, words, value, schema) in cases {
            var byWords = FormAnswers()
            var byValue = FormAnswers()
            let fromWords = try byWords.set(fieldID: id, arguments: words, schema: schema)
            let fromValue = try byValue.set(fieldID: id, value: value, schema: schema)
            #expect(fromWords == fromValue, "field \(id): \(words)")
            #expect(byWords == byValue)
        }
        let field = try office.answerField(id: "106")
        #expect(
            try AnswerInput.value(for: field, arguments: ["1", "2", "12"])
                == .tableCell(row: 1, column: "Count", text: "12"))
    }
}
