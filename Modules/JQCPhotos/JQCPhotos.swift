/// The JQCPhotos module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCPhotosModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCPhotos"
}
