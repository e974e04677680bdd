import Foundation

/// The interactive banner: which server, which data directory, and the demo login (SPEC.md §5).
enum Banner {
    static func text(context: CommandContext) async -> String {
        let output = context.output
        var lines = [output.bold("jqc-shell") + " — JanitorialQC inspector shell"]
        do {
            let engine = try await context.engine()
            switch engine.identity {
            case .embedded:
                lines.append("server: embedded dev server at \(engine.baseURL.absoluteString) (demo data)")
                lines.append("demo login: login alex   (password: inspect-demo)")
            case .remote:
                lines.append("server: \(engine.identity) (\(engine.baseURL.absoluteString))")
            }
            if let user = await engine.app.api.currentUser {
                lines.append("signed in as \(Cell.shown(user.displayName)) (\(Cell.shown(user.role.rawValue)))")
            }
        } catch {
            lines.append(output.yellow("server: not available — \(error)"))
        }
        lines.append("data: \(context.dataDirectory.url.path)")
        lines.append("Type 'help' for commands, Tab to complete, Ctrl-D to quit.")
        return lines.joined(separator: "\n")
    }
}
