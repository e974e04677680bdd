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
/// TODO(issue 11, seam `SyncBench.memory`): run the same pass over 10,000 items in a child `jqc-bench
/// sync-child` process and sample `/proc/<pid>/status` VmRSS every 100 ms; pass when the RSS after the
/// first 1,000 items grows by less than 10 % to the end (flat), and report first/last/peak.
enum SyncBench {
    static func run() -> [ReportRow] {
        [
            .skipped(
                "Sync: 1,000 inspections + 1,000 issues + 1,000 photos vs curl", target: "ours/curl time ≤ 1.3×",
                why: "seam SyncBench.run: waits for the inspection, issue and photo push stages; the transport "
                    + "rows above are its floor today"),
            .skipped(
                "Memory while syncing 10,000 items", target: "RSS flat",
                why: "seam SyncBench.memory: waits for the same stages"),
        ]
    }
}
