import JQCKit
import Testing

@testable import JQCForms

/// Golden renderings of the demo templates (seed.json templates 3, 4 and 5 with inspections 501–503).
@Suite("Form renderings (seed 001 §12, rules 58–60, 62, 77)")
struct FormRendererGoldenTests {
    func render(_ schema: String, _ answers: String, width: Int, style: FormRenderer.Style) -> String {
        FormRenderer.render(
            schema: DemoTemplates.schema(schema),
            answers: answers.isEmpty ? [:] : DemoTemplates.answers(answers),
            width: width, style: style)
    }

    @Test("template 3 with inspection 501's answers draws as the 12-column grid at 110 columns")
    func restroomGrid() {
        let expected = """
            ━━ Restroom — General ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            ┌─ #2 Floors clean and dry * ────────────────────────┐┌─ #3 Mirrors and fixtures ──────────────────────────┐
            │ ★★☆☆☆ 2/5                                          ││ ★★★★☆ 4/5                                          │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            ┌─ #4 Soap dispensers filled ──────┐┌─ #5 Paper products stocked ──────┐┌─ #6 Trash emptied ───────────────┐
            │ [FAIL]                           ││ [PASS]                           ││ [x] yes                          │
            └──────────────────────────────────┘└──────────────────────────────────┘└──────────────────────────────────┘
            ┌─ #7 Odor ──────────────────────────────────────────┐┌─ #8 Restroom type ─────────────────────────────────┐
            │ ( ) Good  ( ) Acceptable  (•) Poor                 ││ Men ▾                                              │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            ┌─ #9 Photo of condition ────────────────────────────┐┌─ #10 Comments ─────────────────────────────────────┐
            │ [photo: seed-501-9.jpg]                            ││ Floor wet near sinks                               │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            Supervisor sign-off
            ┌─ #12 Inspector signature ──────────────────────────┐┌─ #13 Date ──────────────┐┌─ #14 Custodian on duty ─┐
            │ [not signed]                                       ││ 2026-07-10              ││ J. Park                 │
            │                                                    │└─────────────────────────┘└─────────────────────────┘
            │                                                    │
            │                                                    │
            └────────────────────────────────────────────────────┘

            """
        #expect(render(DemoTemplates.restroomQC, DemoTemplates.answers501, width: 110, style: .grid) == expected)
    }

    @Test("template 3 without answers draws empty stars, option marks and photo markers")
    func restroomBlankGrid() {
        let expected = """
            ━━ Restroom — General ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            ┌─ #2 Floors clean and dry * ────────────────────────┐┌─ #3 Mirrors and fixtures ──────────────────────────┐
            │ ☆☆☆☆☆                                              ││ ☆☆☆☆☆                                              │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            ┌─ #4 Soap dispensers filled ──────┐┌─ #5 Paper products stocked ──────┐┌─ #6 Trash emptied ───────────────┐
            │ ( ) Pass  ( ) Fail               ││ ( ) Pass  ( ) Fail               ││ [ ]                              │
            └──────────────────────────────────┘└──────────────────────────────────┘└──────────────────────────────────┘
            ┌─ #7 Odor ──────────────────────────────────────────┐┌─ #8 Restroom type ─────────────────────────────────┐
            │ ( ) Good  ( ) Acceptable  ( ) Poor                 ││ — choose — ▾                                       │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            ┌─ #9 Photo of condition ────────────────────────────┐┌─ #10 Comments ─────────────────────────────────────┐
            │ [no photo]                                         ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            │                                                    ││                                                    │
            └────────────────────────────────────────────────────┘└────────────────────────────────────────────────────┘
            Supervisor sign-off
            ┌─ #12 Inspector signature ──────────────────────────┐┌─ #13 Date ──────────────┐┌─ #14 Custodian on duty ─┐
            │ [not signed]                                       ││                         ││                         │
            │                                                    │└─────────────────────────┘└─────────────────────────┘
            │                                                    │
            │                                                    │
            └────────────────────────────────────────────────────┘

            """
        #expect(render(DemoTemplates.restroomQC, "", width: 110, style: .grid) == expected)
    }

    @Test("template 3 draws stacked, one field per line, at 80 columns")
    func restroomStacked() {
        let expected = """
            ━━ Restroom — General ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            #2 Floors clean and dry *: ★★☆☆☆ 2/5
            #3 Mirrors and fixtures: ★★★★☆ 4/5
            #4 Soap dispensers filled: [FAIL]
            #5 Paper products stocked: [PASS]
            #6 Trash emptied: [x] yes
            #7 Odor: ( ) Good  ( ) Acceptable  (•) Poor
            #8 Restroom type: Men ▾
            #9 Photo of condition: [photo: seed-501-9.jpg]
            #10 Comments: Floor wet near sinks
            Supervisor sign-off
            #12 Inspector signature: [not signed]
            #13 Date: 2026-07-10
            #14 Custodian on duty: J. Park

            """
        #expect(render(DemoTemplates.restroomQC, DemoTemplates.answers501, width: 80, style: .stacked) == expected)
    }

