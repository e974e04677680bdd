import Foundation
import JQCKit
import JQCSync

/// `background enable|disable|status` and the timer's `sync --background` (SHELL.md; issue 15). With no
/// shell open, finished work still leaves the device: a systemd user timer (or a crontab line where
/// systemd is absent) runs one automatic pass every 5 minutes.
enum BackgroundCommands {
    static let commands: [Command] = [background, enable, disable, status]

    static let background = Command(
        "background",
        arguments: [
            .positional(
                "enable|disable|status", .choice(["enable", "disable", "status"]), optional: true,
                help: "the subcommand (none: the status)")
        ],
        summary: "Background sync with no shell open: a systemd user timer running 'sync --background'.",
        help:
            "background enable   installs a systemd user service + timer (every 5 minutes; a missed run goes at once)\n"
            + "background disable  removes them\n"
            + "background status   whether it is on, what runs it (systemd, cron or none), and the last run\n"
            + "Where systemd's user manager is not reachable, 'enable' prints the unit files and a crontab line.\n"
            + "Example: background enable"
    ) { context, arguments in
        guard arguments.positionals.isEmpty else {
            throw ShellError.usage("Unknown subcommand '\(arguments.positionals[0])'. Usage: \(arguments.usage)")
        }
        return try report(context)
    }

    static let enable = Command(
        "background enable", summary: "Sync every 5 minutes with no shell open (systemd user timer).",
        help: "Writes jqc-sync-<hash>.service and .timer into $XDG_CONFIG_HOME/systemd/user (~/.config/systemd/user)\n"
            + "and runs 'systemctl --user enable --now' on the timer. Without systemd it installs nothing and prints\n"
            + "the two unit files and a crontab line instead.\nExample: background enable"
    ) { context, arguments in
        guard arguments.positionals.isEmpty else { throw ShellError.usage("background enable takes no arguments.") }
        let timer = BackgroundTimer(
            dataDirectory: context.dataDirectory.url, passedOptions: passedOptions(context.options))
        guard timer.systemdIsReachable else {
            let text = """
                systemd's user manager cannot be reached here ('systemctl --user' does not answer), so nothing was \
                installed. To sync in the background, add this line to your crontab ('crontab -e'):

                \(timer.crontabLine)

                or, on a machine where systemd runs, save these two files in \(timer.unitDirectory.path)/ and run \
                'systemctl --user enable --now \(timer.timerName)':

                # \(timer.serviceName)
                \(timer.serviceUnit)
                # \(timer.timerName)
                \(timer.timerUnit)
                """
            let installed = timer.installed()
            return CommandOutput(
                text,
                data: units(timer).merging([
                    "enabled": .bool(installed != .none), "timer": .string(installed.rawValue),
                    "systemd": false, "installed": false,
                ]) { _, new in new })
        }
        try timer.enableWithSystemd()
        return CommandOutput(
            "Background sync is on: \(timer.timerName) runs '\(timer.command.map(BackgroundTimer.shellQuoted).joined(separator: " "))' "
                + "every 5 minutes (and at once after a missed run). 'background status' shows the last run.",
            data: units(timer).merging(["enabled": true, "timer": "systemd", "systemd": true, "installed": true]) {
                _, new in new
            })
    }

    static let disable = Command(
        "background disable", summary: "Stop background sync (removes the systemd user timer).",
        help: "Disables and removes this data directory's timer and service. A crontab line is yours to remove.\n"
            + "Example: background disable"
    ) { context, arguments in
        guard arguments.positionals.isEmpty else { throw ShellError.usage("background disable takes no arguments.") }
        let timer = BackgroundTimer(dataDirectory: context.dataDirectory.url)
        let removed = timer.disable()
        var lines = [
            removed ? "Background sync is off: \(timer.timerName) was removed." : "Background sync was not installed."
        ]
        let left = timer.installed()
        if left == .cron {
            lines.append(
                "A crontab line still runs it: remove the line ending in '\(timer.cronMarker)' ('crontab -e').")
        }
        return CommandOutput(
            lines.joined(separator: "\n"),
            data: ["enabled": .bool(left != .none), "timer": .string(left.rawValue), "removed": .bool(removed)])
    }

