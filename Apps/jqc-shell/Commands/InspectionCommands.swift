import Foundation
import JQCForms
import JQCInspections
import JQCKit
import JQCNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// `start`, `drafts`, `inspections`, `open`, `form`, `answer`, `save`, `submit`, `delete-draft`, `history`,
/// `inspection show` (SHELL.md; seed 001 §11, §16). The current inspection is kept in `<data-dir>/current`
/// (its local id) so the next run continues it.
enum InspectionCommands {
    static let commands: [Command] = [
        start, drafts, inspections, open, form, answer, save, submit, deleteDraft, history, inspectionShow,
        inspectionRetry, inspectionDiscard,
    ]

    // MARK: Helpers

    static func perform<T>(_ body: () throws -> T) throws -> T {
        try body()
    }

    /// The current inspection's local id.
    /// - Throws: ``ShellError`` (`shell.no_inspection_open`) when none is current.
    static func currentID(_ context: CommandContext) throws -> String {
        guard let id = context.dataDirectory.readText("current"), !id.isEmpty else {
            throw ShellError(
                .noInspectionOpen, "No inspection is open; use 'start' for a new one or 'open LOCAL_ID' for a draft.")
        }
        return id
    }

    static func makeCurrent(_ context: CommandContext, _ localID: String) throws {
        try context.dataDirectory.writeText("current", localID)
    }

    /// In an interactive session, saves the current draft every 30 s (seed 001 §11.2).
    static func startAutosave(_ context: CommandContext, _ engine: ShellEngine) async {
        guard engine.background else { return }
        let directory = context.dataDirectory
        await engine.app.autosave.start(openDraft: { directory.readText("current") })
    }

    static func summary(_ inspection: Inspection) -> JSONValue { summary(InspectionListing(inspection)) }

    /// A list line's JSON (`InspectionSummaryView`), from what a list reads.
    static func summary(_ listing: InspectionListing) -> JSONValue { ViewJSON.value(InspectionSummaryView(listing)) }

    static func line(_ inspection: Inspection) -> String { line(InspectionListing(inspection)) }

    /// A list line: `LOCAL_ID  [Badge]  Template — Facility / Area  score S  — error`.
    static func line(_ inspection: InspectionListing) -> String {
        var text =
            "\(inspection.localID)  [\(inspection.badge.label)]  \(Cell.shown(inspection.templateName)) — \(Cell.shown(inspection.facilityName))"
        if let area = inspection.areaName { text += " / \(Cell.shown(area))" }
        if let score = inspection.overallScore { text += "  score \(ScoreExplanation.format(score))" }
        if let error = inspection.syncError, inspection.syncStatus == .failed { text += "  — \(Cell.shown(error))" }
        return text
    }

    /// The terminal width: `$COLUMNS`, else the terminal's, else 100 (not a terminal).
    static func terminalWidth() -> Int {
        if let text = ShellEnvironment.variables["COLUMNS"], let columns = Int(text), columns > 0 {
            return columns
        }
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 100
    }

    /// The `LOCAL_ID` of an inspection on this device (a unique prefix will do).
    static let localIDArgument = CommandArgument.positional(
        "LOCAL_ID", .inspectionID, help: "an inspection's local id ('inspections' lists them)")
    /// The `--yes` a destructive command needs.
    static let yesFlag = CommandArgument.flag("yes", required: true, help: "confirm: this cannot be undone")

    // MARK: Commands

    static let start = Command(
        "start",
        arguments: [
            .option("template", "ID", .integer, required: true, help: "an active template from 'templates'"),
            .option("facility", "ID", .integer, required: true, help: "an active facility from 'facilities'"),
            .option("area", "ID", .integer, help: "an area of the facility ('areas FACILITY_ID')"),
            .option(
                "schedule", "ID", .integer, required: true, help: "a row of 'scheduled' (its template and facility)"),
            .option("follow-up", "PARENT_ID", required: true, help: "re-inspect a parent, prefilled from its answers"),
        ],
        forms: [["template", "facility", "area"], ["schedule", "area"], ["follow-up"]],
        summary: "Start a new draft and make it current; prints its local id.",
        help: "The template and facility must be active ones on this device ('templates', 'facilities');\n"
            + "the area must belong to the facility ('areas FACILITY_ID').\n"
            + "--schedule ID starts a row of 'scheduled' (its template and facility, linked so the server\n"
            + "fulfils it);\n"
            + "--follow-up PARENT_ID re-inspects a parent (server id from 'follow-ups', or a local completed\n"
            + "inspection's id), prefilled from the parent's answers; --area may still narrow either.\n"
            + "Example: start --template 3 --facility 11 --area 111"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.isEmpty else { throw ShellError.usage("start takes only options. Usage: \(usage)") }
        let area = try arguments.intOption("area")
        // Issue 9: a schedule or a follow-up supplies template and facility and links the draft to it.
        if let linked = try await ScheduleCommands.linkedStart(context, arguments, area: area) {
            return linked
        }
        guard let template = try arguments.intOption("template"),
            let facility = try arguments.intOption("facility")
        else {
            throw ShellError.usage("Give --template ID and --facility ID. Usage: \(usage)")
        }
        let engine = try await context.engine()
        return try await startDraft(
            context, engine, StartRequest(templateID: template, facilityID: facility, areaID: area))
    }

