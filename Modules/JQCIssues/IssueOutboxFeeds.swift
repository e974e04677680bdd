import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import Synchronization

/// The issues' outbox as JQCSync's push driver sees it (``IssuePushStage``): pending, fully assembled issues,
/// oldest first; ready once their inspection is on the server (rule 11) and their photos are settled; sent
/// as the POST (with the first photo) and the PATCH of the others; synced with the local photo paths
/// cleared (rule 43) and the files released.
struct IssueOutboxFeed: OutboxFeed {
    let service: IssueService
    /// The parent server ids readiness read for issues it found ready, taken by their send.
    let readyParents = ReadyParents()

    var database: DatabaseQueue { service.store.queue }
    var table: OutboxTable { IssueStore.outbox }

    /// Removes issues a crash left half-built.
    func prepare(_ pass: SyncPass) throws { try service.removeAbandoned(now: pass.clock.now) }

    func pendingItems() throws -> [Issue] { try service.store.pendingSubmissions() }

    /// Rule 11: an issue flagged in an inspection that failed fails with a sentence naming it; one whose
    /// inspection is not on the server yet (a draft or pending) waits; then its photos must be settled.
    func readiness(of issue: Issue) throws -> OutboxReadiness {
        if let parent = try parent(of: issue) {
            if parent.syncStatus == .failed {
                return .failed(
                    "Its inspection \(parent.localID) failed to sync" + (parent.syncError.map { " (\($0))" } ?? "")
                        + "; 'inspection retry \(parent.localID)', then 'issue retry \(issue.localID)' — or "
                        + "'issue discard \(issue.localID)'.")
            }
            guard parent.syncStatus == .synced, parent.serverID != nil else {
                return .waiting(
                    parent.status == .draft
                        ? "waits for inspection \(parent.localID) to be submitted — 'open \(parent.localID)', then 'submit'"
                        : "waits for inspection \(parent.localID) to sync")
            }
            readyParents.remember(parent.serverID, for: issue.localID)
        }
        let reason = try service.store.queue.read { db in
            try service.photos.photoWaitReason(ownerKind: .issue, ownerLocalID: issue.localID, in: db)
        }
        return reason.map(OutboxReadiness.waiting) ?? .ready
    }

    /// POSTs the issue (once: its server id is kept even when its record fails), then PATCHes the photos after
    /// the first (`result_photos`, replacing, so a retry cannot duplicate). With no photo to PATCH, the server
    /// id is kept ahead of the record in the record's own transaction (``keepAnswer(_:answer:pass:in:)``: one
    /// commit per issue, issue 17), else in its own transaction before the PATCH. The parent's server id is
    /// the one readiness just read (not read twice).
    func send(_ issue: Issue, pass: SyncPass) async throws -> IssueSent {
        // Re-read: the issue may have changed since the list was read (its photos' server paths, an edit).
        let current = try service.issue(id: issue.localID)
        let remembered = readyParents.take(current.localID)
        let inspectionServerID = try remembered ?? parent(of: current)?.serverID ?? current.inspectionServerID
        let extras = Array(current.photoServerPaths.dropFirst())
        var serverID = current.serverID
        if serverID == nil {
            let reply = try await service.api.sendJSON(
                .post, path: "/api/v1/issues",
                body: IssuePushStage.payload(for: current, inspectionServerID: inspectionServerID))
            guard let id = reply["id"]?.intValue else {
                throw APIError.undecodable("the created issue has no id")
            }
            serverID = Int(id)
            if !extras.isEmpty {
                try service.store.markCreated(
                    localID: current.localID, serverID: Int(id), inspectionServerID: inspectionServerID,
                    at: pass.clock.now)
            }
        }
        if let serverID, !extras.isEmpty {
            _ = try await service.api.sendJSON(
                .patch, path: "/api/v1/issues/\(serverID)/photos",
                body: ["result_photos": .array(extras.map(JSONValue.string))])
        }
        return IssueSent(serverID: serverID ?? 0, inspectionServerID: inspectionServerID)
    }

    /// The server id and the parent's, ahead of the record and kept when it fails, so the issue is never
    /// POSTed twice (written again when the PATCH case already wrote them).
    func keepAnswer(_ issue: Issue, answer: IssueSent, pass: SyncPass, in db: Database) throws {
        guard answer.serverID != 0 else { return }
        try service.store.markCreated(
            db, localID: issue.localID, serverID: answer.serverID, inspectionServerID: answer.inspectionServerID,
            at: pass.clock.now)
    }