    static let status = Command(
        "background status", summary: "Whether background sync is on, what runs it, and how its last run went."
    ) { context, arguments in
        guard arguments.positionals.isEmpty else { throw ShellError.usage("background status takes no arguments.") }
        return try report(context)
    }

    /// The options of this run that the timer's runs need too: a private CA (`--ca-file`, else `$JQC_CA_FILE`,
    /// made absolute), `--allow-insecure-http` and `--max-reply-mb` (a user service sees none of the shell's
    /// environment).
    static func passedOptions(
        _ options: ShellOptions, environment: [String: String] = ShellEnvironment.variables
    )
        -> [String]
    {
        var passed: [String] = []
        if let caFile = options.caFile ?? environment["JQC_CA_FILE"], !caFile.isEmpty {
            passed += ["--ca-file", URL(fileURLWithPath: caFile).standardizedFileURL.path]
        }
        if options.allowInsecureHTTP { passed.append("--allow-insecure-http") }
        if let limit = options.maxReplyMebibytes { passed += ["--max-reply-mb", String(limit)] }
        return passed
    }

    private static func report(_ context: CommandContext) throws -> CommandOutput {
        let summary = BackgroundSummary(context: context)
        return CommandOutput(summary.lines.joined(separator: "\n"), data: summary.json)
    }

    private static func units(_ timer: BackgroundTimer) -> [String: JSONValue] {
        [
            "service": .string(timer.serviceName), "timer_unit": .string(timer.timerName),
            "unit_directory": .string(timer.unitDirectory.path), "service_file": .string(timer.serviceUnit),
            "timer_file": .string(timer.timerUnit), "crontab_line": .string(timer.crontabLine),
        ]
    }
}

/// What `background status` and `status` say about background sync: the timer and the last run.
struct BackgroundSummary {
    let timer: BackgroundTimer
    let kind: BackgroundTimer.Kind
    let lastRun: BackgroundRunRecord.Entry?

    init(context: CommandContext) {
        timer = BackgroundTimer(dataDirectory: context.dataDirectory.url)
        kind = timer.installed()
        lastRun = BackgroundRunRecord(directory: context.dataDirectory).load()
    }

    /// `{enabled, timer, last_run_at, last_outcome, last_message}`.
    var json: [String: JSONValue] {
        [
            "enabled": .bool(kind != .none), "timer": .string(kind.rawValue),
            "last_run_at": lastRun.map { .string(DateFormats.instantString($0.at)) } ?? .null,
            "last_outcome": lastRun.map { .string($0.outcome) } ?? .null,
            "last_message": lastRun.map { .string($0.message) } ?? .null,
        ]
    }

    /// For people: on or off and by what, then the last run.
    var lines: [String] {
        let state: String
        switch kind {
        case .systemd: state = "on (systemd user timer \(timer.timerName), every 5 minutes)"
        case .cron: state = "on (crontab line, every 5 minutes)"
        case .none: state = "off ('background enable' turns it on)"
        }
        var lines = ["background sync: \(state)"]
        if let lastRun {
            lines.append("last background run: \(LocalTime.text(lastRun.at)) — \(lastRun.message)")
        }
        return lines
    }
}

/// `<data-dir>/background-sync.json`: when the last `sync --background` ran and how it went
/// (`last_run_at`, `last_outcome`, `last_message`).
struct BackgroundRunRecord {
    struct Entry {
        let at: Date
        let outcome: String
        let message: String
    }

    let directory: DataDirectory

    func load() -> Entry? {
        guard let text = directory.readText("background-sync.json"), let json = try? JSONValue.parse(text),
            let at = json["last_run_at"]?.stringValue.flatMap(DateFormats.instant(from:)),
            let outcome = json["last_outcome"]?.stringValue
        else { return nil }
        return Entry(at: at, outcome: outcome, message: json["last_message"]?.stringValue ?? outcome)
    }

