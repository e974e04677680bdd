import Foundation
import JQCKit
import JQCStorage
import Testing

@testable import JQCSync

/// A pass over `clock` whose classifier understands ``TestFailure``; jitter 1 so backoff is exact.
private func pass(explicit: Bool, clock: ManualClock) -> SyncPass {
    SyncPass(
        isExplicit: explicit, clock: clock,
        classify: { error in (error as? TestFailure)?.failure ?? .local("\(error)") }, jitter: { 1 })
}

@Suite("The generic push driver (OutboxDriver)")
struct OutboxDriverTests {
    @Test("a sent item is marked synced with the feed's own writes, and counted as pushed")
    func sent() async throws {
        let store = try LetterStore()
        let clock = ManualClock()
        try store.add("a")
        store.answer("a", .accept(serverID: 41))
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
        #expect(result.report == StageReport(pushed: 1))
        #expect(result.outcomes.map(\.outcome) == [.pushed])
        let letter = try #require(try store.letter("a"))
        #expect(letter.serverID == 41)
        #expect(letter.outbox == OutboxState(status: .synced, lastAttemptAt: clock.now))
    }

    @Test("an item that is not ready waits with its reason: not sent, no try counted")
    func waiting() async throws {
        let store = try LetterStore()
        let clock = ManualClock()
        try store.add("a", blocked: "waits for its photos to upload")
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
        #expect(store.sentIDs.isEmpty)
        var expected = StageReport(deferred: 1)
        expected.waitingReason = "waits for its photos to upload"  // issue 18: the report says why it waits
        #expect(result.report == expected)
        #expect(result.outcomes.map(\.outcome) == [.waiting("waits for its photos to upload")])
        #expect(try store.letter("a")?.outbox == OutboxState(deferredReason: "waits for its photos to upload"))
        try store.unblock("a")
        store.answer("a", .accept(serverID: 1))
        _ = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
        #expect(try store.letter("a")?.outbox.deferredReason == nil)
        #expect(try store.letter("a")?.outbox.status == .synced)
    }

    @Test("an item that can never be sent fails at once with the feed's sentence")
    func neverSendable() async throws {
        let store = try LetterStore()
        try store.add("a", doomed: "its inspection failed to sync")
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        #expect(store.sentIDs.isEmpty)
        #expect(result.report == StageReport(failed: 1))
        #expect(try store.letter("a")?.outbox.status == .failed)
        #expect(try store.letter("a")?.outbox.error == "its inspection failed to sync")
        #expect(try store.refusedNote("a") == "its inspection failed to sync")
    }

