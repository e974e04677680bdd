import Testing
@testable import JQCNetwork

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCNetworkModule.name == "JQCNetwork")
}