    func save(_ entry: Entry) {
        let json: JSONValue = [
            "last_run_at": .string(DateFormats.instantString(entry.at)), "last_outcome": .string(entry.outcome),
            "last_message": .string(entry.message),
        ]
        try? directory.writeText("background-sync.json", json.jsonString())
    }
}

/// The timer's pass: `sync --background` (issue 15). One automatic pass (backoff applies), no prompt, no
/// output on success, one line in `<data-dir>/jqc.log` (label `background`) and the record for `background
/// status`. Exit status 0 when the pass ran or was skipped for a normal reason (offline or airplane mode,
/// another pass running, signed out, cancelled); 1 when it could not run for a reason a person must fix
/// (the store cannot be used, update required), with the sentence on stderr.
enum BackgroundSync {
    static func run(_ context: CommandContext) async throws -> CommandOutput {
        let log = Logger(label: "background", sink: FileLogSink(url: context.dataDirectory.file("jqc.log")))
        let record = BackgroundRunRecord(directory: context.dataDirectory)
        let started = Date()
        func finish(_ outcome: String, _ message: String, failed: Bool, cause: (any Error)? = nil) throws
            -> CommandOutput
        {
            let seconds = String(format: "%.2f", Date().timeIntervalSince(started))
            if failed {
                log.error("sync --background could not run: \(message) (\(outcome), \(seconds) s)")
            } else {
                log.info("sync --background: \(message) (\(outcome), \(seconds) s)")
            }
            record.save(.init(at: started, outcome: outcome, message: message))
            if failed { throw ShellError.failed(message, cause: cause) }
            return CommandOutput("", data: ["outcome": .string(outcome), "message": .string(message)])
        }
        let engine: ShellEngine
        do {
            engine = try await context.engine()
        } catch {
            return try finish("store_unavailable", "\(error)", failed: true, cause: error)
        }
        let app = engine.app
        let stateFile = SyncStateFile(directory: context.dataDirectory)
        do {
            let report = try await app.sync.sync(explicit: false)
            let snapshot = await app.sync.current
            stateFile.save(
                lastSyncAt: snapshot.lastSyncAt, lastError: snapshot.lastError,
                pullProblems: report.stages.flatMap { $0.problems ?? [] })
            let pushed = report.stages.reduce(0) { $0 + $1.pushed }
            let pulled = report.stages.reduce(0) { $0 + $1.pulled }
            let failed = report.stages.reduce(0) { $0 + $1.failed }
            let waiting = report.stages.reduce(0) { $0 + $1.deferred }
            var message = "synced: pushed \(pushed), pulled \(pulled), failed \(failed), waiting \(waiting)"
            if let stop = report.stoppedBy {
                message += "; stopped: \(stop.message)"
            } else if let problem = snapshot.lastError {
                message += "; \(problem)"
            }
            return try finish("synced", message, failed: false)
        } catch let stop as SyncStopError {
            if stop.kind != .passRunningElsewhere && stop.kind != .cancelled {
                stateFile.save(lastSyncAt: stateFile.load().lastSyncAt, lastError: stop.message)
            }
            switch stop.kind {
            case .offline: return try finish("offline", "skipped: \(stop.message)", failed: false)
            case .passRunningElsewhere: return try finish("busy", "skipped: \(stop.message)", failed: false)
            case .signedOut: return try finish("signed_out", "skipped: \(stop.message)", failed: false)
            case .cancelled: return try finish("cancelled", "skipped: \(stop.message)", failed: false)
            case .updateRequired: return try finish("update_required", stop.message, failed: true, cause: stop)
            case .storeUnavailable, .stageFailed:
                return try finish(stop.kind.rawValue, stop.message, failed: true, cause: stop)
            }
        }
    }
}
