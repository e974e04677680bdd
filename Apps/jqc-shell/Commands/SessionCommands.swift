import Foundation
import JQCKit
import JQCNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// `login`, `logout`, `whoami`, `server` (SHELL.md; seed 001 §5, §21).
enum SessionCommands {
    static let commands: [Command] = [login, logout, whoami, server]

    static func userData(_ user: User?) -> [String: JSONValue] {
        [
            "username": user.map { .string($0.username) } ?? .null,
            "display_name": user.map { .string($0.displayName) } ?? .null,
            "role": user.map { .string($0.role.rawValue) } ?? .null,
            "signed_in": .bool(user != nil),
        ]
    }

    static let login = Command(
        "login", usage: "USER [--password P]", summary: "Sign in (prompts for the password on a terminal).",
        help: "The password comes from --password, else $JQC_PASSWORD, else a prompt.\nExample: login alex"
    ) { context, words in
        let usage = "login USER [--password P]"
        let arguments = try ParsedArguments(words, valueOptions: ["password"], usage: usage)
        guard arguments.positionals.count == 1 else { throw ShellError.usage("Give one USER. Usage: \(usage)") }
        let username = arguments.positionals[0]
        let password: String
        if let given = arguments.option("password") {
            password = given
        } else if let environment = ProcessInfo.processInfo.environment["JQC_PASSWORD"] {
            password = environment
        } else if context.output.stdinIsTerminal, let typed = getpass("Password for \(username): ") {
            password = String(cString: typed)
        } else {
            throw ShellError.usage("No password: give --password P or set JQC_PASSWORD. Usage: \(usage)")
        }
        let engine = try await context.engine()
        let user = try await engine.app.api.login(username: username, password: password)
        if engine.background {
            let sync = engine.app.sync
            Task { _ = try? await sync.sync(explicit: false) }
        }
        return CommandOutput("Signed in as \(user.displayName) (\(user.role)).", data: userData(user))
    }

    static let logout = Command(
        "logout", summary: "Sign out; server-pulled data is cleared, unsynced work is kept."
    ) { context, _ in
        let engine = try await context.engine()
        await engine.app.api.logout()
        try engine.app.clearServerPulledData()
        let pending = (try? engine.app.outboxStatus().pending.values.reduce(0, +)) ?? 0
        let kept = pending > 0 ? " \(pending) unsynced item(s) are kept and will sync after the next login." : ""
        return CommandOutput("Signed out.\(kept)", data: ["signed_in": false])
    }

    static let whoami = Command(
        "whoami", summary: "Who is signed in (works offline from the stored identity)."
    ) { context, _ in
        let engine = try await context.engine()
        let user = await engine.app.api.currentUser
        let text = user.map { "\($0.displayName) (\($0.username), \($0.role))" } ?? "Not signed in."
        return CommandOutput(text, data: userData(user))
    }

    static let server = Command(
        "server", usage: "[embedded|primary|secondary|URL] [--yes]",
        summary: "Show the server, or switch (signs out and clears server-pulled data; needs --yes).",
        help: "Unsynced local work is kept across a switch.\nExample: server secondary --yes"
    ) { context, words in
        let usage = "server [embedded|primary|secondary|URL] [--yes]"
        let arguments = try ParsedArguments(words, switches: ["yes"], usage: usage)
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
        guard arguments.has("yes") else {
            throw ShellError(
                .confirmationNeeded,
                "Switching to \(identity) signs you out and clears server-pulled data (unsynced work is kept). "
                    + "Run 'server \(target) --yes' to confirm.")
        }
        let previous = engine.identity
        try await engine.switchServer(to: identity)
        return CommandOutput(
            "Switched from \(previous) to \(identity); signed out. Log in again.",
            data: [
                "server": .string(identity.description), "url": .string(engine.baseURL.absoluteString),
                "switched": true,
            ])
    }
}