    /// Starts a draft from a request, makes it current, and reports it (shared by every `start` form).
    static func startDraft(_ context: CommandContext, _ engine: ShellEngine, _ request: StartRequest) async throws
        -> CommandOutput
    {
        let inspection = try perform { try engine.app.inspections.start(request) }
        try makeCurrent(context, inspection.localID)
        await startAutosave(context, engine)
        return CommandOutput(
            "Started \(inspection.localID): \(inspection.templateName) at \(inspection.facilityName)"
                + (inspection.areaName.map { " / \($0)" } ?? "") + ". It is now the current inspection.",
            data: ["local_id": .string(inspection.localID), "inspection": summary(inspection)])
    }

    static let inspections = Command("inspections", summary: "Every local inspection with its badge.") { context, _ in
        let engine = try await context.engine()
        let list = try perform { try engine.app.inspections.listings() }
        return CommandOutput(
            list.isEmpty ? "No inspections on this device." : list.map(line).joined(separator: "\n"),
            data: [
                "inspections": .array(list.map(summary)), "phase": .string(list.isEmpty ? "empty" : "content"),
            ])
    }

    static let open = Command(
        "open", arguments: [localIDArgument], summary: "Make a local inspection current."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one LOCAL_ID. Usage: \(usage)") }
        let engine = try await context.engine()
        let typed = arguments.positionals[0]
        var localID = typed
        if (try? engine.app.inspections.inspection(localID: typed)) == nil {  // a unique prefix will do (issue 14)
            let ids = try engine.app.inspections.list().map(\.localID)
            localID = try LocalIDPrefix.resolve(typed, among: ids, noun: "inspections")
        }
        let inspection = try engine.app.inspections.inspection(localID: localID)
        if inspection.status == .draft,
            let author = await AuthorshipSummary.otherAuthor(inspection.outbox.author, engine.app)
        {
            throw ShellError.failed(
                "The draft \(inspection.localID) is \(author)'s; it is read-only for you and stays on this device "
                    + "until \(author) signs in (see 'drafts --all').")
        }
        try makeCurrent(context, inspection.localID)
        await startAutosave(context, engine)
        return CommandOutput(
            "Opened " + line(inspection),
            data: [
                "local_id": .string(inspection.localID),
                "inspection": summary(inspection),
            ])
    }

    static let form = Command(
        "form", arguments: [.flag("stacked", help: "one field per line, whatever the width")],
        summary: "Draw the current inspection's form with its answers.",
        help: "The form is the schema pinned when the inspection started, even if the template changed since.\n"
            + "Below 100 columns (or with --stacked) fields are listed one per line."
    ) { context, arguments in
        let engine = try await context.engine()
        let inspection = try perform { try engine.app.inspections.inspection(localID: try currentID(context)) }
        let schema = inspection.schema
        let text = FormRenderer.render(
            schema: schema, answers: inspection.formData, width: terminalWidth(),
            style: arguments.has("stacked") ? .stacked : .grid)
        let banner = ScheduleCommands.instructionsBanner(engine, inspection).map { $0 + "\n" } ?? ""  // issue 9
        return CommandOutput(
            line(inspection) + "\n" + banner + text,
            data: [
                "local_id": .string(inspection.localID), "fields": .array(schema.fields.map(\.summaryJSON)),
                "answers": .object(inspection.formData), "status": .string(inspection.status.rawValue),
                "schema_hash": .string(inspection.schemaHash),
            ])
    }

