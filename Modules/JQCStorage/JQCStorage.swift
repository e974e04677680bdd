/// The JQCStorage module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCStorageModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCStorage"
}
