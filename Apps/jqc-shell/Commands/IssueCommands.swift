import Foundation
import JQCInspections
import JQCIssues
import JQCKit
import JQCPhotos

/// `flag`, `issue new`, `issues`, `issue show|comments|status|handler|
/// retry|discard` (SHELL.md; seed 001 §13, §14, §17). Issue ids are server ids or local ids.
enum IssueCommands {
    static let commands: [Command] = [
        flag, issueNew, issues, issueShow, issueComments, issueStatus,
        issueHandler, issueRetry, issueDiscard,
    ]

    // MARK: Helpers

    static func perform<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
    static func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
    static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    /// The `issues` row (SHELL.md JSON table).
    static func summary(_ issue: Issue) -> JSONValue {
        .object([
            "local_id": .string(issue.localID), "server_id": int(issue.serverID),
            "severity": .string(issue.severity.rawValue),
            "status": .string(issue.status.rawValue), "description": .string(issue.description),
            "sync_status": .string(issue.syncStatus.rawValue), "facility_id": .int(Int64(issue.facilityID)),
            "inspection_local_id": .string(issue.inspectionLocalID),
        ])
    }

    /// `issue show`: every field, with `photo_server_paths` and `photo_local_paths`, and the photo section
    /// shown (rule 34).
    static func detail(_ issue: Issue, engine: ShellEngine) -> [String: JSONValue] {
        let section = PhotoDisplaySection.forRecord(syncStatus: issue.syncStatus)
        let urls = issue.photoServerPaths.enumerated().map { index, path -> JSONValue in
            let serverURL =
                issue.photoServerURLs.count == issue.photoServerPaths.count
                ? issue.photoServerURLs[index] : nil
            return text(
                PhotoURLResolver.displayURL(serverURL: serverURL, path: path, config: engine.app.server)?
                    .absoluteString)
        }
        return [
            "local_id": .string(issue.localID), "server_id": int(issue.serverID),
            "inspection_local_id": .string(issue.inspectionLocalID),
            "inspection_server_id": int(issue.inspectionServerID),
            "facility_id": .int(Int64(issue.facilityID)), "facility_name": text(issue.facilityName),
            "area_id": int(issue.areaID), "area_name": text(issue.areaName),
            "severity": .string(issue.severity.rawValue),
            "description": .string(issue.description), "status": .string(issue.status.rawValue),
            "sync_status": .string(issue.syncStatus.rawValue), "sync_error": text(issue.syncError),
            "sync_attempts": .int(Int64(issue.syncAttempts)),
            "photo_local_paths": strings(issue.photoLocalPaths), "photo_server_paths": strings(issue.photoServerPaths),
            "photo_server_urls": .array(urls), "result_photos": strings(issue.resultPhotos),
            "photo_section": .string(section.rawValue),
            "photos": section == .local ? strings(issue.photoLocalPaths) : .array(urls),
            "result_notes": text(issue.resultNotes), "verified_at": text(issue.verifiedAt),
            "verification_note": text(issue.verificationNote), "reported_by_name": text(issue.reportedByName),
            "assigned_to_name": text(issue.assignedToName), "handler_type": text(issue.handlerType?.rawValue),
            "handler_label": text(issue.handlerLabel), "facility_handler_name": text(issue.facilityHandlerName),
            "facility_handler_contact": text(issue.facilityHandlerContact),
            "facility_handler_notes": text(issue.facilityHandlerNotes), "vendor_name": text(issue.vendorName),
            "vendor_contact": text(issue.vendorContact), "vendor_notes": text(issue.vendorNotes),
            "created_at": text(issue.serverCreatedAt),
        ]
    }

    static func line(_ issue: Issue) -> String {
        let id = issue.serverID.map { "#\($0)" } ?? issue.localID
        var text = "\(id)  [\(issue.severity)] \(issue.status)  \(issue.description)"
        if let facility = issue.facilityName { text += " — \(facility)" + (issue.areaName.map { " / \($0)" } ?? "") }
        switch issue.syncStatus {
        case .pending: text += "  (pending sync)"
        case .failed: text += "  (sync failed: \(issue.syncError ?? "refused"))"
        case .synced: break
        }
        return text
    }

    static func photoFiles(_ arguments: ParsedArguments) -> [URL] {
        arguments.all("photo").map { URL(fileURLWithPath: $0) }
    }

