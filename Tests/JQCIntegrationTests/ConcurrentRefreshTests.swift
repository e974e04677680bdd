import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCSync
import Testing

/// Two processes share one data directory (a shell and a background sync, issue 2): one of them
/// rotating the refresh token must not sign the other out (issue 11 "a refresh token rotated by a
/// concurrent request").
@Suite("Chaos: a refresh token rotated by another process")
struct ConcurrentRefreshTests {
    @Test("the other process adopts the rotated credentials from the store instead of signing out")
    func rotatedElsewhere() async throws {
        let world = try TestApp()
        try await world.login()
        // A second root over the same data directory: it read the same credentials at start.
        let other = try TestApp.makeRoot(
            directory: world.clientDirectory.url, selection: world.selection, clock: SystemClock())
        try world.admin("POST", "/__admin/expire-tokens", nil)
        // The first refreshes (rotation: the refresh token the second holds dies on the server).
        #expect(try await world.app.api.getJSON("/api/v1/areas").arrayValue?.isEmpty == false)
        // The second's access token is expired too; its refresh token was rotated away.
        #expect(try await other.api.getJSON("/api/v1/areas").arrayValue?.isEmpty == false)
        #expect(await other.api.isSignedIn)
        #expect(await world.app.api.isSignedIn)
    }

    @Test("when the session really ended (refresh revoked), both sign out and the store is kept")
    func revokedForAll() async throws {
        let world = try TestApp()
        try await world.login()
        let other = try TestApp.makeRoot(
            directory: world.clientDirectory.url, selection: world.selection, clock: SystemClock())
        try world.admin("POST", "/__admin/expire-tokens", nil)
        try world.admin("POST", "/__admin/revoke-refresh", nil)
        await #expect(throws: APIError.signedOut) { try await other.api.getJSON("/api/v1/areas") }
        await #expect(throws: APIError.signedOut) { try await world.app.api.getJSON("/api/v1/areas") }
    }
}

/// Issue 15: a refused refresh is the session's end, never an item's failure.
@Suite("A refused refresh stops the pass and counts no try (issue 15)")
struct RefusedRefreshPassTests {
    @Test(
        "a refresh refused with 400, 401 or 403 stops the pass: the inspection stays pending with no try counted, nothing more is sent",
        arguments: [400, 401, 403])
    func refusedRefreshStopsThePass(status: Int) async throws {
        let world = try TestApp()
        try await world.ready()
        let id = try world.submitted()
        try world.admin("POST", "/__admin/expire-tokens", nil)
        try world.fault([
            "method": "POST", "path_prefix": "/api/v1/auth/refresh", "mode": "status", "status": .int(Int64(status)),
            "count": 5,
        ])
        await #expect {
            try await world.app.sync.sync(explicit: true)
        } throws: { error in
            (error as? SyncStopError)?.kind == .signedOut
        }
        let inspection = try world.local(id)
        #expect(inspection.syncStatus == .pending)
        #expect(inspection.syncAttempts == 0)
        #expect(try world.app.outboxStatus().failed.isEmpty)
        #expect(await !world.app.api.isSignedIn)
        let log = world.serverDirectory.path("server.log")
        let sent = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count
        await #expect(throws: SyncStopError.self) { try await world.app.sync.sync(explicit: true) }
        _ = await world.app.api.restoreSession()
        #expect(try String(contentsOf: log, encoding: .utf8).split(separator: "\n").count == sent)
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)
        #expect(try world.local(id).syncStatus == .synced)
        #expect(try world.serverRecords(id).count == 1)
    }
}
