/// Reference data: contracts, facilities, areas and templates (issue 7; seed 001 §8 step 4).
public enum JQCFacilitiesModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCFacilities"
}
