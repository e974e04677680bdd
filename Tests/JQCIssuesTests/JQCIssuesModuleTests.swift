import Testing
@testable import JQCIssues

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCIssuesModule.name == "JQCIssues")
}
