/// Reference data: contracts, facilities, areas and templates (issue 7).
public enum JQCFacilitiesModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCFacilities"
}
