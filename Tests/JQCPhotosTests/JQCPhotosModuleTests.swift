import Testing
@testable import JQCPhotos

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCPhotosModule.name == "JQCPhotos")
}
