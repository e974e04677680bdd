import Foundation
import JQCSync

/// One line on stderr when an automatic pass (the 5-minute timer, a submit's trigger, reconnecting) sent
/// something, so the silent pass is not invisible at the prompt (issue 14): `automatic sync sent: photos 1,
/// inspections 1`. Explicit passes print their own report (`sync`) and passes that sent nothing stay quiet.
enum AutomaticPassLine {
    /// The line for `report`, or `nil` when it was explicit or pushed nothing.
    static func text(_ report: SyncPassReport) -> String? {
        guard !report.isExplicit else { return nil }
        let pushed = report.stages.filter { $0.pushed > 0 }
        guard !pushed.isEmpty else { return nil }
        return "automatic sync sent: " + pushed.map { "\($0.name) \($0.pushed)" }.joined(separator: ", ")
    }

    /// Prints ``text(_:)`` for each new pass report `sync` publishes, for the life of the process.
    @discardableResult
    static func watch(_ sync: SyncEngine, output: ShellOutput) -> Task<Void, Never> {
        Task {
            var seen: Date?
            for await snapshot in await sync.snapshots() {
                guard let report = snapshot.lastReport, report.startedAt != seen else { continue }
                seen = report.startedAt
                if let line = text(report) { output.err(line) }
            }
        }
    }
}
