import Foundation
import JQCKit
import JQCNetwork

/// SPEC.md §6 "memory flat while syncing 10,000 items", measured on a stand-in push loop until the
/// feature stages land: a child `jqc-bench memory-child` pushes 10,000 pending issues from a local outbox
/// (``BenchOutboxStore``) through one ``APIClient`` + ``CurlTransport``, marking each synced, and reports
/// its own resident set size (`/proc/self/status` VmRSS) every 500 items. Flat means the RSS after the
/// last item is within 10 % of the RSS after the first 1,000 (warm-up: caches, connections, statements).
///
/// The dev server dedupes issues by scanning all it holds, so the child moves to a fresh dev server every
/// 250 items (same demo seed; the client re-points its ServerConfig and signs in again) to keep the run short.
///
/// TODO(issue 11, seam `SyncBench.memory`): when the issue, inspection and photo stages land, replace the
/// push loop in ``MemoryChild`` by `AppComposition.sync` passes over 10,000 queued items.
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
                benchmark: "Memory while pushing \(last.items) outbox items (stand-in push loop)",
                ours: "\(format(kib: warm.kib)) at \(warm.items) → \(format(kib: last.kib)) at \(last.items)",
                reference: "peak \(format(kib: peak))", ratio: String(format: "%+.1f %%", growth * 100),
                target: "flat: growth ≤ 10 %", verdict: growth <= 0.10 ? .pass : .miss,
                note: "VmRSS every 500 items; store → APIClient POST /api/v1/issues → mark synced; "
                    + "seam SyncBench.memory switches it to SyncEngine passes")
        ]
    }
}

/// `jqc-bench memory-child DEVSERVER WORK SERVER-WORK ITEMS`: the push loop measured by ``MemoryBench``;
/// prints "items rss-kib" lines.
enum MemoryChild {
    /// Items per dev server (its per-request work grows with the issues it holds).
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
        let outbox = work.appendingPathComponent("outbox.sqlite")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: outbox.path + suffix) }
        var round = 0
        func freshServer() throws -> DevServerProcess {
            round += 1
            return try DevServerProcess(
                executable: devserver, dataDirectory: serverWork.appendingPathComponent("memory-\(round)"))
        }
        var server = try freshServer()
        defer { server.stop() }
        let selection = InMemorySelectionStore(server.baseURL)
        let config = ServerConfig(store: selection)
        let api = APIClient(
            config: config, transport: CurlTransport(), tokens: InMemoryTokenStore(),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "bench"))
        _ = try await api.login(username: "alex", password: "inspect-demo")
        guard let facility = try await api.getJSON("/api/v1/facilities").arrayValue?.first?["id"]?.intValue else {
            throw BenchError("seed", "The dev server's demo seed has no facility for alex.")
        }
        let store = try BenchOutboxStore(path: outbox.path)
        try store.fill(count: items, facilityID: facility)
        report(0)
        var sent = 0
        while true {
            let batch = try store.pending(limit: 50)
            if batch.isEmpty { break }
            for item in batch {
                if sent > 0 && sent % segment == 0 {
                    server.stop()
                    server = try freshServer()
                    guard let selected = ServerSelection(storedValue: server.baseURL) else {
                        throw BenchError("devserver", "The dev server address \(server.baseURL) is not a server URL.")
                    }
                    try config.select(selected)
                    _ = try await api.login(username: "alex", password: "inspect-demo")
                }
                let body: JSONValue = .object([
                    "local_id": .string(item.localID), "facility_id": .int(item.facilityID),
                    "severity": .string(item.severity), "description": .string(item.details),
                ])
                let reply = try await api.sendJSON(.post, path: "/api/v1/issues", body: body, idempotent: true)
                try store.markSynced(item.id, serverID: reply["id"]?.intValue)
                sent += 1
                if sent % sampleEvery == 0 { report(sent) }
            }
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
