import Foundation
import JQCFollowUps
import JQCKit
import JQCScheduling

/// `follow-ups` and `schedule-follow-up PARENT_SERVER_ID YYYY-MM-DD ["NOTES"]` (SHELL.md; seed 001 §15,
/// rules 78–80): the follow-ups' command file (`start --follow-up PARENT_ID` is one of `start`'s linked
/// forms, with `start --schedule`, in ScheduleCommands).
enum FollowUpCommands {
    static let commands: [Command] = [followUps, scheduleFollowUp]

    static func json(_ request: FollowUpRequest) -> JSONValue { ViewJSON.value(FollowUpView(request)) }

    static let followUps = Command(
        "follow-ups", summary: "Inspections whose follow-up was requested and not yet done.",
        help: "Reads the local cache (no request); 'sync' refreshes it. Start one with 'start --follow-up ID':\n"
            + "it opens prefilled from the parent's answers, even when the parent is not on this device.\n"
            + "Example: follow-ups"
    ) { context, _ in
        let service = try await context.engine().app.followUps
        let loaded = try FacilitiesCommands.read { try service.load() }
        let list = loaded.value
        let lines = list.map { item in
            "\(item.serverID)  \(Cell.shown(item.inspectionDate) ?? "—")  "
                + "\(Cell.shown(item.templateName) ?? "template \(item.templateID)") — "
                + "\(Cell.shown(item.facilityName) ?? "facility \(item.facilityID)")"
                + (Cell.shown(item.note).map { "  — \($0)" } ?? "")
        }
        let (data, note) = FacilitiesCommands.phase(loaded, noun: "follow-up requests")
        return CommandOutput(
            FacilitiesCommands.render(lines, note: note),
            data: data.merging(["follow_ups": .array(list.map(json))]) { $1 })
    }

    static let scheduleFollowUp = Command(
        "schedule-follow-up",
        arguments: [
            .positional("PARENT_SERVER_ID", .integer, help: "the synced inspection to follow up (its server id)"),
            .positional("YYYY-MM-DD", help: "the day the follow-up is due"),
            .positional("\"NOTES\"", optional: true, help: "instructions for whoever does it"),
        ],
        summary: "Plan a follow-up of a synced inspection on the server (online only).",
        help: "Creates the plan on the server (nothing is queued: rule 80); scheduling again re-dates it.\n"
            + "The schedules are pulled afterwards so it shows in 'scheduled'.\n"
            + "Example: schedule-follow-up 501 2026-07-20 \"Re-check the floors\""
    ) { context, arguments in
        let usage = arguments.usage
        let values = arguments.positionals
        guard (2...3).contains(values.count) else {
            throw ShellError.usage("Give the parent's server id and a day. Usage: \(usage)")
        }
        guard let parent = Int(values[0]) else {
            throw ShellError.usage("The parent must be a server id (digits), not '\(values[0])'. Usage: \(usage)")
        }
        guard let day = CalendarDay(values[1]) else {
            throw ShellError.usage("The due date must be a day as YYYY-MM-DD, not '\(values[1])'. Usage: \(usage)")
        }
        let notes = values.count == 3 ? values[2] : nil
        let scheduling = try await context.engine().app.scheduling
        let schedule: ScheduledInspection
        schedule = try await scheduling.scheduleFollowUp(parentServerID: parent, dueDate: day, notes: notes)
        return CommandOutput(
            "Follow-up of \(parent) scheduled for \(schedule.dueDate.text) (schedule \(schedule.serverID)).",
            data: ["schedule": ScheduleCommands.json(schedule, today: scheduling.today)])
    }
}
