import Foundation
import JQCComposition
import JQCKit
import JQCStorage

/// SPEC.md §6 local writes: answer-a-field and save-draft latency (p50/p99) through the REAL engine
/// (`InspectionService.answer/save` on an ``AppComposition`` store of 10,000 inspections), against a bare
/// single-row commit on the same connection in the same durability mode (`AppConfiguration.synchronous`),
/// for `synchronous=FULL` and `NORMAL`. The operations are interleaved (their order rotating) so they see the
/// same disk, and each is its own transaction, as in the app. The reference data comes from a standalone
/// dev server (one sync pass before anything is timed).
struct WriteBench {
    let devserver: String
    let work: URL
    let serverWork: URL
    let rows: Int
    let samples: Int

    func run() async throws -> [ReportRow] {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let data = work.appendingPathComponent("data", isDirectory: true)
        let server = try DevServerProcess(
            executable: devserver, dataDirectory: serverWork.appendingPathComponent("writes-devserver"))
        defer { server.stop() }
        note("building a store of \(rows) inspections through AppComposition")
        let drafts = try EngineWriteWorkload.populate(
            try await BenchApp.open(data: data, baseURL: server.baseURL), rows: rows)
        var rowsOut: [ReportRow] = []
        for mode in [DatabaseConfiguration.Synchronous.full, .normal] {
            let bench = try await BenchApp.open(data: data, baseURL: server.baseURL, synchronous: mode, signIn: false)
            rowsOut += try measure(EngineWriteWorkload(app: bench.app, drafts: drafts), mode: mode)
        }
        return rowsOut
    }

    private func measure(_ workload: EngineWriteWorkload, mode: DatabaseConfiguration.Synchronous) throws
        -> [ReportRow]
    {
        var random = SeededGenerator(seed: 7)
        var figures = [Samples(), Samples(), Samples(), Samples()]  // answer, save, bare, answer in SQL
        let warmUp = 20
        let texts = ["Jordan Lee", "Sam Ortiz", "Riley Chen", "Avery Park"]
        for index in 0..<(samples + warmUp) {
            let draft = Int(random.next() % UInt64(workload.drafts.count))
            // A rating (validated against the pinned schema) or a short text, as an inspector answers.
            let rating = random.next() % 2 == 0
            let field = rating ? "3" : "14"
            let text = texts[Int(random.next() % 4)].split(separator: " ").map(String.init)
            let words = rating ? ["\(1 + random.next() % 5)"] : text
            let value: JSONValue = rating ? .int(Int64(words[0]) ?? 3) : .string(words.joined(separator: " "))
            var timings = [0.0, 0.0, 0.0, 0.0]
            for step in 0..<4 {
                let operation = (index + step) % 4
                timings[operation] = try seconds {
                    switch operation {
                    case 0: try workload.answer(draft: draft, field: field, words: words)
                    case 1: try workload.saveDraft(draft: draft)
                    case 2: try workload.bareCommit()
                    default: try workload.answerInSQL(draft: draft, field: field, value: value)
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
                + "save p99 \(format(ms: figures[1].percentile(99))), bare p99 \(format(ms: bare.percentile(99)))")
        func row(_ name: String, _ samples: Samples, _ extra: String) -> ReportRow {
            .ratio(
                "\(name), \(label)",
                ours: "p50 \(format(ms: samples.median)) / p99 \(format(ms: samples.percentile(99)))",
                reference: "bare commit p50 \(format(ms: bare.median)) / p99 \(format(ms: bare.percentile(99)))",
                ratio: samples.percentile(99) / bare.percentile(99), atMost: 1.5, target: "p99 ≤ 1.5× bare",
                note: "\(self.samples) samples, \(workload.drafts.count) drafts among \(rows) inspections; \(extra)")
        }
        return [
            row(
                "Answer a field (InspectionService.answer)", figures[0],
                "AppComposition store: read the row, parse form data and pinned schema, validate, write the answers"),
            row(
                "Save a draft (InspectionService.save)", figures[1],
                "AppComposition store: read and parse the row, write the answers back"),
            row(
                "Answer a field via json_set (design option)", figures[3],
                "one UPDATE patching inspections.form_data in SQLite; no schema validation"),
        ]
    }
}
