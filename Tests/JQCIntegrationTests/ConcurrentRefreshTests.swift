import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
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
