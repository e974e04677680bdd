/// The JQCJPEG module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCJPEGModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCJPEG"
}
