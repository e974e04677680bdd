import Testing
@testable import JQCDevServer

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCDevServerModule.name == "JQCDevServer")
}
