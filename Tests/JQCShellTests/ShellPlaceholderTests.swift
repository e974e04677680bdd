import Testing

@Test("the shell test target builds")
func shellTargetBuilds() {
    #expect(Bool(true) != false)
}
