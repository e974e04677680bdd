import Foundation
import JQCInspections
import JQCJPEG
import JQCKit
import JQCPhotos

/// `photo FIELD_ID FILE`, `photo FIELD_ID --clear`, `photo retry PHOTO_ID`, `photo discard PHOTO_ID` (SHELL.md;
/// seed 001 §17; issue 18): the photos feature's command file.
enum PhotoCommands {
    static let commands: [Command] = [photo, photoRetry, photoDiscard]

    static func perform<T>(_ body: () throws -> T) throws -> T { try IssueCommands.perform(body) }

    static let photo = Command(
        "photo",
        arguments: [
            .positional("FIELD_ID", .fieldID, help: "an image or signature field of the current form"),
            .positional("FILE", .file, help: "the JPEG to import"),
            .flag("clear", required: true, help: "remove the answer and discard its photo and file"),
        ],
        forms: [["FIELD_ID", "FILE"], ["FIELD_ID", "clear"]],
        summary: "Import a JPEG into an image or signature field of the current draft, or clear it.",
        help: "The photo is oriented, reduced and re-encoded at quality 80; the answer holds local://photos/<id>.jpg\n"
            + "until the photo uploads, then the server path. A signature is captured as an image.\n"
            + "--clear removes the answer and discards its photo and file (as 'answer FIELD_ID \"\"' does).\n"
            + "Example: photo 9 ~/Pictures/mop-closet.jpg"
    ) { context, arguments in
        let usage = arguments.usage
        if arguments.has("clear") {
            guard arguments.positionals.count == 1 else {
                throw ShellError.usage("Give only FIELD_ID with --clear. Usage: \(usage)")
            }
            let engine = try await context.engine()
            let localID = try InspectionCommands.currentID(context)
            let field = arguments.positionals[0]
            try perform { try engine.app.inspections.clearPhoto(localID: localID, fieldID: field) }
            return CommandOutput(
                "\(field) cleared; its photo was discarded.",
                data: ["local_id": .string(localID), "field_id": .string(field), "value": .null, "cleared": true])
        }
        guard arguments.positionals.count == 2 else {
            throw ShellError.usage("Give FIELD_ID and FILE. Usage: \(usage)")
        }
        let file = URL(fileURLWithPath: arguments.positionals[1])
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw ShellError(.fileUnreadable, "Cannot read \(file.path): no such file or not readable.")
        }
        let engine = try await context.engine()
        let localID = try InspectionCommands.currentID(context)
        // The EXIF orientation the pipeline applies (it is applied exactly once, to the pixels).
        let orientation = (try? JPEGCodec.readHeader(Data(contentsOf: file)))?.orientation.rawValue ?? 1
        let photo = try perform {
            try engine.app.inspectionPhotos.attach(localID: localID, fieldID: arguments.positionals[0], file: file)
        }
        let field = photo.owner.fieldID ?? arguments.positionals[0]
        return CommandOutput(
            "Field \(field) = \(photo.sentinel) (\(photo.width)×\(photo.height), orientation \(orientation) applied); "
                + "it uploads on the next sync.",
            data: [
                "local_id": .string(localID), "field_id": .string(field), "photo_id": .string(photo.id.uuidString),
                "sentinel": .string(photo.sentinel), "value": .string(photo.sentinel),
                "width": .int(Int64(photo.width)), "height": .int(Int64(photo.height)),
                "orientation": .int(Int64(orientation)), "orientation_applied": .int(Int64(orientation)),
                "bytes": .int(Int64(photo.bytes)),
            ])
    }

    /// The `PHOTO_ID` of a failed photo.
    static let photoIDArgument = CommandArgument.positional(
        "PHOTO_ID", help: "the local id 'status' lists for a failed photo")

    static func photoID(_ arguments: ParsedArguments) throws -> UUID {
        let usage = arguments.usage
        guard arguments.positionals.count == 1, let id = UUID(uuidString: arguments.positionals[0]) else {
            throw ShellError.usage(
                "Give one PHOTO_ID (the local id 'status' lists for a failed photo). Usage: \(usage)")
        }
        return id
    }

    static let photoRetry = Command(
        "photo retry", arguments: [photoIDArgument], summary: "Put a failed photo back in the outbox."
    ) { context, arguments in
        let id = try photoID(arguments)
        let engine = try await context.engine()
        try perform { try engine.app.photos.retryFailedPhoto(id: id) }
        await IssueCommands.nudgeSync(engine)
        return CommandOutput("Photo \(id.uuidString) queued again.", data: ["photo_id": .string(id.uuidString)])
    }

    static let photoDiscard = Command(
        "photo discard", arguments: [photoIDArgument], summary: "Discard a failed photo (its file too)."
    ) { context, arguments in
        let id = try photoID(arguments)
        let engine = try await context.engine()
        try perform { try engine.app.photos.discardPhoto(id: id) }
        return CommandOutput(
            "Photo \(id.uuidString) discarded.", data: ["photo_id": .string(id.uuidString), "discarded": true])
    }
}
