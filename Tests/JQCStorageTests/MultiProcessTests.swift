import Foundation
import JQCTestSupport
import Testing

@testable import JQCStorage

private var probe: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-storage-probe") }

@Suite("Two processes and crashes", .serialized)
struct MultiProcessTests {
    @Test("a writer killed with SIGKILL mid-transaction leaves only whole batches, many times over")
    func killMidWrite() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: probe.path), "build jqc-storage-probe first (make test does)")
        let directory = TemporaryDirectory()
        let path = directory.path("crash.sqlite").path
        var generator = SystemRandomNumberGenerator()
        for trial in 0..<25 {
            let child = try ChildProcess(probe, ["write-batches", path, "200"])
            // Let it commit a random number of batches, then kill it wherever it happens to be.
            let commits = Int.random(in: 1...6, using: &generator)
            for _ in 0..<commits { _ = child.readLine() }
            child.kill(SIGKILL)
            let store = try DatabaseQueue(path: path)
            let (batches, rows, integrity): (Int64, Int64, String) = try store.read { db in
                (
                    try db.scalar("SELECT count(DISTINCT batch) FROM batch_rows") ?? 0,
                    try db.scalar("SELECT count(*) FROM batch_rows") ?? 0,
                    try db.scalar("PRAGMA integrity_check") ?? ""
                )
            }
            store.close()
            #expect(integrity == "ok", "trial \(trial)")
            #expect(rows == batches * 200, "trial \(trial): \(rows) rows in \(batches) batches")
            #expect(batches >= Int64(commits), "trial \(trial)")
        }
    }

    @Test("a reader in another process sees only committed batches while a writer runs")
    func readerAndWriter() throws {
        try #require(FileManager.default.isExecutableFile(atPath: probe.path))
        let directory = TemporaryDirectory()
        let path = directory.path("shared.sqlite").path
        let writer = try ChildProcess(probe, ["write-batches", path, "100"])
        defer { writer.kill() }
        _ = writer.readLine()
        for _ in 0..<5 {
            let reader = try ChildProcess(probe, ["count", path])
            let result = reader.finish()
            #expect(result.status == 0, "\(result.stderr)")
            let parts = result.stdout.split(separator: " ").map(String.init)
            #expect(parts.count == 3)
            if parts.count == 3 {
                #expect(Int(parts[1]) == Int(parts[0]).map { $0 * 100 })
                #expect(parts[2].trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            }
            _ = writer.readLine()
        }
    }

    @Test("a write while another process holds the lock fails as busy, with a sentence, then succeeds")
    func busyFromSecondProcess() throws {
        try #require(FileManager.default.isExecutableFile(atPath: probe.path))
        let directory = TemporaryDirectory()
        let path = directory.path("busy.sqlite").path
        let holder = try ChildProcess(probe, ["hold-write", path])
        #expect(holder.readLine() == "locked")
        let store = try DatabaseQueue(path: path, configuration: .init(busyTimeout: 0.05))
        #expect { try store.write { try $0.execute("INSERT INTO batch_rows VALUES (9, 9, 'mine')") } } throws: {
            error in
            guard let error = error as? DatabaseError else { return false }
            return error.kind == .busy
                && error.description.hasPrefix("The local store is busy: another jqc process is writing")
        }
        holder.write("\n")
        #expect(holder.finish().status == 0)
        try store.write { try $0.execute("INSERT INTO batch_rows VALUES (9, 9, 'mine')") }
        #expect(try store.read { try $0.scalar("SELECT count(*) FROM batch_rows") as Int64? } == 2)
    }
}
