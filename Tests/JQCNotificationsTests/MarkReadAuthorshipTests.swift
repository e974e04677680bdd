import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync
import Testing

@testable import JQCNotifications

@Suite("Queued mark-reads belong to whoever marked them (issue 20)")
struct MarkReadAuthorshipTests {
    @Test("one batch per author: sam's pass sends sam's reads only; alex's stay queued with the reason")
    func oneBatchPerAuthor() async throws {
        let feature = try Feature()
        feature.scriptList([
            [notification(11, "A", createdAt: "2026-07-12T09:00:00Z")],
            [notification(12, "B", createdAt: "2026-07-12T10:00:00Z")], [],
        ])
        feature.transport.route(.patch, path: NotificationService.markReadPath, [.ok(["updated": 1])])
        try await feature.notifications.pullNew()
        let queue = try DatabaseQueue(path: feature.directory.url.appendingPathComponent("jqc.sqlite").path)
        try queue.write { db in try OutboxAuthorship.record(db, userID: 7, username: "alex", server: "embedded") }
        #expect(try feature.notifications.markAllRead() == [11])  // alex marks 11 read offline, logs out
        try await feature.notifications.pullNew()
        try queue.write { db in try OutboxAuthorship.record(db, userID: 8, username: "sam", server: "embedded") }
        #expect(try feature.notifications.markAllRead() == [12])  // sam marks 12
        let batches = try feature.store.queuedMarkReads()
        #expect(batches.map(\.ids) == [[11], [12]])
        #expect(batches.map(\.author.username) == ["alex", "sam"])

        let sam = OutboxIdentity(userID: 8, username: "sam", server: "embedded")
        let pass = SyncPass(
            isExplicit: true, clock: feature.clock, classify: SyncFailure.classify, jitter: { 1 }, identity: sam)
        let push = try await feature.notifications.pushQueuedMarkRead(pass)
        #expect(push.pushed == [12])
        #expect(push.queued == [11])
        #expect(feature.markReadBodies == [["ids": [12]]])
        let left = try #require(try feature.store.queuedMarkRead())
        #expect(left.ids == [11])
        #expect(left.attempts == 0)
        #expect(left.deferredReason == "waits for alex to sign in")
    }
}
