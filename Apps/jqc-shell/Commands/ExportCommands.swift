import Foundation
import JQCKit
import JQCStorage

/// `export-pending DIR` ([authorship], issue 20; SHELL.md): every unsynced item on this device, whoever made
/// it and for whichever server, as JSON (`DIR/pending.json`) with its photos (`DIR/photos/`), so nothing is
/// stranded on a tablet nobody will sign in to again. Needs no sign-in and no server; changes nothing.
enum ExportCommands {
    static let commands: [Command] = [exportPending]

    static let exportPending = Command(
        "export-pending", arguments: [.positional("DIR", .file, help: "a new or empty folder to write into")],
        summary: "Write every unsynced item (any inspector's, any server's) as JSON with its photos into DIR.",
        help: "DIR must be new or empty. Writes DIR/pending.json (every unsynced row by table, with its author\n"
            + "and server) and DIR/photos/ (the photo files). Nothing is changed or sent.\n"
            + "Example: export-pending /media/usb/tablet-3"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one DIR. Usage: \(usage)") }
        let target = URL(fileURLWithPath: arguments.positionals[0])
        let files = FileManager.default
        if let existing = try? files.contentsOfDirectory(atPath: target.path), !existing.isEmpty {
            throw ShellError.failed("\(target.path) is not empty; give a new or empty folder, nothing was written.")
        }
        let engine = try await context.engine()
        let tables: [(table: String, rows: [Row])]
        do { tables = try engine.app.unsyncedRecords() } catch { throw ShellError.failed("\(error)") }
        let photosSource = context.dataDirectory.file("photos")
        let photosTarget = target.appendingPathComponent("photos")
        var photoCount = 0
        var missing: [String] = []
        do {
            try files.createDirectory(
                at: photosTarget, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            for (_, rows) in tables {
                for row in rows {
                    guard let name: String = row["file_name"], isPlainFileName(name) else { continue }
                    let source = photosSource.appendingPathComponent(name)
                    guard files.fileExists(atPath: source.path) else {
                        missing.append(name)
                        continue
                    }
                    try AtomicFile.write(
                        try Data(contentsOf: source), to: photosTarget.appendingPathComponent(name),
                        permissions: 0o600)
                    photoCount += 1
                }
            }
            let document: JSONValue = [
                "exported_at": .string(DateFormats.instantString(engine.app.clock.now)),
                "server": .string(engine.identity.description),
                "tables": .object(
                    Dictionary(uniqueKeysWithValues: tables.map { ($0.table, .array($0.rows.map(json))) })),
                "missing_photo_files": .array(missing.map(JSONValue.string)),
            ]
            try AtomicFile.write(
                Data(document.jsonString().utf8), to: target.appendingPathComponent("pending.json"),
                permissions: 0o600)
        } catch let error as ShellError {
            throw error
        } catch {
            throw ShellError.failed("Could not write the export into \(target.path): \(error)")
        }
        let counts = tables.filter { !$0.rows.isEmpty }.map { "\($0.rows.count) \($0.table)" }
        let items = tables.map(\.rows.count).reduce(0, +)
        return CommandOutput(
            "Exported \(items) unsynced item(s)" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")")
                + " and \(photoCount) photo file(s) to \(target.path). Nothing was changed."
                + (missing.isEmpty ? "" : " \(missing.count) photo file(s) were missing on this device."),
            data: [
                "directory": .string(target.path), "items": .int(Int64(items)), "photos": .int(Int64(photoCount)),
                "tables": .object(
                    Dictionary(uniqueKeysWithValues: tables.map { ($0.table, .int(Int64($0.rows.count))) })),
                "missing_photo_files": .array(missing.map(JSONValue.string)),
            ])
    }

    /// A row as a JSON object: integers, reals and text as they are, blobs as base64, NULL as null.
    static func json(_ row: Row) -> JSONValue {
        var object: [String: JSONValue] = [:]
        for (column, value) in zip(row.columns, row.values) {
            switch value {
            case .null: object[column] = .null
            case .integer(let number): object[column] = .int(number)
            case .real(let number): object[column] = .double(number)
            case .text(let text): object[column] = .string(text)
            case .blob(let data): object[column] = .string(data.base64EncodedString())
            }
        }
        return .object(object)
    }

    /// A bare file name (no folder, no `..`), as the photos store writes them.
    static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }
}
