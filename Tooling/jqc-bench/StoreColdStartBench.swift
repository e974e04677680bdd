import Foundation
import JQCComposition
import JQCInspections
import JQCKit

/// Issue 17's cold-start rows: the release `jqc-shell` as a fresh process (posix_spawn → exit, p50 of
/// `runs`) over a data directory whose REAL store (AppComposition's `jqc.sqlite`, every feature's tables)
/// holds `rows` inspections of the demo template 3, signed in as alex, against a standalone dev server.
///
/// The store is a device that has worked for years: one in 1,000 inspections a draft, one in 1,000
/// completed and waiting for the outbox, the rest completed and synced. Built once through
/// ``EngineWriteWorkload``'s path (one draft answered through `InspectionService`, the rest copies inserted
/// with `InspectionStore.insert` in one transaction); not timed.
///
/// - `-c "echo ready"` (target < 30 ms): start, data directory, dispatch; no engine.
/// - `--server URL -c status` (< 50 ms): builds the engine (store opened and migrated, session restored),
///   probes the server's health, counts every outbox kind's pending and failed items.
/// - `--server URL -c drafts` (< 50 ms): builds the engine and lists the drafts.
struct StoreColdStartBench {
    let shell: String
    let devserver: String
    let work: URL
    let serverWork: URL
    let rows: Int
    let runs: Int

    func run() async throws -> [ReportRow] {
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            return [.skipped("Shell cold start, real store", target: "< 30 ms", why: "no jqc-shell at \(shell)")]
        }
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let server = try DevServerProcess(
            executable: devserver, dataDirectory: serverWork.appendingPathComponent("coldstart-store"))
        defer { server.stop() }
        let data = work.appendingPathComponent("data", isDirectory: true)
        note("cold start: building the real store with \(rows) inspections")
        let counts = try Self.populate(try await BenchApp.open(data: data, baseURL: server.baseURL), rows: rows)
        let store = "\(rows)-inspection store (\(counts.drafts) drafts, \(counts.pending) pending, the rest synced)"
        return [
            try time(
                "Shell cold start: -c \"echo ready\", real store", ["--data-dir", data.path, "-c", "echo ready"],
                limit: 0.030, store: store),
            try time(
                "Shell cold start: status, real store, standalone server",
                ["--data-dir", data.path, "--server", server.baseURL, "-c", "status"], limit: 0.050, store: store),
            try time(
                "Shell cold start: drafts, real store, standalone server",
                ["--data-dir", data.path, "--server", server.baseURL, "-c", "drafts"], limit: 0.050, store: store),
        ]
    }

    /// Fills the engine's store with `rows` inspections (see the type's note).
    /// - Returns: how many are drafts and how many wait for the outbox.
    static func populate(_ bench: BenchApp, rows: Int) throws -> (drafts: Int, pending: Int) {
        let model = try bench.startAnsweredDraft()
        var drafts = 1
        var pending = 0
        try bench.app.store.write { db in
            for index in 1..<rows {
                var copy = model
                copy.localID = "bench-\(index)"
                switch index % 1_000 {
                case 0:
                    drafts += 1
                case 1:
                    copy.status = .completed
                    copy.completedAt = copy.startedAt
                    copy.overallScore = 80
                    pending += 1
                default:
                    copy.status = .completed
                    copy.syncStatus = .synced
                    copy.serverID = 100_000 + index
                    copy.completedAt = copy.startedAt
                    copy.overallScore = 80
                }
                try bench.app.inspections.store.insert(db, copy)
            }
        }
        return (drafts, pending)
    }

    private func time(_ label: String, _ arguments: [String], limit: Double, store: String) throws -> ReportRow {
        var samples = Samples()
        var cpu = Samples()
        for index in 0..<(runs + 2) {
            let cpuBefore = childrenCPUSeconds()
            let result = try Child.run(shell, arguments)
            if index >= 2 { cpu.add(childrenCPUSeconds() - cpuBefore) }
            guard result.status == 0 else {
                throw BenchError(
                    "child-failed",
                    "jqc-shell \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
            }
            if index >= 2 { samples.add(result.elapsed) }  // two warm-up runs fill the page cache
        }
        note("\(label): median \(format(ms: samples.median))")
        let target = "p50 < \(Int(limit * 1000)) ms"
        return ReportRow(
            benchmark: label, ours: "p50 \(format(ms: samples.median)) / max \(format(ms: samples.percentile(100)))",
            reference: "—", ratio: "—", target: target, verdict: samples.median < limit ? .pass : .miss,
            note: "\(runs) fresh processes, \(store), signed in as alex; the process's own CPU time (user + "
                + "system) p50 \(format(ms: cpu.median)), the rest of the wall time waiting (for a core under load, "
                + "the disk, the server)")
    }
}
