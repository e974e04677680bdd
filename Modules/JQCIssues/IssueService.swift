import Foundation
import JQCFacilities
import JQCInspections
import JQCKit
import JQCNetwork
import JQCPhotos
import JQCStorage
import JQCSync
import Synchronization

/// The issues feature (seed 001 §13, §14; CONTRACT.md "Issues"; issue 8): flagging during an inspection,
/// standalone issues, the local list and detail, status and handler updates (local at once, queued for the
/// server), comments (online only), retry/discard of failed issues, and the three stages — ``IssuePushStage``,
/// ``IssueEditsStage`` and ``AssignedIssuesPullStage``.
public final class IssueService: Sendable {
    /// Photos per standalone issue (seed 001 §14: up to 5).
    public static let maxStandalonePhotos = 5
    /// How long an issue may stay half-built (a crash while its photos were imported) before the push stage
    /// removes it, in seconds.
    static let abandonedAge: Double = 600

    /// The store.
    public let store: IssueStore
    let inspections: InspectionStore
    private let reference: ReferenceStore
    let photos: PhotoService
    let api: APIClient
    let clock: any Clock
    let logger: Logger
    private let makeID: @Sendable () -> String
    /// Bumped by ``clearServerPulledData()``: a pull that started before a logout writes nothing.
    let generation = Mutex<UInt64>(0)
    /// Files of photos deleted with a draft's issues, removed after the deletion committed.
    let doomedFiles = Mutex<[String: [URL]]>([:])

    /// A service.
    /// - Parameters:
    ///   - store: the issues store; `inspections`, `reference` and the photos service share its database.
    ///   - inspections: the local inspections (a flagged issue's parent, rules 11 and 51).
    ///   - reference: the reference cache (a standalone issue's facility and area).
    ///   - photos: imports, uploads and releases the issues' photos.
    ///   - api: the client the stages and the comments go through.
    ///   - clock: the time written on every change.
    ///   - logger: the feature's log (labelled `issues`).
    ///   - makeID: new local ids (a lowercase UUID by default).
    public init(
        store: IssueStore, inspections: InspectionStore, reference: ReferenceStore, photos: PhotoService,
        api: APIClient, clock: any Clock, logger: Logger = .disabled,
        makeID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.inspections = inspections
        self.reference = reference
        self.photos = photos
        self.api = api
        self.clock = clock
        self.logger = logger.labeled("issues")
        self.makeID = makeID
    }

    // MARK: Create

    /// Flags an issue during an inspection (seed 001 §13): facility and area come from the inspection
    /// (rule 51), `inspectionLocalId` is the inspection's; it is submitted only after its inspection
    /// (rule 11). Photos are imported with owner `.issue(localID)`.
    /// - Parameters:
    ///   - inspectionLocalID: the inspection (usually the current draft).
    ///   - severity: `low`, `medium`, `high` or `critical` (any case).
    ///   - description: what is wrong (not blank).
    ///   - photoFiles: JPEGs to attach, in order.
    /// - Returns: the stored issue.
    /// - Throws: ``IssuesError`` (`notFound`, `invalidValue`, `photo`, `storage`); nothing is kept on error.
    public func flag(inspectionLocalID: String, severity: String, description: String, photoFiles: [URL] = [])
        throws -> Issue
    {
        let inspection = try guarded { try inspections.inspection(localID: inspectionLocalID) }
        guard let inspection else {
            throw IssuesError(
                .notFound, "There is no inspection \(inspectionLocalID) on this device; see 'inspections'.")
        }
        return try create(
            inspectionLocalID: inspection.localID, inspectionServerID: inspection.serverID,
            facilityID: inspection.facilityID, facilityName: inspection.facilityName, areaID: inspection.areaID,
            areaName: inspection.areaName, severity: severity, description: description, photoFiles: photoFiles)
    }

