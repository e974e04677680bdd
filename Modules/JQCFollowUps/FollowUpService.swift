import Foundation
import JQCFacilities
import JQCForms
import JQCInspections
import JQCKit
import JQCNetwork
import JQCScheduling
import JQCStorage

/// A re-inspection's prefill (seed 001 §15 "Parent pre-fill — two sources", rule 79): the parent's answers
/// from (1) the local inspection with that server id when it holds values, else (2) the snapshot cached on
/// the follow-up request; `rating`, `pass_fail`, `image` and `signature` excluded (JQCForms
/// `ReinspectionPrefill`); nothing copied without the template's schema.
public struct ReinspectionPrefiller: Sendable {
    private let inspections: InspectionStore
    private let followUps: FollowUpStore
    private let reference: ReferenceStore

    /// A prefiller over the local inspections, the follow-up cache and the reference cache (schemas).
    public init(inspections: InspectionStore, followUps: FollowUpStore, reference: ReferenceStore) {
        self.inspections = inspections
        self.followUps = followUps
        self.reference = reference
    }

    /// The prefill for a parent known by its server id.
    /// - Throws: `DatabaseError`.
    public func prefill(parentServerID: Int, templateID: Int) throws -> ParentPrefill {
        let localID = try inspections.queue.read { db in try inspections.localID(db, serverID: parentServerID) }
        let local = try localID.flatMap { try inspections.inspection(localID: $0) }
        return try prefill(local: local, parentServerID: parentServerID, templateID: templateID)
    }

    /// The prefill from a local parent (when given) else the cached snapshot of `parentServerID`.
    /// - Throws: `DatabaseError`.
    public func prefill(local: Inspection?, parentServerID: Int?, templateID: Int) throws -> ParentPrefill {
        let snapshot = try parentServerID.flatMap { try followUps.request(serverID: $0)?.parentFormData }
        return try prefill(local: local, snapshot: snapshot, templateID: templateID)
    }

    /// The prefill from a local parent holding values, else from `snapshot` (a follow-up request's, or a
    /// history response's own answers), filtered on the template's cached schema.
    /// - Throws: `DatabaseError`.
    public func prefill(local: Inspection?, snapshot: [String: JSONValue]?, templateID: Int) throws -> ParentPrefill {
        var source: [String: JSONValue] = [:]
        if let local, !local.formData.isEmpty {
            source = local.formData
        } else if let snapshot {
            source = snapshot
        }
        let schema = try reference.template(id: templateID).map { FormSchema(json: $0.formSchema) }
        return ParentPrefill(
            localParentID: local?.localID, answers: ReinspectionPrefill.answers(fromParent: source, schema: schema))
    }
}

/// Follow-up requests (seed 001 §8 step 6, §15, rules 15, 78, 79): the pulled list, and starting a linked,
/// prefilled re-inspection.
public final class FollowUpService: Sendable {
    /// `GET /api/v1/inspections` with `follow_up_required=true&limit=200` (CONTRACT.md).
    public static let listPath = "/api/v1/inspections"
    /// The request's `limit`: a reply this long may be cut, so nothing is deleted after it.
    public static let limit = 200

    /// The cache.
    public let store: FollowUpStore
    /// The prefill resolver.
    public let prefiller: ReinspectionPrefiller
    private let inspections: InspectionStore
    private let schedules: SchedulingStore
    private let api: APIClient
    private let logger: Logger

    /// A service; `logger` is where an unreadable follow-up request is logged with its JSON path.
    public init(
        store: FollowUpStore, prefiller: ReinspectionPrefiller, inspections: InspectionStore,
        schedules: SchedulingStore, api: APIClient, logger: Logger = .disabled
    ) {
        self.logger = logger.labeled("follow-ups")
        self.store = store
        self.prefiller = prefiller
        self.inspections = inspections
        self.schedules = schedules
        self.api = api
    }

    /// Pulls the outstanding follow-ups and applies them (upsert, delete absent, mirror the flag).
    /// - Returns: the number of requests received.
    /// - Throws: `APIError` (or `SyncStopError`) and `DatabaseError`.
    @discardableResult
    public func pull() async throws -> Int { try await pullList().received }

    /// ``pull()`` with the unreadable requests: each fails alone (a sentence naming its JSON path, logged), and a
    /// reply with any unreadable item deletes nothing and clears no flag, as a reply cut at its limit (issue 21).
    ///
    /// Conditional (issue 17): the request carries the ETag of the reply last applied; on a `304` that reply, kept
    /// with it, is applied again exactly as if the server had sent it (the mirror onto local inspections and the
    /// clearing of flags depend on local state that changes between pulls), saving the transfer. A reply with an
    /// unreadable item keeps no ETag.
    /// - Returns: requests received and applied, and one sentence per unreadable one.
    /// - Throws: `APIError` (or `SyncStopError`) and `DatabaseError`.
    public func pullList() async throws -> (received: Int, problems: [String]) {
        do {
            let query = [
                URLQueryItem(name: "follow_up_required", value: "true"),
                URLQueryItem(name: "limit", value: String(Self.limit)),
            ]
            let pulled = try await api.getKeptList(
                Self.listPath, query: query, kept: try store.pullCondition(), empty: .null)
            let (reply, condition) = (pulled.reply, pulled.condition)
            guard let items = reply["inspections"] else {
                throw APIError.undecodable("data.inspections: the member is missing")
            }
            let list = try DecodedList<FollowUpRequest>.decode(items, at: ReplyPath([.key("inspections")])) {
                element, path in try FollowUpRequest(reply: element, at: path)
            }
            for failure in list.failures { logger.warning("a follow-up request could not be read: \(failure.reason)") }
            let complete = (items.arrayValue?.count ?? 0) < Self.limit && list.failures.isEmpty
            try store.apply(list.items, complete: complete, condition: list.failures.isEmpty ? condition : nil)
            try store.recordRefresh(error: nil)
            return (list.items.count, list.problems("follow-ups"))
        } catch {
            try? store.recordRefresh(error: (error as? APIError)?.message ?? "\(error)")
            throw error
        }
    }

