import Testing
import JQCComposition

@Test("the composition module is linked")
func compositionIsLinked() {
    #expect(JQCCompositionModule.name == "JQCComposition")
}
