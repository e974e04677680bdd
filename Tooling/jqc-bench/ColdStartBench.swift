import Foundation
import JQCKit

/// SPEC.md §6 shell cold start with a store of 10,000 inspections present (target < 150 ms): the release
/// `jqc-shell` run N times as a fresh process, timed from spawn to exit (Foundation `Process`).
///
/// - `-c "echo ready"`: process start, data directory, command dispatch (no engine, no store opened).
/// - `-c "score FILE"`: an offline tool (never starts a server or touches the network).
/// - `--server URL -c whoami`: builds the engine, which is what the interactive prompt waits for: opens and
///   migrates the store, restores the session (signed out here, so no request), against the standalone dev
///   server (nothing started in-process).
/// - `-c whoami` with the embedded identity: the same, plus the in-process dev server with its demo seed
///   (the default `jqc-shell` start; for information).
struct ColdStartBench {
    let shell: String
    let work: URL
    let rows: Int
    let runs: Int
    /// The standalone dev server's base URL, for the engine-start row; `nil` skips it.
    let server: String?

    func run() throws -> [ReportRow] {
        guard FileManager.default.isExecutableFile(atPath: shell) else {
            return [.skipped("Shell cold start", target: "< 150 ms", why: "no jqc-shell at \(shell); build it first")]
        }
        let data = work.appendingPathComponent("shell-data", isDirectory: true)
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        note("building the shell's store with \(rows) inspections")
        let store = try BenchInspectionStore(path: data.appendingPathComponent("jqc.sqlite").path, synchronous: .full)
        try store.populate(rows: rows)
        store.queue.close()
        let scoreFile = work.appendingPathComponent("score.json")
        try Self.scoreFile().jsonData().write(to: scoreFile)

        var rowsOut: [ReportRow] = []
        rowsOut.append(try time("Shell cold start: -c \"echo ready\"", ["--data-dir", data.path, "-c", "echo ready"]))
        rowsOut.append(
            try time(
                "Shell cold start: offline tool score",
                [
                    "--data-dir", data.path, "-c",
                    "score \(scoreFile.path)",
                ]))
        if let server {
            rowsOut.append(
                try time(
                    "Shell start to engine ready (store open + migrate), standalone server",
                    ["--data-dir", data.path, "--server", server, "-c", "whoami"]))
        }
        let embeddedData = work.appendingPathComponent("shell-embedded", isDirectory: true)
        try? FileManager.default.removeItem(at: embeddedData)
        try FileManager.default.createDirectory(at: embeddedData, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: data.appendingPathComponent("jqc.sqlite"),
            to: embeddedData.appendingPathComponent("jqc.sqlite"))
        var embedded = try time(
            "Shell start to engine ready, embedded dev server (default start)",
            ["--data-dir", embeddedData.path, "--server", "embedded", "-c", "whoami"])
        embedded = ReportRow(
            benchmark: embedded.benchmark, ours: embedded.ours, reference: embedded.reference,
            ratio: embedded.ratio, target: "info", verdict: .info,
            note: embedded.note + "; includes starting the in-process dev server and its seed")
        rowsOut.append(embedded)
        return rowsOut
    }

    private func time(_ label: String, _ arguments: [String]) throws -> ReportRow {
        var samples = Samples()
        for index in 0..<(runs + 2) {
            let result = try Child.run(shell, arguments)
            guard result.status == 0 else {
                throw BenchError(
                    "child-failed",
                    "jqc-shell \(arguments.joined(separator: " ")) exited "
                        + "\(result.status): \(result.stderr)")
            }
            if index >= 2 { samples.add(result.elapsed) }  // two warm-up runs fill the page cache
        }
        note("\(label): median \(format(ms: samples.median))")
        return ReportRow(
            benchmark: label, ours: "p50 \(format(ms: samples.median)) / max \(format(ms: samples.percentile(100)))",
            reference: "—", ratio: "—", target: "< 150 ms",
            verdict: samples.median < 0.150 ? .pass : .miss,
            note: "\(runs) runs, \(rows)-inspection store in the data directory")
    }

    /// A 40-field score file shaped like BenchInspectionStore's form data.
    static func scoreFile() -> JSONValue {
        var random = SeededGenerator(seed: 40)
        let answers = BenchInspectionStore.formData(&random)
        let types = ["rating", "checkbox", "number", "text"]
        let schema = (1...40).map { field -> JSONValue in
            .object(["id": .int(Int64(field)), "type": .string(types[field % 4]), "label": .string("Item \(field)")])
        }
        var formData = answers.objectValue ?? [:]
        for field in stride(from: 1, through: 40, by: 4) {
            formData["\(field)"] = .string(field % 8 == 1 ? "true" : "false")
        }
        return .object(["schema": .array(schema), "form_data": .object(formData)])
    }
}
