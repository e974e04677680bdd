/// The JQCScheduling module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCSchedulingModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCScheduling"
}
