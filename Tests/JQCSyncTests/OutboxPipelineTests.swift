import Foundation
import JQCKit
import JQCStorage
import JQCTestSupport
import Testing

@testable import JQCSync

/// A pass over a manual clock whose classifier understands ``TestFailure``.
private func explicitPass() -> SyncPass {
    SyncPass(
        isExplicit: true, clock: ManualClock(),
        classify: { error in (error as? TestFailure)?.failure ?? .local("\(error)") }, jitter: { 1 })
}

/// The records of accepted items, as `record X sees [what another connection sees committed]` lines.
private func records(_ store: LetterStore) -> [String] {
    store.events.withLock { $0 }.filter { $0.hasPrefix("record ") }
}

/// The feed's after-record work (`sentCommitted`), as `on disk X after no|some flushes` lines.
private func onDisk(_ store: LetterStore) -> [String] {
    store.events.withLock { $0 }.filter { $0.hasPrefix("on disk ") }
}

@Suite("The push driver overlaps each record with the next request (OutboxDriver, issue 17)")
struct OutboxPipelineTests {
    @Test("each accepted item is recorded in its own committed transaction, in the feed's order")
    func oneCommitPerItemInOrder() async throws {
        let store = try LetterStore()
        for (index, id) in ["a", "b", "c"].enumerated() {
            try store.add(id)
            store.answer(id, .accept(serverID: 10 + index))
        }
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.report == StageReport(pushed: 3))
        #expect(result.outcomes.map(\.item.id) == ["a", "b", "c"])
        #expect(store.sentIDs == ["a", "b", "c"])
        // A second connection sees each earlier item committed (alone: never two in one transaction) before
        // the next one's record is written; the push returns only after the last commit.
        #expect(records(store) == ["record a sees []", "record b sees [\"a\"]", "record c sees [\"a\", \"b\"]"])
        #expect(
            onDisk(store) == [
                "on disk a after some flushes", "on disk b after some flushes", "on disk c after some flushes",
            ]
        )
        #expect(try ["a", "b", "c"].map { try store.letter($0)?.serverID } == [10, 11, 12])
        #expect(try ["a", "b", "c"].allSatisfy { try store.letter($0)?.outbox.status == .synced })
    }

    @Test("what the server answered is kept in the record's one transaction: committed with it, alone when it fails")
    func keptAnswerCommitsWithTheRecord() async throws {
        let store = try LetterStore()
        store.keepsAnswers.withLock { $0 = true }
        for id in ["a", "b"] { try store.add(id) }
        store.answer("a", .accept(serverID: 1))
        store.answer("b", .accept(serverID: 2))
        store.failRecordingOf.withLock { $0 = ["a"] }
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.outcomes.map(\.outcome) == [.deferred("the store is full"), .pushed])
        // a's record rolled back alone: the item is pending with a counted try, its answer kept.
        #expect(try store.letter("a")?.outbox.status == .pending)
        #expect(try store.letter("a")?.outbox.attempts == 1)
        #expect(try store.letter("a")?.serverID == nil)
        #expect(try store.kept("a") == 1)
        #expect(try store.letter("b")?.outbox.status == .synced)
        #expect(try store.kept("b") == 2)
        // Each record sees its own kept answer, which no other connection sees yet (one transaction, one commit);
        // a's was committed before b's record although a's record failed.
        #expect(
            store.events.withLock { $0 }.filter { $0.hasPrefix("keep ") } == [
                "keep a: here 1, committed []", "keep b: here 2, committed [\"a\"]",
            ])
    }

    @Test("an item's after-record work waits until its record is on disk (group commit); the push waits for the last")
    func afterRecordWorkWaitsForTheDisk() async throws {
        let store = try LetterStore()
        for (index, id) in ["a", "b", "c"].enumerated() {
            try store.add(id)
            store.answer(id, .accept(serverID: index + 1))
        }
        // The flush that covers a's record is held until c is sent: a's record commits and b goes out, but a
        // power cut could still undo a's record, so its after-record work (releasing photo files) must wait.
        store.holdNextFlush(untilSent: "c")
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.report == StageReport(pushed: 3))
        #expect(records(store) == ["record a sees []", "record b sees [\"a\"]", "record c sees [\"a\", \"b\"]"])
        let events = store.events.withLock { $0 }
        let aOnDisk = try #require(events.firstIndex { $0.hasPrefix("on disk a") })
        let cSent = try #require(events.firstIndex(of: "send c"))
        #expect(aOnDisk > cSent)
        // Every item's work ran after a flush, and all of it before the push returned.
        #expect(
            onDisk(store) == [
                "on disk a after some flushes", "on disk b after some flushes", "on disk c after some flushes",
            ]
        )
        #expect(store.flushes.completed.withLock { $0 } >= 1)
    }

    @Test("the next request goes out while the previous item's record is still committing")
    func overlap() async throws {
        let store = try LetterStore()
        try store.add("a")
        try store.add("b")
        store.answer("a", .accept(serverID: 1))
        store.answer("b", .accept(serverID: 2))
        store.holdRecording.withLock { $0 = (letter: "a", until: "b") }
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.report == StageReport(pushed: 2))
        let events = store.events.withLock { $0 }
        #expect(events.contains("b out while a records: true"))
        #expect(records(store) == ["record a sees []", "record b sees [\"a\"]"])
    }

    @Test("a stop on the next request still records the item the server accepted, and leaves the rest")
    func stopAfterAccepted() async throws {
        let store = try LetterStore()
        for id in ["a", "b", "c"] { try store.add(id) }
        store.answer("a", .accept(serverID: 7))
        store.answer("b", .fail(.offline))
        await #expect(throws: SyncStopError.self) {
            try await OutboxDriver.push(store, pass: explicitPass())
        }
        #expect(store.sentIDs == ["a", "b"])
        #expect(try store.letter("a")?.outbox.status == .synced)
        #expect(try store.letter("a")?.serverID == 7)
        #expect(try store.letter("b")?.outbox == OutboxState())
        #expect(try store.letter("c")?.outbox == OutboxState())
    }

    @Test("a record that fails while the next request is out keeps that item pending with a counted try")
    func recordFailsWhileNextIsOut() async throws {
        let store = try LetterStore()
        for id in ["a", "b"] { try store.add(id) }
        store.answer("a", .accept(serverID: 1), .accept(serverID: 1))
        store.answer("b", .accept(serverID: 2))
        store.failRecordingOf.withLock { $0 = ["a"] }
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.report.pushed == 2 && result.report.deferred == 1)
        #expect(result.outcomes.map(\.item.id) == ["a", "b"])
        #expect(result.outcomes.map(\.outcome) == [.deferred("the store is full"), .pushed])
        #expect(try store.letter("a")?.outbox.status == .pending)
        #expect(try store.letter("a")?.outbox.attempts == 1)
        #expect(try store.letter("a")?.serverID == nil)
        #expect(try store.letter("b")?.outbox.status == .synced)
        // What a crash before a's commit leaves behind: a pending, sent again by the next pass, recorded once.
        store.failRecordingOf.withLock { $0 = [] }
        let again = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(again.report == StageReport(pushed: 1))
        #expect(store.sentIDs == ["a", "b", "a"])
        #expect(try store.letter("a")?.serverID == 1)
        #expect(try store.letter("a")?.outbox.status == .synced)
    }

    @Test("an item that waits after an accepted one is written after that one's record")
    func waitAfterAccepted() async throws {
        let store = try LetterStore()
        try store.add("a")
        try store.add("b", blocked: "waits for its photos to upload")
        try store.add("c", doomed: "its inspection failed to sync")
        store.answer("a", .accept(serverID: 1))
        let result = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(result.outcomes.map(\.item.id) == ["a", "b", "c"])
        #expect(
            result.outcomes.map(\.outcome) == [
                .pushed, .waiting("waits for its photos to upload"), .failed("its inspection failed to sync"),
            ])
        #expect(try store.letter("a")?.outbox.status == .synced)
        #expect(try store.letter("b")?.outbox.deferredReason == "waits for its photos to upload")
        #expect(try store.letter("c")?.outbox.status == .failed)
    }
}

