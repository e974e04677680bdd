/// The JQCInspections module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCInspectionsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCInspections"
}
