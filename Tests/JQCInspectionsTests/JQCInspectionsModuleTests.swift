import Testing
@testable import JQCInspections

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCInspectionsModule.name == "JQCInspections")
}
