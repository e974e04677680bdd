import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCStorage

/// Issue 17's no-change sync rows: a contract of N = 30, 300 and 3,000 facilities (5N areas, 200 templates of 60
/// fields: ``ContractSeed``) on a standalone release dev server; the REAL engine (an ``AppComposition`` signed in
/// as alex) does one full pull, then `app.sync.sync(explicit: true)` passes with nothing changed are timed —
/// their `reference` stage (its ``StageReport/seconds``) and the whole pass — against one `curl -K` process
/// fetching the same three lists (`GET /api/v1/facilities`, `/areas`, `/templates`; keep-alive, the engine's
/// headers, bodies to /dev/null). Once against a server with ETags (the engine sends `If-None-Match` and gets
/// 304s; target ≤ 0.3× curl) and once against `jqc-devserver --no-etags` (target ≤ 1.5× curl). Sides
/// interleaved, median of the rounds.
struct NoChangeSyncBench {
    let devserver: String
    let work: URL
    let serverWork: URL
    let sizes: [Int]
    let rounds: Int

    /// One size and mode's medians, in seconds.
    struct Figures {
        let facilities: Int
        let etags: Bool
        let stage: Double
        let pass: Double
        let curl: Double
        let rowsWritten: Int
        let bytes: Int
    }

    func run() async throws -> [ReportRow] {
        guard let curl = Child.which("curl") else {
            return [.skipped("No-change sync", target: "≤ 1.5× curl", why: "curl not found: run make deps")]
        }
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var rows: [ReportRow] = []
        for size in sizes {
            let seed = work.appendingPathComponent("contract-\(size).json")
            try ContractSeed(facilities: size).write(to: seed)
            for etags in [true, false] {
                let figure = try await measure(size, etags: etags, seed: seed, curl: curl)
                rows += report(figure)
            }
        }
        return rows
    }

    private func report(_ figure: Figures) -> [ReportRow] {
        let server = figure.etags ? "server with ETags (304s)" : "server without ETags (--no-etags)"
        let limit = figure.etags ? 0.3 : 1.5
        let areas = figure.facilities * 5
        let name = "No-change sync: \(figure.facilities) facilities, \(areas) areas, 200 templates; \(server)"
        let reference = "curl -K, the 3 lists: \(format(ms: figure.curl))"
        let note =
            "reference stage of app.sync.sync(explicit: true) after a full pull, median of \(rounds); the whole "
            + "no-change pass (every pull stage) \(format(ms: figure.pass)), \(format(ratio: figure.pass / figure.curl)) "
            + "of curl; store changes in the timed passes (sqlite3_total_changes): \(figure.rowsWritten); "
            + "curl received \(figure.bytes / 1024) KiB"
        return [
            .ratio(
                name, ours: "reference stage \(format(ms: figure.stage))", reference: reference,
                ratio: figure.stage / figure.curl, atMost: limit,
                target: "≤ \(String(format: "%.1f", limit))× curl", note: note)
        ]
    }

    /// A fresh server on the contract seed and a fresh engine; one full pull (not timed), then `rounds` no-change
    /// passes interleaved with curl fetching the three lists.
    private func measure(_ size: Int, etags: Bool, seed: URL, curl: String) async throws -> Figures {
        let label = "nochange-\(size)-\(etags ? "etags" : "plain")"
        let server = try DevServerProcess(
            executable: devserver, dataDirectory: serverWork.appendingPathComponent(label), seed: seed.path,
            options: etags ? [] : ["--no-etags"])
        defer { server.stop() }
        let runWork = work.appendingPathComponent(label, isDirectory: true)
        note("no-change sync \(size) (\(etags ? "ETags" : "no ETags")): full pull")
        let bench = try await BenchApp.open(data: runWork.appendingPathComponent("data"), baseURL: server.baseURL)
        let app = bench.app
        let cached = try app.reference.facilities().value.count
        guard cached > 0 else { throw BenchError("seed", "The full pull cached no facility (\(size)).") }
        guard let token = app.tokens.load()?.accessToken else {
            throw BenchError("login", "The engine is signed in but holds no access token.")
        }
        var config = ""
        for path in ["/api/v1/facilities", "/api/v1/areas", "/api/v1/templates"] {
            if !config.isEmpty { config += "next\n" }
            config += "url = \"\(server.baseURL)\(path)\"\noutput = \"/dev/null\"\n"
            config += "write-out = \"%{http_code} %{size_download}\\n\"\n"
            config += "header = \"Authorization: Bearer \(token)\"\nheader = \"Accept: application/json\"\n"
            config += "header = \"X-JQC-Client: jqc-shell/bench\"\nheader = \"X-JQC-API-Version: 1\"\n"
        }
        let configFile = runWork.appendingPathComponent("curl-lists.conf")
        try Data(config.utf8).write(to: configFile)
        // One untimed pass each: the server's reply cache and the engine's statements are warm on both sides.
        _ = try await app.sync.sync(explicit: true)
        var bytes = try curlLists(curl, configFile).bytes
        var stage = Samples()
        var pass = Samples()
        var floor = Samples()
        let changesBefore = try app.store.read { db in db.totalChangesCount }
        for _ in 0..<rounds {
            let start = DispatchTime.now().uptimeNanoseconds
            let report = try await app.sync.sync(explicit: true)
            let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard let reference = report.stages.first(where: { $0.name == "reference" }), reference.error == nil
            else { throw BenchError("sync", "The no-change pass ran no successful reference stage (\(size)).") }
            stage.add(reference.seconds)
            pass.add(wall)
            let fetched = try curlLists(curl, configFile)
            floor.add(fetched.elapsed)
            bytes = fetched.bytes
        }
        let changes = try app.store.read { db in db.totalChangesCount } - changesBefore
        note(
            "no-change sync \(size) (\(etags ? "ETags" : "no ETags")): stage \(format(ms: stage.median)), pass "
                + "\(format(ms: pass.median)), curl \(format(ms: floor.median)), \(changes) changes")
        return Figures(
            facilities: size, etags: etags, stage: stage.median, pass: pass.median, curl: floor.median,
            rowsWritten: changes, bytes: bytes)
    }

    /// One curl process fetching the three lists; every status must be 200.
    private func curlLists(_ curl: String, _ config: URL) throws -> (elapsed: Double, bytes: Int) {
        let result = try Child.run(curl, ["-s", "-S", "-K", config.path])
        let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        guard result.status == 0, lines.count == 3, lines.allSatisfy({ $0.hasPrefix("200 ") }) else {
            throw BenchError("child-failed", "curl fetched \(lines) (exit \(result.status)): \(result.stderr)")
        }
        let bytes = lines.compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
        return (result.elapsed, bytes)
    }
}

/// `jqc-bench nochange-loop BASE_URL DATA_DIR N`: the engine over `DATA_DIR` signs in as alex on a running dev
/// server and does one full pull, then N no-change `app.sync.sync(explicit: true)` passes, and prints their wall
/// time. The callgrind harness of the no-change rows (issue 17): (Ir at N = 6 − Ir at N = 1) / 5 is one pass.
enum NoChangeLoop {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count == 3, let count = Int(arguments[2]), count >= 0 else {
            throw BenchError("usage", "nochange-loop BASE_URL DATA_DIR N")
        }
        let bench = try await BenchApp.open(data: URL(fileURLWithPath: arguments[1]), baseURL: arguments[0])
        let elapsed = try await seconds {
            for _ in 0..<count { _ = try await bench.app.sync.sync(explicit: true) }
        }
        print(String(format: "%d no-change passes in %.1f ms", count, elapsed * 1000))
    }
}
