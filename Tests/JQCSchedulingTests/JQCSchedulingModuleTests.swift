import Testing
@testable import JQCScheduling

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCSchedulingModule.name == "JQCScheduling")
}
