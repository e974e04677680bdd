import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCNetwork

/// SPEC.md §6 "memory flat while syncing 10,000 items", through the REAL engine: a child
/// `jqc-bench memory-child` builds an ``AppComposition`` (signed in as alex, `synchronous=FULL`), queues
/// completed inspections (template 3, realistic answers) and pushes them with `app.sync.sync(explicit: true)`
/// passes — every stage of the pass runs — reporting its own resident set size (`/proc/self/status` VmRSS)
/// every 500 items. Flat means the RSS after the last item is within 10 % of the RSS after the first 1,000
/// (warm-up: caches, connections, statements).
///
/// The dev server dedupes inspections by scanning all it holds, so 10,000 POSTs to one server would grow
/// quadratically: the child queues 250 items, runs a pass, then moves the engine to a fresh dev server (same
/// demo seed; `app.server.select`, a new sign-in, and the synced rows' server ids forgotten since the fresh
/// server numbers from the seed again).
struct MemoryBench {
    let devserver: String
    let work: URL
    let serverWork: URL
    let items: Int

    func run() throws -> [ReportRow] {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let result = try Child.run(
            me,
            [
                "memory-child", devserver, work.path, serverWork.path, "\(items)",
            ])
        guard result.status == 0 else {
            throw BenchError("child-failed", "memory-child exited \(result.status): \(result.stderr)")
        }
        var samples: [(items: Int, kib: Int)] = []
        for line in String(decoding: result.stdout, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ").compactMap { Int($0) }
            if parts.count == 2 { samples.append((parts[0], parts[1])) }
        }
        guard let last = samples.last, let warm = samples.first(where: { $0.items >= min(1_000, items) }) else {
            throw BenchError("child-failed", "memory-child reported no samples.")
        }
        let peak = samples.map(\.kib).max() ?? last.kib
        let growth = Double(last.kib - warm.kib) / Double(warm.kib)
        note("memory: \(warm.kib) KiB at \(warm.items) items → \(last.kib) KiB at \(last.items), peak \(peak)")
        return [
            ReportRow(
                benchmark: "Memory while syncing \(last.items) inspections (SyncEngine passes)",
                ours: "\(format(kib: warm.kib)) at \(warm.items) → \(format(kib: last.kib)) at \(last.items)",
                reference: "peak \(format(kib: peak))", ratio: String(format: "%+.1f %%", growth * 100),
                target: "flat: growth ≤ 10 %", verdict: growth <= 0.10 ? .pass : .miss,
                note: "VmRSS every 500 items; AppComposition, synchronous=FULL: app.sync.sync(explicit: true) every "
                    + "\(MemoryChild.segment) queued completed inspections, a fresh dev server each (its dedupe scan)")
        ]
    }
}

/// `jqc-bench memory-child DEVSERVER WORK SERVER-WORK ITEMS`: the push loop measured by ``MemoryBench``;
/// prints "items rss-kib" lines.
/// `jqc-bench memory-child DEVSERVER WORK SERVER-WORK ITEMS`: the engine passes measured by ``MemoryBench``;
/// prints "items rss-kib" lines.
enum MemoryChild {
    /// Items per dev server (its per-request work grows with the inspections it holds).
    static let segment = 250
    /// Items between RSS samples.
    static let sampleEvery = 500

    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 4, let items = Int(arguments[3]) else {
            throw BenchError("usage", "usage: jqc-bench memory-child DEVSERVER WORK SERVER-WORK ITEMS")
        }
        let (devserver, work, serverWork) = (
            arguments[0], URL(fileURLWithPath: arguments[1]), URL(fileURLWithPath: arguments[2])
        )
        let data = work.appendingPathComponent("engine-data", isDirectory: true)
        try? FileManager.default.removeItem(at: data)
        var round = 0
        func freshServer() throws -> DevServerProcess {
            round += 1
            return try DevServerProcess(
                executable: devserver, dataDirectory: serverWork.appendingPathComponent("memory-\(round)"))
        }
        var server = try freshServer()
        defer { server.stop() }
        let bench = try await BenchApp.open(data: data, baseURL: server.baseURL)
        let app = bench.app
        // The model: a draft started and answered through the service; the queued items are completed copies.
        let model = try bench.startAnsweredDraft()
        report(0)
        var sent = 0
        while sent < items {
            if sent > 0 {
                server.stop()
                server = try freshServer()
                try EngineBenchSQL.forgetServerIDs(app.store)
                guard let selected = ServerSelection(storedValue: server.baseURL) else {
                    throw BenchError("devserver", "The dev server address \(server.baseURL) is not a server URL.")
                }
                try app.server.select(selected)
                _ = try await app.api.login(username: "alex", password: "inspect-demo")
            }
            let count = min(segment, items - sent)
            let now = Date()
            try app.store.write { db in
                for index in sent..<(sent + count) {
                    var copy = model
                    copy.localID = "memory-\(index)"
                    copy.status = .completed
                    copy.syncStatus = .pending
                    copy.completedAt = now
                    copy.overallScore = 80
                    try app.inspections.store.insert(db, copy)
                }
            }
            let pass = try await app.sync.sync(explicit: true)
            let left = try app.outboxStatus().pending.values.reduce(0, +)
            guard left == 0 else {
                let stages = pass.stages.map {
                    "\($0.name) pushed \($0.pushed) deferred \($0.deferred) failed \($0.failed)"
                }
                throw BenchError(
                    "sync",
                    "\(left) items were still pending after a pass (\(stages.joined(separator: "; ")); "
                        + "stopped: \(pass.stoppedBy.map { "\($0)" } ?? "no")); see \(data.path)/jqc.log.")
            }
            let before = sent
            sent += count
            if sent / sampleEvery > before / sampleEvery { report(sent) }
        }
        if sent % sampleEvery != 0 { report(sent) }
    }

    private static func report(_ items: Int) {
        FileHandle.standardOutput.write(Data("\(items) \(residentKiB())\n".utf8))
    }

    /// VmRSS of this process in KiB (`/proc/self/status`), or 0 when unavailable.
    static func residentKiB() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
