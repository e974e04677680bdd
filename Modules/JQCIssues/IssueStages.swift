import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync

/// The `issues` push stage (after photos and inspections; seed 001 §8 step 3, §17 "Multi-photo issue submission
/// sequence"). Per pending issue, oldest first:
/// 1. rule 11 — flagged in an inspection that failed: the issue is failed with a sentence naming it; an
///    inspection not yet on the server (draft or pending): the issue waits, untouched;
/// 2. its photos must be settled (uploaded and appended, or it waits);
/// 3. `POST /api/v1/issues` with `local_id`, `inspection_id` (the parent's server id), `photo_path` = the
///    first server photo; the server id is stored at once;
/// 4. `PATCH /api/v1/issues/<id>/photos {"result_photos": [the rest]}` (the server stores them as
///    `mobile_photo_paths`, replacing, so a retry cannot duplicate);
/// 5. synced, `photoLocalPaths` cleared (rule 43), the local files released.
/// Waiting items say why (their inspection, their photos); errors follow the outbox policy per item
/// (FEATURES.md item 3), applied by JQCSync's ``/JQCSync/OutboxDriver``.
public struct IssuePushStage: SyncStage {
    /// `issues`.
    public let name = "issues"
    /// Push.
    public let direction = SyncDirection.push
    /// After its photos and its inspection (rules 11, 12).
    public let constraints: [StageConstraint] = [.after("photos"), .after("inspections")]
    /// `false`.
    public let isBestEffort = false
    private let service: IssueService

    /// The stage over `service`.
    public init(service: IssueService) { self.service = service }

    /// Sends the pending issues through JQCSync's ``/JQCSync/OutboxDriver``.
    /// - Throws: ``/JQCSync/SyncStopError`` to stop the pass; `DatabaseError`.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        var report = try await OutboxDriver.push(IssueOutboxFeed(service: service), pass: pass).report
        report.name = name
        return report
    }

    /// The POST body (CONTRACT.md `POST /issues`, literal snake_case keys, rule 65): `local_id`,
    /// `inspection_id` when known, `facility_id`, `area_id` when set (rule 51), `severity`, `description`,
    /// `photo_path` = the first server photo only.
    public static func payload(for issue: Issue, inspectionServerID: Int?) -> JSONValue {
        var body: [String: JSONValue] = [
            "local_id": .string(issue.localID), "facility_id": .int(Int64(issue.facilityID)),
            "severity": .string(issue.severity.rawValue), "description": .string(issue.description),
        ]
        if let inspectionServerID { body["inspection_id"] = .int(Int64(inspectionServerID)) }
        if let area = issue.areaID { body["area_id"] = .int(Int64(area)) }
        if let first = issue.photoServerPaths.first { body["photo_path"] = .string(first) }
        return .object(body)
    }
}

/// The queued-edits stage (after the issues push): sends each queued status or handler change
/// (`PATCH /api/v1/issues/<id>/status` `{status}`, `…/handler` `{handler_type, …}`; literal snake_case keys,
/// rule 65) once its issue has a server id, then mirrors the server's reply. A refused edit is dropped with a
/// sentence on the issue (the next pull restores the server's value); a transient failure keeps it queued.
public struct IssueEditsStage: SyncStage {
    /// `issue edits`.
    public let name = "issue edits"
    /// Push.
    public let direction = SyncDirection.push
    /// After the issues push (an edit waits for its issue's server id).
    public let constraints: [StageConstraint] = [.after("issues")]
    /// `false`.
    public let isBestEffort = false
    private let service: IssueService

    /// The stage over `service`.
    public init(service: IssueService) { self.service = service }

    /// Sends the queued edits through JQCSync's ``/JQCSync/OutboxDriver``.
    /// - Throws: ``/JQCSync/SyncStopError`` to stop the pass; `DatabaseError`.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        var report = try await OutboxDriver.push(IssueEditsFeed(service: service), pass: pass).report
        report.name = name
        return report
    }
}

/// The `assigned issues` pull stage (after the reference pull; seed 001 §8 step 5): `GET /api/v1/issues`
/// (assigned to or reported by the inspector), upserted by server id (set explicitly), every field kept,
/// evidence = `photo_path + mobile_photo_paths` (rule 33); a refresh never overwrites an edit still queued.
/// The deletion pass always runs, even on an empty reply (rule 30), and deletes only server-pulled records:
/// synced AND `inspectionLocalId == ""` AND not in the reply (rule 31).
public struct AssignedIssuesPullStage: SyncStage {
    /// `assigned issues`.
    public let name = "assigned issues"
    /// Pull.
    public let direction = SyncDirection.pull
    /// After the reference pull (seed 001 §8: step 5 after step 4).
    public let constraints: [StageConstraint] = [.after("reference")]
    /// `false` (as the seed's pipeline; a failure is reported and later stages still see it).
    public let isBestEffort = false
    private let service: IssueService

    /// The stage over `service`.
    public init(service: IssueService) { self.service = service }

    /// Pulls and reconciles.
    /// - Throws: `APIError`, ``IssuesError`` when the reply is not a list, `DatabaseError`.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        let result = try await service.pullAssigned(now: pass.clock.now)
        var report = StageReport.pull(pulled: result.upserted, problems: result.problems)
        report.name = name
        return report
    }
}

