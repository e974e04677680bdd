import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCSync
import Testing

@Suite("Session and sync guards against the dev server")
struct SessionIntegrationTests {
    @Test("login, restore at launch, and a sync pass with the session checked")
    func loginRestoreSync() async throws {
        let world = try TestApp()
        try await world.login()
        try world.restart()
        let restored = await world.app.launch(background: false)
        #expect(restored.user?.username == "alex")
        #expect(restored.user?.displayName == "Alex Rivera")
        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
    }

    @Test("airplane mode: no request leaves, and sync refuses with a sentence")
    func airplaneMode() async throws {
        let world = try TestApp()
        try await world.login()
        try await world.app.connectivity.setForcedOffline(true)
        await #expect { try await world.app.api.getJSON("/api/v1/facilities") } throws: { error in
            (error as? APIError) == .airplaneMode
        }
        await #expect { try await world.app.sync.sync(explicit: true) } throws: { error in
            (error as? SyncStopError)?.kind == .offline
        }
        try await world.app.connectivity.setForcedOffline(false)
        #expect(try await world.app.api.getJSON("/api/v1/facilities").arrayValue?.isEmpty == false)
    }

    @Test("a revoked refresh token signs out at launch, keeping the store")
    func revokedRefresh() async throws {
        let world = try TestApp()
        try await world.login()
        try world.admin("POST", "/__admin/expire-tokens", nil)
        try world.admin("POST", "/__admin/revoke-refresh", nil)
        let restored = await world.app.launch(background: false)
        #expect(restored == .signedOut)
        #expect(await world.app.api.isSignedIn == false)
    }
}