    /// Creates a standalone issue (seed 001 §14): the contract → facility cascade over the active cached
    /// facilities (rule 45), an optional area of that facility, up to 5 photos, `inspectionLocalId = ""`
    /// (rule 44).
    /// - Parameters:
    ///   - contractID: the contract chosen first, or `nil`.
    ///   - facilityID: the facility (active, of the contract when one is given).
    ///   - areaID: an area of the facility, or `nil`.
    ///   - severity: `low`, `medium`, `high` or `critical` (any case).
    ///   - description: what is wrong (not blank).
    ///   - photoFiles: JPEGs to attach, in order (at most ``maxStandalonePhotos``).
    /// - Returns: the stored issue.
    /// - Throws: ``IssuesError`` (`unknownFacility`, `invalidValue`, `photo`, `storage`).
    public func createStandalone(
        contractID: Int? = nil, facilityID: Int, areaID: Int? = nil, severity: String, description: String,
        photoFiles: [URL] = []
    ) throws -> Issue {
        guard photoFiles.count <= Self.maxStandalonePhotos else {
            throw IssuesError(
                .photo,
                "A standalone issue takes up to \(Self.maxStandalonePhotos) photos; \(photoFiles.count) were given.")
        }
        let facilities = try guarded { try reference.facilities(activeOnly: true) }
        let areas = try guarded { try reference.areas(facilityID: facilityID) }
        var cascade = StartCascade(facilities: facilities, areas: areas)
        if let contractID { cascade.selectContract(contractID) }
        cascade.selectFacility(facilityID)
        guard let chosen = cascade.facilityID, let facility = facilities.first(where: { $0.id == chosen }) else {
            let offered = cascade.availableFacilities.map { "\($0.id) \($0.name)" }
            throw IssuesError(
                .unknownFacility,
                "The facility \(facilityID) is not one of your active facilities"
                    + (contractID.map { " in contract \($0)" } ?? "") + "; "
                    + (offered.isEmpty
                        ? "run 'sync' to fetch them." : "pick one of: \(offered.joined(separator: ", ")).")
            )
        }
        var areaName: String?
        if let areaID {
            cascade.selectArea(areaID)
            guard cascade.areaID == areaID, let area = areas.first(where: { $0.id == areaID }) else {
                let names = areas.map { "\($0.id) \($0.name)" }
                throw IssuesError(
                    .unknownFacility,
                    "The area \(areaID) is not part of \(facility.name); "
                        + (names.isEmpty
                            ? "this facility has no areas on this device."
                            : "its areas are: \(names.joined(separator: ", ")).")
                )
            }
            areaName = area.name
        }
        return try create(
            inspectionLocalID: "", inspectionServerID: nil, facilityID: facility.id, facilityName: facility.name,
            areaID: areaID, areaName: areaName, severity: severity, description: description, photoFiles: photoFiles)
    }

    private func create(
        inspectionLocalID: String, inspectionServerID: Int?, facilityID: Int, facilityName: String?, areaID: Int?,
        areaName: String?, severity rawSeverity: String, description rawDescription: String, photoFiles: [URL]
    ) throws -> Issue {
        guard let severity = IssueSeverity(known: rawSeverity.lowercased()) else {
            throw IssuesError(
                .invalidValue, "The severity '\(rawSeverity)' is not one of \(IssueSeverity.knownList).")
        }
        let description = rawDescription.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !description.isEmpty else {
            throw IssuesError(.invalidValue, "An issue needs a description of what is wrong.")
        }
        let now = clock.now
        let issue = Issue(
            localID: makeID(), serverID: nil, inspectionLocalID: inspectionLocalID,
            inspectionServerID: inspectionServerID, facilityID: facilityID, facilityName: facilityName, areaID: areaID,
            areaName: areaName, severity: severity, description: description,
            status: .open,
            photoLocalPaths: [], photoServerPaths: [], photoServerURLs: [], resultPhotos: [], outbox: OutboxState(),
            createdAt: now, updatedAt: now)
        try guarded { try store.queue.write { db in try store.insert(db, issue, assembling: !photoFiles.isEmpty) } }
        guard !photoFiles.isEmpty else { return issue }
        do {
            for file in photoFiles {
                do {
                    try photos.importPhoto(from: file, owner: .issue(issue.localID), capturedAt: now) { db, photo in
                        try self.store.appendLocalPhoto(db, localID: issue.localID, path: photo.localFile.path)
                    }
                } catch let error as PhotoError {
                    throw IssuesError(
                        error.kind == .storage ? .storage : .photo,
                        (error.kind == .refused
                            ? "The photo \(file.path) was refused: \(error.message)" : error.message)
                            + " The issue was not created.", cause: error)
                }
            }
            try guarded { try store.queue.write { db in try store.finishAssembling(db, localID: issue.localID) } }
        } catch {
            _ = try? photos.deletePhotos(for: .issue(issue.localID))
            try? store.queue.write { db in try store.delete(db, localID: issue.localID) }
            throw error
        }
        return try self.issue(id: issue.localID)
    }

