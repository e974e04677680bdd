/// The JQCNotifications module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCNotificationsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCNotifications"
}
