import Testing
@testable import JQCForms

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCFormsModule.name == "JQCForms")
}
