import Testing
@testable import JQCComposition

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCCompositionModule.name == "JQCComposition")
}