/// What one assigned-issues pull did.
public struct AssignedIssuesPull: Sendable, Hashable {
    /// Issues inserted or updated.
    public var upserted: Int
    /// Local ids of server-pulled issues deleted because the server no longer returns them.
    public var deleted: [String]
    /// One sentence per issue in the reply that could not be read, naming its JSON path (each counted as failed).
    public var problems: [String] = []
}

extension IssueService {
    /// One assigned-issues pull (see ``AssignedIssuesPullStage``), in one transaction.
    ///
    /// Conditional (issue 17): the request carries the ETag of the list last applied (`If-None-Match`); on a `304`
    /// that list, kept with its ETag, is reconciled again exactly as if the server had sent it — the reconcile
    /// depends on local state that changes between pulls (queued status and handler edits, unsynced photos), so
    /// the 304 saves the transfer and keeps the outcome. A list with an unreadable issue keeps no ETag.
    /// - Returns: the counts (nothing written when a logout cleared the data meanwhile).
    /// - Throws: `APIError`, ``IssuesError`` `server` when the reply is not a list, `DatabaseError`.
    @discardableResult
    public func pullAssigned(now: Date) async throws -> AssignedIssuesPull {
        let started = generation.withLock { $0 }
        // The list to reconcile, its ETag, and its JSON text to keep (the kept text itself after a 304).
        let pulled = try await api.getKeptList("/api/v1/issues", kept: try store.pullCondition(), empty: .array([]))
        let (reply, condition) = (pulled.reply, pulled.condition)
        let list: DecodedList<APIIssue>
        do {
            list = try DecodedList<APIIssue>.decode(reply, APIIssue.decode)
        } catch {
            throw IssuesError(
                .server, "The server's issue list was not a list; issues will be fetched again on the next sync.")
        }
        for failure in list.failures { logger.warning("an issue in the reply could not be read: \(failure.reason)") }
        if !list.everyIDReadable {
            logger.warning("an issue in the reply has no readable id; no cached issue is deleted by this pull")
        }
        let decoded = list.items
        let store = self.store
        let makeLocalID = { UUID().uuidString.lowercased() }
        let result = try store.queue.write { db -> AssignedIssuesPull? in
            guard generation.withLock({ $0 }) == started else { return nil }
            for server in decoded {
                var existing = try store.issue(db, serverID: server.id)
                if existing == nil, let localID = server.localId, !localID.isEmpty {
                    existing = try store.issue(db, localID: localID).flatMap { $0.serverID == nil ? $0 : nil }
                }
                let target: Issue
                if let existing {
                    target = existing
                } else {
                    target = Issue(
                        localID: makeLocalID(), serverID: server.id, inspectionLocalID: "",
                        inspectionServerID: server.inspectionId, facilityID: server.facilityId ?? 0,
                        facilityName: server.facilityName, areaID: server.areaId, areaName: server.areaName,
                        severity: IssueSeverity(rawValue: server.severity ?? ""), description: server.description ?? "",
                        status: server.status.map(IssueStatus.init(rawValue:)) ?? .open, photoLocalPaths: [],
                        photoServerPaths: [],
                        photoServerURLs: [], resultPhotos: [], outbox: OutboxState(status: .synced), createdAt: now,
                        updatedAt: now)
                    try store.insert(db, target)
                }
                let queued = Set(try store.queuedEdits(db, localID: target.localID).map(\.kind))
                try store.applyServerFields(
                    db, localID: target.localID, server, keepStatus: queued.contains(.status),
                    keepHandler: queued.contains(.handler), keepPhotos: target.syncStatus != .synced, at: now)
            }
            // The deletion pass always runs, even when the reply is empty (rule 30); only server-pulled
            // records — synced and not flagged in a local inspection — are candidates (rule 31), and only those
            // the reply proves absent: an unreadable item with a readable id is present (issue 21).
            var deleted: [String] = []
            for pulled in try store.serverPulledIDs(db) where list.provesAbsent(pulled.serverID) {
                try store.delete(db, localID: pulled.localID)
                deleted.append(pulled.localID)
            }
            try store.storePullCondition(db, list.failures.isEmpty ? condition : nil)
            return AssignedIssuesPull(upserted: decoded.count, deleted: deleted, problems: list.problems("issues"))
        }
        guard let result else { return AssignedIssuesPull(upserted: 0, deleted: [], problems: []) }
        for localID in result.deleted { _ = try? photos.deletePhotos(for: .issue(localID)) }
        return result
    }

    /// Removes issues left half-built by a crash during `issue new`/`flag` (older than 10 minutes).
    /// - Throws: `DatabaseError`.
    func removeAbandoned(now: Date) throws {
        let ids = try store.queue.write { db in
            try store.deleteAbandoned(db, before: now.addingTimeInterval(-Self.abandonedAge))
        }
        for id in ids {
            logger.warning("removed issue \(id): its creation was interrupted before its photos were attached")
            try photos.deletePhotos(for: .issue(id))
        }
    }
}