    @Test("template 3's read-only view shows only answered fields in their grid columns")
    func restroomReadOnlyWide() {
        let expected = """
            ━━ Restroom — General ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            Floors clean and dry                                  Mirrors and fixtures
            ★★☆☆☆ 2/5                                             ★★★★☆ 4/5
            Soap dispensers filled              Paper products stocked              Trash emptied
            [FAIL]                              [PASS]                              [x] yes
            Odor                                                  Restroom type
            (•) Poor                                              Men ▾
            Photo of condition                                    Comments
            [photo: seed-501-9.jpg]                               Floor wet near sinks
                                                                  Date                       Custodian on duty
                                                                  2026-07-10                 J. Park

            """
        #expect(render(DemoTemplates.restroomQC, DemoTemplates.answers501, width: 110, style: .readOnly) == expected)
    }

    @Test("template 3's read-only view is stacked below 100 columns")
    func restroomReadOnlyNarrow() {
        let expected = """
            ━━ Restroom — General ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            Floors clean and dry: ★★☆☆☆ 2/5
            Mirrors and fixtures: ★★★★☆ 4/5
            Soap dispensers filled: [FAIL]
            Paper products stocked: [PASS]
            Trash emptied: [x] yes
            Odor: (•) Poor
            Restroom type: Men ▾
            Photo of condition: [photo: seed-501-9.jpg]
            Comments: Floor wet near sinks
            Date: 2026-07-10
            Custodian on duty: J. Park

            """
        #expect(render(DemoTemplates.restroomQC, DemoTemplates.answers501, width: 80, style: .readOnly) == expected)
    }

    @Test("template 4 draws checkbox groups, a table and a button in the grid")
    func officeGrid() {
        let expected = """
            ━━ Office Areas ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            ┌─ #102 Tasks completed ───────────────────────────────────────────────────────────────────────────────────┐
            │ [x] Vacuumed  [ ] Dusted  [x] Trash  [ ] Windows  [ ] Kitchenette                                        │
            └──────────────────────────────────────────────────────────────────────────────────────────────────────────┘
            ┌─ #103 Desks and surfaces ────────┐┌─ #104 Carpet ────────────────────┐┌─ #105 Overall appearance ────────┐
            │ ★★★★★ 5/5                        ││ ★★★★☆ 4/5                        ││ (•) Yes  ( ) No                  │
            └──────────────────────────────────┘└──────────────────────────────────┘└──────────────────────────────────┘
            ┌─ #106 Supply counts ─────────────────────────────────────────────────────────────────────────────────────┐
            │ Item                             │ Count                            │ Reorder?                           │
            │ ─────────────────────────────────┼──────────────────────────────────┼─────────────────────────────────── │
            │ Towels                           │ 12                               │ no                                 │
            │                                  │                                  │                                    │
            │                                  │                                  │                                    │
            │                                                                                                          │
            │                                                                                                          │
            └──────────────────────────────────────────────────────────────────────────────────────────────────────────┘
            ┌─ #107 Occupants present ┐┌─ #108 Client contact ─────────────────────┐┌─ #109 Client walkthrough done * ─┐
            │ 4                       ││                                           ││ [x] yes                          │
            └─────────────────────────┘└───────────────────────────────────────────┘└──────────────────────────────────┘
            [ Submit ]

            """
        #expect(render(DemoTemplates.officeCleaning, DemoTemplates.answers502, width: 110, style: .grid) == expected)
    }

    @Test("template 4 draws stacked with the table indented under its label")
    func officeStacked() {
        let expected = """
            ━━ Office Areas ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            #102 Tasks completed:
                [x] Vacuumed  [ ] Dusted  [x] Trash  [ ] Windows  [ ] Kitchenette
            #103 Desks and surfaces: ★★★★★ 5/5
            #104 Carpet: ★★★★☆ 4/5
            #105 Overall appearance: (•) Yes  ( ) No
            #106 Supply counts:
                Item                    │ Count                   │ Reorder?
                ────────────────────────┼─────────────────────────┼─────────────────────────
                Towels                  │ 12                      │ no
                                        │                         │
                                        │                         │
            #107 Occupants present: 4
            #108 Client contact:
            #109 Client walkthrough done *: [x] yes
            [ Submit ]

            """
        #expect(render(DemoTemplates.officeCleaning, DemoTemplates.answers502, width: 80, style: .stacked) == expected)
    }

    @Test("template 4's read-only view collapses the table's rowSpan to one row")
    func officeReadOnlyWide() {
        let expected = """
            ━━ Office Areas ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
            Tasks completed
            Vacuumed, Trash
            Desks and surfaces                  Carpet                              Overall appearance
            ★★★★★ 5/5                           ★★★★☆ 4/5                           (•) Yes
            Supply counts
            Item: Towels, Count: 12, Reorder?: no
            Occupants present                                                       Client walkthrough done
            4                                                                       [x] yes

            """
        let rendered = render(DemoTemplates.officeCleaning, DemoTemplates.answers502, width: 110, style: .readOnly)
        #expect(rendered == expected)
    }

    @Test("template 5 draws as a grid at exactly 100 columns")
    func floorCareGridAt100() {
        let expected = """
            ┌─ #201 Entry mats in place ───────────────────┐┌─ #202 Floor finish intact ───────────────────┐
            │ [FAIL]                                       ││ [PASS]                                       │
            └──────────────────────────────────────────────┘└──────────────────────────────────────────────┘
            ┌─ #203 Gloss level ───────────────────────────────────────────────────────────────────────────┐
            │ ★★★☆☆ 3/5                                                                                    │
            └──────────────────────────────────────────────────────────────────────────────────────────────┘

            """
        #expect(render(DemoTemplates.floorCare, DemoTemplates.answers503, width: 100, style: .grid) == expected)
    }
}