    /// ``followUps()`` with its phase (JQCKit `Loaded`), the last failure as the stale reason.
    /// - Throws: ``FollowUpsError`` `storage`.
    public func load() throws -> Loaded<[FollowUpRequest]> {
        let rows = try followUps()
        let state = try wrap { try store.refreshState() }
        let phase = LoadPhase.of(
            hasContent: !rows.isEmpty, isLoading: false, hasLoaded: state.attempted, failed: state.lastError != nil)
        return Loaded(value: rows, phase: phase, staleReason: phase == .content ? state.lastError : nil)
    }

    /// The visible follow-up requests, as values.
    /// - Throws: ``FollowUpsError`` `storage`.
    public func followUps() throws -> [FollowUpRequest] {
        try wrap { try store.all() }
    }

    /// What to start for a re-inspection of `parent` (SHELL.md `start --follow-up PARENT_ID`): a parent's
    /// server id (digits) — a cached follow-up request or a local inspection with that server id — or the
    /// local id of a local completed inspection. Template, facility and the parent links come from the
    /// parent; the answers are prefilled (§15); an active follow-up schedule planned for that parent is
    /// linked too (`scheduled_inspection_id`).
    /// - Parameters:
    ///   - parent: the parent's server id (digits) or a local completed inspection's local id.
    ///   - areaID: an explicit area, or `nil`.
    /// - Throws: ``FollowUpsError`` (`notFound`, `notCompleted`, `storage`).
    public func start(parent: String, areaID: Int? = nil) throws -> StartRequest {
        try wrap {
            var local: Inspection?
            var serverID: Int?
            if let number = Int(parent) {
                serverID = number
                let localID = try inspections.queue.read { db in try inspections.localID(db, serverID: number) }
                local = try localID.flatMap { try inspections.inspection(localID: $0) }
            } else {
                local = try inspections.inspection(localID: parent)
                serverID = local?.serverID
            }
            let request = try serverID.flatMap { try store.request(serverID: $0) }
            if let local, local.status != .completed {
                throw FollowUpsError(
                    .notCompleted,
                    "The inspection \(parent) is still a draft; only a completed inspection can be re-inspected.")
            }
            guard let templateID = local?.templateID ?? request?.templateID,
                let facilityID = local?.facilityID ?? request?.facilityID
            else {
                throw FollowUpsError(
                    .notFound,
                    "There is no follow-up request or completed inspection \(parent) on this device; "
                        + "run 'sync' and pick one from 'follow-ups'.")
            }
            let prefill = try prefiller.prefill(local: local, parentServerID: serverID, templateID: templateID)
            let planned = try serverID.flatMap { try schedules.followUpSchedules(parentInspectionID: $0).first }
            return StartRequest(
                templateID: templateID, facilityID: facilityID, areaID: areaID,
                parentInspectionLocalID: local?.localID, parentInspectionServerID: serverID,
                scheduledInspectionServerID: planned?.serverID, initialAnswers: prefill.answers)
        }
    }

    /// A re-inspection of a parent that is neither on this device nor a follow-up request — history's
    /// "Re-inspect Now" (seed 001 §15): online, `GET /inspections/<id>` supplies template, facility and the
    /// response's own answers as the prefill snapshot. A parent found locally or cached is started
    /// offline, exactly as ``start(parent:areaID:)``.
    /// - Throws: ``FollowUpsError`` (`notFound` when the server has no such inspection for you,
    ///   `unavailable` when it cannot be asked, `notCompleted`, `storage`).
    public func start(parentServerID: Int, areaID: Int? = nil) async throws -> StartRequest {
        do {
            return try start(parent: String(parentServerID), areaID: areaID)
        } catch let error as FollowUpsError where error.kind == .notFound {
            let reply: JSONValue
            do {
                reply = try await api.getJSON("\(Self.listPath)/\(parentServerID)")
            } catch let failure as APIError {
                if case .rejected(404, _) = failure { throw error }
                throw FollowUpsError(
                    .unavailable,
                    "The inspection \(parentServerID) is not on this device and the server could not be asked: "
                        + failure.message, cause: failure)
            }
            guard let parent = FollowUpRequest(json: reply) else {
                throw FollowUpsError(
                    .unavailable, "The server's reply for inspection \(parentServerID) was unreadable.")
            }
            if reply["status"]?.stringValue != "completed" {
                throw FollowUpsError(
                    .notCompleted,
                    "The inspection \(parentServerID) is not completed; "
                        + "only a completed inspection can be re-inspected.")
            }
            return try wrap {
                let prefill = try prefiller.prefill(
                    local: nil, snapshot: parent.parentFormData, templateID: parent.templateID)
                let planned = try schedules.followUpSchedules(parentInspectionID: parentServerID).first
                return StartRequest(
                    templateID: parent.templateID, facilityID: parent.facilityID, areaID: areaID,
                    parentInspectionServerID: parentServerID, scheduledInspectionServerID: planned?.serverID,
                    initialAnswers: prefill.answers)
            }
        }
    }

    /// Erases the cache (rule 42).
    public var clearServerPulledData: @Sendable () throws -> Void {
        let store = self.store
        return { try store.clearCache() }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw FollowUpsError(.storage, "The local store failed: \(error.description)", cause: error)
        }
    }
}
