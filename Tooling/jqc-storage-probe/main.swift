// A test helper for JQCStorage's crash and two-process tests (never shipped to inspectors).
//
//   jqc-storage-probe write-batches DB ROWS   — forever: one transaction inserting ROWS rows of a new batch;
//                                               prints "committed N" after each commit (flushed).
//   jqc-storage-probe count DB                — prints "<batches> <rows> <integrity>" and exits.
//   jqc-storage-probe hold-write DB           — takes the write lock, prints "locked", holds it until a line arrives on stdin.
import Foundation
import JQCStorage

/// Writes one line to stdout at once (a pipe would otherwise buffer it).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
let arguments = CommandLine.arguments
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("jqc-storage-probe: \(message)\n".utf8))
    exit(64)
}
guard arguments.count >= 3 else { fail("usage: write-batches DB ROWS | count DB | hold-write DB") }
let store: DatabaseQueue
do {
    store = try DatabaseQueue(path: arguments[2])
    try store.write { db in
        try db.execute(
            "CREATE TABLE IF NOT EXISTS batch_rows (batch INTEGER NOT NULL, n INTEGER NOT NULL, payload TEXT NOT NULL)")
    }
} catch { fail("\(error)") }

switch arguments[1] {
case "write-batches":
    let rows = Int(arguments.count > 3 ? arguments[3] : "50") ?? 50
    var batch: Int64 =
        (try? store.read { db in try db.scalar("SELECT max(batch) FROM batch_rows") as Int64? } ?? 0) ?? 0
    let payload = String(repeating: "x", count: 200)
    while true {
        batch += 1
        do {
            try store.write { db in
                for n in 0..<rows {
                    try db.execute("INSERT INTO batch_rows (batch, n, payload) VALUES (?, ?, ?)", [batch, n, payload])
                }
            }
        } catch { fail("\(error)") }
        say("committed \(batch)")
    }
case "count":
    do {
        let result: (Int64, Int64, String) = try store.read { db in
            let batches: Int64 = try db.scalar("SELECT count(DISTINCT batch) FROM batch_rows") ?? 0
            let rows: Int64 = try db.scalar("SELECT count(*) FROM batch_rows") ?? 0
            let integrity: String = try db.scalar("PRAGMA integrity_check") ?? "?"
            return (batches, rows, integrity)
        }
        say("\(result.0) \(result.1) \(result.2)")
    } catch { fail("\(error)") }
case "hold-write":
    do {
        try store.write { db in
            try db.execute("INSERT INTO batch_rows (batch, n, payload) VALUES (0, 0, 'held')")
            say("locked")
            _ = readLine()
        }
    } catch { fail("\(error)") }
    say("released")
default:
    fail("unknown command \(arguments[1])")
}
