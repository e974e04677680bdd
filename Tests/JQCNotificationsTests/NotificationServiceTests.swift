import Foundation
import JQCKit
import JQCNetwork
import JQCSync
import Testing

@testable import JQCNotifications

@Suite("Notification polling (seed 001 §8 step 7)")
struct NotificationServiceTests {
    @Test("the cursor is the largest created_at received, as the server wrote it, whatever the device clock says")
    func cursorIsLargestCreatedAt() async throws {
        // The device clock is years off; text order and instant order disagree across offsets.
        let feature = try Feature(clock: ManualClock(start: Date(timeIntervalSince1970: 0)))
        feature.scriptList([
            [
                notification(1, "later in text, earlier in time", createdAt: "2026-07-12T15:00:00Z"),
                notification(2, "the newest", createdAt: "2026-07-12T12:00:00-04:00"),
                notification(3, "older", createdAt: "2026-07-11T09:00:05-04:00"),
            ],
            [notification(4, "an old one sent again", createdAt: "2026-07-01T08:00:00Z")],
            [],
        ])
        #expect(try feature.notifications.cursor() == nil)
        let first = try await feature.notifications.pullNew()
        #expect(first.received == 3)
        #expect(try feature.notifications.cursor() == "2026-07-12T12:00:00-04:00")
        try await feature.notifications.pullNew()
        #expect(try feature.notifications.cursor() == "2026-07-12T12:00:00-04:00")  // never moves back
        try await feature.notifications.pullNew()
        #expect(feature.sinceQueries == [nil, "2026-07-12T12:00:00-04:00", "2026-07-12T12:00:00-04:00"])
    }

    @Test("the cursor survives a restart: it is kept in the store")
    func cursorPersists() async throws {
        let feature = try Feature()
        feature.scriptList([[notification(1, "one", createdAt: "2026-07-12T12:00:00-04:00")]])
        try await feature.notifications.pullNew()
        let reopened = NotificationService(
            store: feature.store, api: feature.api, sink: feature.sink,
            clock: feature.clock)
        #expect(try reopened.cursor() == "2026-07-12T12:00:00-04:00")
    }

    @Test("each new unread notification is announced exactly once; read ones and repeats are not")
    func bannerOncePerNotification() async throws {
        let feature = try Feature()
        feature.scriptList([
            [
                notification(2, "B", createdAt: "2026-07-12T10:00:00Z"),
                notification(1, "A", createdAt: "2026-07-12T09:00:00Z"),
                notification(3, "already read", createdAt: "2026-07-10T09:00:00Z", read: true),
            ],
            [
                notification(2, "B", createdAt: "2026-07-12T10:00:00Z"),
                notification(4, "C", createdAt: "2026-07-12T11:00:00Z"),
            ],
            [notification(4, "C", createdAt: "2026-07-12T11:00:00Z")],
        ])
        let first = try await feature.notifications.pullNew()
        #expect(first.new.map(\.id) == [1, 2])
        try await feature.notifications.pullNew()
        try await feature.notifications.pullNew()
        #expect(feature.sink.delivered.map(\.title) == ["A", "B", "C"])
        #expect(try feature.notifications.notifications().map(\.id) == [4, 2, 1, 3])  // newest first
        #expect(try feature.notifications.unreadCount() == 3)
    }

