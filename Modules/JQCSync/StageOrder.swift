/// The declared order of every feature's stages in a pass (SPEC.md §4 "Outbox order"; seed 001 §8):
/// photos → inspections → issues → reference data → assigned issues → follow-up requests → scheduled
/// inspections → notifications → dashboard stats. Gaps leave room for queued edits between them.
public enum StageOrder {
    /// Push pending photos (before anything that references them; rule 12).
    public static let photos = 100
    /// Push completed inspections whose photos are settled.
    public static let inspections = 200
    /// Push issues (never before their parent inspection; rule 11).
    public static let issues = 300
    /// Push queued issue edits (status, handler) and other queued writes.
    public static let queuedEdits = 350
    /// Pull facilities, areas and templates (rules 45, 55–57).
    public static let reference = 400
    /// Pull issues assigned to or reported by the inspector (rules 30, 31, 33).
    public static let assignedIssues = 500
    /// Pull outstanding follow-up requests (rule 78), best-effort.
    public static let followUps = 600
    /// Pull scheduled inspections (rule 71).
    public static let scheduled = 700
    /// Pull notifications and push queued mark-read.
    public static let notifications = 800
    /// Pull dashboard stats, best-effort, last (rule 49).
    public static let dashboard = 900
}