    /// The local photo paths cleared.
    func recordSent(_ issue: Issue, answer: IssueSent, pass: SyncPass, in db: Database) throws {
        try service.store.recordSynced(db, localID: issue.localID)
    }

    func sentCommitted(_ issue: Issue, answer: IssueSent) throws {
        try service.photos.releaseFiles(for: .issue(issue.localID))
    }

    /// The local inspection the issue was flagged in, or `nil` (standalone, server-pulled, or gone).
    /// The parent inspection's status, outbox state and server id (one short read, not the whole row).
    private func parent(of issue: Issue) throws -> InspectionStore.SyncState? {
        guard !issue.inspectionLocalID.isEmpty else { return nil }
        return try service.inspections.syncState(localID: issue.inspectionLocalID)
    }
}

/// The queued status and handler edits as JQCSync's push driver sees them (``IssueEditsStage``): ready once
/// their issue has a server id; sent as `PATCH /api/v1/issues/<id>/<kind>`; on success the reply is mirrored
/// (never over an edit still queued); a refusal leaves its sentence on the issue (the next pull restores
/// the server's value).
struct IssueEditsFeed: OutboxFeed {
    let service: IssueService

    var database: DatabaseQueue { service.store.queue }
    var table: OutboxTable { IssueStore.editsOutbox }

    func pendingItems() throws -> [QueuedIssueEdit] { try service.store.queuedEdits() }

    func readiness(of edit: QueuedIssueEdit) throws -> OutboxReadiness {
        try serverID(of: edit) == nil ? .waiting("waits for its issue to reach the server") : .ready
    }

    func send(_ edit: QueuedIssueEdit, pass: SyncPass) async throws -> JSONValue {
        guard let serverID = try serverID(of: edit) else {
            throw IssuesError(.invalidState, "The issue \(edit.issueLocalID) lost its server id while syncing.")
        }
        return try await service.api.sendJSON(
            .patch, path: "/api/v1/issues/\(serverID)/\(edit.kind.rawValue)", body: edit.body)
    }

    /// Mirrors the server's reply, keeping the local value of any edit still queued (this one is already
    /// off the queue).
    func recordSent(_ edit: QueuedIssueEdit, answer: JSONValue, pass: SyncPass, in db: Database) throws {
        let store = service.store
        guard let decoded = try? APIClient.decode(APIIssue.self, from: answer),
            let issue = try store.issue(db, localID: edit.issueLocalID)
        else { return }
        let remaining = Set(try store.queuedEdits(db, localID: issue.localID).map(\.kind))
        try store.applyServerFields(
            db, localID: issue.localID, decoded, keepStatus: remaining.contains(.status),
            keepHandler: remaining.contains(.handler), keepPhotos: issue.syncStatus != .synced, at: pass.clock.now)
    }

    func recordRefused(_ edit: QueuedIssueEdit, reason: String, in db: Database) throws {
        try service.store.setError(
            db, localID: edit.issueLocalID, "The \(edit.kind.rawValue) change was refused by the server: \(reason)")
    }

    private func serverID(of edit: QueuedIssueEdit) throws -> Int? {
        try service.store.queue.read { db in try service.store.issue(db, localID: edit.issueLocalID)?.serverID }
    }
}

/// What a sent issue leaves for its record: the server's id and the parent's server id it was sent with.
struct IssueSent: Sendable, Hashable {
    /// The issue's server id.
    var serverID: Int
    /// The `inspection_id` sent, when known.
    var inspectionServerID: Int?
}

/// The parent inspections' server ids an issue feed's readiness read, by issue local id, so the send that
/// follows does not read the inspection again (issue 17); one push, one feed.
final class ReadyParents: Sendable {
    private let ids = Mutex<[String: Int]>([:])

    /// Remembers `serverID` (when known) for the issue `localID`.
    func remember(_ serverID: Int?, for localID: String) {
        guard let serverID else { return }
        ids.withLock { $0[localID] = serverID }
    }

    /// The remembered id for `localID`, forgotten.
    func take(_ localID: String) -> Int? {
        ids.withLock { $0.removeValue(forKey: localID) }
    }
}
