/// The JQCComposition module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCCompositionModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCComposition"
}
