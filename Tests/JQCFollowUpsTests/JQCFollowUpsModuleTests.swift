import Testing
@testable import JQCFollowUps

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCFollowUpsModule.name == "JQCFollowUps")
}
