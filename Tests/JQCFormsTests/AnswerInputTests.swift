import JQCKit
import Testing

@testable import JQCForms

@Suite("Typed answers (SHELL.md `answer`)")
struct AnswerInputTests {
    let restroom = DemoTemplates.schema(DemoTemplates.restroomQC)
    let office = DemoTemplates.schema(DemoTemplates.officeCleaning)

    func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch let error as FormsError {
            return error.message
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("a rating takes 0 to 5, stores the digit as text, and 0 clears it")
    func rating() throws {
        var answers = FormAnswers()
        #expect(try answers.set(fieldID: "2", arguments: ["4"], schema: restroom) == "4")
        #expect(answers["2"] == "4")
        #expect(try answers.set(fieldID: "2", arguments: ["0"], schema: restroom) == nil)
        #expect(answers["2"] == nil)
        #expect(
            message { try answers.set(fieldID: "2", arguments: ["6"], schema: restroom) }
                == "Field \"Floors clean and dry\" (id 2) takes a rating from 0 to 5 (0 clears it); \"6\" is not accepted."
        )
        #expect(message { try answers.set(fieldID: "2", arguments: ["4.5"], schema: restroom) } != nil)
        #expect(message { try answers.set(fieldID: "2", arguments: ["-1"], schema: restroom) } != nil)
    }

