import Foundation
import JQCKit
import JQCNetwork
import JQCSync

/// `online`, `offline`, `status`, `sync` (SHELL.md; SPEC.md §4).
enum SyncCommands {
    static let commands: [Command] = [online, offline, status, sync]

    static let online = Command("online", summary: "Leave airplane mode and reconnect (probes the server).") {
        context, _ in
        let engine = try await context.engine()
        try await engine.app.connectivity.setForcedOffline(false)
        let reachable = await engine.app.connectivity.probeNow()
        let text = reachable ? "Online." : "Airplane mode is off, but the server cannot be reached; work stays queued."
        return CommandOutput(text, data: ["online": .bool(reachable), "forced_offline": false])
    }

    static let offline = Command("offline", summary: "Airplane mode: no request leaves until 'online'.") { context, _ in
        let engine = try await context.engine()
        try await engine.app.connectivity.setForcedOffline(true)
        return CommandOutput(
            "Offline: work is saved locally and queued.", data: ["online": false, "forced_offline": true])
    }

    static let status = Command(
        "status", summary: "Online, signed in, pending counts, failed items, last sync, last error."
    ) { context, _ in
        let engine = try await context.engine()
        let app = engine.app
        let forced = await app.connectivity.isForcedOffline
        let isOnline = forced ? false : await app.connectivity.probeNow()
        let user = await app.api.currentUser
        let kinds: [OutboxKindStatus]
        kinds = try app.outboxKindStatuses()
        let failed = kinds.flatMap(\.failed)
        let saved = SyncStateFile(directory: context.dataDirectory).load()
        let snapshot = await app.sync.current
        let lastSync = snapshot.lastSyncAt ?? saved.lastSyncAt
        let lastError = snapshot.lastSyncAt != nil || snapshot.lastError != nil ? snapshot.lastError : saved.lastError
        let updateRequired = await app.api.isUpdateRequired
        var lines = [
            "online: \(isOnline ? "yes" : forced ? "no (airplane mode)" : "no (server unreachable)")",
            "signed in: " + (user.map { "\($0.displayName) (\($0.username))" } ?? "no"),
            "pending: " + OutboxSummary.line(kinds),
            "last sync: " + (lastSync.map { LocalTime.text($0) } ?? "never"),
        ]
        if let lastError { lines.append("last error: \(lastError)") }
        if updateRequired { lines.append("update required: this build is refused by the server; update jqc.") }
        let others = try await AuthorshipSummary.others(app)  // issue 20
        lines += AuthorshipSummary.lines(others)
        for item in failed {
            let commands = UnblockCommands.of(item)
            lines.append(
                "failed \(item.kind) \(item.localID): \(item.reason)"
                    + (commands.isEmpty ? "" : " — " + commands.map { "'\($0)'" }.joined(separator: " or ")))
        }
        let waiting = kinds.flatMap(\.waiting)  // issue 18: a stuck item says what it waits for
        for item in waiting { lines.append("waiting \(item.kind) \(item.localID): \(item.reason)") }
        for problem in saved.pullProblems { lines.append("unreadable from the server: \(problem)") }
        let background = BackgroundSummary(context: context)  // issue 15
        lines += background.lines
        return CommandOutput(
            lines.joined(separator: "\n"),
            data: [
                "online": .bool(isOnline), "forced_offline": .bool(forced), "signed_in": .bool(user != nil),
                "username": user.map { .string($0.username) } ?? .null,
                "pending": OutboxSummary.pending(kinds), "outbox": OutboxSummary.kinds(kinds),
                "others_waiting": AuthorshipSummary.json(others),
                "failed": .array(
                    failed.map {
                        .object([
                            "kind": .string($0.kind), "local_id": .string($0.localID),
                            "reason": .string($0.reason),
                            "commands": .array(UnblockCommands.of($0).map(JSONValue.string)),
                        ])
                    }),
                "waiting": .array(
                    waiting.map {
                        .object([
                            "kind": .string($0.kind), "local_id": .string($0.localID), "reason": .string($0.reason),
                        ])
                    }),
                "last_sync_at": lastSync.map { .string(DateFormats.instantString($0)) } ?? .null,
                "last_error": lastError.map(JSONValue.string) ?? .null,
                "update_required": .bool(updateRequired), "background": .object(background.json),
                "pull_problems": .array(saved.pullProblems.map(JSONValue.string)),
            ])
    }

