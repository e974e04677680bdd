/// The JQCInspections module: local inspections, their outbox stage and history. See Docs/ARCHITECTURE.md.
public enum JQCInspectionsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCInspections"
}
