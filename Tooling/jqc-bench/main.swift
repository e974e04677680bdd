// jqc-bench: the benchmarks of SPEC.md §6 (issue 11). Run through `make bench` (scripts/bench.sh), which
// builds this in release mode and writes Docs/BENCHMARKS.md. Never part of `make test`.
//
//   jqc-bench [photos] [writes] [coldstart] [transport] [memory] [sync] [growth] [form] [nochange] [--work DIR]
//             [--fixtures DIR] [--shell PATH] [--devserver PATH] [--server-work DIR] [--quick]
//       Runs the named benchmarks (all when none is named); prints one Markdown table row per figure on
//       stdout, progress on stderr.
//   jqc-bench import-once IN OUT   — one photo import (GNU time measures its peak RSS).
//   jqc-bench sqlite-version       — the SQLite library JQCStorage links (for the report header).
//   jqc-bench contract-seed N OUT  — a dev-server seed of N facilities, 5N areas, 200 templates (ContractSeed).
//   jqc-bench nochange-loop URL DATA N — a full pull, then N no-change sync passes (the callgrind harness).
//   jqc-bench client-loop URL N [typed] — N GET /api/v1/auth/me through APIClient (the callgrind harness).
//   jqc-bench sync-loop queue|queue-mixed|push URL DATA [N] — queue N inspections (mixed: + photo, issue) / one pass.
import Foundation
import JQCStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The parsed command line.
struct BenchOptions {
    var benchmarks: [String] = []
    var work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("jqc-bench", isDirectory: true)
    var fixtures: URL?
    var shell: String?
    var devserver: String?
    var serverWork: URL?
    var quick = false

    static let all = ["photos", "writes", "coldstart", "transport", "memory", "sync", "growth", "form", "nochange"]

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        func value() throws -> String {
            index += 1
            guard index < arguments.count else {
                throw BenchError("usage", "The option \(arguments[index - 1]) needs a value.")
            }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--work": options.work = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--fixtures": options.fixtures = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--shell": options.shell = try value()
            case "--devserver": options.devserver = try value()
            case "--server-work": options.serverWork = URL(fileURLWithPath: try value(), isDirectory: true)
            case "--quick": options.quick = true
            case _ where all.contains(argument): options.benchmarks.append(argument)
            default:
                throw BenchError(
                    "usage", "Unknown argument \(argument); benchmarks are \(all.joined(separator: ", ")).")
            }
            index += 1
        }
        if options.benchmarks.isEmpty { options.benchmarks = all }
        return options
    }
}

/// Sibling release binaries (`.build/release/jqc-shell`) when no path is given.
func sibling(_ name: String) -> String {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name).path
}

func runBenchmarks(_ options: BenchOptions) async throws {
    let quick = options.quick
    let devserver = options.devserver ?? sibling("jqc-devserver")
    for name in options.benchmarks {
        let work = options.work.appendingPathComponent(name, isDirectory: true)
        switch name {
        case "photos":
            emit(try PhotoBench(fixtures: options.fixtures, work: work, rounds: quick ? 2 : 5).run())
        case "writes":
            emit(
                try await WriteBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    stores: quick ? [2_000, 10_000] : [10_000, 100_000], formSizes: [10, 100, 1_000],
                    samples: quick ? 100 : 10_000, rounds: quick ? 1 : 5, normalRounds: quick ? 1 : 11
                ).run())
        case "coldstart":
            // The engine-start row needs a server to name; a standalone dev server serves it.
            let server =
                FileManager.default.isExecutableFile(atPath: devserver)
                ? try DevServerProcess(executable: devserver, dataDirectory: work.appendingPathComponent("devserver"))
                : nil
            defer { server?.stop() }
            emit(
                try ColdStartBench(
                    shell: options.shell ?? sibling("jqc-shell"), work: work,
                    rows: quick ? 2_000 : 10_000, runs: quick ? 5 : 20, server: server?.baseURL
                ).run())
            // Issue 17: the real store at 100,000 inspections, signed in, against a standalone server.
            emit(
                try await StoreColdStartBench(
                    shell: options.shell ?? sibling("jqc-shell"), devserver: devserver,
                    work: work.appendingPathComponent("real-store", isDirectory: true),
                    serverWork: options.serverWork ?? work, rows: quick ? 10_000 : 100_000, runs: quick ? 5 : 20
                ).run())
        case "growth":
            emit(
                try await SyncGrowthBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    sizes: quick ? [30, 100, 300] : [100, 1_000, 3_000], rounds: quick ? 3 : 5
                ).run())
        case "nochange":
            emit(
                try await NoChangeSyncBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    sizes: quick ? [30, 300] : [30, 300, 3_000], rounds: quick ? 3 : 5
                ).run())
        case "form":
            emit(try FormBench(shell: options.shell ?? sibling("jqc-shell"), work: work, rounds: quick ? 3 : 7).run())
        case "memory":
            emit(
                try MemoryBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    items: quick ? 2_000 : 10_000
                ).run())
        case "transport":
            emit(
                try await TransportBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    requests: quick ? 200 : 1_000,
                    uploads: quick ? 50 : 200, rounds: quick ? 1 : 3
                ).run())
        default:
            emit(
                try await SyncBench(
                    devserver: devserver, work: work, serverWork: options.serverWork ?? work,
                    inspections: quick ? 100 : 1_000, rounds: quick ? 1 : 3
                ).run())
        }
    }
}

/// The command line's work, run on a detached task while the main thread waits on a semaphore: no top-level
/// `await`, so the main thread never parks in `dispatch_main`'s `sigsuspend`, which valgrind 3.19 (the
/// callgrind profile of `client-loop`, issue 17) cannot run.
func benchMain() async -> Int32 {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do {
        if arguments.first == "import-once" {
            try ImportOnce.run(Array(arguments.dropFirst()))
        } else if arguments.first == "memory-child" {
            try await MemoryChild.run(Array(arguments.dropFirst()))
        } else if arguments.first == "client-loop" {
            try await ClientLoop.run(Array(arguments.dropFirst()))
        } else if arguments.first == "nochange-loop" {
            try await NoChangeLoop.run(Array(arguments.dropFirst()))
        } else if arguments.first == "contract-seed" {
            try ContractSeed.run(Array(arguments.dropFirst()))
        } else if arguments.first == "sync-loop" {
            try await SyncLoop.run(Array(arguments.dropFirst()))
        } else if arguments.first == "sqlite-version" {
            print(DatabaseQueue.sqliteVersion)
        } else {
            try await runBenchmarks(try BenchOptions.parse(arguments))
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("jqc-bench: \(error)\n".utf8))
        return 1
    }
}

let finished = DispatchSemaphore(value: 0)
let exitStatus = Mutex<Int32>(0)
Task.detached {
    let status = await benchMain()
    exitStatus.withLock { $0 = status }
    finished.signal()
}
finished.wait()
exit(exitStatus.withLock { $0 })