    static let sync = Command(
        "sync", arguments: [.flag("background", help: "the timer's automatic pass (see 'background')")],
        summary: "One full pass now: every pending item is tried at once; reports each stage.",
        help: "Item failures are data (see 'status'); the command fails only when the pass cannot run\n"
            + "(offline, signed out, update required). When another jqc process is syncing this data directory,\n"
            + "it says so and waits for that pass to end.\n"
            + "--background is the timer's pass ('background enable'): one automatic pass (backoff applies),\n"
            + "silent on success, one line in jqc.log; it skips when another pass is running, when offline or\n"
            + "signed out (exit 0), and exits 1 when the store is damaged or an update is required."
    ) { context, arguments in
        guard arguments.positionals.isEmpty else {
            throw ShellError.usage("sync takes no arguments. Usage: \(arguments.usage)")
        }
        if arguments.has("background") { return try await BackgroundSync.run(context) }
        let engine = try await context.engine()
        let app = engine.app
        let stateFile = SyncStateFile(directory: context.dataDirectory)
        // Check the session first, so an expired access token is refreshed (and a revoked one signs out).
        if await app.api.isSignedIn, !(await app.connectivity.isForcedOffline) {
            if case .signedOut = await app.api.restoreSession() {
                let message = "You were signed out (the session ended on the server); log in again. Nothing was lost."
                stateFile.save(lastSyncAt: stateFile.load().lastSyncAt, lastError: message)
                throw ShellError.failed(message, cause: APIError.signedOut)
            }
        }
        try Task.checkCancellation()
        let before = try? OutboxTally(app.outboxStatus())  // for the sentence after a Ctrl-C (issue 14)
        let passLock = FileLock(url: context.dataDirectory.file("sync.lock"))
        let progress = Task {
            var announced = false
            for await snapshot in await app.sync.snapshots() {
                if snapshot.waitingForPassElsewhere, !announced {
                    announced = true  // issue 15: one pass at a time per data directory
                    let holder = passLock.holderProcessID.map { " (process \($0))" } ?? ""
                    context.output.endProgress()
                    context.output.err(
                        "Another sync pass is running in another jqc process\(holder); waiting for it to end…")
                }
                if let stage = snapshot.runningStage { context.output.progress("syncing: \(stage)…") }
            }
        }
        defer {
            progress.cancel()
            context.output.endProgress()
        }
        let report: SyncPassReport
        do {
            report = try await app.sync.sync(explicit: true)
        } catch let stop as SyncStopError {
            let message =
                stop.kind == .cancelled
                ? CancelledSync.sentence(before: before, after: try? OutboxTally(app.outboxStatus())) : stop.message
            stateFile.save(lastSyncAt: stateFile.load().lastSyncAt, lastError: message)
            throw ShellError.failed(message, cause: stop)
        }
        let snapshot = await app.sync.current
        stateFile.save(
            lastSyncAt: snapshot.lastSyncAt, lastError: snapshot.lastError,
            pullProblems: report.stages.flatMap { $0.problems ?? [] })
        let stages = report.stages.map { stage -> JSONValue in
            var object: [String: JSONValue] = [
                "name": .string(stage.name), "pushed": .int(Int64(stage.pushed)),
                "pulled": .int(Int64(stage.pulled)), "failed": .int(Int64(stage.failed)),
                "seconds": .double((stage.seconds * 1000).rounded() / 1000), "deferred": .int(Int64(stage.deferred)),
            ]
            if let error = stage.error { object["error"] = .string(error) }
            // A tried-and-kept item's reason first; else why an untried one waits (issue 18: never null).
            if let reason = stage.deferredReason ?? stage.waitingReason { object["deferred_reason"] = .string(reason) }
            if let problems = stage.problems { object["problems"] = .array(problems.map(JSONValue.string)) }
            return .object(object)
        }
        var lines = report.stages.map { stage in
            "  \(stage.name.padding(toLength: 18, withPad: " ", startingAt: 0)) pushed \(stage.pushed)  pulled \(stage.pulled)  "
                + "failed \(stage.failed)  \(String(format: "%.2f", stage.seconds)) s"
                + (stage.deferred > 0 ? "  waiting \(stage.deferred)" : "")
                + (Cell.shown(stage.error).map { "  — \($0)" }
                    ?? Cell.shown(stage.deferredReason).map { "  — will retry: \($0)" }
                    ?? Cell.shown(stage.waitingReason).map { "  — \($0)" } ?? "")
        }
        for problem in report.stages.flatMap({ $0.problems ?? [] }) { lines.append("  unreadable: \(problem)") }
        if lines.isEmpty { lines = ["  (no stages registered yet)"] }
        if let stop = report.stoppedBy { lines.append(context.output.yellow("stopped: \(stop.message)")) }
        let kinds: [OutboxKindStatus]
        kinds = try app.outboxKindStatuses()
        lines.append("pending: " + OutboxSummary.line(kinds))
        let others = try await AuthorshipSummary.others(app)  // issue 20
        lines += AuthorshipSummary.lines(others)
        return CommandOutput(
            "Sync finished.\n" + lines.joined(separator: "\n"),
            data: [
                "stages": .array(stages), "stopped": report.stoppedBy.map { .string($0.message) } ?? .null,
                "pending": OutboxSummary.pending(kinds), "outbox": OutboxSummary.kinds(kinds),
                "others_waiting": AuthorshipSummary.json(others),
            ])
    }
}

