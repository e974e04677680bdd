/// The dev server: a stand-in of the JQC `/api/v1` backend (issue 3).
public enum JQCDevServerModule {
    /// The module's name.
    public static let name = "JQCDevServer"
}
