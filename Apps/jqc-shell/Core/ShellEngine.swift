import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCSync
import Synchronization

/// The engine behind the shell for one run: which server (starting the embedded dev server when that is
/// the identity) and the composition root built over it. Built on the first command that needs it.
final class ShellEngine: Sendable {
    private struct State {
        var embedded: EmbeddedServer?
    }

    /// The server identity, shared with the composition root (outbox items are stamped with it; issue 20).
    final class IdentityCell: Sendable {
        let value: Mutex<ServerIdentity>
        init(_ identity: ServerIdentity) { value = Mutex(identity) }
        var current: ServerIdentity { value.withLock { $0 } }
    }

    /// The composition root (store, API client, features, sync engine).
    let app: AppComposition
    /// Whether background work (monitoring, scheduler) runs: interactive sessions only, so scripts stay
    /// deterministic.
    let background: Bool
    private let selection: InMemorySelectionStore
    private let dataDirectory: DataDirectory
    /// `--admin-faults`: the embedded server, whenever started, opens `/__admin`.
    private let adminFaults: Bool
    private let state: Mutex<State>
    private let identityCell: IdentityCell

    private init(
        app: AppComposition, selection: InMemorySelectionStore, identity: IdentityCell,
        embedded: EmbeddedServer?, dataDirectory: DataDirectory, adminFaults: Bool, background: Bool
    ) {
        self.app = app
        self.adminFaults = adminFaults
        self.selection = selection
        self.dataDirectory = dataDirectory
        self.background = background
        identityCell = identity
        state = Mutex(State(embedded: embedded))
    }

    /// The data directory's server identity.
    var identity: ServerIdentity { identityCell.current }
    /// The base URL requests go to now.
    var baseURL: URL { app.server.current.baseURL }

    /// Resolves the server identity (SHELL.md): the recorded one, unless `--server` names another — a
    /// server switch, which signs out and clears server-pulled data but keeps unsynced local work — starts
    /// the embedded server when that is the identity, builds the composition root and launches it.
    /// - Throws: the failing module's coded error (a store or server failure), or ``ShellError``.
    static func start(options: ShellOptions, dataDirectory: DataDirectory, output: ShellOutput) async throws
        -> ShellEngine
    {
        let recorded = dataDirectory.recordedServer
        let identity = options.server.flatMap(ServerIdentity.init(text:)) ?? recorded ?? .embedded
        var embedded: EmbeddedServer?
        var selectionValue = identity.description
        if identity == .embedded {
            do {
                let server = try EmbeddedServer.start(
                    dataDirectory: dataDirectory, adminFaults: options.adminFaults && !options.isBackgroundSync)
                embedded = server
                selectionValue = server.baseURL.absoluteString
            } catch {
                // Local work must go on (a full disk, say): requests fail as offline until the next run.
                output.err("warning: \(error) Working offline: your work is saved locally and queued.")
                selectionValue = ServerSelection.unavailableURL.absoluteString
            }
        }
        let selection = InMemorySelectionStore(selectionValue)
        let identityCell = IdentityCell(identity)
        let interactive = options.scriptFile == nil && options.commandString == nil && output.stdinIsTerminal
        var configuration = AppConfiguration(
            dataDirectory: dataDirectory.url, server: ServerConfig(store: selection),
            network: options.networkConfiguration(output: output))
        configuration.serverIdentity = { identityCell.current.description }
        if let seconds = ShellEngine.notificationPollSeconds(ShellEnvironment.variables) {
            configuration.notificationPollInterval = seconds
        }
        let app: AppComposition
        do {
            app = try AppComposition(configuration: configuration)
        } catch {
            embedded?.stop()
            throw error
        }
        let engine = ShellEngine(
            app: app, selection: selection, identity: identityCell, embedded: embedded,
            dataDirectory: dataDirectory, adminFaults: options.adminFaults, background: interactive)
        if let recorded, recorded != identity {
            try await engine.forgetServer()
            output.err(
                "Switched server from \(recorded) to \(identity): signed out and server-pulled data cleared; "
                    + "unsynced local work was kept.")
        }
        try engine.record(identity)
        // Every pass this process runs (the launch pass, the REPL's automatic ones) leaves its last sync and last
        // error in sync-state.json as it ends, so a later run's `status` never shows an error a completed pass
        // cleared (issue 18). Only states this process produced are written.
        let stateFile = SyncStateFile(directory: dataDirectory)
        let passEnds = await app.sync.snapshots()
        Task {
            var last: (Date?, String?) = (nil, nil)
            for await snapshot in passEnds where snapshot.runningStage == nil {
                guard snapshot.lastSyncAt != nil || snapshot.lastError != nil,
                    snapshot.lastSyncAt != last.0 || snapshot.lastError != last.1
                else { continue }
                last = (snapshot.lastSyncAt, snapshot.lastError)
                // The pass's unreadable records come from its report, as `sync` writes them: two writers of
                // one fact, never one clearing what the other just saved (a pass that ran no stage keeps them).
                let stages = snapshot.lastReport?.stages ?? []
                stateFile.save(
                    lastSyncAt: snapshot.lastSyncAt ?? stateFile.load().lastSyncAt, lastError: snapshot.lastError,
                    pullProblems: stages.isEmpty ? nil : stages.flatMap { $0.problems ?? [] })
            }
        }
        app.api.warnings.attach { output.err("warning: \($0)") }  // e.g. a renewed sign-in not saved (issue 15)
        if !options.isBackgroundSync {  // a timer's pass stays silent (issue 15)
            app.notificationSinks.attach(NotificationBanner(output: output))  // new notifications: a stderr banner
            if interactive { AutomaticPassLine.watch(app.sync, output: output) }  // what the silent pass sent
        }
        await app.launch(background: interactive)
        return engine
    }

    /// Switches to another server while running (the `server` command): best-effort logout on the old one,
    /// sign out, clear server-pulled data, record and select the new one (starting the embedded server when
    /// needed). Unsynced local work is kept.
    /// - Throws: the failing module's coded error (a store or server failure), or ``ShellError``.
    func switchServer(to identity: ServerIdentity) async throws {
        await app.api.logout()
        try await forgetServer()
        var url = identity.description
        if identity == .embedded {
            let running = state.withLock { $0.embedded }
            let server = try running ?? EmbeddedServer.start(dataDirectory: dataDirectory, adminFaults: adminFaults)
            state.withLock { $0.embedded = server }
            url = server.baseURL.absoluteString
        }
        try selection.save(url)
        identityCell.value.withLock { $0 = identity }
        try record(identity)
        do { try await app.recordOutboxSession() } catch { throw ShellError.failed("\(error)") }
    }

    private func forgetServer() async throws {
        await app.api.signOutLocally()
        try app.clearServerPulledData()
    }

    private func record(_ identity: ServerIdentity) throws {
        guard dataDirectory.readText("server") != identity.description else { return }
        try dataDirectory.writeText("server", identity.description)
    }

    /// `JQC_NOTIFICATION_POLL_SECONDS` (Docs/SHELL.md): the notification poll's cadence in an interactive session,
    /// for demos and the pseudo-terminal tests; `nil` (the seed's 60 s) when unset or not a number from 0.1 to 3600.
    static func notificationPollSeconds(_ environment: [String: String]) -> Double? {
        guard let text = environment["JQC_NOTIFICATION_POLL_SECONDS"], let seconds = Double(text),
            (0.1...3600).contains(seconds)
        else { return nil }
        return seconds
    }

    /// Stops background work and the embedded server.
    func shutdown() async {
        await app.shutdown()
        state.withLock { $0.embedded }?.stop()
    }
}
