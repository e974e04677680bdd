import Foundation
import JQCComposition
import JQCKit
import JQCStorage

/// SPEC.md §6 local writes and issue 17's growth rows: answer-a-field and save-draft latency (p50/p99)
/// through the REAL engine (`InspectionService.answer/save` on an ``AppComposition`` store), for forms of
/// each size in `formSizes` × stores of each size in `stores`, against a bare single-row commit on the same
/// connection in the same durability mode (`AppConfiguration.synchronous`), for `synchronous=FULL` and
/// `NORMAL`. The operations are interleaved (their order rotating) so they see the same disk, and each is
/// its own transaction, as in the app. The reference data comes from a standalone dev server (one sync pass
/// before anything is timed).
///
/// Each cell runs ``rounds`` rounds (``normalRounds`` at NORMAL) of ``samples`` samples after one uncounted round
/// that fills the fresh connection's page cache, the three operations side by side in every round, and reports
/// the round whose ratio is the median (every round's ratio is in the note): on a shared VM one round's p99 of a
/// 15 µs operation is set by the host's stalls (``StallProbe``) and moves by ±30 % between identical rounds, while
/// the median of the rounds' side-by-side ratios does not follow a burst that hits one.
struct WriteBench {
    let devserver: String
    let work: URL
    let serverWork: URL
    /// Store sizes (inspections in the store).
    let stores: [Int]
    /// Form sizes (input fields of the drafts answered).
    let formSizes: [Int]
    let samples: Int
    /// Rounds per cell (odd: the median round is reported).
    var rounds = 5
    /// Rounds per NORMAL cell (odd). A NORMAL round takes ~0.5 s where a FULL one takes ~6 s, and its ratio moves
    /// most (1.2–2.3× between identical rounds of a 1,000-field cell on 2026-12-07): 11 rounds put the median's
    /// estimate on twice as many rounds for ~40 s more in all.
    var normalRounds = 11
    /// Drafts of each form in each store (the answer and save targets, picked at random): 50, or
    /// `JQC_BENCH_WRITES_DRAFTS` when profiling. The answer p99 follows the answer rows touched at random, not the
    /// form's size alone: at 5 drafts the 1,000-field NORMAL cells read 0.94–1.33×, at 50 2.02–2.75× (issue 17).
    let draftsPerForm = Int(ProcessInfo.processInfo.environment["JQC_BENCH_WRITES_DRAFTS"] ?? "") ?? 50

    func run() async throws -> [ReportRow] {
        try? FileManager.default.removeItem(at: work)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // Profiling (callgrind cannot spawn the dev server): JQC_BENCH_WRITES_SERVER names a running one and
        // JQC_BENCH_WRITES_STORES (`500,2000`) the store sizes.
        let environment = ProcessInfo.processInfo.environment
        let running = environment["JQC_BENCH_WRITES_SERVER"]
        let server =
            running == nil
            ? try DevServerProcess(
                executable: devserver, dataDirectory: serverWork.appendingPathComponent("writes-devserver")) : nil
        defer { server?.stop() }
        let baseURL = running ?? server?.baseURL ?? ""
        let stores = environment["JQC_BENCH_WRITES_STORES"]?.split(separator: ",").compactMap { Int($0) } ?? self.stores
        // JQC_BENCH_WRITES_FORMS (`10,1000`) picks the form sizes when profiling.
        let sizes = environment["JQC_BENCH_WRITES_FORMS"]?.split(separator: ",").compactMap { Int($0) } ?? formSizes
        // Each size once, in the order given (a size named twice would be two forms under one key).
        var seen = Set<Int>()
        let forms = sizes.filter { seen.insert($0).inserted }.map(GrowthForm.init(fields:))
        let byFields = Dictionary(uniqueKeysWithValues: forms.map { ($0.fields, $0) })
        var rowsOut: [ReportRow] = []
        for storeSize in stores {
            let data = work.appendingPathComponent("store-\(storeSize)", isDirectory: true)
            note("building a store of \(storeSize) inspections through AppComposition")
            let populated = try await BenchApp.open(data: data, baseURL: baseURL)
            let drafts = try EngineWriteWorkload.populate(
                populated, rows: storeSize, forms: forms, draftsPerForm: draftsPerForm)
            let storeBytes = Self.bytes(in: data)
            // JQC_BENCH_WRITES_MODES (`NORMAL`) picks the durability modes when profiling.
            let modes =
                environment["JQC_BENCH_WRITES_MODES"]?.split(separator: ",")
                .compactMap { DatabaseConfiguration.Synchronous(rawValue: String($0)) } ?? [.full, .normal]
            for mode in modes {
                if mode == .normal {
                    rowsOut.append(StallProbe.measure().row("before the NORMAL cells, \(Self.count(storeSize)) store"))
                }
                let bench = try await BenchApp.open(
                    data: data, baseURL: baseURL, synchronous: mode, signIn: false)
                let workload = EngineWriteWorkload(app: bench.app, drafts: drafts, forms: byFields)
                for form in forms {
                    rowsOut.append(
                        try measure(workload, form: form, store: storeSize, storeBytes: storeBytes, mode: mode))
                }
            }
        }
        return rowsOut
    }