    static func created(_ issue: Issue, _ verb: String) -> CommandOutput {
        CommandOutput(
            "\(verb) issue \(issue.localID) [\(issue.severity)] at "
                + (issue.facilityName ?? "facility \(issue.facilityID)")
                + (issue.areaName.map { " / \($0)" } ?? "")
                + (issue.photoLocalPaths.isEmpty ? "" : " with \(issue.photoLocalPaths.count) photo(s)")
                + ". Queued for sync.",
            data: [
                "local_id": .string(issue.localID), "issue": summary(issue),
                "photo_local_paths": strings(issue.photoLocalPaths), "area_id": int(issue.areaID),
            ])
    }

    /// Kicks an automatic pass in an interactive, online session.
    static func nudgeSync(_ engine: ShellEngine) async {
        if engine.background, await engine.app.connectivity.isOnline {
            let sync = engine.app.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
    }

    // MARK: Creating issues

    static let flag = Command(
        "flag", usage: "SEVERITY \"DESCRIPTION\" [--photo FILE]…",
        summary: "Flag an issue on the current inspection (facility and area from it).",
        help: "SEVERITY is low, medium, high or critical. The issue is sent after its inspection.\n"
            + "Example: flag high \"Leaking supply line\" --photo sink.jpg"
    ) { context, words in
        let usage = "flag SEVERITY \"DESCRIPTION\" [--photo FILE]…"
        let arguments = try ParsedArguments(words, valueOptions: ["photo"], usage: usage)
        guard arguments.positionals.count == 2 else {
            throw ShellError.usage("Give SEVERITY and one quoted DESCRIPTION. Usage: \(usage)")
        }
        let engine = try await context.engine()
        let localID = try InspectionCommands.currentID(context)
        let issue = try perform {
            try engine.app.issues.flag(
                inspectionLocalID: localID, severity: arguments.positionals[0],
                description: arguments.positionals[1], photoFiles: photoFiles(arguments))
        }
        return created(issue, "Flagged")
    }

    static let issueNew = Command(
        "issue new", usage: "--facility ID [--contract ID] [--area ID] SEVERITY \"DESCRIPTION\" [--photo FILE]…",
        summary: "A standalone issue (up to 5 photos).",
        help: "The facility must be an active one ('facilities'); --contract narrows the choice first.\n"
            + "Example: issue new --facility 21 --area 212 medium \"Hand dryer not working\" --photo dryer.jpg"
    ) { context, words in
        let usage = "issue new --facility ID [--contract ID] [--area ID] SEVERITY \"DESCRIPTION\" [--photo FILE]…"
        let arguments = try ParsedArguments(
            words, valueOptions: ["facility", "area", "contract", "photo"], usage: usage)
        guard let facility = try arguments.intOption("facility", usage: usage) else {
            throw ShellError.usage("Give --facility ID. Usage: \(usage)")
        }
        guard arguments.positionals.count == 2 else {
            throw ShellError.usage("Give SEVERITY and one quoted DESCRIPTION. Usage: \(usage)")
        }
        let area = try arguments.intOption("area", usage: usage)
        let contract = try arguments.intOption("contract", usage: usage)
        let engine = try await context.engine()
        let issue = try perform {
            try engine.app.issues.createStandalone(
                contractID: contract, facilityID: facility, areaID: area, severity: arguments.positionals[0],
                description: arguments.positionals[1], photoFiles: photoFiles(arguments))
        }
        await nudgeSync(engine)
        return created(issue, "Created")
    }

    // MARK: Reading

    static let issues = Command(
        "issues", usage: "[--all]", summary: "Local issues, newest first; --all includes resolved ones."
    ) { context, words in
        let usage = "issues [--all]"
        let arguments = try ParsedArguments(words, switches: ["all"], usage: usage)
        guard arguments.positionals.isEmpty else {
            throw ShellError.usage("issues takes no arguments. Usage: \(usage)")
        }
        let engine = try await context.engine()
        let list = try perform { try engine.app.issues.list(includeResolved: arguments.has("all")) }
        return CommandOutput(
            list.isEmpty
                ? "No issues" + (arguments.has("all") ? "." : " (resolved ones are hidden; 'issues --all').")
                : list.map(line).joined(separator: "\n"),
            data: [
                "issues": .array(list.map(summary)), "phase": .string(list.isEmpty ? "empty" : "content"),
                "stale": false,
            ])
    }

    static func oneID(_ words: [String], usage: String) throws -> String {
        let arguments = try ParsedArguments(words, usage: usage)
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one ID. Usage: \(usage)") }
        return arguments.positionals[0]
    }

    static let issueShow = Command(
        "issue show", usage: "ID", summary: "One issue with every field and its photos (server id or local id)."
    ) { context, words in
        let id = try oneID(words, usage: "issue show ID")
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.issue(id: id) }
        let data = detail(issue, engine: engine)
        var lines = [line(issue)]
        if let handler = issue.handlerLabel { lines.append("handled by: \(handler)") }
        if let notes = issue.resultNotes { lines.append("resolution: \(notes)") }
        let photos = data["photos"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let section = data["photo_section"]?.stringValue ?? "local"
        lines += photos.map { "  photo (\(section)): \($0)" }
        return CommandOutput(lines.joined(separator: "\n"), data: data)
    }

    static let issueComments = Command(
        "issue comments", usage: "ID [--add \"TEXT\"]", summary: "An issue's comments (online only); --add posts one."
    ) { context, words in
        let usage = "issue comments ID [--add \"TEXT\"]"
        let arguments = try ParsedArguments(words, valueOptions: ["add"], usage: usage)
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one ID. Usage: \(usage)") }
        let engine = try await context.engine()
        let id = arguments.positionals[0]
        let comments: [IssueComment]
        if let text = arguments.option("add") {
            comments = try await engine.app.issues.addComment(id: id, text: text)
        } else {
            comments = try await engine.app.issues.comments(id: id)
        }
        return CommandOutput(
            comments.isEmpty
                ? "No comments."
                : comments.map {
                    "\($0.createdAt ?? "")  \($0.authorName ?? "someone"): \($0.body)"
                }.joined(separator: "\n"),
            data: [
                "comments": .array(
                    comments.map {
                        .object([
                            "id": .int(Int64($0.id)), "author_name": text($0.authorName), "body": .string($0.body),
                            "created_at": text($0.createdAt),
                        ])
                    })
            ])
    }

    static let issueStatus = Command(
        "issue status", usage: "ID STATUS", summary: "Set open, in_progress or resolved (local at once, queued)."
    ) { context, words in
        let usage = "issue status ID STATUS"
        let arguments = try ParsedArguments(words, usage: usage)
        guard arguments.positionals.count == 2 else { throw ShellError.usage("Give ID and STATUS. Usage: \(usage)") }
        let engine = try await context.engine()
        let issue = try perform {
            try engine.app.issues.updateStatus(id: arguments.positionals[0], status: arguments.positionals[1])
        }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) is now \(issue.status); the change is queued for the server.",
            data: [
                "local_id": .string(issue.localID), "server_id": int(issue.serverID),
                "status": .string(issue.status.rawValue),
                "queued": true,
            ])
    }

    static let issueHandler = Command(
        "issue handler", usage: "ID TYPE [--name N] [--contact C] [--notes T]",
        summary: "Set \"Handled By\": internal, facility or vendor (local at once, queued).",
        help: "Example: issue handler 49 vendor --name \"Dryer Pros\" --contact 555-0142"
    ) { context, words in
        let usage = "issue handler ID TYPE [--name N] [--contact C] [--notes T]"
        let arguments = try ParsedArguments(words, valueOptions: ["name", "contact", "notes"], usage: usage)
        guard arguments.positionals.count == 2 else { throw ShellError.usage("Give ID and TYPE. Usage: \(usage)") }
        let update = IssueHandlerUpdate(
            type: IssueHandlerType(rawValue: arguments.positionals[1].lowercased()), name: arguments.option("name"),
            contact: arguments.option("contact"), notes: arguments.option("notes"))
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.updateHandler(id: arguments.positionals[0], update) }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) is handled by \(issue.handlerLabel ?? update.label); queued for the server.",
            data: [
                "local_id": .string(issue.localID), "server_id": int(issue.serverID),
                "handler_type": text(issue.handlerType?.rawValue), "handler_label": text(issue.handlerLabel),
                "queued": true,
            ])
    }

    static let issueRetry = Command("issue retry", usage: "ID", summary: "Put a failed issue back in the outbox.") {
        context, words in
        let id = try oneID(words, usage: "issue retry ID")
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.retry(id: id) }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) queued again.",
            data: ["local_id": .string(issue.localID), "sync_status": .string(issue.syncStatus.rawValue)])
    }

    static let issueDiscard = Command(
        "issue discard", usage: "ID", summary: "Discard a failed issue and its photos."
    ) { context, words in
        let id = try oneID(words, usage: "issue discard ID")
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.issue(id: id) }
        try perform { try engine.app.issues.discard(id: id) }
        return CommandOutput(
            "Issue \(issue.displayID) discarded.", data: ["local_id": .string(issue.localID), "discarded": true])
    }
}