extension OutboxPipelineTests {
    @Test("a store error before the next request still records the item the server accepted")
    func errorBeforeNextRequest() async throws {
        let store = try LetterStore()
        for id in ["a", "b"] { try store.add(id) }
        store.answer("a", .accept(serverID: 5))
        store.failReadinessOf.withLock { $0 = ["b"] }
        await #expect(throws: TestFailure.self) {
            try await OutboxDriver.push(store, pass: explicitPass())
        }
        #expect(store.sentIDs == ["a"])
        #expect(try store.letter("a")?.outbox.status == .synced)
        #expect(try store.letter("a")?.serverID == 5)
        #expect(try store.letter("b")?.outbox == OutboxState())
    }
}

extension OutboxPipelineTests {
    @Test(
        "killed while the next request is out and the accepted item's record is not committed: both resent, each recorded once"
    )
    func killedBetweenRequestAndCommit() async throws {
        let store = try LetterStore()
        for id in ["a", "b"] { try store.add(id) }
        store.answer("a", .accept(serverID: 1))
        store.answer("b", .accept(serverID: 2))
        let disk = TemporaryDirectory(prefix: "jqc-letters-killed")
        store.snapshotWhileHeld.withLock { $0 = disk }
        store.holdRecording.withLock { $0 = (letter: "a", until: "b") }
        _ = try await OutboxDriver.push(store, pass: explicitPass())
        #expect(store.events.withLock { $0 }.contains("b out while a records: true"))

        // The files as a kill -9 at that moment leaves them: the server has a and b, the store neither.
        let restarted = try LetterStore(copying: disk)
        #expect(try restarted.letter("a")?.outbox == OutboxState())
        #expect(try restarted.letter("b")?.outbox == OutboxState())
        restarted.answer("a", .accept(serverID: 1))  // the server's answer for a local id it already has
        restarted.answer("b", .accept(serverID: 2))
        let again = try await OutboxDriver.push(restarted, pass: explicitPass())
        #expect(again.report == StageReport(pushed: 2))
        #expect(restarted.sentIDs == ["a", "b"])
        #expect(records(restarted) == ["record a sees []", "record b sees [\"a\"]"])
        #expect(try ["a", "b"].map { try restarted.letter($0)?.serverID } == [1, 2])
        #expect(try ["a", "b"].allSatisfy { try restarted.letter($0)?.outbox.status == .synced })
    }
}