    @Test("mark all read is local at once, queued offline, then pushed first in the next pass")
    func markReadQueuedOfflineThenPushed() async throws {
        let feature = try Feature()
        feature.scriptList([
            [
                notification(11, "A", createdAt: "2026-07-12T09:00:00Z"),
                notification(12, "B", createdAt: "2026-07-12T10:00:00Z"),
                notification(13, "C", createdAt: "2026-07-12T08:00:00Z", read: true),
            ],
            [], [],
        ])
        feature.transport.route(
            .patch, path: NotificationService.markReadPath,
            [.fail(.offline("no network")), .ok(["updated": 2])])
        try await feature.notifications.pullNew()

        #expect(try feature.notifications.markAllRead() == [11, 12])
        #expect(try feature.notifications.unreadCount() == 0)
        #expect(try feature.notifications.notifications().allSatisfy(\.read))
        #expect(try feature.notifications.queuedMarkRead()?.ids == [11, 12])

        await #expect { try await feature.notifications.run(feature.pass()) } throws: { error in
            (error as? SyncStopError)?.kind == .offline
        }
        #expect(
            try feature.notifications.queuedMarkRead()
                == QueuedMarkRead(ids: [11, 12], attempts: 0, lastAttemptAt: nil))

        let report = try await feature.notifications.run(feature.pass())
        #expect(report.pushed == 2)
        #expect(try feature.notifications.queuedMarkRead() == nil)
        #expect(feature.markReadBodies == [["ids": [11, 12]], ["ids": [11, 12]]])
        let paths = feature.transport.requests.suffix(2).map { "\($0.method.rawValue) \($0.url.path)" }
        #expect(paths == ["PATCH /api/v1/notifications/mark-read", "GET /api/v1/notifications"])
        #expect(try feature.notifications.markAllRead() == [])
    }

    @Test("a 4xx for unknown ids drops them from the queue with a log line, and the stage does not fail")
    func rejectedMarkReadIsDropped() async throws {
        let feature = try Feature()
        feature.scriptList([[notification(21, "A", createdAt: "2026-07-12T09:00:00Z")], []])
        feature.transport.route(
            .patch, path: NotificationService.markReadPath,
            [.error(422, "Unknown notification ids: 21.")])
        try await feature.notifications.pullNew()
        try feature.notifications.markAllRead()
        let report = try await feature.notifications.run(feature.pass())
        #expect(report == StageReport(pushed: 0, pulled: 0, failed: 0, deferred: 0))
        #expect(try feature.notifications.queuedMarkRead() == nil)
        #expect(try feature.notifications.notifications().map(\.read) == [true])
        #expect(feature.log.lines.contains { $0.contains("dropped queued mark-read for notification(s) [21]") })
    }

    @Test("a 5xx keeps the mark-read queued with the try counted, and an automatic pass waits for its backoff")
    func serverErrorKeepsMarkReadQueued() async throws {
        let feature = try Feature()
        feature.scriptList([[notification(31, "A", createdAt: "2026-07-12T09:00:00Z")], [], [], []])
        feature.transport.route(
            .patch, path: NotificationService.markReadPath,
            [.error(503, "Maintenance."), .ok(["updated": 1])])
        try await feature.notifications.pullNew()
        try feature.notifications.markAllRead()
        let failed = try await feature.notifications.run(feature.pass(explicit: false))
        #expect(failed.deferred == 1)
        #expect(try feature.notifications.queuedMarkRead()?.attempts == 1)
        let waiting = try await feature.notifications.run(feature.pass(explicit: false))  // backoff: 30 s
        #expect(waiting.deferred == 1)
        #expect(feature.markReadBodies.count == 1)
        feature.clock.advance(by: 30)
        let pushed = try await feature.notifications.run(feature.pass(explicit: false))
        #expect(pushed.pushed == 1)
        #expect(try feature.notifications.queuedMarkRead() == nil)
    }

    @Test("logout clears the notifications and the cursor, and a pull in flight at logout writes nothing")
    func logoutClearsAndDiscardsInFlight() async throws {
        let feature = try Feature()
        feature.scriptList([[notification(41, "A", createdAt: "2026-07-12T09:00:00Z")]])
        try await feature.notifications.pullNew()
        let service = feature.notifications
        feature.transport.route(
            .get, path: NotificationService.listPath,
            [
                .respond { _ in
                    try service.clearServerPulledData()  // the inspector logs out while the reply is on its way
                    let envelope: JSONValue = [
                        "ok": true, "error": nil,
                        "data": [notification(42, "B", createdAt: "2026-07-12T10:00:00Z")],
                    ]
                    return HTTPResponse(status: 200, body: envelope.jsonData())
                }
            ])
        let late = try await feature.notifications.pullNew()
        #expect(late.new.isEmpty)
        #expect(try feature.notifications.notifications().isEmpty)
        #expect(try feature.notifications.cursor() == nil)
        #expect(feature.sink.delivered.map(\.id) == [41])
    }

    @Test("a reply that is not a list is refused with a sentence and changes nothing")
    func unexpectedReply() async throws {
        let feature = try Feature()
        feature.scriptList([["not": "a list"]])
        await #expect(throws: NotificationsError.self) { try await feature.notifications.pullNew() }
        #expect(try feature.notifications.cursor() == nil)
    }

    @Test("the stages pull notifications then dashboard stats, last in the pass, both best-effort")
    func stageDeclarations() throws {
        let feature = try Feature()
        let stages: [any SyncStage] = [
            NotificationsStage(service: feature.notifications),
            DashboardStage(service: feature.dashboard),
        ]
        #expect(stages.map(\.name) == ["notifications", "dashboard"])
        #expect(stages.allSatisfy { $0.isBestEffort && $0.direction == .pull })
        // Registered before the other pulls and a later feature's pull, they still end the pass: the
        // notifications after the schedules and follow-ups, the dashboard stats last of all (rule 49).
        let pass = try StageOrder.sorted(
            stages.reversed() + [
                OtherPull(name: "scheduled"), OtherPull(name: "follow-ups"), OtherPull(name: "a later feature"),
            ])
        #expect(pass.map(\.name) == ["scheduled", "follow-ups", "notifications", "a later feature", "dashboard"])
    }
}

/// Another feature's pull stage, for the order test.
private struct OtherPull: SyncStage {
    let name: String
    var direction: SyncDirection { .pull }
    var isBestEffort: Bool { false }
    func run(_ pass: SyncPass) async throws -> StageReport { StageReport() }
}

@Suite("Notifications with a malformed record (issue 21)")
struct NotificationMalformedTests {
    @Test("a notification that cannot be read fails alone: the others are kept and the stage counts it with its path")
    func malformedNotificationFailsAlone() async throws {
        let feature = try Feature()
        var broken = notification(2, "x", createdAt: "2026-07-12T12:00:00Z")
        if case .object(var members) = broken {
            members["title"] = 5
            broken = .object(members)
        }
        feature.scriptList([[notification(1, "fine", createdAt: "2026-07-12T11:00:00Z"), broken]])
        let report = try await feature.notifications.run(feature.pass())
        #expect(report.pulled == 1)
        #expect(report.failed == 1)
        #expect(report.problems == ["notifications: data[1].title: expected a string, got 5"])
        #expect(feature.sink.delivered.map(\.id) == [1])
    }
}