    @Test("server trouble keeps an item pending and counts a try; the fifth try fails it")
    func fiveTries() async throws {
        let store = try LetterStore()
        let clock = ManualClock()
        try store.add("a")
        for _ in 1...5 { store.answer("a", .fail(.server("The server had a problem (HTTP 500)."))) }
        for attempt in 1...4 {
            let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
            #expect(result.report.deferred == 1)
            #expect(result.report.deferredReason == "The server had a problem (HTTP 500).")
            #expect(
                try store.letter("a")?.outbox
                    == OutboxState(
                        attempts: attempt, lastAttemptAt: clock.now, error: "The server had a problem (HTTP 500).",
                        deferredReason: "The server had a problem (HTTP 500)."))
        }
        let last = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
        #expect(last.report == StageReport(failed: 1))
        #expect(try store.letter("a")?.outbox.status == .failed)
        #expect(try store.letter("a")?.outbox.error == "The server had a problem (HTTP 500). (gave up after 5 tries)")
    }

    @Test("a timeout keeps the item pending without counting a try; a refusal fails it at once")
    func timeoutAndRefusal() async throws {
        let store = try LetterStore()
        try store.add("slow")
        try store.add("bad")
        store.answer("slow", .fail(.timeout))
        store.answer("bad", .fail(.rejected("The facility is not yours.")))
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        var expected = StageReport(failed: 1, deferred: 1)
        expected.deferredReason = "The server did not answer in time."
        #expect(result.report == expected)
        #expect(try store.letter("slow")?.outbox.attempts == 0)
        #expect(try store.letter("slow")?.outbox.deferredReason == "The server did not answer in time.")
        #expect(try store.letter("bad")?.outbox.status == .failed)
        #expect(try store.letter("bad")?.outbox.error == "The facility is not yours.")
    }

    @Test("offline stops the push: the item and every one after it stay as they were")
    func offlineStops() async throws {
        let store = try LetterStore()
        try store.add("a")
        try store.add("b")
        store.answer("a", .fail(.offline))
        await #expect(throws: SyncStopError.self) {
            try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        }
        #expect(store.sentIDs == ["a"])
        #expect(try store.letter("a")?.outbox == OutboxState())
        #expect(try store.letter("b")?.outbox == OutboxState())
    }

    @Test("an automatic pass waits out the backoff and says so; an explicit pass tries at once")
    func backoff() async throws {
        let store = try LetterStore()
        let clock = ManualClock()
        try store.add("a", attempts: 1, lastAttemptAt: clock.now)
        let automatic = try await OutboxDriver.push(store, pass: pass(explicit: false, clock: clock))
        #expect(store.sentIDs.isEmpty)
        var waiting = StageReport(deferred: 1)
        waiting.waitingReason = "waits before its next automatic try (after 1 failed try)"
        #expect(automatic.report == waiting)
        #expect(
            try store.letter("a")?.outbox.deferredReason == "waits before its next automatic try (after 1 failed try)")
        clock.advance(by: 30)
        store.answer("a", .accept(serverID: 2))
        _ = try await OutboxDriver.push(store, pass: pass(explicit: false, clock: clock))
        #expect(try store.letter("a")?.outbox.status == .synced)

        try store.add("b", attempts: 2, lastAttemptAt: clock.now)
        store.answer("b", .accept(serverID: 3))
        let explicit = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: clock))
        #expect(explicit.report == StageReport(pushed: 1))
    }

    @Test("when the local record of a sent item fails, it stays pending with a counted try (never lost)")
    func recordingFails() async throws {
        let store = try LetterStore()
        try store.add("a")
        store.answer("a", .accept(serverID: 9), .accept(serverID: 9))
        store.failRecording.withLock { $0 = true }
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        #expect(result.report.pushed == 1 && result.report.deferred == 1)
        #expect(try store.letter("a")?.outbox.status == .pending)
        #expect(try store.letter("a")?.outbox.attempts == 1)
        #expect(try store.letter("a")?.serverID == nil)
        store.failRecording.withLock { $0 = false }
        _ = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        #expect(try store.letter("a")?.serverID == 9)
    }

    @Test("a queued call is deleted once sent, and deleted (with the feed's note) when refused")
    func queue() async throws {
        let store = try LetterStore(lifecycle: .queue)
        try store.add("sent")
        try store.add("refused")
        store.answer("sent", .accept(serverID: 1))
        store.answer("refused", .fail(.rejected("Unknown ids.")))
        let result = try await OutboxDriver.push(store, pass: pass(explicit: true, clock: ManualClock()))
        #expect(result.report == StageReport(pushed: 1, failed: 1))
        #expect(try store.letter("sent") == nil)
        #expect(try store.letter("refused") == nil)
    }

    @Test("the generic stage reports under its own name, as a push that is not best-effort")
    func stage() async throws {
        let store = try LetterStore()
        try store.add("a")
        store.answer("a", .accept(serverID: 1))
        let stage = OutboxPushStage("letters", feed: store, constraints: [.after("photos")])
        #expect(stage.direction == .push && !stage.isBestEffort)
        #expect(stage.constraints == [.after("photos")])
        #expect(
            try await stage.run(pass(explicit: true, clock: ManualClock())) == StageReport(name: "letters", pushed: 1))
    }

}
