import Foundation
import JQCKit
import JQCNetwork
import Synchronization
import Testing

/// JQCNetwork against the real dev server over loopback, one fault mode at a time (issue 4 "must show").
@Suite("API client against the dev server's faults")
struct NetworkFaultTests {
    @Test(
        "status faults are classified: 500 server, 429 rate limited, 422 rejected with the server's sentence, 426 update required"
    )
    func statusFaults() async throws {
        let world = try TestApp()
        try await world.login()
        let api = world.app.api
        try world.fault(["path_prefix": "/api/v1/facilities", "mode": "status", "status": 500])
        await #expect { try await api.getJSON("/api/v1/facilities") } throws: { error in
            guard case .server(500, _)? = error as? APIError else { return false }
            return true
        }
        try world.fault(["path_prefix": "/api/v1/facilities", "mode": "status", "status": 429])
        await #expect { try await api.getJSON("/api/v1/facilities") } throws: { error in
            guard case .rateLimited? = error as? APIError else { return false }
            return true
        }
        try world.fault(["path_prefix": "/api/v1/facilities", "mode": "status", "status": 422])
        await #expect { try await api.getJSON("/api/v1/facilities") } throws: { error in
            guard case .rejected(422, let message)? = error as? APIError else { return false }
            return !message.isEmpty && !message.contains("<")
        }
        // The fault cleared after one request: the next succeeds.
        // 4 facilities in scope, and 21 repeated (rule 45).
        #expect(try await api.getJSON("/api/v1/facilities").arrayValue?.count == 5)
    }

    @Test("an HTML 502 page and a truncated reply are server errors without markup, never a crash")
    func htmlAndTruncated() async throws {
        let world = try TestApp()
        try await world.login()
        try world.fault(["path_prefix": "/api/v1/templates", "mode": "html"])
        await #expect { try await world.app.api.getJSON("/api/v1/templates") } throws: { error in
            guard let api = error as? APIError, case .server(502, _) = api else { return false }
            return !api.message.contains("<")
        }
        try world.fault(["path_prefix": "/api/v1/templates", "mode": "truncate"])
        await #expect { try await world.app.api.getJSON("/api/v1/templates") } throws: { error in
            guard case .undecodable? = error as? APIError else { return false }
            return true
        }
    }

    @Test("a dropped connection on a GET is retried once transparently")
    func droppedGetRetried() async throws {
        let world = try TestApp()
        try await world.login()
        try world.fault(["path_prefix": "/api/v1/areas", "mode": "drop", "count": 1])
        #expect(try await world.app.api.getJSON("/api/v1/areas").arrayValue?.isEmpty == false)
    }

    @Test("a dropped POST is reported, never sent twice (drop_after applies it once)")
    func droppedPostNotResent() async throws {
        let world = try TestApp()
        try await world.login()
        try world.fault(["method": "POST", "path_prefix": "/api/v1/issues", "mode": "drop_after"])
        let body: JSONValue = [
            "local_id": "net-fault-1", "facility_id": 11, "severity": "low", "description": "drop_after probe",
        ]
        await #expect(throws: APIError.self) {
            try await world.app.api.sendJSON(.post, path: "/api/v1/issues", body: body)
        }
        let issues = try world.adminState()["issues"]?.arrayValue ?? []
        #expect(issues.filter { $0["local_id"] == "net-fault-1" }.count == 1)
    }

    @Test("expired access tokens: twenty concurrent requests share exactly one refresh")
    func singleFlightRefresh() async throws {
        let world = try TestApp()
        try await world.login()
        try world.admin("POST", "/__admin/expire-tokens", nil)
        let api = world.app.api
        let before = await api.refreshesSent
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<20 { group.addTask { try await api.getJSON("/api/v1/facilities").arrayValue?.count ?? 0 } }
            for try await count in group { #expect(count == 5) }
        }
        #expect(await api.refreshesSent - before == 1)
    }

    @Test("a revoked refresh token signs out; the store and its data stay")
    func revokedRefreshSignsOut() async throws {
        let world = try TestApp()
        try await world.login()
        try world.admin("POST", "/__admin/expire-tokens", nil)
        try world.admin("POST", "/__admin/revoke-refresh", nil)
        await #expect { try await world.app.api.getJSON("/api/v1/facilities") } throws: { error in
            (error as? APIError) == .signedOut
        }
        #expect(await world.app.api.isSignedIn == false)
        #expect(FileManager.default.fileExists(atPath: world.clientDirectory.path("jqc.sqlite").path))
    }

    @Test("a 426 is remembered across a restart: later requests are refused without being sent")
    func updateRequiredSurvivesRestart() async throws {
        let world = try TestApp()
        try await world.login()
        try world.fault(["path_prefix": "/api/v1/facilities", "mode": "status", "status": 426])
        await #expect { try await world.app.api.getJSON("/api/v1/facilities") } throws: { error in
            (error as? APIError) == .updateRequired
        }
        try world.restart()
        #expect(await world.app.api.isUpdateRequired)
        await #expect { try await world.app.api.getJSON("/api/v1/areas") } throws: { error in
            (error as? APIError) == .updateRequired
        }
    }

    @Test("a photo upload to the dev server reports progress up to its size")
    func uploadProgress() async throws {
        let world = try TestApp()
        try await world.login()
        let file = world.clientDirectory.path("probe.jpg")
        // A minimal JPEG header is enough for the server's image check; the bytes are stored unchanged.
        var bytes = Data([0xFF, 0xD8, 0xFF, 0xE0])
        bytes.append(Data(repeating: 0x20, count: 200_000))
        bytes.append(contentsOf: [0xFF, 0xD9])
        try bytes.write(to: file)
        let progress = ProgressLog()
        let reply: RawJSON = try await world.app.api.upload(
            path: "/api/v1/photos/upload",
            parts: [.file("file", url: file, contentType: "image/jpeg"), .field("entity_type", "issue")],
            progress: { sent, total in progress.record(sent, total) })
        let path = reply.value["path"]?.stringValue ?? ""
        #expect(path.hasPrefix("uploads/issue_photos/"))
        #expect(progress.maximum >= Int64(bytes.count))
    }
}

final class ProgressLog: Sendable {
    private let value = Mutex<Int64>(0)
    func record(_ sent: Int64, _ total: Int64) { value.withLock { $0 = max($0, sent) } }
    var maximum: Int64 { value.withLock { $0 } }
}
