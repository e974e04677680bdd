/// The JQCNetwork module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCNetworkModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCNetwork"
}
