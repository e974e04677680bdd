import Testing
@testable import JQCLint

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCLintModule.name == "JQCLint")
}
