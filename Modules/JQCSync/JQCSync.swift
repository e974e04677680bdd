/// The JQCSync module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCSyncModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCSync"
}
