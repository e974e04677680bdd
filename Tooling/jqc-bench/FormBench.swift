import Foundation
import JQCForms
import JQCKit

/// Issue 14: `form` over a 1 MB answer (it took 9 s for 640k characters while wrapping was quadratic).
/// Two rows, target < 1 s each: `FormRenderer.render` in-process (grid at 120 columns and stacked at 100, on
/// one unbroken 1 MiB word and on 1 MiB of prose with control characters), and the release `jqc-shell -c form`
/// end to end (process start, store, embedded dev server) on a draft whose textarea holds the 1 MiB word.
struct FormBench {
    /// The release `jqc-shell`.
    let shell: String
    /// A scratch folder (the shell's data directory lives here).
    let work: URL
    /// Rounds per measurement; the median is reported.
    let rounds: Int

    /// The answer's size in characters.
    static let size = 1 << 20

    func run() throws -> [ReportRow] {
        [renderer(), try endToEnd()]
    }

    private static let schema = FormSchema(
        json: [
            ["id": 1, "type": "section", "label": "Long answers", "row": 1, "col": 1, "colSpan": 12, "rowSpan": 1],
            ["id": 2, "type": "textarea", "label": "Notes", "row": 2, "col": 1, "colSpan": 12, "rowSpan": 2],
            ["id": 3, "type": "text", "label": "Summary", "row": 4, "col": 1, "colSpan": 6, "rowSpan": 1],
        ])

    private func renderer() -> ReportRow {
        let word = String(repeating: "x", count: FormBench.size)
        let sentence = "Floor wet near sinks,\tmop \u{1B}[2J left out. "
        let prose = String(
            String(repeating: sentence, count: FormBench.size / sentence.count + 1).prefix(FormBench.size))
        var samples = Samples()
        var longest = 0
        for _ in 0..<rounds {
            for answer in [word, prose] {
                let answers: [String: JSONValue] = ["2": .string(answer), "3": .string(answer)]
                samples.add(
                    seconds {
                        for (width, style) in [(120, FormRenderer.Style.grid), (100, .stacked)] {
                            let text = FormRenderer.render(
                                schema: FormBench.schema, answers: answers, width: width, style: style)
                            longest = max(longest, text.count)
                        }
                    })
            }
        }
        let median = samples.median
        return ReportRow(
            benchmark: "Form render over a 1 MiB answer (grid + stacked)", ours: format(ms: median), reference: "—",
            ratio: "—", target: "< 1 s", verdict: median < 1 ? .pass : .miss,
            note: "FormRenderer.render, median of \(samples.values.count): an unbroken 1 MiB word and 1 MiB of prose "
                + "with controls in a textarea and a text field; \(longest) characters drawn at most (each answer "
                + "capped at \(20) lines).")
    }

    private func endToEnd() throws -> ReportRow {
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            return .skipped("`jqc-shell -c form` over a 1 MiB answer", target: "< 1 s", why: "no jqc-shell at \(shell)")
        }
        let data = work.appendingPathComponent("shell-data", isDirectory: true)
        try? FileManager.default.removeItem(at: data)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let script = work.appendingPathComponent("long-answer.jqc")
        let answer = String(repeating: "x", count: FormBench.size)
        try Data(
            ("login alex --password inspect-demo\nsync\nstart --template 3 --facility 11 --area 111\n"
                + "answer 10 \(answer)\n").utf8
        ).write(to: script)
        let setup = try Child.run(shell, ["--data-dir", data.path, "--script", script.path])
        guard setup.status == 0 else {
            throw BenchError("form", "Preparing the draft failed (exit \(setup.status)): \(setup.stderr)")
        }
        var samples = Samples()
        for _ in 0..<rounds {
            let result = try Child.run(shell, ["--data-dir", data.path, "-c", "form"])
            guard result.status == 0, result.stdout.count > 1000 else {
                throw BenchError("form", "`form` failed (exit \(result.status)): \(result.stderr)")
            }
            samples.add(result.elapsed)
        }
        let median = samples.median
        return ReportRow(
            benchmark: "`jqc-shell -c form` over a 1 MiB answer", ours: format(ms: median), reference: "—",
            ratio: "—", target: "< 1 s", verdict: median < 1 ? .pass : .miss,
            note: "release shell, posix_spawn → exit, embedded dev server, median of \(rounds); the draft of demo "
                + "template 3 holds one unbroken 1 MiB word in its textarea (#10).")
    }
}
