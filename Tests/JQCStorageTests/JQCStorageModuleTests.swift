import Testing
@testable import JQCStorage

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCStorageModule.name == "JQCStorage")
}
