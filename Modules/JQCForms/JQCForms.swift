/// The JQCForms module: templates' form schemas, answers, scoring, validation, prefill and the form
/// drawn as text. Pure — it imports JQCKit and Foundation only — so the dev server shares its scorer
/// (SPEC.md §2, tier 3).
///
/// - ``FormSchema`` / ``FormField`` / ``FormFieldType``: reading a template's `form_schema`.
/// - ``InspectionScorer``: the score (SCORING.md), with ``ScoreExplanation`` and ``ScoreFile``.
/// - ``RequiredFields``: what blocks submit. ``ReinspectionPrefill``: a re-inspection's first answers.
/// - ``AnswerInput`` / ``FormAnswers``: typed answers (SHELL.md `answer`).
/// - ``FormRenderer``: the grid, stacked and read-only layouts as text.
/// - ``FormsError``: the module's one error type.
public enum JQCFormsModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCForms"
}
