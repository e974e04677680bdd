import Foundation
import JQCKit
import JQCStorage

/// SPEC.md §6 local writes: answer-a-field and save-draft latency (p50/p99) on a store of 10,000
/// inspections, against a bare single-row commit on the same file in the same durability mode, for
/// `synchronous=FULL` and `NORMAL`. The three operations are interleaved so they see the same disk.
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
        var answer = Samples()
        var save = Samples()
        var bare = Samples()
        let warmUp = 20
        for index in 0..<(samples + warmUp) {
            let inspection = Int64(1 + random.next() % UInt64(rows))
            let field = "\(1 + random.next() % 40)"
            let value = JSONValue.int(Int64(random.next() % 5))
            // Rotate the order so no operation always follows another.
            var timings = [0.0, 0.0, 0.0]
            for step in 0..<3 {
                switch (index + step) % 3 {
                case 0: timings[0] = try seconds { try workload.answer(inspection: inspection, field: field, value: value) }
                case 1: timings[1] = try seconds { try workload.saveDraft(inspection: inspection) }
                default: timings[2] = try seconds { try workload.bareCommit() }
                }
            }
            guard index >= warmUp else { continue }
            answer.add(timings[0])
            save.add(timings[1])
            bare.add(timings[2])
        }
        let label = "synchronous=\(mode.rawValue)"
        note("writes \(label): answer p99 \(format(ms: answer.percentile(99))), bare p99 \(format(ms: bare.percentile(99)))")
        func row(_ name: String, _ figures: Samples) -> ReportRow {
            .ratio(
                "\(name), \(label)",
                ours: "p50 \(format(ms: figures.median)) / p99 \(format(ms: figures.percentile(99)))",
                reference: "bare commit p50 \(format(ms: bare.median)) / p99 \(format(ms: bare.percentile(99)))",
                ratio: figures.percentile(99) / bare.percentile(99), atMost: 1.5, target: "p99 ≤ 1.5× bare",
                note: "\(samples) samples on \(rows) rows; stand-in table (seam InspectionWriteWorkload)")
        }
        return [row("Answer a field", answer), row("Save a draft", save)]
    }
}
