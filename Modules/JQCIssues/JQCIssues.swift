/// The JQCIssues module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCIssuesModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCIssues"
}