    static let answer = Command(
        "answer",
        arguments: [
            .positional("FIELD_ID", .fieldID, help: "a field id of the current form ('form' shows them)"),
            .positional("VALUE", repeating: true, help: "the answer, typed by the field"),
        ],
        rawWords: true, summary: "Set an answer on the current draft (saved at once).",
        help: "Typed by the field: rating 0–5 (0 clears); checkbox true/false; radio/select an option; pass_fail\n"
            + "Pass/Fail; checkbox_group options; table ROW COLUMN VALUE; text as given; \"\" clears any field.\n"
            + "answer F --add OPTION… / --remove OPTION… changes a checkbox_group's ticked options;\n"
            + "answer F --file PATH sets a text field to the file's text, line breaks kept; at the prompt,\n"
            + "answer F --edit opens $VISUAL or $EDITOR on it (like git).\nExample: answer 2 4"
    ) { context, arguments in
        let usage = arguments.usage
        let words = arguments.words
        guard let field = words.first else { throw ShellError.usage("Give FIELD_ID and a value. Usage: \(usage)") }
        let engine = try await context.engine()
        let id = try currentID(context)
        let rest = Array(words.dropFirst())
        if rest == ["--edit"] {
            // At the prompt only: the editor needs this terminal (issue 14).
            guard context.output.stdinIsTerminal else {
                throw ShellError.usage(
                    "--edit opens your editor at the prompt; in a script use --file PATH. Usage: \(usage)")
            }
            let current = try engine.app.inspections.inspection(localID: id).formData[field]?.stringValue ?? ""
            guard let text = try ExternalEditor.edit(current, in: context.dataDirectory.url) else {
                return CommandOutput(
                    "The editor exited with an error; \(field) is unchanged.",
                    data: ["local_id": .string(id), "field_id": .string(field), "unchanged": true])
            }
            let value = try engine.app.inspections.answer(localID: id, fieldID: field, value: .text(text))
            return CommandOutput(
                "\(field) = \(value.map { echo($0, type: nil) } ?? "(cleared)")",
                data: ["local_id": .string(id), "field_id": .string(field), "value": value ?? .null])
        }
        let value: JSONValue?
        if let typed = try answerOption(rest, field: field, localID: id, engine: engine, usage: usage) {
            value = try engine.app.inspections.answer(localID: id, fieldID: field, value: typed)
        } else {
            value = try perform { try engine.app.inspections.answer(localID: id, fieldID: field, arguments: rest) }
        }
        // The echo names the field and shows the value as typed (issue 14): `2 Floors clean and dry = 4 ★`.
        let schemaField = try? engine.app.inspections.pinnedField(localID: id, fieldID: field)  // cached schema
        let named = field + (schemaField.map { " " + $0.label } ?? "")
        return CommandOutput(
            value.map { "\(named) = \(echo($0, type: schemaField?.type))" } ?? "\(named) cleared.",
            data: ["local_id": .string(id), "field_id": .string(field), "value": value ?? .null])
    }

    static let save = Command("save", summary: "Save the current draft.") { context, _ in
        let engine = try await context.engine()
        let id = try currentID(context)
        try perform { try engine.app.inspections.save(localID: id) }
        return CommandOutput("Draft \(id) saved.", data: ["local_id": .string(id), "saved": true])
    }

    static let submit = Command(
        "submit", arguments: [.option("gps", "LAT,LON", help: "where the inspection was done, in degrees")],
        summary: "Validate required fields, score, and queue the current inspection for sync.",
        help:
            "Refused with the list of required fields still unanswered. GPS is optional.\nExample: submit --gps 40.7,-74.0"
    ) { context, arguments in
        let usage = arguments.usage
        var location: Coordinate?
        if let text = arguments.option("gps") {
            guard let parsed = Coordinate(text: text) else {
                throw ShellError.usage(
                    "--gps must be LAT,LON in degrees (e.g. 40.71,-74.01), not '\(text)'. Usage: \(usage)")
            }
            location = parsed
        }
        let engine = try await context.engine()
        let id = try currentID(context)
        let result = try perform { try engine.app.inspections.submit(localID: id, location: location) }
        let inspection = result.inspection
        var text =
            "Submitted \(id): score " + (inspection.overallScore.map { ScoreExplanation.format($0) } ?? "none")
            + ". Queued for sync (Pending Sync)."
        if let schedule = inspection.scheduledInspectionServerID {  // rule 69: said, never silent (issue 18)
            text += "\nThis fulfils schedule \(schedule) when it syncs."
        }
        if case .ambiguous(let count) = result.followUp {
            text +=
                "\nThe parent's follow-up flag was not cleared here: \(count) flagged inspections match; "
                + "the server clears the right one when this syncs."
        }
        if engine.background, await engine.app.connectivity.isOnline {
            let sync = engine.app.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
        return CommandOutput(
            text,
            data: [
                "local_id": .string(id), "inspection": summary(inspection),
                "overall_score": inspection.overallScore.map(JSONValue.double) ?? .null,
                "fulfils_schedule": inspection.scheduledInspectionServerID.map { .int(Int64($0)) } ?? .null,
            ])
    }

    static let deleteDraft = Command(
        "delete-draft", arguments: [localIDArgument, yesFlag],
        summary: "Delete a draft (drafts only; needs --yes)."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one LOCAL_ID. Usage: \(usage)") }
        guard arguments.has("yes") else {
            throw ShellError.usage("Deleting a draft cannot be undone; add --yes to confirm. Usage: \(usage)")
        }
        let id = arguments.positionals[0]
        let engine = try await context.engine()
        try perform { try engine.app.inspections.deleteDraft(localID: id) }
        if context.dataDirectory.readText("current") == id { context.dataDirectory.remove("current") }
        return CommandOutput("Draft \(id) deleted.", data: ["local_id": .string(id), "deleted": true])
    }

    static func historyJSON(_ row: HistoryInspection) -> JSONValue { ViewJSON.value(HistoryView(row)) }

    static func online<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as APIError {
            switch error {
            case .offline, .airplaneMode, .timeout, .connectionFailed:
                throw ShellError.failed("History is online only: \(error.message)", cause: error)
            default: throw error
            }
        }
    }

