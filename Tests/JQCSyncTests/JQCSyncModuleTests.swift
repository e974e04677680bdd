import Testing
@testable import JQCSync

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCSyncModule.name == "JQCSync")
}