    // MARK: Read

    /// The local issues, newest first; resolved ones only with `includeResolved` (rule 48, filtered in Swift).
    /// - Throws: ``IssuesError`` `storage`.
    public func list(includeResolved: Bool = false) throws -> [Issue] {
        let all = try guarded { try store.all() }
        return includeResolved ? all : all.filter { $0.status != .resolved }
    }

    /// One issue by server id (digits) or local id.
    /// - Throws: ``IssuesError`` `notFound` with a sentence, or `storage`.
    public func issue(id: String) throws -> Issue {
        let found = try guarded {
            try store.queue.read { db -> Issue? in
                if let serverID = Int(id), let byServer = try store.issue(db, serverID: serverID) { return byServer }
                return try store.issue(db, localID: id)
            }
        }
        guard let found else {
            throw IssuesError(.notFound, "There is no issue \(id) on this device; see 'issues --all'.")
        }
        return found
    }

    /// The photos on this device for an issue (its pending, uploaded or failed imports), oldest first.
    /// - Throws: ``IssuesError`` `storage`.
    public func localPhotos(of issue: Issue) throws -> [PendingPhoto] {
        try guarded { try photos.photos(for: .issue(issue.localID)) }
    }

    /// Which photo section the issue shows (rule 34): local photos until synced, then server photos only.
    public func displaySection(of issue: Issue) -> PhotoDisplaySection {
        PhotoDisplaySection.forRecord(syncStatus: issue.syncStatus)
    }

    // MARK: Status and handler (local at once, queued for the server)

    /// Sets the status locally at once and queues `PATCH /issues/<id>/status` (sent by the queued-edits
    /// stage once the issue has a server id; a later pull never overwrites it while queued).
    /// - Parameters:
    ///   - id: the issue's local id, or its server id.
    ///   - rawStatus: `open`, `in_progress` or `resolved` (any case; `in-progress` too).
    /// - Returns: the issue as stored.
    /// - Throws: ``IssuesError`` (`notFound`, `invalidValue`, `storage`).
    public func updateStatus(id: String, status rawStatus: String) throws -> Issue {
        guard let status = IssueStatus(known: rawStatus.lowercased().replacingOccurrences(of: "-", with: "_"))
        else {
            throw IssuesError(.invalidValue, "The status '\(rawStatus)' is not one of \(IssueStatus.knownList).")
        }
        let issue = try self.issue(id: id)
        try guarded {
            try store.queue.write { db in
                let now = clock.now
                try store.setStatus(db, localID: issue.localID, status: status.rawValue, at: now)
                try store.queueEdit(
                    db, localID: issue.localID, kind: .status, body: ["status": .string(status.rawValue)],
                    at: now)
            }
        }
        return try self.issue(id: issue.localID)
    }

    /// Sets "Handled By" locally at once and queues `PATCH /issues/<id>/handler` (body keys literal
    /// snake_case, rule 65).
    /// - Returns: the issue as stored.
    /// - Throws: ``IssuesError`` (`notFound`, `invalidValue`, `storage`).
    public func updateHandler(id: String, _ update: IssueHandlerUpdate) throws -> Issue {
        guard update.type.isKnown else {
            throw IssuesError(
                .invalidValue, "The handler type '\(update.type)' is not one of \(IssueHandlerType.knownList).")
        }
        let issue = try self.issue(id: id)
        try guarded {
            try store.queue.write { db in
                let now = clock.now
                try store.setHandler(db, localID: issue.localID, update, at: now)
                try store.queueEdit(db, localID: issue.localID, kind: .handler, body: update.body, at: now)
            }
        }
        return try self.issue(id: issue.localID)
    }

    // MARK: Retry and discard