    /// One round's samples of the three operations, side by side.
    struct Round {
        var answer = Samples()
        var save = Samples()
        var bare = Samples()
        var answerRatio: Double { answer.percentile(99) / bare.percentile(99) }
        var saveRatio: Double { save.percentile(99) / bare.percentile(99) }
        /// The worse of the two ratios: the cell's figure.
        var ratio: Double { max(answerRatio, saveRatio) }

        /// The round whose ``ratio`` is the median of `rounds` (the upper middle one of an even count).
        static func median(of rounds: [Round]) -> Round {
            rounds.sorted { $0.ratio < $1.ratio }[rounds.count / 2]
        }
    }

    private func measure(
        _ workload: EngineWriteWorkload, form: GrowthForm, store: Int, storeBytes: Int,
        mode: DatabaseConfiguration.Synchronous
    ) throws -> ReportRow {
        // One round first, not counted: each mode opens a fresh connection, whose page cache starts empty, so the
        // first round's answers read the 1,000-field drafts' leaves from the file (its ratio was the highest of the
        // cell in most runs on 2026-12-07); an app that has been answering has them cached.
        _ = try measureRound(workload, form: form, seed: UInt64(3 + form.fields + store))
        var all: [Round] = []
        for round in 0..<max(mode == .normal ? normalRounds : rounds, 1) {
            all.append(try measureRound(workload, form: form, seed: UInt64(7 + form.fields + store + 1_000 * round)))
        }
        let median = Round.median(of: all)
        let (answer, save, bare) = (median.answer, median.save, median.bare)
        let limit = mode == .full ? 1.2 : 2.0
        let label = "\(Self.count(form.fields)) fields × \(Self.count(store)) inspections, synchronous=\(mode.rawValue)"
        let roundRatios = all.map { format(ratio: $0.ratio) }.joined(separator: ", ")
        note(
            "writes \(label): answer p99 \(format(ms: answer.percentile(99))), "
                + "save p99 \(format(ms: save.percentile(99))), bare p99 \(format(ms: bare.percentile(99))); "
                + "rounds \(roundRatios)")
        let formKiB = Double(JSONValue.object(form.answers).jsonString().utf8.count) / 1024
        return .ratio(
            "Answer / save a field: \(label)",
            ours: "answer p99 \(format(ms: answer.percentile(99))) / save p99 \(format(ms: save.percentile(99)))",
            reference: "bare commit p50 \(format(ms: bare.median)) / p99 \(format(ms: bare.percentile(99)))",
            ratio: median.ratio, atMost: limit,
            target: String(format: "p99 ≤ %.1f× bare", limit),
            note: "the median of \(all.count) rounds by ratio (each round's worse ratio: \(roundRatios)); in that "
                + "round answer p50 \(format(ms: answer.median)), p99 \(format(ratio: median.answerRatio)); save p50 "
                + "\(format(ms: save.median)), p99 \(format(ratio: median.saveRatio)); the worse ratio shown; tail "
                + "(p98 / p99 / p99.5) answer \(Self.tail(answer)), bare \(Self.tail(bare)); \(samples) "
                + "samples per round over \(draftsPerForm) drafts of this form (every field answered: form_data "
                + String(format: "%.1f KiB", formKiB) + ") among \(store) inspections (store "
                + String(format: "%.0f MiB", Double(storeBytes) / 1_048_576)
                + "); the answer is a rating (AnswerValue) or a text (the shell's words)")
    }

    /// ``samples`` interleaved answer / save / bare samples (after a warm-up of 20), drafts and fields drawn
    /// from a generator seeded with `seed`.
    private func measureRound(_ workload: EngineWriteWorkload, form: GrowthForm, seed: UInt64) throws -> Round {
        var random = SeededGenerator(seed: seed)
        var figures = [Samples(), Samples(), Samples()]  // answer, save, bare
        let warmUp = 20
        for index in 0..<(samples + warmUp) {
            let draft = Int(random.next() % 1_000)
            let field = Int(random.next() % 10_000)
            // A rating (typed, checked on the pinned schema) or a short text (the shell's words).
            let rating: Int? = random.next() % 2 == 0 ? Int(1 + random.next() % 5) : nil
            var timings = [0.0, 0.0, 0.0]
            for step in 0..<3 {
                let operation = (index + step) % 3
                timings[operation] = try seconds {
                    switch operation {
                    case 0: try workload.answer(fields: form.fields, draft: draft, field: field, rating: rating)
                    case 1: try workload.saveDraft(fields: form.fields, draft: draft)
                    default: try workload.bareCommit()
                    }
                }
            }
            guard index >= warmUp else { continue }
            for operation in 0..<3 { figures[operation].add(timings[operation]) }
        }
        return Round(answer: figures[0], save: figures[1], bare: figures[2])
    }

    /// `21 / 31 / 58 µs`: the p98, p99 and p99.5, where the stalls of this machine begin (``StallProbe``).
    static func tail(_ samples: Samples) -> String {
        [98.0, 99, 99.5].map { String(format: "%.0f", samples.percentile($0) * 1e6) }.joined(separator: " / ") + " µs"
    }

    /// `100,000`.
    static func count(_ value: Int) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.groupingSeparator = ","
        return formatter.string(from: NSNumber(value: value)) ?? String(value)
    }

    /// The bytes of the files directly in `directory` (the store, its WAL and shared memory).
    static func bytes(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.reduce(0) { total, name in
            let path = directory.appendingPathComponent(name).path
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
            return total + (size ?? 0)
        }
    }
}
