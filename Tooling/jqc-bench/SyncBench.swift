import Foundation

/// SPEC.md §6 sync and memory: the seams for when the feature stages land.
///
/// TODO(issue 11, seam `SyncBench.run`): once JQCInspections, JQCIssues and JQCPhotos register their push
/// stages in AppComposition, build an `AppComposition` over a temporary data directory pointed at a fresh
/// standalone `jqc-devserver` (see ``Session``), sign in as alex, queue N = 1,000 completed inspections,
/// 1,000 issues and 1,000 photos through the services (not timed), then time `app.sync.runPass(explicit:)`
/// until nothing is pending. The floor is the same requests from one `curl -K` process: build its config
/// from the requests the dev server saw (`/__admin/state`) or from the queued rows, as ``Session`` does for
/// issues. Report requests/s and the ratio against "ours/curl time ≤ 1.3×". Add jqc-bench's dependency on
/// JQCComposition in Package.swift then (jqc-lint already lets the bench tier import it).
///
/// Seam `SyncBench.memory`: ``MemoryBench`` measures RSS over a stand-in push loop of 10,000 items today;
/// its TODO says how to switch it to the engine's passes.
enum SyncBench {
    static func run() -> [ReportRow] {
        [
            .skipped(
                "Sync: 1,000 inspections + 1,000 issues + 1,000 photos vs curl", target: "ours/curl time ≤ 1.3×",
                why: "seam SyncBench.run: waits for the inspection, issue and photo push stages; the transport "
                    + "rows above are its floor today")
        ]
    }
}