    static let history = Command(
        "history", arguments: [.option("page", "N", .integer, help: "the page, counting from 1")],
        summary: "Completed inspections on the server (online only), 30 a page.",
        help: "Pages count from 1.\nExample: history --page 2"
    ) { context, arguments in
        let usage = arguments.usage
        let page = try arguments.intOption("page") ?? 1
        guard page >= 1 else { throw ShellError.usage("--page counts from 1. Usage: \(usage)") }
        let engine = try await context.engine()
        let result = try await online { try await engine.app.history.page(page - 1) }
        var lines = result.inspections.map { row in
            "\(row.id)  \(Cell.shown(row.inspectionDate ?? ""))  \(Cell.shown(row.templateName ?? "")) — \(Cell.shown(row.facilityName ?? ""))"
                + (row.overallScore.map { "  score \(ScoreExplanation.format($0))" } ?? "")
                + (row.followUpRequired ? "  FOLLOW-UP REQUESTED" : "")
        }
        if result.inspections.isEmpty && page > 1 {
            let pages = max(1, (result.total + 29) / 30)  // 30 a page (CONTRACT.md `GET /inspections`)
            lines.append(
                "Page \(page) is past the end: \(result.total) completed inspection(s) in all, "
                    + "\(pages) page\(pages == 1 ? "" : "s"); 'history --page \(pages)' shows the last.")
        } else {
            lines.append(
                "page \(page) — \(result.total) in all"
                    + (result.hasMore ? "; 'history --page \(page + 1)' for more" : ""))
        }
        return CommandOutput(
            lines.joined(separator: "\n"),
            data: [
                "inspections": .array(result.inspections.map(historyJSON)), "total": .int(Int64(result.total)),
                "phase": .string(result.inspections.isEmpty ? "empty" : "content"),
                "page": .int(Int64(page)), "has_more": .bool(result.hasMore),
            ])
    }

    static let inspectionShow = Command(
        "inspection show",
        arguments: [.positional("SERVER_ID", .integer, help: "a server id from 'history'")],
        summary: "One inspection from the server (online only)."
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1, let id = Int(arguments.positionals[0]) else {
            throw ShellError.usage("Give one SERVER_ID (a number from 'history'). Usage: \(usage)")
        }
        let engine = try await context.engine()
        let row = try await online { try await engine.app.history.show(serverID: id) }
        var text =
            "\(row.id)  \(Cell.shown(row.inspectionDate ?? ""))  \(Cell.shown(row.templateName ?? "")) — \(Cell.shown(row.facilityName ?? ""))"
            + (Cell.shown(row.areaName).map { " / \($0)" } ?? "")
            + (row.overallScore.map { "  score \(ScoreExplanation.format($0))" } ?? "")
        if let answers = row.raw["form_data"]?.objectValue, !answers.isEmpty {
            text +=
                "\n"
                + answers.keys.sorted { $0.count == $1.count ? $0 < $1 : $0.count < $1.count }
                .map { "  \($0): \(answers[$0]!.jsonString())" }.joined(separator: "\n")
        }
        return CommandOutput(text, data: row.raw.objectValue ?? [:])
    }

