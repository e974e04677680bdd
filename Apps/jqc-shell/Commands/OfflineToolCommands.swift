import Foundation
import JQCForms
import JQCJPEG
import JQCKit

/// The offline tools (SHELL.md): they never start a server or touch the network.
enum OfflineToolCommands {
    static let commands: [Command] = [score, photosRecompress]

    static let score = Command(
        "score",
        arguments: [
            .positional(
                "FILE", .file, optional: true,
                help: "a JSON file holding schema and form_data (none: the current inspection)"),
            .flag("explain", help: "list each scoreable field's part"),
        ],
        summary: "Score {\"schema\":[…],\"form_data\":{…}} as submit does (offline); no FILE: the current inspection.",
        help: "Prints the score (or none when nothing counts); --explain lists each scoreable field's part.\n"
            + "With FILE it never starts a server or touches the network; without FILE it scores the current\n"
            + "inspection's answers against its pinned schema, as stored on this device.\n"
            + "Example: score inspection.json --explain\nExample: score --explain",
        offlineTool: true
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count <= 1 else {
            throw ShellError.usage("Give at most one FILE. Usage: \(usage)")
        }
        let explanation: ScoreExplanation
        if let path = arguments.positionals.first {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ShellError(.fileUnreadable, "Cannot read \(path): no such file or not readable.")
            }
            explanation = try ScoreFile(data: data).explanation
        } else {
            let engine = try await context.engine()
            let inspection = try engine.app.inspections.inspection(localID: try InspectionCommands.currentID(context))
            explanation = InspectionScorer.explain(schema: inspection.schema, formData: inspection.formData)
        }
        var payload: [String: JSONValue] = ["score": explanation.score.map(JSONValue.double) ?? .null]
        var text =
            "score: "
            + (explanation.score.map { ScoreExplanation.format($0) } ?? "none (no scoreable field was answered)")
        if arguments.has("explain") {
            payload["fields"] = .array(explanation.parts.map(\.json))
            payload["earned"] = .double(explanation.earned)
            payload["counted"] = .int(Int64(explanation.counted))
            text += "\n" + explanation.lines.map { "  " + $0 }.joined(separator: "\n")
        }
        return CommandOutput(text, data: payload)
    }

    static let photosRecompress = Command(
        "photos recompress",
        arguments: [
            .positional("IN", .file, help: "the JPEG to read"),
            .positional("OUT", .file, help: "where to write the result"),
        ],
        summary: "Run the photo import pipeline on one JPEG (offline): orient, reduce, re-encode at quality 80.",
        help: "Prints width, height and the EXIF orientation applied; refuses non-JPEG, damaged or oversized input "
            + "with a sentence and writes nothing.\nExample: photos recompress IMG_0412.jpg /tmp/out.jpg",
        offlineTool: true
    ) { _, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 2 else { throw ShellError.usage("Give IN and OUT. Usage: \(usage)") }
        let input = URL(fileURLWithPath: arguments.positionals[0])
        let output = URL(fileURLWithPath: arguments.positionals[1])
        let result = try JPEGPipeline.recompress(input: input, output: output)
        let orientation = result.orientationApplied.rawValue
        return CommandOutput(
            "\(output.path): \(result.width)×\(result.height), orientation \(orientation) applied, \(result.outputBytes) bytes",
            data: [
                "width": .int(Int64(result.width)), "height": .int(Int64(result.height)),
                "orientation": .int(Int64(orientation)), "orientation_applied": .int(Int64(orientation)),
                "source_width": .int(Int64(result.sourceWidth)), "source_height": .int(Int64(result.sourceHeight)),
                "bytes": .int(Int64(result.outputBytes)), "output": .string(output.path),
            ])
    }
}
