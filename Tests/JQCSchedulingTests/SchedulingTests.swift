import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCScheduling

/// A migrated temporary store, a scripted transport and a service over them, signed in as alex (id 7).
struct SchedulingWorld {
    let directory = TemporaryDirectory(prefix: "jqc-scheduling")
    let transport = ScriptedTransport()
    let clock = ManualClock()
    let store: SchedulingStore
    let service: SchedulingService
    let stage: ScheduledPullStage

    init(serverToday: CalendarDay? = CalendarDay("2026-07-14")) throws {
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        SchedulingSchema.register(in: &migrator)
        try migrator.migrate(queue)
        store = SchedulingStore(queue: queue)
        let user = User(id: 7, username: "alex", role: .inspector, fullName: "Alex Rivera")
        let api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(Credentials(accessToken: "access", refreshToken: "refresh", user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"), clock: clock)
        service = SchedulingService(store: store, api: api, serverToday: { serverToday })
        stage = ScheduledPullStage(service: service)
    }

    /// One pass of the `scheduled` stage against `reply`.
    func pull(_ reply: [JSONValue]) async throws -> StageReport {
        transport.route(.get, path: SchedulingService.listPath, [.ok(.array(reply))])
        return try await stage.run(SyncPass(isExplicit: true, clock: clock, classify: SyncFailure.classify))
    }
}

/// A schedule as the server sends it (CONTRACT.md `schedule`).
func scheduleJSON(
    _ id: Int64, due: String, frequency: String = "once", facility: Int64 = 11, template: Int64 = 3,
    inspector: Int64? = 7, notes: String? = nil, parent: Int64? = nil, overdue: Bool = false
) -> JSONValue {
    [
        "id": .int(id), "facility_id": .int(facility), "facility_name": "Main Courthouse",
        "template_id": .int(template), "template_name": "Restroom QC",
        "inspector_id": inspector.map { .int($0) } ?? nil,
        "frequency": .string(frequency), "frequency_label": "Daily", "due_date": .string(due),
        "next_due_date": nil, "is_overdue": .bool(overdue), "notes": notes.map { .string($0) } ?? nil,
        "parent_inspection_id": parent.map { .int($0) } ?? nil,
    ]
}

/// A day from `yyyy-MM-dd` text; a malformed one fails the test (no force unwrap: it would crash the process).
func day(_ text: String) throws -> CalendarDay { try #require(CalendarDay(text)) }

@Suite("Scheduled inspections: the pulled cache (seed 001 §11, rules 63, 70, 71)")
struct SchedulingCacheTests {
    @Test("rule 71: a cached schedule is deleted only when the server no longer returns it")
    func deletesOnlyAbsentRows() async throws {
        let world = try SchedulingWorld()
        let first = try await world.pull([scheduleJSON(901, due: "2026-07-14"), scheduleJSON(902, due: "2026-07-09")])
        #expect(first.pulled == 2)
        #expect(try world.store.all().map(\.serverID) == [902, 901])
        // 901 is hidden locally (fulfilled at submit): flagged, never deleted.
        try world.store.queue.write { db in try world.store.markFulfilledLocally(db, serverID: 901) }
        #expect(try world.service.scheduled().map(\.serverID) == [902])
        #expect(try world.store.all(visibleOnly: false).map(\.serverID) == [902, 901])
        // The server stops returning 902 (a fulfilled one-time schedule): only then is it deleted.
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-15", frequency: "daily")])
        #expect(try world.store.all(visibleOnly: false).map(\.serverID) == [901])
    }

    @Test("a frequency this build does not know is cached and read back as the server sent it (issue 16)")
    func unknownFrequencyKept() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([
            scheduleJSON(901, due: "2026-07-14", frequency: "quarterly"),
            scheduleJSON(902, due: "2026-07-15", frequency: "weekly"),
        ])
        let rows = try world.service.scheduled()
        #expect(rows.map(\.frequency) == [.other("quarterly"), .weekly])
        #expect(rows.first?.frequency.rawValue == "quarterly")
    }

    @Test("an update from the server clears fulfilled_locally and writes the server's rolled-forward date")
    func updateResetsFulfilledLocally() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-14", frequency: "daily")])
        try world.store.queue.write { db in try world.store.markFulfilledLocally(db, serverID: 901) }
        #expect(try world.service.scheduled().isEmpty)
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-15", frequency: "daily")])
        let row = try #require(try world.service.scheduled().first)
        #expect(row.serverID == 901)
        #expect(try row.dueDate == day("2026-07-15"))
        #expect(row.fulfilledLocally == false)
    }

    @Test("instructions are the notes trimmed; blank or missing notes give none (rule 70)")
    func instructionsTrimmed() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([
            scheduleJSON(1, due: "2026-07-10", notes: "  Check the 1st floor restrooms.  \n"),
            scheduleJSON(2, due: "2026-07-11", notes: "   \n "),
            scheduleJSON(3, due: "2026-07-12", notes: nil),
        ])
        #expect(try world.service.scheduled().map(\.instructions) == ["Check the 1st floor restrooms.", nil, nil])
        #expect(try world.service.scheduled().map(\.notes) == ["  Check the 1st floor restrooms.  \n", "   \n ", nil])
    }

