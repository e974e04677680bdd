import Foundation

/// One line of the benchmark table (Docs/BENCHMARKS.md).
struct ReportRow {
    /// Whether the figure meets its SPEC.md §6 target.
    enum Verdict: String {
        case pass = "PASS"
        case miss = "MISS"
        /// Reported for context; no target applies.
        case info = "info"
        /// Not measured in this run (a seam, or a missing input); the note says why.
        case skipped = "—"
    }

    let benchmark: String
    let ours: String
    let reference: String
    let ratio: String
    let target: String
    let verdict: Verdict
    let note: String

    /// The Markdown table line; `|` inside cells is escaped.
    var markdown: String {
        let cells = [benchmark, ours, reference, ratio, target, verdict.rawValue, note]
            .map { $0.replacingOccurrences(of: "|", with: "\\|") }
        return "| " + cells.joined(separator: " | ") + " |"
    }

    static let header = """
        | Benchmark | Ours | Reference | Ratio | Target | Result | Notes |
        |---|---|---|---|---|---|---|
        """

    /// A row for a figure compared against a target ratio (`ratio ≤ limit` passes).
    static func ratio(
        _ benchmark: String, ours: String, reference: String, ratio: Double, atMost limit: Double,
        target: String, note: String = ""
    ) -> ReportRow {
        ReportRow(
            benchmark: benchmark, ours: ours, reference: reference, ratio: format(ratio: ratio), target: target,
            verdict: ratio.isFinite && ratio <= limit ? .pass : .miss, note: note)
    }

    /// A row for a benchmark that did not run; `why` says why and what would make it run.
    static func skipped(_ benchmark: String, target: String, why: String) -> ReportRow {
        ReportRow(
            benchmark: benchmark, ours: "—", reference: "—", ratio: "—", target: target, verdict: .skipped,
            note: why)
    }
}

/// `1.23×`.
func format(ratio: Double) -> String {
    ratio.isFinite ? String(format: "%.2f×", ratio) : "—"
}

/// Milliseconds with a sensible number of digits.
func format(ms secondsValue: Double) -> String {
    let ms = secondsValue * 1000
    if ms < 1 { return String(format: "%.0f µs", ms * 1000) }
    if ms >= 100 { return String(format: "%.0f ms", ms) }
    if ms >= 10 { return String(format: "%.1f ms", ms) }
    return String(format: "%.2f ms", ms)
}

/// Mebibytes from KiB.
func format(kib: Int) -> String {
    String(format: "%.1f MiB", Double(kib) / 1024)
}

/// Emits rows on stdout as they are measured (the script collects them into Docs/BENCHMARKS.md).
func emit(_ rows: [ReportRow]) {
    for row in rows {
        FileHandle.standardOutput.write(Data((row.markdown + "\n").utf8))
    }
}
