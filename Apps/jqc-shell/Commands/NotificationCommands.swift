import Foundation
import JQCKit
import JQCNotifications

/// `notifications [--mark-read]`, `dashboard` (SHELL.md; seed 001 §8 step 7, rules 49–50).
enum NotificationCommands {
    static let commands: [Command] = [notifications, dashboard]

    static func json(_ item: NotificationItem) -> JSONValue { ViewJSON.value(NotificationView(item)) }

    static let notifications = Command(
        "notifications",
        arguments: [.flag("mark-read", help: "mark every unread notification read, here and on the server")],
        summary: "List the pulled notifications, newest first; --mark-read marks every unread one read.",
        help: "Lists what the last syncs and polls pulled (no request is sent); listing alone marks nothing read.\n"
            + "--mark-read marks every unread one read here at once and tells the server (queued while offline;\n"
            + "the next sync sends it).\nExample: notifications --mark-read"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.isEmpty else {
            throw ShellError.usage("notifications takes no arguments. Usage: \(usage)")
        }
        let service = try await context.engine().app.notifications
        var data: [String: JSONValue] = [:]
        var footer: [String] = []
        if arguments.has("mark-read") {
            let marked = try service.markAllRead()
            let push = try await service.pushQueuedMarkReadNow()
            data["marked"] = .int(Int64(marked.count))
            data["queued"] = .int(Int64(push.queued.count))
            if marked.isEmpty && push.queued.isEmpty {
                footer.append("Nothing was unread.")
            } else if push.queued.isEmpty {
                footer.append("Marked \(marked.count) read, here and on the server.")
            } else {
                footer.append(
                    "Marked \(marked.count) read here; \(push.queued.count) wait for the server "
                        + "(queued: the next sync sends them).")
            }
        }
        let items = try service.notifications()
        let unread = items.filter { !$0.read }.count
        data["notifications"] = .array(items.map(json))
        data["unread"] = .int(Int64(unread))
        data["phase"] = .string((items.isEmpty ? LoadPhase.empty : LoadPhase.content).rawValue)
        var lines = items.map { item in
            let mark = item.read ? "  " : context.output.bold("* ")
            let body = item.body.isEmpty ? "" : " — " + Cell.shown(item.body)
            return
                "\(mark)\(item.id)  \(Cell.shown(LocalTime.text(serverInstant: item.createdAt)))  \(Cell.shown(item.title))\(body)"
        }
        if items.isEmpty {
            lines = ["No notifications pulled yet (they arrive with 'sync' and every minute online)."]
        }
        lines.append("\(unread) unread.")
        return CommandOutput((lines + footer).joined(separator: "\n"), data: data)
    }

    static let dashboard = Command(
        "dashboard", summary: "The dashboard stats: refreshed when online, else the cached ones with a note.",
        help: "Best-effort (seed 001 rule 49): a failed refresh shows the last stats fetched, marked stale.\n"
            + "Example: dashboard"
    ) { context, _ in
        let loaded = await (try context.engine()).app.dashboard.load()
        guard let stats = loaded.value else {
            throw NotificationsError(
                .noDashboardStats, "No dashboard stats to show: " + (loaded.staleReason ?? "none were fetched yet."))
        }
        if let reason = loaded.staleReason {
            let note = "showing cached dashboard stats — last refresh failed: \(Cell.shown(reason))"
            context.output.err(context.output.yellow(note))
        }
        var data: [String: JSONValue] = [:]
        for key in DashboardStats.keys { data[key] = stats.raw[key] ?? .null }
        data["fetched_at"] = .string(DateFormats.instantString(stats.fetchedAt))
        data["stale"] = .bool(loaded.isStale)
        data["phase"] = .string(loaded.phase.rawValue)
        if let reason = loaded.staleReason { data["stale_reason"] = .string(reason) }
        func count(_ value: Int?) -> String { value.map(String.init) ?? "—" }
        let lines = [
            "inspections this week: \(count(stats.inspectionsThisWeek))",
            "average score:         " + (stats.averageScore.map { String(format: "%.2f%%", $0) } ?? "—"),
            "open issues:           \(count(stats.openIssues))",
            "overdue schedules:     \(count(stats.overdueSchedules))",
            "pending follow-ups:    \(count(stats.pendingFollowUps))",
            "fetched at \(LocalTime.text(stats.fetchedAt))" + (loaded.isStale ? " (cached)" : ""),
        ]
        return CommandOutput(lines.joined(separator: "\n"), data: data)
    }
}

/// The shell's ``NotificationSink``: one banner line on stderr per new notification (SHELL.md: banners go
/// to stderr), e.g. `[notification] Issue #49 assigned to you — Hand dryer not working`.
struct NotificationBanner: NotificationSink {
    let output: ShellOutput

    func deliver(_ notification: NotificationItem) {
        let body = notification.body.isEmpty ? "" : " — " + notification.body
        let line = ("[notification] " + notification.title + body)
            .replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        output.err(output.bold(line))
    }
}
