/// The architecture linter (issue 10).
public enum JQCLintModule {
    /// The module's name.
    public static let name = "JQCLint"
}
