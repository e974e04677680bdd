import Foundation
import JQCComposition
import JQCKit
import JQCStorage
import JQCSync

/// Unsynced work on this device that is not the signed-in inspector's, as `status`, `sync`, `logout` and
/// `server` say it ([authorship], issue 20; SHELL.md): "2 items wait for alex", "1 item was made for server
/// primary (by sam)".
enum AuthorshipSummary {
    /// The others' unsynced work now (the signed-in inspector's own excluded).
    static func others(_ app: AppComposition) async throws -> [UnsyncedWork] {
        do { return try await app.unsyncedWork().filter { $0.waitReason != nil } } catch {
            throw ShellError.failed("\(error)")
        }
    }

    /// `waiting: 2 items wait for alex; 1 item was made for server primary (by sam)`, or nothing.
    static func lines(_ others: [UnsyncedWork]) -> [String] {
        others.isEmpty ? [] : ["waiting: " + others.map(\.sentence).joined(separator: "; ")]
    }

    /// JSON `waiting`: `[{username, user_id, server, count, reason}]`.
    static func json(_ others: [UnsyncedWork]) -> JSONValue {
        .array(
            others.map {
                [
                    "username": $0.author.username.map(JSONValue.string) ?? .null,
                    "user_id": $0.author.userID.map { .int($0) } ?? .null,
                    "server": $0.author.server.map(JSONValue.string) ?? .null,
                    "count": .int(Int64($0.count)), "reason": $0.waitReason.map(JSONValue.string) ?? .null,
                ]
            })
    }

    /// The sentence a logout or a server switch says before it goes ahead: the signed-in inspector's own
    /// unsynced items and every other inspector's or server's, and that they all stay on this device.
    static func keptSentence(_ work: [UnsyncedWork]) -> String? {
        guard !work.isEmpty else { return nil }
        let parts = work.map { $0.waitReason == nil ? "\($0.count) unsynced item(s) of yours" : $0.sentence }
        return "This device keeps " + parts.joined(separator: "; ") + " — they stay and sync when their inspector "
            + "signs in on their server."
    }
}

extension AuthorshipSummary {
    /// The author's name when `author` is not the signed-in inspector's (on this server), else `nil`; with
    /// nobody signed in, every item counts as the reader's own.
    static func otherAuthor(_ author: OutboxAuthor, _ app: AppComposition) async -> String? {
        otherAuthor(author, identity: await app.currentOutboxIdentity())
    }

    /// ``otherAuthor(_:_:)`` against an identity read once (`app.currentOutboxIdentity()`), for a list that
    /// asks it of every row (`drafts`): the same answer, without reading the session again per row.
    static func otherAuthor(_ author: OutboxAuthor, identity: OutboxIdentity?) -> String? {
        guard let identity, !identity.owns(author) else { return nil }
        return author.displayName
    }

    /// `--yes` guard for discarding another inspector's item: the refusal names the author.
    /// - Throws: ``ShellError/failed(_:)`` without `--yes`.
    static func confirmDiscard(of what: String, by author: String?, confirmed: Bool, command: String) throws {
        guard let author, !confirmed else { return }
        throw ShellError.failed(
            "\(what) was made by \(author), not by you; discarding it deletes \(author)'s work from this device "
                + "for good. Run '\(command) --yes' to confirm.")
    }
}
