import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCToyFeature
import Synchronization
import Testing

/// The toy feature (Tests/JQCToyFeature) installed through the same contract as the real features, against
/// the in-process dev server for everything it knows and a scripted peer for what only the toy sends: its
/// photo (entity_type `toy`) and `POST /api/v1/toys`.
@Suite("A feature installed through the contract syncs like the built-in ones")
struct ToyFeatureIntegrationTests {
    @Test("a toy with a photo: pending → refused (failed) → retried → kept after a 503 → pushed and synced")
    func toyLifecycle() async throws {
        let curl = CurlTransport()
        let peer = ScriptedTransport(whenEmpty: .respond { request in try await curl.send(request, progress: nil) })
        let uploads = Mutex<[String]>([])
        peer.route(
            .post, path: "/api/v1/photos/upload",
            [
                .respond { request in
                    guard case .multipart(let parts) = request.body, parts.contains(.field("entity_type", "toy")) else {
                        return try await curl.send(request, progress: nil)
                    }
                    uploads.withLock { $0.append("toy") }
                    let reply: JSONValue = [
                        "ok": true, "data": ["path": "uploads/toy_photos/ab12.jpg", "url": nil], "error": nil,
                    ]
                    return HTTPResponse(status: 201, headers: [:], body: reply.jsonData())
                }
            ], repeatLast: true)
        peer.route(
            .post, path: "/api/v1/toys",
            [.error(422, "A toy needs a longer name."), .error(503, "Busy."), .ok(["id": 71], status: 201)])
        let world = try TestApp(
            transport: peer, features: [{ builtIn in ToyFeature(core: builtIn.core, photos: builtIn.photos) }])
        let toys = try #require(world.app.feature(ToyFeature.self))
        try await world.ready()

        let photo = try jpeg(in: world.clientDirectory.url, "toy.jpg", seed: 9)
        let toy = try toys.service.create(name: "Bucket", photo: photo)
        var pending = try world.app.outboxStatus().pending
        #expect(pending["toys"] == 1 && pending["photos"] == 1)
        #expect(try world.app.outboxKindStatuses().map(\.name).contains("toys"))

        // 1. The photo goes first; the toy is refused for good with the server's sentence.
        var report = try await world.app.sync.sync(explicit: true)
        let names = report.stages.map(\.name)
        #expect(try #require(names.firstIndex(of: "photos")) < #require(names.firstIndex(of: "toys")))
        #expect(report.stages.first { $0.name == "toys" }?.failed == 1)
        #expect(uploads.withLock { $0 } == ["toy"])
        #expect(try toys.store.toy(localID: toy.localID)?.photoServerPath == "uploads/toy_photos/ab12.jpg")
        #expect(
            try world.app.outboxStatus().failed.contains {
                $0 == FailedOutboxItem(kind: "toy", localID: toy.localID, reason: "A toy needs a longer name.")
            })

        // 2. Retried: a 503 keeps it pending with one counted try and the reason it waits.
        #expect(try toys.service.retry(localID: toy.localID))
        report = try await world.app.sync.sync(explicit: true)
        #expect(report.stages.first { $0.name == "toys" }?.deferred == 1)
        let waiting = try #require(try toys.store.toy(localID: toy.localID))
        #expect(waiting.outbox.status == .pending && waiting.outbox.attempts == 1)
        #expect(waiting.outbox.deferredReason?.contains("Busy.") == true)

        // 3. The next pass lands it: synced with the server's id, nothing left in the outbox.
        report = try await world.app.sync.sync(explicit: true)
        #expect(report.stages.first { $0.name == "toys" }?.pushed == 1)
        let synced = try #require(try toys.store.toy(localID: toy.localID))
        #expect(synced.serverID == 71)
        #expect(
            synced.outbox
                == OutboxState(
                    status: .synced, attempts: 1, lastAttemptAt: synced.outbox.lastAttemptAt,
                    author: OutboxAuthor(userID: 7, username: "alex", server: world.app.serverIdentity())))
        pending = try world.app.outboxStatus().pending
        #expect(pending.values.allSatisfy { $0 == 0 })
        #expect(uploads.withLock { $0 }.count == 1)  // the photo was uploaded once
        let posts = peer.requests(path: "/api/v1/toys").compactMap { request -> JSONValue? in
            guard case .data(let data) = request.body else { return nil }
            return try? JSONValue.parse(data)
        }
        #expect(posts.count == 3)
        #expect(posts.allSatisfy { $0["local_id"] == .string(toy.localID) })
        #expect(posts.last?["photo_path"] == "uploads/toy_photos/ab12.jpg")
    }
}
