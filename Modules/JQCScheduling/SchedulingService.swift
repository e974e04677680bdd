import Foundation
import JQCInspections
import JQCKit
import JQCNetwork
import JQCStorage

/// Scheduled inspections (seed 001 §11 "Scheduled inspections", rules 68–71, 80; CONTRACT.md): the pulled
/// cache, the list, starting from a schedule, and planning a follow-up on the server.
public final class SchedulingService: Sendable {
    /// `GET` (list) path.
    public static let listPath = "/api/v1/scheduled-inspections"
    /// `POST` (plan a follow-up) path.
    public static let followUpPath = "/api/v1/scheduled-inspections/follow-up"

    /// The cache.
    public let store: SchedulingStore
    private let api: APIClient
    private let serverToday: @Sendable () -> CalendarDay?
    private let learnServerToday: @Sendable () async -> CalendarDay?
    private let isOnline: @Sendable () async -> Bool
    private let prefill: @Sendable (_ parentServerID: Int, _ templateID: Int) throws -> ParentPrefill
    private let logger: Logger

    /// A service.
    /// - Parameters:
    ///   - store: the cached schedules.
    ///   - api: the client the pull and the follow-up planning go through.
    ///   - serverToday: the server's today from the last health reply (ConnectivityMonitor), or `nil`.
    ///   - learnServerToday: asks `/api/v1/health` when `serverToday` is unknown at a pull (a one-shot shell
    ///     run never probed), so the pull can remember the server's day; `nil` when it cannot.
    ///   - isOnline: whether requests may leave (the connectivity monitor and the manual switch).
    ///   - prefill: a follow-up schedule's re-inspection prefill (JQCFollowUps resolves it); none by default.
    ///   - logger: where an unreadable schedule is logged with its JSON path.
    public init(
        store: SchedulingStore, api: APIClient, serverToday: @escaping @Sendable () -> CalendarDay?,
        learnServerToday: @escaping @Sendable () async -> CalendarDay? = { nil },
        isOnline: @escaping @Sendable () async -> Bool = { true },
        prefill: @escaping @Sendable (Int, Int) throws -> ParentPrefill = { _, _ in
            ParentPrefill(localParentID: nil, answers: [:])
        },
        logger: Logger = .disabled
    ) {
        self.logger = logger.labeled("scheduling")
        self.store = store
        self.api = api
        self.serverToday = serverToday
        self.learnServerToday = learnServerToday
        self.isOnline = isOnline
        self.prefill = prefill
    }

    /// The server's today: from the last health reply, else as remembered at the last pull, else `nil`.
    public var today: CalendarDay? {
        serverToday() ?? (try? store.lastServerToday()) ?? nil
    }

    // MARK: Pull

    /// `GET /scheduled-inspections` and apply it (upsert, delete absent — rule 71).
    /// - Returns: the number of schedules received.
    /// - Throws: `APIError` (or `SyncStopError` through the client) and `DatabaseError`.
    @discardableResult
    public func pull() async throws -> Int { try await pullList().received }

    /// ``pull()`` with the unreadable schedules: each fails alone (a sentence naming its JSON path, logged) and
    /// keeps its cached row when its id is readable; no row is deleted when some item's id is unreadable
    /// (issue 21).
    ///
    /// The request carries the stored `ETag` (`If-None-Match`, issue 17); a `304` keeps the cached rows and
    /// does what re-applying the cached reply would (``SchedulingStore/applyNotModified(serverToday:)``); it
    /// counts as a successful pull. A server without ETags gets unconditional requests and the same result.
    /// - Returns: schedules received and applied (0 after a 304), and one sentence per unreadable one.
    /// - Throws: `APIError` (or `SyncStopError` through the client) and `DatabaseError`.
    public func pullList() async throws -> (received: Int, problems: [String]) {
        do {
            let condition = try store.etag()
            guard case .fresh(let reply, let etag, _) = try await api.getList(Self.listPath, ifNoneMatch: condition)
            else {
                var today = serverToday()
                if today == nil { today = await learnServerToday() }
                try store.applyNotModified(serverToday: today)
                try store.recordRefresh(error: nil)
                return (0, [])
            }
            let list = try DecodedList<ScheduledInspection>.decode(reply) { element, path in
                try ScheduledInspection(reply: element, at: path)
            }
            for failure in list.failures { logger.warning("a schedule could not be read: \(failure.reason)") }
            var today = serverToday()
            if today == nil { today = await learnServerToday() }
            // A reply with an unreadable item keeps no ETag, so the next pull reads and reports it again.
            try store.apply(
                list.items, serverToday: today, isAbsent: list.provesAbsent, etag: list.failures.isEmpty ? etag : nil)
            try store.recordRefresh(error: nil)
            return (list.items.count, list.problems("scheduled"))
        } catch {
            try? store.recordRefresh(error: (error as? APIError)?.message ?? "\(error)")
            throw error
        }
    }

    // MARK: List

