import Foundation
import JQCComposition
import JQCInspections
import JQCKit

/// `jqc-bench sync-loop queue|push BASE_URL DATA_DIR [N]`: the profile harness of issue 17's sync growth rows.
/// `queue` builds the engine over `DATA_DIR` (signed in as alex against the running dev server at `BASE_URL`)
/// and queues N completed inspections of template 3 (as `SyncGrowthBench` does); `push` opens the same data
/// directory in a fresh process and runs one `app.sync.sync(explicit: true)`, printing what it pushed and the
/// wall time. Run `push` under `valgrind --tool=callgrind` (or `strace -c -f`) for two values of N queued on
/// fresh servers: the difference of the counts over the difference of N is the engine's cost per item, the
/// start-up, sign-in and pull stages cancelled out.
enum SyncLoop {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 3, ["queue", "push"].contains(arguments[0]) else {
            throw BenchError("usage", "sync-loop queue|push BASE_URL DATA_DIR [N]")
        }
        let data = URL(fileURLWithPath: arguments[2], isDirectory: true)
        let bench = try await BenchApp.open(data: data, baseURL: arguments[1], signIn: arguments[0] == "queue")
        let app = bench.app
        if arguments[0] == "queue" {
            let count = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
            _ = try bench.queueCompletedInspections(count)
            print("queued \(count)")
            return
        }
        guard await app.connectivity.probeNow() else {
            throw BenchError("devserver", "The dev server at \(arguments[1]) does not answer its health probe.")
        }
        let started = ContinuousClock.now
        let report = try await app.sync.sync(explicit: true)
        let elapsed = ContinuousClock.now - started
        let pending = try app.outboxStatus().pending.values.reduce(0, +)
        print("pass in \(elapsed); still pending \(pending); \(report)")
    }
}
