import JQCKit

@testable import JQCForms

/// The demo templates and answers of ../shared/fixtures/devserver/seed.json, copied here as literals
/// so these tests never depend on the dev server or on ../shared.
enum DemoTemplates {
    /// Template 3, "Restroom QC".
    static let restroomQC = #"""
        [{"id":1,"type":"section","label":"Restroom — General","row":1,"col":1,"colSpan":12,"rowSpan":1},
         {"id":2,"type":"rating","label":"Floors clean and dry","row":2,"col":1,"colSpan":6,"rowSpan":1,"required":true},
         {"id":3,"type":"rating","label":"Mirrors and fixtures","row":2,"col":7,"colSpan":6,"rowSpan":1},
         {"id":4,"type":"pass_fail","label":"Soap dispensers filled","row":3,"col":1,"colSpan":4,"rowSpan":1,
          "options":["Pass","Fail"]},
         {"id":5,"type":"pass_fail","label":"Paper products stocked","row":3,"col":5,"colSpan":4,"rowSpan":1,
          "options":["Pass","Fail"]},
         {"id":6,"type":"checkbox","label":"Trash emptied","row":3,"col":9,"colSpan":4,"rowSpan":1},
         {"id":7,"type":"radio","label":"Odor","row":4,"col":1,"colSpan":6,"rowSpan":1,
          "options":["Good","Acceptable","Poor"]},
         {"id":8,"type":"select","label":"Restroom type","row":4,"col":7,"colSpan":6,"rowSpan":1,
          "options":["Men","Women","Family","Staff"]},
         {"id":9,"type":"image","label":"Photo of condition","row":5,"col":1,"colSpan":6,"rowSpan":3},
         {"id":10,"type":"textarea","label":"Comments","row":5,"col":7,"colSpan":6,"rowSpan":3},
         {"id":11,"type":"label","label":"Supervisor sign-off","row":8,"col":1,"colSpan":12,"rowSpan":1},
         {"id":12,"type":"signature","label":"Inspector signature","row":9,"col":1,"colSpan":6,"rowSpan":2},
         {"id":13,"type":"date","label":"Date","row":9,"col":7,"colSpan":3,"rowSpan":1},
         {"id":14,"type":"text","label":"Custodian on duty","row":9,"col":10,"colSpan":3,"rowSpan":1}]
        """#

    /// Template 4, "Office Cleaning".
    static let officeCleaning = #"""
        [{"id":"101","type":"section","label":"Office Areas","row":1,"col":1,"colSpan":12},
         {"id":102,"type":"checkbox_group","label":"Tasks completed","row":2,"col":1,"colSpan":12,
          "options":["Vacuumed","Dusted","Trash","Windows","Kitchenette"]},
         {"id":103,"type":"rating","label":"Desks and surfaces","row":3,"col":1,"colSpan":4},
         {"id":104,"type":"rating","label":"Carpet","row":3,"col":5,"colSpan":4},
         {"id":105,"type":"radio","label":"Overall appearance","row":3,"col":9,"colSpan":4,"options":["Yes","No"]},
         {"id":106,"type":"table","label":"Supply counts","row":4,"col":1,"colSpan":12,"rowSpan":3,
          "col_headers":["Item","Count","Reorder?"],"table_rows":3},
         {"id":107,"type":"number","label":"Occupants present","row":7,"col":1,"colSpan":3},
         {"id":108,"type":"email","label":"Client contact","row":7,"col":4,"colSpan":5},
         {"id":109,"type":"checkbox","label":"Client walkthrough done","row":7,"col":9,"colSpan":4,"required":true},
         {"id":110,"type":"button_submit","label":"Submit","row":8,"col":1,"colSpan":3}]
        """#

    /// Template 5, "Floor Care".
    static let floorCare = #"""
        [{"id":201,"type":"pass_fail","label":"Entry mats in place","row":1,"col":1,"colSpan":6},
         {"id":202,"type":"pass_fail","label":"Floor finish intact","row":1,"col":7,"colSpan":6},
         {"id":203,"type":"rating","label":"Gloss level","row":2,"col":1,"colSpan":12}]
        """#

    /// Inspection 501's answers (template 3).
    static let answers501 = #"""
        {"2":"2","3":"4","4":"Fail","5":"Pass","6":"true","7":"Poor","8":"Men",
         "9":"uploads/inspection_photos/seed-501-9.jpg","10":"Floor wet near sinks","12":"","13":"2026-07-10",
         "14":"J. Park"}
        """#

    /// Inspection 502's answers (template 4).
    static let answers502 = #"""
        {"102":["Vacuumed","Trash"],"103":"5","104":"4","105":"Yes",
         "106":[{"Item":"Towels","Count":"12","Reorder?":"no"}],"107":"4","108":"","109":"true"}
        """#

    /// Inspection 503's answers (template 5).
    static let answers503 = #"{"201":"Fail","202":"Pass","203":"3"}"#

    static func schema(_ text: String) -> FormSchema {
        // A typo gives an empty schema: its tests fail, never crash the process.
        FormSchema(json: (try? JSONValue.parse(text)) ?? .null)
    }

    static func answers(_ text: String) -> [String: JSONValue] {
        (try? JSONValue.parse(text))?.objectValue ?? [:]
    }
}

/// A seeded random number generator (SplitMix64), so property tests are repeatable.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
