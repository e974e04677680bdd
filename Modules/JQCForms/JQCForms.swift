/// The JQCForms module. See Docs/ARCHITECTURE.md for its tier and seams.
public enum JQCFormsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCForms"
}
