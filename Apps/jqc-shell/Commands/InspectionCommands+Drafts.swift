import Foundation
import JQCKit

/// `drafts [--all]`: a shared device keeps each inspector's drafts; the signed-in inspector sees theirs, `--all`
/// every author's with the others' read-only ([authorship], issue 20; SHELL.md).
///
/// It reads the drafts' list lines (`InspectionService.listings`: no answers, no pinned schema) and whom
/// the device acts for once, not once per draft (issue 17: `drafts` on a 100,000-inspection store).
extension InspectionCommands {
    static let drafts = Command(
        "drafts",
        arguments: [.flag("all", help: "every inspector's drafts on this device (the others' are read-only)")],
        summary: "Your local drafts with their badge (--all: every inspector's; the others' are read-only).",
        help: "A shared device keeps each inspector's drafts; by default you see only yours (issue 20).\n"
            + "Example: drafts --all"
    ) { context, arguments in
        let engine = try await context.engine()
        let every = try perform { try engine.app.inspections.listings(draftsOnly: true) }
        let identity = await engine.app.currentOutboxIdentity()
        var authors: [String: String] = [:]  // local id → another inspector's name
        for draft in every {
            authors[draft.localID] = AuthorshipSummary.otherAuthor(draft.outbox.author, identity: identity)
        }
        let list = arguments.has("all") ? every : every.filter { authors[$0.localID] == nil }
        let hidden = every.count - list.count
        var lines = list.map { draft in line(draft) + (authors[draft.localID].map { "  (\($0)'s — read-only)" } ?? "") }
        if lines.isEmpty { lines = ["No drafts."] }
        if hidden > 0 { lines.append("\(hidden) draft(s) of other inspectors on this device: drafts --all") }
        let json = list.map { draft -> JSONValue in
            guard case .object(var object) = summary(draft) else { return summary(draft) }
            object["author"] = draft.outbox.author.username.map(JSONValue.string) ?? .null
            object["read_only"] = .bool(authors[draft.localID] != nil)
            return .object(object)
        }
        return CommandOutput(
            lines.joined(separator: "\n"),
            data: [
                "drafts": .array(json), "phase": .string(list.isEmpty ? "empty" : "content"),
                "others_hidden": .int(Int64(hidden)),
            ])
    }
}