    static let inspectionRetry = Command(
        "inspection retry", arguments: [localIDArgument],
        summary: "Queue a failed inspection again (it is never retried automatically).",
        help:
            "See 'status' for failed items and their reasons.\nExample: inspection retry 0d81f48c-9242-490d-99e7-a87d24aaa1aa"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one LOCAL_ID. Usage: \(usage)") }
        let localID = arguments.positionals[0]
        let engine = try await context.engine()
        try perform { try engine.app.inspections.retry(localID: localID) }
        return CommandOutput(
            "Inspection \(localID) is queued again; it goes with the next sync.",
            data: ["local_id": .string(localID), "sync_status": "pending"])
    }

    static let inspectionDiscard = Command(
        "inspection discard", arguments: [localIDArgument, yesFlag],
        summary: "Delete a failed inspection with its photos and unsynced issues (needs --yes).",
        help: "Only a failed inspection can be discarded; nothing is ever deleted because of an error alone.\n"
            + "Example: inspection discard 0d81f48c-9242-490d-99e7-a87d24aaa1aa --yes"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one LOCAL_ID. Usage: \(usage)") }
        let localID = arguments.positionals[0]
        let engine = try await context.engine()
        let made = try? engine.app.inspections.inspection(localID: localID)
        let author =
            if let made { await AuthorshipSummary.otherAuthor(made.outbox.author, engine.app) } else { String?.none }
        guard arguments.has("yes") else {
            throw ShellError(
                .confirmationNeeded,
                "Discarding deletes \(author.map { "\($0)'s" } ?? "the") inspection \(localID) and its photos from this "
                    + "device for good. Run 'inspection discard \(localID) --yes' to confirm.")
        }
        try perform { try engine.app.inspections.discardFailed(localID: localID) }
        return CommandOutput(
            "Discarded \(author.map { "\($0)'s " } ?? "")inspection \(localID).",
            data: ["local_id": .string(localID), "discarded": true, "author": author.map(JSONValue.string) ?? .null])
    }
}

extension InspectionCommands {
    /// An answer as a person typed it: a rating as `4 ★`, text without JSON quotes, a list joined with
    /// commas, a table cell's object as JSON.
    static func echo(_ value: JSONValue, type: FormFieldType?) -> String {
        switch value {
        case .int(let number) where type == .rating: "\(number) ★"
        case .string(let text) where type == .rating: "\(text) ★"
        case .string(let text): text
        case .bool(let flag): flag ? "yes" : "no"
        case .array(let items): items.map { echo($0, type: nil) }.joined(separator: ", ")
        default: value.jsonString()
        }
    }
}

extension InspectionCommands {
    /// The typed answer `answer FIELD --add OPTION…`, `--remove OPTION…` or `--file PATH` stands for (issue 14), or
    /// `nil` when the words are a plain value for the field's own parser.
    /// - `--add` / `--remove`: the checkbox_group's stored options with these ticked or unticked (none left
    ///   clears it); the field's own check refuses an option it does not have, or a field of another type.
    /// - `--file`: the file's UTF-8 text verbatim (line breaks kept) for a text field.
    /// - Throws: ``ShellError`` (`shell.usage` without a value, `shell.file_unreadable` for an unreadable or
    ///   non-UTF-8 file).
    static func answerOption(
        _ words: [String], field: String, localID: String, engine: ShellEngine, usage: String
    ) throws -> AnswerValue? {
        guard let option = words.first, ["--add", "--remove", "--file"].contains(option) else { return nil }
        let values = Array(words.dropFirst())
        guard !values.isEmpty else { throw ShellError.usage("Give a value after \(option). Usage: \(usage)") }
        if option == "--file" {
            guard values.count == 1 else { throw ShellError.usage("Give one PATH after --file. Usage: \(usage)") }
            let path = values[0]
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ShellError(.fileUnreadable, "Cannot read \(path): no such file or not readable.")
            }
            guard let text = String(validating: data, as: UTF8.self) else {
                throw ShellError(.fileUnreadable, "\(path) is not UTF-8 text; nothing was answered.")
            }
            return .text(text)
        }
        let stored = try engine.app.inspections.inspection(localID: localID).formData[field]
        var ticked = stored?.arrayValue?.compactMap(\.stringValue) ?? []
        for value in values {
            if option == "--add" {
                if !ticked.contains(where: { $0.caseInsensitiveCompare(value) == .orderedSame }) {
                    ticked.append(value)
                }
            } else {
                ticked.removeAll { $0.caseInsensitiveCompare(value) == .orderedSame }
            }
        }
        return ticked.isEmpty ? .clear : .options(ticked)
    }
}
