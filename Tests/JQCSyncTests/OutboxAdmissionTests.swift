import Foundation
import JQCKit
import JQCStorage
import Testing

@testable import JQCSync

/// An explicit pass acting for `identity`; jitter 1.
private func pass(for identity: OutboxIdentity?, clock: ManualClock = ManualClock()) -> SyncPass {
    SyncPass(
        isExplicit: true, clock: clock, classify: { error in (error as? TestFailure)?.failure ?? .local("\(error)") },
        jitter: { 1 }, identity: identity)
}

private let alex = OutboxIdentity(userID: 7, username: "alex", server: "embedded")
private let sam = OutboxIdentity(userID: 9, username: "sam", server: "embedded")

/// Letters made by `who` for `server` (the session recorded before the insert stamps them).
private func add(_ ids: [String], by who: OutboxIdentity?, server: String, to store: LetterStore) throws {
    try store.database.write { db in
        try OutboxAuthorship.record(db, userID: who?.userID, username: who?.username, server: server)
    }
    for id in ids { try store.add(id) }
}

@Suite("Admission: only the signed-in inspector's items, for this server (OutboxDriver, issue 20)")
struct OutboxAdmissionTests {
    @Test("another inspector's items wait with the reason, uncounted and kept; they go once their author signs in")
    func anotherInspector() async throws {
        let store = try LetterStore()
        try add(["a1", "a2"], by: alex, server: "embedded", to: store)
        try add(["s1"], by: sam, server: "embedded", to: store)
        store.answer("s1", .accept(serverID: 3))
        let asSam = try await OutboxDriver.push(store, pass: pass(for: sam))
        #expect(store.sentIDs == ["s1"])
        var expected = StageReport(pushed: 1, deferred: 2)
        expected.waitingReason = "waits for alex to sign in"  // why the first untried item waits (issue 18)
        #expect(asSam.report == expected)
        #expect(
            asSam.outcomes.map(\.outcome) == [
                .waiting("waits for alex to sign in"), .waiting("waits for alex to sign in"), .pushed,
            ])
        let waiting = try #require(try store.letter("a1"))
        #expect(waiting.outbox.status == .pending)
        #expect(waiting.outbox.attempts == 0)
        #expect(waiting.outbox.lastAttemptAt == nil)
        #expect(waiting.outbox.deferredReason == "waits for alex to sign in")
        #expect(waiting.outbox.author == OutboxAuthor(userID: 7, username: "alex", server: "embedded"))
        // A second pass as sam: still waiting, still uncounted (and nothing sent).
        _ = try await OutboxDriver.push(store, pass: pass(for: sam))
        #expect(store.sentIDs == ["s1"])
        #expect(try store.letter("a2")?.outbox.attempts == 0)
        store.answer("a1", .accept(serverID: 1))
        store.answer("a2", .accept(serverID: 2))
        let asAlex = try await OutboxDriver.push(store, pass: pass(for: alex))
        #expect(asAlex.report == StageReport(pushed: 2))
        #expect(store.sentIDs == ["s1", "a1", "a2"])
        #expect(try store.letter("a1")?.outbox.status == .synced)
        #expect(try store.letter("a1")?.outbox.deferredReason == nil)
    }

    @Test("items made for another server wait for it, even for their own author")
    func anotherServer() async throws {
        let store = try LetterStore()
        try add(["p1"], by: alex, server: "primary", to: store)
        let elsewhere = try await OutboxDriver.push(store, pass: pass(for: alex))
        #expect(store.sentIDs.isEmpty)
        #expect(elsewhere.outcomes.map(\.outcome) == [.waiting("was made for server primary")])
        #expect(try store.letter("p1")?.outbox.attempts == 0)
        var onPrimary = alex
        onPrimary.server = "primary"
        store.answer("p1", .accept(serverID: 5))
        let back = try await OutboxDriver.push(store, pass: pass(for: onPrimary))
        #expect(back.report == StageReport(pushed: 1))
    }

    @Test("the unknown author's items go only to the user who claims them; a pass without identity admits all")
    func unknownAuthor() async throws {
        let store = try LetterStore()
        try add(["u"], by: nil, server: "embedded", to: store)
        _ = try await OutboxDriver.push(store, pass: pass(for: sam))
        #expect(store.sentIDs.isEmpty)
        #expect(try store.letter("u")?.outbox.deferredReason == OutboxAdmission.unknownAuthorReason)
        var claimant = sam
        claimant.claimsUnknownAuthor = true
        store.answer("u", .accept(serverID: 8))
        #expect(try await OutboxDriver.push(store, pass: pass(for: claimant)).report == StageReport(pushed: 1))
        try add(["t"], by: alex, server: "primary", to: store)
        store.answer("t", .accept(serverID: 9))
        #expect(try await OutboxDriver.push(store, pass: pass(for: nil)).report == StageReport(pushed: 1))
    }
}
