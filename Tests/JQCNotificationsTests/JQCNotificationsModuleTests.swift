import Testing
@testable import JQCNotifications

@Test("the module is linked")
func moduleIsLinked() {
    #expect(JQCNotificationsModule.name == "JQCNotifications")
}