    @Test("every field of the contract is kept, with the server id set from the reply (rule 63)")
    func fieldsKept() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([scheduleJSON(904, due: "2026-07-15", inspector: nil, notes: "x", parent: 501)])
        let row = try #require(try world.store.schedule(serverID: 904))
        #expect(
            row
                == ScheduledInspection(
                    serverID: 904, facilityID: 11, facilityName: "Main Courthouse", templateID: 3,
                    templateName: "Restroom QC",
                    inspectorID: nil, frequency: .once, frequencyLabel: "Daily", dueDate: try day("2026-07-15"),
                    nextDueDate: nil, serverSaysOverdue: false, notes: "x", parentInspectionID: 501))
    }

    @Test("the read surface is loading before any pull, and shows cached rows as stale after a failed one")
    func loadPhase() async throws {
        let world = try SchedulingWorld()
        #expect(try world.service.load().phase == .loading)
        _ = try await world.pull([scheduleJSON(901, due: "2026-07-14")])
        #expect(try world.service.load().phase == .content)
        #expect(try world.service.load().staleReason == nil)
        world.transport.route(.get, path: SchedulingService.listPath, [.error(500, "The list is unavailable.")])
        await #expect(throws: APIError.self) { try await world.service.pull() }
        let loaded = try world.service.load()
        #expect(loaded.value.map(\.serverID) == [901])
        #expect(loaded.phase == .content)
        #expect(loaded.staleReason == "The server had a problem (HTTP 500): The list is unavailable.")
    }

    @Test("overdue is judged against the server's today when known, else the server's is_overdue")
    func overdueAgainstServerToday() throws {
        let row = ScheduledInspection(
            serverID: 1, facilityID: 11, templateID: 3, dueDate: try day("2026-07-14"),
            serverSaysOverdue: false)
        #expect(try row.isOverdue(today: day("2026-07-14")) == false)
        #expect(try row.isOverdue(today: day("2026-07-15")) == true)
        #expect(row.isOverdue(today: nil) == false)
        var flagged = row
        flagged.serverSaysOverdue = true
        #expect(flagged.isOverdue(today: nil) == true)
    }

    @Test("the pull remembers the server's today; the service falls back to it when the probe's is unknown")
    func remembersServerToday() async throws {
        let world = try SchedulingWorld(serverToday: day("2026-07-14"))
        _ = try await world.pull([])
        #expect(try world.store.lastServerToday() == day("2026-07-14"))
        let later = SchedulingService(
            store: world.store,
            api: APIClient(
                config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: world.transport,
                tokens: InMemoryTokenStore(), refusals: InMemoryUpdateRefusalMemory(),
                identity: ClientIdentity(version: "test"), clock: world.clock), serverToday: { nil })
        #expect(try later.today == day("2026-07-14"))
    }

    @Test("start from a schedule: its template and facility, the schedule link, and its parent with the prefill")
    func startFromSchedule() async throws {
        let world = try SchedulingWorld()
        _ = try await world.pull([
            scheduleJSON(901, due: "2026-07-14", notes: " Mind the mats "),
            scheduleJSON(904, due: "2026-07-15", parent: 501),
        ])
        let plain = try world.service.start(scheduleID: 901, areaID: 112)
        #expect(plain.request.templateID == 3)
        #expect(plain.request.facilityID == 11)
        #expect(plain.request.areaID == 112)
        #expect(plain.request.scheduledInspectionServerID == 901)
        #expect(plain.request.parentInspectionServerID == nil)
        #expect(plain.instructions == "Mind the mats")
        let service = SchedulingService(
            store: world.store,
            api: APIClient(
                config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: world.transport,
                tokens: InMemoryTokenStore(), refusals: InMemoryUpdateRefusalMemory(),
                identity: ClientIdentity(version: "test"), clock: world.clock),
            serverToday: { nil },
            prefill: { parent, template in
                ParentPrefill(localParentID: "local-\(parent)-\(template)", answers: ["10": "Floor wet"])
            })
        let followUp = try service.start(scheduleID: 904)
        #expect(followUp.request.scheduledInspectionServerID == 904)
        #expect(followUp.request.parentInspectionServerID == 501)
        #expect(followUp.request.parentInspectionLocalID == "local-501-3")
        #expect(followUp.request.initialAnswers == ["10": "Floor wet"])
        #expect(throws: SchedulingError.self) { try world.service.start(scheduleID: 999) }
    }
}

