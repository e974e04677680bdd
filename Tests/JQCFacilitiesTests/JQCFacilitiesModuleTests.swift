import Testing

@testable import JQCFacilities

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCFacilitiesModule.name == "JQCFacilities")
}
