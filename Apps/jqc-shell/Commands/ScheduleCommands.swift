import Foundation
import JQCFollowUps
import JQCInspections
import JQCKit
import JQCScheduling

/// `scheduled`, and the `start --schedule ID` / `start --follow-up PARENT_ID` forms (SHELL.md; seed 001
/// §11, §15, rules 68–71, 78–80); `follow-ups` and `schedule-follow-up` are in FollowUpCommands.
enum ScheduleCommands {
    static let commands: [Command] = [scheduled]

    static func int(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }

    static func json(_ schedule: ScheduledInspection, today: CalendarDay?) -> JSONValue {
        ViewJSON.value(ScheduleView(schedule, today: today))
    }

    /// The schedule's instructions above a linked draft's form, also when the draft is resumed (seed 001
    /// §11 "Instructions"): read once from the cache as a value; nothing when the row is gone (rule 70).
    static func instructionsBanner(_ engine: ShellEngine, _ inspection: Inspection) -> String? {
        guard inspection.status == .draft, let id = inspection.scheduledInspectionServerID,
            let schedule = try? engine.app.scheduling.store.schedule(serverID: id), let text = schedule.instructions
        else { return nil }
        return "Instructions: " + text
    }

    // MARK: start --schedule / --follow-up

    /// The `start` forms linked to a schedule or a follow-up, or `nil` when neither option was given.
    /// - Throws: ``ShellError`` with the feature's sentence.
    static func linkedStart(_ context: CommandContext, _ arguments: ParsedArguments, area: Int?)
        async throws -> CommandOutput?
    {
        let usage = arguments.usage
        let schedule = try arguments.intOption("schedule")
        let parent = arguments.option("follow-up")
        guard schedule != nil || parent != nil else { return nil }
        guard schedule == nil || parent == nil, arguments.option("template") == nil,
            arguments.option("facility") == nil
        else {
            throw ShellError.usage(
                "--schedule and --follow-up each supply the template and facility; give one of them alone "
                    + "(optionally with --area). Usage: \(usage)")
        }
        let engine = try await context.engine()
        var notes: [String] = []
        let request: StartRequest
        if let schedule {
            let start: ScheduledStart
            start = try engine.app.scheduling.start(scheduleID: schedule, areaID: area)
            request = start.request
            notes.append("Schedule \(schedule) (due \(start.schedule.dueDate.text)) is linked to this draft.")
            if let parent = start.schedule.parentInspectionID {  // a follow-up schedule prefills (issue 18: said)
                notes.append("prefilled \(request.initialAnswers.count) answers from inspection \(parent)")
            }
            if let instructions = start.instructions { notes.append("Instructions: \(instructions)") }
        } else {
            if let serverID = Int(parent ?? "") {
                // A history parent (not cached, not local) is asked from the server when online.
                request = try await engine.app.followUps.start(parentServerID: serverID, areaID: area)
            } else {
                request = try engine.app.followUps.start(parent: parent ?? "", areaID: area)
            }
            notes.append(
                "Re-inspection of \(parent ?? ""): \(request.initialAnswers.count) answers prefilled from the parent.")
            if let planned = request.scheduledInspectionServerID {
                notes.append("The planned follow-up schedule \(planned) is linked to this draft.")
            }
        }
        let output = try await InspectionCommands.startDraft(context, engine, request)
        var data = output.data.objectValue ?? [:]
        data["scheduled_inspection_id"] = int(request.scheduledInspectionServerID)
        data["parent_inspection_id"] = int(request.parentInspectionServerID)
        data["prefilled"] = .array(request.initialAnswers.keys.sorted().map(JSONValue.string))
        let prefilledFrom = request.parentInspectionServerID.map(String.init) ?? request.parentInspectionLocalID
        data["prefilled_from"] = prefilledFrom.map(JSONValue.string) ?? .null
        return CommandOutput(([output.text] + notes).joined(separator: "\n"), data: data)
    }

    // MARK: Commands

    static let scheduled = Command(
        "scheduled", summary: "The scheduled inspections pulled for you, by due date (overdue marked).",
        help: "Reads the local cache (no request); 'sync' refreshes it. Overdue is judged against the server's\n"
            + "today, never this device's clock. Start one with 'start --schedule ID'.\nExample: scheduled"
    ) { context, _ in
        let scheduling = try await context.engine().app.scheduling
        let loaded = try FacilitiesCommands.read { try scheduling.load() }
        let list = loaded.value
        let today = scheduling.today
        // Columns aligned (issue 14): id, due date with its OVERDUE mark, frequency; then what and where.
        let idWidth = list.map { String($0.serverID).count }.max() ?? 0
        let frequencyWidth = list.map { Cell.shown($0.frequencyLabel ?? $0.frequency.rawValue).count }.max() ?? 0
        let anyOverdue = list.contains { $0.isOverdue(today: today) }
        let lines = list.map { item in
            let id = String(item.serverID)
            let frequency = Cell.shown(item.frequencyLabel ?? item.frequency.rawValue)
            let mark =
                item.isOverdue(today: today)
                ? " " + context.output.red("OVERDUE") : (anyOverdue ? String(repeating: " ", count: 8) : "")
            var line =
                String(repeating: " ", count: idWidth - id.count) + id + "  \(item.dueDate.text)\(mark)  "
                + frequency + String(repeating: " ", count: frequencyWidth - frequency.count) + "  "
                + "\(Cell.shown(item.templateName) ?? "template \(item.templateID)") — "
                + "\(Cell.shown(item.facilityName) ?? "facility \(item.facilityID)")"
            if let parent = item.parentInspectionID { line += "  (follow-up of \(parent))" }
            if let instructions = item.instructions {
                line +=
                    "\n      Instructions: "
                    + Cell.shown(instructions.split(separator: "\n").first.map(String.init) ?? "")
            }
            return line
        }
        let (data, note) = FacilitiesCommands.phase(loaded, noun: "scheduled inspections")
        return CommandOutput(
            FacilitiesCommands.render(lines, note: note),
            data: data.merging([
                "scheduled": .array(list.map { json($0, today: today) }),
                "today": today.map { .string($0.text) } ?? .null,
            ]) { $1 })
    }
}
