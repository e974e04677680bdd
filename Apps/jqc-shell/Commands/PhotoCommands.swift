import Foundation
import JQCInspections
import JQCJPEG
import JQCKit
import JQCPhotos

/// `photo FIELD_ID FILE`, `photo retry PHOTO_ID`, `photo discard PHOTO_ID` (SHELL.md; seed 001 §17): the
/// photos feature's command file.
enum PhotoCommands {
    static let commands: [Command] = [photo, photoRetry, photoDiscard]

    static func perform<T>(_ body: () throws -> T) throws -> T { try IssueCommands.perform(body) }

    static let photo = Command(
        "photo", usage: "FIELD_ID FILE",
        summary: "Import a JPEG into an image or signature field of the current draft.",
        help: "The photo is oriented, reduced and re-encoded at quality 80; the answer holds local://photos/<id>.jpg\n"
            + "until the photo uploads, then the server path. A signature is captured as an image.\n"
            + "Example: photo 9 ~/Pictures/mop-closet.jpg"
    ) { context, words in
        let usage = "photo FIELD_ID FILE"
        let arguments = try ParsedArguments(words, usage: usage)
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

    static func photoID(_ words: [String], usage: String) throws -> UUID {
        let arguments = try ParsedArguments(words, usage: usage)
        guard arguments.positionals.count == 1, let id = UUID(uuidString: arguments.positionals[0]) else {
            throw ShellError.usage(
                "Give one PHOTO_ID (the local id 'status' lists for a failed photo). Usage: \(usage)")
        }
        return id
    }

    static let photoRetry = Command(
        "photo retry", usage: "PHOTO_ID", summary: "Put a failed photo back in the outbox."
    ) { context, words in
        let id = try photoID(words, usage: "photo retry PHOTO_ID")
        let engine = try await context.engine()
        try perform { try engine.app.photos.retryFailedPhoto(id: id) }
        await IssueCommands.nudgeSync(engine)
        return CommandOutput("Photo \(id.uuidString) queued again.", data: ["photo_id": .string(id.uuidString)])
    }

    static let photoDiscard = Command(
        "photo discard", usage: "PHOTO_ID", summary: "Discard a failed photo (its file too)."
    ) { context, words in
        let id = try photoID(words, usage: "photo discard PHOTO_ID")
        let engine = try await context.engine()
        try perform { try engine.app.photos.discardPhoto(id: id) }
        return CommandOutput(
            "Photo \(id.uuidString) discarded.", data: ["photo_id": .string(id.uuidString), "discarded": true])
    }
}
