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
    static func summary(_ issue: Issue) -> JSONValue { ViewJSON.value(IssueSummaryView(issue)) }

    /// `issue show`: every field, with `photo_server_paths` and `photo_local_paths`, and the photo section
    /// shown (rule 34).
    static func detail(_ issue: Issue, engine: ShellEngine) -> IssueDetailView {
        IssueDetailView(issue, server: engine.app.server)
    }

    static func line(_ issue: Issue) -> String {
        let id = issue.serverID.map { "#\($0)" } ?? issue.localID
        var text =
            "\(id)  [\(Cell.shown(issue.severity.rawValue))] \(Cell.shown(issue.status.rawValue))  \(Cell.shown(issue.description))"
        if let facility = Cell.shown(issue.facilityName) {
            text += " — \(facility)" + (Cell.shown(issue.areaName).map { " / \($0)" } ?? "")
        }
        switch issue.syncStatus {
        case .pending: text += "  (pending sync)"
        case .failed: text += "  (sync failed: \(Cell.shown(issue.syncError) ?? "refused"))"
        case .synced: break
        }
        return text
    }

    static func photoFiles(_ arguments: ParsedArguments) -> [URL] {
        arguments.all("photo").map { URL(fileURLWithPath: $0) }
    }

    static func created(_ issue: Issue, _ verb: String) -> CommandOutput {
        CommandOutput(
            "\(verb) issue \(issue.localID) [\(Cell.shown(issue.severity.rawValue))] at "
                + (Cell.shown(issue.facilityName) ?? "facility \(issue.facilityID)")
                + (Cell.shown(issue.areaName).map { " / \($0)" } ?? "")
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
        "flag",
        arguments: [
            .positional(
                "SEVERITY", .choice(["low", "medium", "high", "critical"]), help: "low, medium, high or critical"),
            .positional("\"DESCRIPTION\"", help: "what is wrong, quoted"),
            .option("photo", "FILE", .file, repeating: true, help: "a JPEG to attach (up to 5)"),
        ],
        summary: "Flag an issue on the current inspection (facility and area from it).",
        help: "SEVERITY is low, medium, high or critical. The issue is sent after its inspection.\n"
            + "Example: flag high \"Leaking supply line\" --photo sink.jpg"
    ) { context, arguments in
        let usage = arguments.usage
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
        "issue new",
        arguments: [
            .option("facility", "ID", .integer, required: true, help: "an active facility from 'facilities'"),
            .option("contract", "ID", .integer, help: "narrow the facility choice to one contract first"),
            .option("area", "ID", .integer, help: "an area of the facility ('areas FACILITY_ID')"),
            .positional(
                "SEVERITY", .choice(["low", "medium", "high", "critical"]), help: "low, medium, high or critical"),
            .positional("\"DESCRIPTION\"", help: "what is wrong, quoted"),
            .option("photo", "FILE", .file, repeating: true, help: "a JPEG to attach (up to 5)"),
        ],
        summary: "A standalone issue (up to 5 photos).",
        help: "The facility must be an active one ('facilities'); --contract narrows the choice first.\n"
            + "Example: issue new --facility 21 --area 212 medium \"Hand dryer not working\" --photo dryer.jpg"
    ) { context, arguments in
        let usage = arguments.usage
        guard let facility = try arguments.intOption("facility") else {
            throw ShellError.usage("Give --facility ID. Usage: \(usage)")
        }
        guard arguments.positionals.count == 2 else {
            throw ShellError.usage("Give SEVERITY and one quoted DESCRIPTION. Usage: \(usage)")
        }
        let area = try arguments.intOption("area")
        let contract = try arguments.intOption("contract")
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
        "issues", arguments: [.flag("all", help: "include resolved issues")],
        summary: "Local issues, newest first; --all includes resolved ones."
    ) { context, arguments in
        let usage = arguments.usage
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

    /// The `ID` every `issue` subcommand takes: a server id or a local id (a unique prefix will do).
    static let idArgument = CommandArgument.positional("ID", .issueID, help: "a server id (49) or a local id")

    static func oneID(_ arguments: ParsedArguments) throws -> String {
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one ID. Usage: \(usage)") }
        return arguments.positionals[0]
    }

    static let issueShow = Command(
        "issue show", arguments: [idArgument],
        summary: "One issue with every field and its photos (server id or local id)."
    ) { context, arguments in
        let typed = try oneID(arguments)
        let engine = try await context.engine()
        var id = typed
        // A unique prefix of a local id will do (issue 14); digits alone are a server id, never a prefix.
        if !typed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), (try? engine.app.issues.issue(id: typed)) == nil {
            let ids = try perform { try engine.app.issues.list(includeResolved: true).map(\.localID) }
            id = try LocalIDPrefix.resolve(typed, among: ids, noun: "issues")
        }
        let issue = try perform { try engine.app.issues.issue(id: id) }
        let view = detail(issue, engine: engine)
        var lines = [line(issue)]
        if let handler = Cell.shown(issue.handlerLabel) { lines.append("handled by: \(handler)") }
        if let notes = Cell.shown(issue.resultNotes) { lines.append("resolution: \(notes)") }
        lines += view.photos.compactMap { $0 }.map { "  photo (\(view.photoSection)): \(Cell.shown($0))" }
        return CommandOutput(lines.joined(separator: "\n"), data: ViewJSON.object(view))
    }

    static let issueComments = Command(
        "issue comments",
        arguments: [idArgument, .option("add", "\"TEXT\"", help: "post this comment (online only)")],
        summary: "An issue's comments (online only); --add posts one."
    ) { context, arguments in
        let usage = arguments.usage
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
                    "\(Cell.shown($0.createdAt.map { LocalTime.text(serverInstant: $0) }) ?? "")  "
                        + "\(Cell.shown($0.authorName) ?? "someone"): \(Cell.shown($0.body))"
                }.joined(separator: "\n"),
            data: [
                "comments": .array(comments.map { ViewJSON.value(IssueCommentView($0)) })
            ])
    }

    static let issueStatus = Command(
        "issue status",
        arguments: [
            idArgument,
            .positional("STATUS", .choice(["open", "in_progress", "resolved"]), help: "open, in_progress or resolved"),
        ],
        summary: "Set open, in_progress or resolved (local at once, queued)."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 2 else { throw ShellError.usage("Give ID and STATUS. Usage: \(usage)") }
        let engine = try await context.engine()
        let issue = try perform {
            try engine.app.issues.updateStatus(id: arguments.positionals[0], status: arguments.positionals[1])
        }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) is now \(Cell.shown(issue.status.rawValue)); the change is queued for the server.",
            data: [
                "local_id": .string(issue.localID), "server_id": int(issue.serverID),
                "status": .string(issue.status.rawValue),
                "queued": true,
            ])
    }

    static let issueHandler = Command(
        "issue handler",
        arguments: [
            idArgument,
            .positional("TYPE", .choice(["internal", "facility", "vendor"]), help: "internal, facility or vendor"),
            .option("name", "N", help: "the handler's name"), .option("contact", "C", help: "how to reach them"),
            .option("notes", "T", help: "notes for the handler"),
        ],
        summary: "Set \"Handled By\": internal, facility or vendor (local at once, queued).",
        help: "Example: issue handler 49 vendor --name \"Dryer Pros\" --contact 555-0142"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 2 else { throw ShellError.usage("Give ID and TYPE. Usage: \(usage)") }
        let update = IssueHandlerUpdate(
            type: IssueHandlerType(rawValue: arguments.positionals[1].lowercased()), name: arguments.option("name"),
            contact: arguments.option("contact"), notes: arguments.option("notes"))
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.updateHandler(id: arguments.positionals[0], update) }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) is handled by \(Cell.shown(issue.handlerLabel ?? update.label)); queued for the server.",
            data: [
                "local_id": .string(issue.localID), "server_id": int(issue.serverID),
                "handler_type": text(issue.handlerType?.rawValue), "handler_label": text(issue.handlerLabel),
                "queued": true,
            ])
    }

    static let issueRetry = Command(
        "issue retry", arguments: [idArgument], summary: "Put a failed issue back in the outbox."
    ) { context, arguments in
        let id = try oneID(arguments)
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.retry(id: id) }
        await nudgeSync(engine)
        return CommandOutput(
            "Issue \(issue.displayID) queued again.",
            data: ["local_id": .string(issue.localID), "sync_status": .string(issue.syncStatus.rawValue)])
    }

    static let issueDiscard = Command(
        "issue discard",
        arguments: [idArgument, .flag("yes", help: "confirm discarding another inspector's issue (it names them)")],
        summary: "Discard a failed issue and its photos (another inspector's needs --yes).",
        help: "Discarding another inspector's issue names them and needs --yes (issue 20).\nExample: issue discard 12"
    ) { context, arguments in
        let id = try oneID(arguments)
        let engine = try await context.engine()
        let issue = try perform { try engine.app.issues.issue(id: id) }
        let author = await AuthorshipSummary.otherAuthor(issue.outbox.author, engine.app)
        try AuthorshipSummary.confirmDiscard(
            of: "Issue \(issue.displayID)", by: author, confirmed: arguments.has("yes"), command: "issue discard \(id)")
        try perform { try engine.app.issues.discard(id: id) }
        return CommandOutput(
            "Issue \(issue.displayID)\(author.map { " (\($0)'s)" } ?? "") discarded.",
            data: [
                "local_id": .string(issue.localID), "discarded": true, "author": author.map(JSONValue.string) ?? .null,
            ])
    }
}