@Suite("resolveAndFulfillSchedule's matching rules (rule 69)")
struct ScheduleMatchTests {
    var today: CalendarDay { get throws { try day("2026-07-14") } }

    func schedule(_ id: Int, due: String, facility: Int = 11, template: Int = 3, inspector: Int? = 7)
        throws -> ScheduledInspection
    {
        ScheduledInspection(
            serverID: id, facilityID: facility, templateID: template, inspectorID: inspector,
            dueDate: try day(due))
    }

    func match(_ schedules: [ScheduledInspection], reinspection: Bool = false, today: CalendarDay?, user: Int? = 7)
        -> Int?
    {
        ScheduleFulfilmentHook.match(
            schedules, facilityID: 11, templateID: 3, isReinspection: reinspection,
            today: today, userID: user)?.serverID
    }

    @Test("only schedules due on or before the server's today match")
    func dueOnOrBeforeToday() throws {
        #expect(try match([schedule(1, due: "2026-07-15")], today: today) == nil)
        #expect(try match([schedule(1, due: "2026-07-14")], today: today) == 1)
        #expect(try match([schedule(1, due: "2026-07-01")], today: today) == 1)
    }

    @Test("facility and template must both match")
    func facilityAndTemplate() throws {
        #expect(try match([schedule(1, due: "2026-07-10", facility: 12)], today: today) == nil)
        #expect(try match([schedule(1, due: "2026-07-10", template: 4)], today: today) == nil)
    }

    @Test("assignee nil or self: another inspector's schedule never matches")
    func assignee() throws {
        #expect(try match([schedule(1, due: "2026-07-10", inspector: 8)], today: today) == nil)
        #expect(try match([schedule(1, due: "2026-07-10", inspector: nil)], today: today) == 1)
        #expect(try match([schedule(1, due: "2026-07-10", inspector: 7)], today: today, user: nil) == nil)
    }

    @Test("the earliest due wins, then the lowest id")
    func earliestFirst() throws {
        let all = try [schedule(5, due: "2026-07-12"), schedule(4, due: "2026-07-09"), schedule(3, due: "2026-07-09")]
        #expect(try match(all, today: today) == 3)
    }

    @Test("a re-inspection never matches")
    func skipsReinspections() throws {
        #expect(try match([schedule(1, due: "2026-07-10")], reinspection: true, today: today) == nil)
    }

    @Test("when the server's today is unknown nothing matches (no guessing with the device clock)")
    func unknownToday() throws {
        #expect(try match([schedule(1, due: "2000-01-01")], today: nil) == nil)
    }

    @Test("a schedule already fulfilled locally is not matched again")
    func hiddenNotMatched() throws {
        var hidden = try schedule(1, due: "2026-07-10")
        hidden.fulfilledLocally = true
        #expect(try match([hidden, schedule(2, due: "2026-07-11")], today: today) == 2)
    }
}
