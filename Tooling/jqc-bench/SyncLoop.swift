import Foundation
import JQCComposition
import JQCInspections
import JQCKit

/// `jqc-bench sync-loop queue|queue-mixed|push BASE_URL DATA_DIR [N]`: the profile harness of issue 17's sync
/// rows. `queue` builds the engine over `DATA_DIR` (signed in as alex against the running dev server at
/// `BASE_URL`) and queues N completed inspections of template 3 (as `SyncGrowthBench` does); `queue-mixed`
/// queues N completed inspections each with a photo in field 9 and one flagged issue, exactly as
/// ``SyncBench``'s engine run does (the photo generated as that row's, 800×600 at quality 90: 3 × N
/// requests); `push` opens the same data directory in a fresh process and runs one
/// `app.sync.sync(explicit: true)`, printing what it pushed and the wall time. Run `push` under
/// `valgrind --tool=callgrind` (or `strace -c -f`) for two values of N queued on fresh servers: the difference
/// of the counts over the difference of N is the engine's cost per item, the start-up, sign-in and pull
/// stages cancelled out.
enum SyncLoop {
    static func run(_ arguments: [String]) async throws {
        guard arguments.count >= 3, ["queue", "queue-mixed", "push"].contains(arguments[0]) else {
            throw BenchError("usage", "sync-loop queue|queue-mixed|push BASE_URL DATA_DIR [N]")
        }
        let data = URL(fileURLWithPath: arguments[2], isDirectory: true)
        let bench = try await BenchApp.open(data: data, baseURL: arguments[1], signIn: arguments[0] != "push")
        let app = bench.app
        let count = arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0
        if arguments[0] == "queue" {
            _ = try bench.queueCompletedInspections(count)
            print("queued \(count)")
            return
        }
        if arguments[0] == "queue-mixed" {
            let source = data.appendingPathComponent("camera-800x600.jpg")
            try PhotoBench.generatePhoto(width: 800, height: 600, quality: 90, to: source)
            let queued = try bench.queueMixedInspections(count, photo: source)
            try? FileManager.default.removeItem(at: source)
            print("queued \(queued.inspections.count) inspections, \(queued.issues.count) issues, \(count) photos")
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