    /// Puts a failed issue back in the outbox (the inspector's retry). An issue failed because its
    /// inspection failed fails again until the inspection is retried (rule 11).
    /// - Returns: the issue as stored.
    /// - Throws: ``IssuesError`` (`notFound`, `invalidState` when it is not failed).
    public func retry(id: String) throws -> Issue {
        let issue = try self.issue(id: id)
        guard try guarded({ try store.retryFailed(localID: issue.localID, at: clock.now) }) else {
            throw IssuesError(
                .invalidState,
                "The issue \(id) is \(issue.syncStatus.rawValue), not failed; only a failed issue can be retried.")
        }
        return try self.issue(id: issue.localID)
    }

    /// Discards a failed issue with its photos (the inspector's choice; never done because of an error).
    /// - Throws: ``IssuesError`` (`notFound`, `invalidState` when it is not failed).
    public func discard(id: String) throws {
        let issue = try self.issue(id: id)
        guard issue.syncStatus == .failed else {
            throw IssuesError(
                .invalidState,
                "The issue \(id) is \(issue.syncStatus.rawValue), not failed; only a failed issue can be discarded.")
        }
        let files = try guarded {
            try store.queue.write { db -> [URL] in
                let files = try photos.deletePhotos(for: .issue(issue.localID), in: db)
                try store.delete(db, localID: issue.localID)
                return files
            }
        }
        photos.removeFiles(files)
    }

    // MARK: Comments (online only)

    /// The issue's comments, oldest first (`GET /api/v1/issues/<id>/comments`), online only.
    /// - Throws: ``IssuesError`` — `invalidState` when the issue is not on the server yet, `server` when the
    ///   server cannot be reached (a sentence saying comments are online only) or refuses.
    public func comments(id: String) async throws -> [IssueComment] {
        let serverID = try serverIDForComments(id)
        return try await online { try await api.get([IssueComment].self, path: Self.commentsPath(serverID)) }
    }

    /// Adds a comment (`POST … {body}`) and returns every comment, online only.
    /// - Throws: ``IssuesError`` as ``comments(id:)``, and `invalidValue` for blank text.
    public func addComment(id: String, text: String) async throws -> [IssueComment] {
        let body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !body.isEmpty else { throw IssuesError(.invalidValue, "A comment needs some text.") }
        let serverID = try serverIDForComments(id)
        return try await online {
            try await api.send(
                .post, path: Self.commentsPath(serverID), body: ["body": .string(body)],
                as: [IssueComment].self)
        }
    }

    static func commentsPath(_ serverID: Int) -> String { "/api/v1/issues/\(serverID)/comments" }

    private func serverIDForComments(_ id: String) throws -> Int {
        let issue = try self.issue(id: id)
        guard let serverID = issue.serverID else {
            throw IssuesError(
                .invalidState, "The issue \(id) has not reached the server yet; comments are available once it syncs.")
        }
        return serverID
    }

    private func online<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as APIError {
            switch error {
            case .offline, .airplaneMode, .timeout, .connectionFailed:
                throw IssuesError(.server, "Comments are online only: \(error.message)", cause: error)
            default:
                throw IssuesError(.server, error.message, cause: error)
            }
        }
    }

    // MARK: Server-pulled data (rule 42)

    /// Deletes every issue with a server id (rule 42's boundary `serverId != nil`: pulled issues and the
    /// inspector's synced ones), with their queued edits and photos; unsynced device-created issues stay.
    /// Called on logout and server switch.
    /// - Throws: `DatabaseError`.
    public func clearServerPulledData() throws {
        generation.withLock { $0 &+= 1 }
        for localID in try store.deleteServerKnown() { try photos.deletePhotos(for: .issue(localID)) }
    }

    // MARK: The outbox kind `issues`

    /// Issues not yet synced and not failed.
    /// - Throws: `DatabaseError`.
    public func pendingCount() throws -> Int { try store.pendingCount() }

    /// Failed issues as `{kind: "issue", local_id, reason}`.
    /// - Throws: `DatabaseError`.
    public func failedItems() throws -> [FailedOutboxItem] { try store.failed() }

    // MARK: Helpers

    func guarded<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as IssuesError {
            throw error
        } catch let error as DatabaseError {
            throw IssuesError(.storage, "The local store failed: \(error.description)", cause: error)
        }
    }
}
