import Foundation
import JQCKit
import JQCNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// `login`, `logout`, `whoami`, `server` (SHELL.md; seed 001 §5, §21).
enum SessionCommands {
    static let commands: [Command] = [login, logout, whoami, server]

    static func userData(_ user: User?) -> [String: JSONValue] { ViewJSON.object(UserView(user)) }

    /// Prompts for a password on the terminal (echo off, `getpass`), after dropping whatever was typed ahead of
    /// the prompt: a password typed too early is never run as the next command nor kept in the history.
    /// - Returns: the typed password, or `nil` when the terminal could not be read.
    static func askPassword(_ username: String, _ context: CommandContext) -> String? {
        if context.discardTypeahead() > 0 {
            context.output.err(
                context.output.yellow("note: ")
                    + "what was typed before the password prompt was dropped; type the password now.")
        }
        return getpass("Password for \(username): ").map { String(cString: $0) }
    }

    static let login = Command(
        "login",
        arguments: [
            .positional("USER", help: "your user name"),
            .option("password", "P", help: "the password (else $JQC_PASSWORD, else a prompt)"),
        ],
        summary: "Sign in (prompts for the password on a terminal).",
        help: "The password comes from --password, else $JQC_PASSWORD, else a prompt.\nExample: login alex"
    ) { context, arguments in
        let usage = arguments.usage
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one USER. Usage: \(usage)") }
        let username = arguments.positionals[0]
        let password: String
        if let given = arguments.option("password") {
            password = given
        } else if let environment = ShellEnvironment.variables["JQC_PASSWORD"] {
            password = environment
        } else if context.output.stdinIsTerminal, let typed = Self.askPassword(username, context) {
            password = typed
        } else {
            throw ShellError.usage("No password: give --password P or set JQC_PASSWORD. Usage: \(usage)")
        }
        let engine = try await context.engine()
        let user = try await engine.app.api.login(username: username, password: password)
        // Another inspector's open draft is not opened for this one (issue 20): it stays theirs, read-only.
        if let current = context.dataDirectory.readText("current"),
            let draft = try? engine.app.inspections.inspection(localID: current),
            await AuthorshipSummary.otherAuthor(draft.outbox.author, engine.app) != nil
        {
            context.dataDirectory.remove("current")
        }
        if engine.background {
            let sync = engine.app.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
        return CommandOutput(
            "Signed in as \(Cell.shown(user.displayName)) (\(Cell.shown(user.role.rawValue))).", data: userData(user))
    }

    static let logout = Command(
        "logout", summary: "Sign out; server-pulled data is cleared, unsynced work is kept."
    ) { context, _ in
        let engine = try await context.engine()
        let work = (try? await engine.app.unsyncedWork()) ?? []  // counted for the inspector signing out (issue 20)
        await engine.app.api.logout()
        try engine.app.clearServerPulledData()
        let kept = AuthorshipSummary.keptSentence(work).map { " \($0)" } ?? ""
        return CommandOutput(
            "Signed out.\(kept)",
            data: [
                "signed_in": false, "kept": AuthorshipSummary.json(work),
                "kept_count": .int(Int64(work.map(\.count).reduce(0, +))),
            ])
    }

    static let whoami = Command(
        "whoami", summary: "Who is signed in (works offline from the stored identity)."
    ) { context, _ in
        let engine = try await context.engine()
        let user = await engine.app.api.currentUser
        let text =
            user.map { "\(Cell.shown($0.displayName)) (\(Cell.shown($0.username)), \(Cell.shown($0.role.rawValue)))" }
            ?? "Not signed in."
        return CommandOutput(text, data: userData(user))
    }

    static let server = Command(
        "server",
        arguments: [
            .positional(
                "embedded|primary|secondary|URL", .choice(["embedded", "primary", "secondary"]), optional: true,
                help: "the server to switch to"),
            .flag("yes", help: "confirm the switch (it signs you out)"),
        ],
        summary: "Show the server, or switch (signs out and clears server-pulled data; needs --yes).",
        help: "Unsynced local work is kept across a switch.\nExample: server secondary --yes"
    ) { context, arguments in
        let usage = arguments.usage
        let engine = try await context.engine()
        guard let target = arguments.positionals.first else {
            return CommandOutput(
                "\(engine.identity) (\(engine.baseURL.absoluteString))",
                data: ["server": .string(engine.identity.description), "url": .string(engine.baseURL.absoluteString)])
        }
        guard arguments.positionals.count == 1, let identity = ServerIdentity(text: target) else {
            throw ShellError.usage(
                "'\(target)' is not a server: give embedded, primary, secondary or an http(s) URL. Usage: \(usage)")
        }
        if identity == engine.identity {
            return CommandOutput(
                "Already on \(identity).",
                data: [
                    "server": .string(identity.description),
                    "url": .string(engine.baseURL.absoluteString), "switched": false,
                ])
        }
        let work = (try? await engine.app.unsyncedWork()) ?? []  // what stays on this device (issue 20)
        let kept = AuthorshipSummary.keptSentence(work).map { " \($0)" } ?? ""
        guard arguments.has("yes") else {
            throw ShellError(
                .confirmationNeeded,
                "Switching to \(identity) signs you out and clears server-pulled data (unsynced work is kept).\(kept) "
                    + "Run 'server \(target) --yes' to confirm.")
        }
        let previous = engine.identity
        try await engine.switchServer(to: identity)
        return CommandOutput(
            "Switched from \(previous) to \(identity); signed out. Log in again.\(kept)",
            data: [
                "server": .string(identity.description), "url": .string(engine.baseURL.absoluteString),
                "switched": true,
            ])
    }
}