    @Test("a checkbox stores \"true\" or \"false\"")
    func checkbox() throws {
        var answers = FormAnswers()
        #expect(try answers.set(fieldID: "6", arguments: ["TRUE"], schema: restroom) == "true")
        #expect(try answers.set(fieldID: "6", arguments: ["false"], schema: restroom) == "false")
        #expect(
            message { try answers.set(fieldID: "6", arguments: ["maybe"], schema: restroom) }
                == "Field \"Trash emptied\" (id 6) takes true or false; \"maybe\" is not accepted.")
    }

    @Test("radio and select take one of their options case-insensitively and store the option's text")
    func choices() throws {
        var answers = FormAnswers()
        #expect(try answers.set(fieldID: "7", arguments: ["acceptable"], schema: restroom) == "Acceptable")
        #expect(try answers.set(fieldID: "8", arguments: ["FAMILY"], schema: restroom) == "Family")
        #expect(
            message { try answers.set(fieldID: "7", arguments: ["Bad"], schema: restroom) }
                == "Field \"Odor\" (id 7) takes one of \"Good\", \"Acceptable\", \"Poor\"; \"Bad\" is not accepted.")
        let free = FormSchema(json: [["id": 1, "type": "radio", "label": "Free"]])
        #expect(try answers.set(fieldID: "1", arguments: ["Anything", "goes"], schema: free) == "Anything goes")
    }

    @Test("pass_fail takes Pass or Fail or its own options, and an empty value clears it")
    func passFail() throws {
        var answers = FormAnswers()
        let plain = FormSchema(json: [
            ["id": 1, "type": "pass_fail", "label": "Mats"],
            [
                "id": 2, "type": "pass_fail", "label": "Own",
                "options": ["OK", "Not OK", "N/A"],
            ],
        ])
        #expect(try answers.set(fieldID: "1", arguments: ["pass"], schema: plain) == "Pass")
        #expect(try answers.set(fieldID: "1", arguments: ["FAIL"], schema: plain) == "Fail")
        #expect(try answers.set(fieldID: "1", arguments: [""], schema: plain) == nil)
        #expect(answers["1"] == nil)
        #expect(try answers.set(fieldID: "2", arguments: ["not", "ok"], schema: plain) == "Not OK")
        #expect(try answers.set(fieldID: "2", arguments: ["n/a"], schema: plain) == "N/A")
        #expect(
            message { try answers.set(fieldID: "2", arguments: ["Pass"], schema: plain) }
                == "Field \"Own\" (id 2) takes one of \"OK\", \"Not OK\", \"N/A\", or \"\" to clear; "
                + "\"Pass\" is not accepted.")
        #expect(try answers.set(fieldID: "4", arguments: ["fail"], schema: restroom) == "Fail")
    }

    @Test("a checkbox group takes one or more options and stores them as an array in option order")
    func checkboxGroup() throws {
        var answers = FormAnswers()
        #expect(
            try answers.set(fieldID: "102", arguments: ["trash", "Vacuumed"], schema: office)
                == ["Vacuumed", "Trash"])
        #expect(
            try answers.set(fieldID: "102", arguments: ["Windows,dusted"], schema: office) == ["Dusted", "Windows"])
        #expect(
            message { try answers.set(fieldID: "102", arguments: ["Mopped"], schema: office) }
                == "Field \"Tasks completed\" (id 102) takes one or more of \"Vacuumed\", \"Dusted\", \"Trash\", "
                + "\"Windows\", \"Kitchenette\"; \"Mopped\" is not accepted.")
        let spaced = FormSchema(json: [["id": 1, "type": "checkbox_group", "options": ["Break room", "Lobby"]]])
        #expect(try answers.set(fieldID: "1", arguments: ["break", "room"], schema: spaced) == ["Break room"])
    }

    @Test("a table takes ROW COLUMN VALUE and stores table_rows rows keyed by the column headers")
    func table() throws {
        var answers = FormAnswers()
        try answers.set(fieldID: "106", arguments: ["1", "item", "Paper", "towels"], schema: office)
        let stored = try answers.set(fieldID: "106", arguments: ["1", "2", "12"], schema: office)
        #expect(
            stored == [
                ["Item": "Paper towels", "Count": "12", "Reorder?": ""],
                ["Item": "", "Count": "", "Reorder?": ""],
                ["Item": "", "Count": "", "Reorder?": ""],
            ])
        #expect(
            try answers.set(fieldID: "106", arguments: ["3", "Reorder?", "yes"], schema: office)?
                .arrayValue?[2] == ["Item": "", "Count": "", "Reorder?": "yes"])
        let accepts =
            "Field \"Supply counts\" (id 106) is a table and takes ROW COLUMN VALUE, with ROW from 1 to 3 "
            + "and COLUMN one of \"Item\", \"Count\", \"Reorder?\" or its number"
        #expect(
            message { try answers.set(fieldID: "106", arguments: ["4", "Item", "x"], schema: office) }
                == accepts + "; \"4 Item x\" is not accepted.")
        #expect(message { try answers.set(fieldID: "106", arguments: ["1", "Price", "x"], schema: office) } != nil)
        #expect(message { try answers.set(fieldID: "106", arguments: [], schema: office) } != nil)
        // A parent's shorter table (seed inspection 502) is padded to table_rows.
        var prefilled = FormAnswers(DemoTemplates.answers(DemoTemplates.answers502))
        let padded = try prefilled.set(fieldID: "106", arguments: ["2", "Item", "Soap"], schema: office)
        #expect(padded?.arrayValue?.count == 3)
        #expect(padded?.arrayValue?[0] == ["Item": "Towels", "Count": "12", "Reorder?": "no"])
    }

    @Test("dates, numbers and e-mails are validated and stored as typed")
    func validatedText() throws {
        var answers = FormAnswers()
        #expect(try answers.set(fieldID: "13", arguments: ["2026-07-14"], schema: restroom) == "2026-07-14")
        #expect(
            message { try answers.set(fieldID: "13", arguments: ["2026-02-30"], schema: restroom) }
                == "Field \"Date\" (id 13) takes a date written yyyy-MM-dd (for example 2026-07-14); "
                + "\"2026-02-30\" is not accepted.")
        #expect(message { try answers.set(fieldID: "13", arguments: ["07/14/2026"], schema: restroom) } != nil)
        #expect(try answers.set(fieldID: "107", arguments: ["12"], schema: office) == "12")
        #expect(try answers.set(fieldID: "107", arguments: ["-4.5"], schema: office) == "-4.5")
        for bad in ["twelve", "1.2.3", ".", "1e5", "nan"] {
            #expect(
                message { try answers.set(fieldID: "107", arguments: [bad], schema: office) }
                    == "Field \"Occupants present\" (id 107) takes a number such as 12 or 4.5; \"\(bad)\" is not accepted."
            )
        }
        #expect(try answers.set(fieldID: "108", arguments: ["pat@example.com"], schema: office) == "pat@example.com")
        for bad in ["pat", "pat@", "@example.com", "pat@example", "a@b@c.d", "pat@exa mple.com"] {
            #expect(message { try answers.set(fieldID: "108", arguments: [bad], schema: office) } != nil, "\(bad)")
        }
    }

    @Test("text and textarea are stored as given, words joined by spaces; an empty value clears")
    func freeText() throws {
        var answers = FormAnswers()
        #expect(
            try answers.set(fieldID: "10", arguments: ["Floor", "wet  near", "sinks"], schema: restroom)
                == "Floor wet  near sinks")
        #expect(try answers.set(fieldID: "14", arguments: ["J. Park"], schema: restroom) == "J. Park")
        #expect(try answers.set(fieldID: "14", arguments: [], schema: restroom) == nil)
        #expect(answers.values == ["10": "Floor wet  near sinks"])
    }

    @Test("image and signature fields refuse text (a photo goes in only through `photo`) and take a clear")
    func photos() throws {
        var answers = FormAnswers(["9": "local://4F2A.jpg", "12": "uploads/sig.jpg"])
        #expect(
            message { try answers.set(fieldID: "9", arguments: ["not-a-photo"], schema: restroom) }
                == "Field \"Photo of condition\" (id 9) is an image field and takes a photo only through "
                + "'photo 9 FILE'; clear it with 'photo 9 --clear' or 'answer 9 \"\"'.")
        #expect(
            message { try answers.set(fieldID: "12", arguments: ["uploads/other.jpg"], schema: restroom) }?
                .hasPrefix("Field \"Inspector signature\" (id 12) is a signature field and takes a photo only") == true)
        #expect(answers.values == ["9": "local://4F2A.jpg", "12": "uploads/sig.jpg"])
        #expect(try answers.set(fieldID: "9", arguments: [""], schema: restroom) == nil)
        #expect(try answers.set(fieldID: "12", arguments: [], schema: restroom) == nil)
        #expect(answers.values.isEmpty)
    }

    @Test("display-only fields and unknown ids refuse answers with a sentence")
    func refusals() {
        var answers = FormAnswers()
        do {
            try answers.set(fieldID: "1", arguments: ["x"], schema: restroom)
            Issue.record("a section took an answer")
        } catch let error as FormsError {
            #expect(error.kind == .notAnswerable)
            #expect(
                error.message == "Field \"Restroom — General\" (id 1) is a section heading and takes no answer; "
                    + "answer one of the form's input fields instead.")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(
            message { try answers.set(fieldID: "110", arguments: ["x"], schema: office) }?
                .contains("(id 110) is a button and takes no answer") == true)
        let floor = DemoTemplates.schema(DemoTemplates.floorCare)
        #expect(
            message { try answers.set(fieldID: "99", arguments: ["x"], schema: floor) }
                == "The form has no field with id \"99\"; its input fields are 201, 202, 203.")
        #expect(answers.values.isEmpty)
    }
}

