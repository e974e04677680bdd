import Testing
@testable import JQCJPEG

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCJPEGModule.name == "JQCJPEG")
}
