import Foundation
import JQCKit
import JQCStorage

/// SPEC.md §6 local writes: answer-a-field and save-draft latency (p50/p99) on a store of 10,000
/// inspections, against a bare single-row commit on the same file in the same durability mode, for
/// `synchronous=FULL` and `NORMAL`. The operations are interleaved (their order rotating) so they see the
/// same disk, and each is its own transaction, as in the app.
struct WriteBench {
    let work: URL
    let rows: Int
    let samples: Int

    func run() throws -> [ReportRow] {
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let path = work.appendingPathComponent("writes.sqlite").path
        note("building a store of \(rows) inspections")
        try BenchInspectionStore(path: path, synchronous: .normal).populate(rows: rows)
        var rowsOut: [ReportRow] = []
        for mode in [DatabaseConfiguration.Synchronous.full, .normal] {
            rowsOut += try measure(path: path, mode: mode)
        }
        return rowsOut
    }

    private func measure(path: String, mode: DatabaseConfiguration.Synchronous) throws -> [ReportRow] {
        let store = try BenchInspectionStore(path: path, synchronous: mode)
        defer { store.queue.close() }
        let workload: any InspectionWriteWorkload = store
        var random = SeededGenerator(seed: 7)
        var figures = [Samples(), Samples(), Samples(), Samples()]  // answer, save, bare, answer in SQL
        let warmUp = 20
        for index in 0..<(samples + warmUp) {
            let inspection = Int64(1 + random.next() % UInt64(rows))
            let field = "\(1 + random.next() % 40)"
            let value = JSONValue.int(Int64(random.next() % 5))
            var timings = [0.0, 0.0, 0.0, 0.0]
            for step in 0..<4 {
                let operation = (index + step) % 4
                timings[operation] = try seconds {
                    switch operation {
                    case 0: try workload.answer(inspection: inspection, field: field, value: value)
                    case 1: try workload.saveDraft(inspection: inspection)
                    case 2: try workload.bareCommit()
                    default: try store.answerInSQL(inspection: inspection, field: field, value: value)
                    }
                }
            }
            guard index >= warmUp else { continue }
            for operation in 0..<4 { figures[operation].add(timings[operation]) }
        }
        let bare = figures[2]
        let label = "synchronous=\(mode.rawValue)"
        note(
            "writes \(label): answer p99 \(format(ms: figures[0].percentile(99))), "
                + "bare p99 \(format(ms: bare.percentile(99)))")
        func row(_ name: String, _ samples: Samples, _ extra: String) -> ReportRow {
            .ratio(
                "\(name), \(label)",
                ours: "p50 \(format(ms: samples.median)) / p99 \(format(ms: samples.percentile(99)))",
                reference: "bare commit p50 \(format(ms: bare.median)) / p99 \(format(ms: bare.percentile(99)))",
                ratio: samples.percentile(99) / bare.percentile(99), atMost: 1.5, target: "p99 ≤ 1.5× bare",
                note: "\(self.samples) samples on \(rows) rows; \(extra)")
        }
        return [
            row(
                "Answer a field", figures[0],
                "stand-in table (seam InspectionWriteWorkload): read, JSON round trip "
                    + "in Swift, UPDATE"),
            row("Save a draft", figures[1], "stand-in table: read, re-serialise the form data, UPDATE"),
            row("Answer a field via json_set (design option)", figures[3], "one UPDATE patching the JSON in SQLite"),
        ]
    }
}