    /// The visible schedules (locally fulfilled ones hidden, rule 71), by due date, as values (rule 68).
    /// - Throws: ``SchedulingError`` `storage`.
    public func scheduled() throws -> [ScheduledInspection] {
        try wrap { try store.all(visibleOnly: true) }
    }

    /// ``scheduled()`` with its phase (JQCKit `Loaded`): `loading` before any pull, `failed`/`empty` after
    /// one, and the last failure as the stale reason when cached rows are shown.
    /// - Throws: ``SchedulingError`` `storage`.
    public func load() throws -> Loaded<[ScheduledInspection]> {
        let rows = try scheduled()
        let state = try wrap { try store.refreshState() }
        let phase = LoadPhase.of(
            hasContent: !rows.isEmpty, isLoading: false, hasLoaded: state.attempted, failed: state.lastError != nil)
        return Loaded(value: rows, phase: phase, staleReason: phase == .content ? state.lastError : nil)
    }

    // MARK: Start

    /// What to start from a cached schedule (seed 001 §11): its template and facility, the schedule link
    /// (`scheduled_inspection_id`), and for a follow-up schedule its parent (phase45, rule 80) with the
    /// re-inspection prefill (seed 001 §15). The instructions are copied once (rule 70).
    /// - Parameters:
    ///   - scheduleID: the schedule's server id.
    ///   - areaID: an explicit area narrowing the start, or `nil`.
    /// - Throws: ``SchedulingError`` (`notFound`, `storage`) or the prefill's error.
    public func start(scheduleID: Int, areaID: Int? = nil) throws -> ScheduledStart {
        guard let schedule = try wrap({ try store.schedule(serverID: scheduleID) }), !schedule.fulfilledLocally else {
            throw SchedulingError(
                .notFound,
                "There is no open schedule \(scheduleID) on this device; run 'sync' and pick one from 'scheduled'.")
        }
        var request = StartRequest(
            templateID: schedule.templateID, facilityID: schedule.facilityID, areaID: areaID,
            scheduledInspectionServerID: schedule.serverID)
        if let parent = schedule.parentInspectionID {
            let resolved = try prefill(parent, schedule.templateID)
            request.parentInspectionServerID = parent
            request.parentInspectionLocalID = resolved.localParentID
            request.initialAnswers = resolved.answers
        }
        return ScheduledStart(schedule: schedule, request: request, instructions: schedule.instructions)
    }

    // MARK: Plan a follow-up

    /// Plans a follow-up on the server (`POST /scheduled-inspections/follow-up`): online only, nothing is
    /// queued (rule 80). The server re-dates an existing active follow-up of that parent (idempotent). Pulls
    /// the schedules afterwards so it shows.
    /// - Returns: the schedule as the server returned it.
    /// - Throws: ``SchedulingError`` `offline` (forced offline or unreachable), `pastDate` (a day before the
    ///   server's today, refused before anything is sent) or `rejected` (the server's sentence).
    public func scheduleFollowUp(parentServerID: Int, dueDate: CalendarDay, notes: String? = nil) async throws
        -> ScheduledInspection
    {
        guard await isOnline() else {
            throw SchedulingError(
                .offline,
                "Scheduling a follow-up needs the server and this device is offline; nothing was saved. "
                    + "Go online ('online') and try again.")
        }
        // The server's today: the last health reply, else asked now, else as remembered at the last pull.
        var today = serverToday()
        if today == nil { today = await learnServerToday() }
        if today == nil { today = self.today }
        if let today, dueDate < today {
            throw SchedulingError(
                .pastDate,
                "The due date \(dueDate.text) is before the server's today (\(today.text)); nothing was scheduled. "
                    + "Give today or a later day.")
        }
        var body: [String: JSONValue] = [
            "parent_inspection_id": .int(Int64(parentServerID)), "due_date": .string(dueDate.text),
        ]
        if let notes { body["notes"] = .string(notes) }
        let reply: JSONValue
        do {
            reply = try await api.sendJSON(.post, path: Self.followUpPath, body: .object(body))
        } catch let error as APIError {
            switch error {
            case .offline, .airplaneMode, .timeout, .connectionFailed:
                throw SchedulingError(
                    .offline,
                    "The server could not be reached, so no follow-up was scheduled (\(error.message)). "
                        + "Try again when online.", cause: error)
            default:
                throw SchedulingError(.rejected, "The follow-up was not scheduled: \(error.message)", cause: error)
            }
        }
        guard let schedule = ScheduledInspection(json: reply) else {
            throw SchedulingError(.rejected, "The server's reply to the follow-up was not a schedule.")
        }
        _ = try? await pull()
        return schedule
    }

    // MARK: Logout

    /// Erases the cache (rule 42: every cached schedule is server-pulled).
    public var clearServerPulledData: @Sendable () throws -> Void {
        let store = self.store
        return { try store.clearCache() }
    }

    private func wrap<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw SchedulingError(.storage, "The local store failed: \(error.description)", cause: error)
        }
    }
}
