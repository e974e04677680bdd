/// The JQCFollowUps module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCFollowUpsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCFollowUps"
}
