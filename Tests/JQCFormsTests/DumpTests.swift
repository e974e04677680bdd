import Foundation
import Testing
@testable import JQCForms

@Test("dump renderings")
func dumpRenderings() throws {
    var out = ""
    let cases: [(String, String, String)] = [
        ("t3", DemoTemplates.restroomQC, DemoTemplates.answers501),
        ("t4", DemoTemplates.officeCleaning, DemoTemplates.answers502),
        ("t5", DemoTemplates.floorCare, DemoTemplates.answers503),
    ]
    for (name, schema, answers) in cases {
        for style in FormRenderer.Style.allCases {
            for width in [120, 80] {
                out += "=== \(name) \(style) \(width)\n"
                out += FormRenderer.render(schema: DemoTemplates.schema(schema),
                                           answers: DemoTemplates.answers(answers), width: width, style: style)
            }
        }
        out += "=== \(name) blank grid 120\n"
        out += FormRenderer.render(schema: DemoTemplates.schema(schema), answers: [:], width: 120, style: .grid)
    }
    try out.write(toFile: "/tmp/forms-dump.txt", atomically: true, encoding: .utf8)
}