/// The shell commands that unblock a failed outbox item (issue 18: `status` names them): retry puts it back in
/// the outbox, discard deletes it (SHELL.md). A kind without such commands has none listed.
enum UnblockCommands {
    static func of(_ item: FailedOutboxItem) -> [String] {
        let id = item.localID
        switch item.kind {
        case "photo": return ["photo retry \(id)", "photo discard \(id)"]
        case "inspection": return ["inspection retry \(id)", "inspection discard \(id) --yes"]
        case "issue": return ["issue retry \(id)", "issue discard \(id)"]
        default: return []
        }
    }
}

/// Every registered outbox kind's counts as `status` and `sync` show them; the kinds come from the
/// installed features (AppComposition.outboxKinds), none is named here.
enum OutboxSummary {
    /// `1 photos, 0 inspections (1 failed), 0 issues, …` in registration order.
    static func line(_ kinds: [OutboxKindStatus]) -> String {
        kinds.map { "\($0.pending) \($0.label)" + ($0.failed.isEmpty ? "" : " (\($0.failed.count) failed)") }
            .joined(separator: ", ")
    }

    /// JSON `pending`: kind name → pending count (SHELL.md: `photos`, `inspections`, `issues`, and every other
    /// registered kind).
    static func pending(_ kinds: [OutboxKindStatus]) -> JSONValue {
        .object(Dictionary(kinds.map { ($0.name, JSONValue.int(Int64($0.pending))) }, uniquingKeysWith: { $1 }))
    }

    /// JSON `outbox`: `[{kind, label, pending, failed}]` in registration order (`failed` is a count).
    static func kinds(_ kinds: [OutboxKindStatus]) -> JSONValue {
        .array(
            kinds.map {
                [
                    "kind": .string($0.name), "label": .string($0.label), "pending": .int(Int64($0.pending)),
                    "failed": .int(Int64($0.failed.count)),
                ]
            })
    }
}

/// `<data-dir>/sync-state.json`: the last sync time, the last error and the last pass's unreadable pulled records
/// (issue 21), so `status` in a later run can say them.
struct SyncStateFile {
    let directory: DataDirectory

    func load() -> (lastSyncAt: Date?, lastError: String?, pullProblems: [String]) {
        guard let text = directory.readText("sync-state.json"), let json = try? JSONValue.parse(text) else {
            return (nil, nil, [])
        }
        return (
            json["last_sync_at"]?.stringValue.flatMap(DateFormats.instant(from:)), json["last_error"]?.stringValue,
            json["pull_problems"]?.arrayValue?.compactMap(\.stringValue) ?? []
        )
    }

    /// Saves the state; `pullProblems` `nil` keeps the ones saved before (a pass that did not run).
    func save(lastSyncAt: Date?, lastError: String?, pullProblems: [String]? = nil) {
        let problems = pullProblems ?? load().pullProblems
        let json: JSONValue = [
            "last_sync_at": lastSyncAt.map { .string(DateFormats.instantString($0)) } ?? .null,
            "last_error": lastError.map(JSONValue.string) ?? .null,
            "pull_problems": .array(problems.map(JSONValue.string)),
        ]
        try? directory.writeText("sync-state.json", json.jsonString())
    }
}