@Suite("Photo answers (SHELL.md `photo FIELD_ID FILE`)")
struct PhotoAnswerTests {
    let restroom = DemoTemplates.schema(DemoTemplates.restroomQC)

    @Test("a photo path goes only into an image or signature field")
    func photoFields() throws {
        var answers = FormAnswers()
        try answers.setPhoto(fieldID: "9", path: "local://A1.jpg", schema: restroom)
        try answers.setPhoto(fieldID: "12", path: "local://S1.jpg", schema: restroom)
        #expect(answers.values == ["9": "local://A1.jpg", "12": "local://S1.jpg"])
        #expect(
            throws: FormsError(
                .invalidAnswer,
                "Field \"Comments\" (id 10) is a textarea field; "
                    + "photos go into image or signature fields.")
        ) {
            try answers.setPhoto(fieldID: "10", path: "local://A2.jpg", schema: restroom)
        }
        #expect(
            throws: FormsError(
                .invalidAnswer,
                "Field \"Photo of condition\" (id 9) needs a photo path; "
                    + "the path given is empty.")
        ) {
            try answers.setPhoto(fieldID: "9", path: " ", schema: restroom)
        }
        #expect(
            throws: FormsError(
                .unknownField,
                "The form has no field with id \"77\"; its input fields are "
                    + "2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14.")
        ) {
            try answers.setPhoto(fieldID: "77", path: "local://A3.jpg", schema: restroom)
        }
        #expect(answers.values == ["9": "local://A1.jpg", "12": "local://S1.jpg"])
    }
}
