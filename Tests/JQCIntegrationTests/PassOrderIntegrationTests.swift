import Foundation
import JQCComposition
import JQCInspections
import JQCKit
import JQCNetwork
import Synchronization
import Testing

/// Sends through libcurl and records each request's method and path, in the order they left.
final class RecordingTransport: HTTPTransport {
    private let base = CurlTransport()
    private let sent = Mutex<[String]>([])
    private let idempotent = Mutex<[String]>([])

    /// `METHOD /path` of every request so far.
    var requests: [String] { sent.withLock { $0 } }

    /// `METHOD /path` of every request so far that libcurl was allowed to send again (`isIdempotent`).
    var idempotentRequests: [String] { idempotent.withLock { $0 } }

    /// Forgets what was recorded.
    func reset() {
        sent.withLock { $0 = [] }
        idempotent.withLock { $0 = [] }
    }

    func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws -> HTTPResponse {
        sent.withLock { $0.append("\(request.method.rawValue) \(request.url.path)") }
        if request.isIdempotent { idempotent.withLock { $0.append("\(request.method.rawValue) \(request.url.path)") } }
        return try await base.send(request, progress: progress)
    }
}

@Suite("The order of a pass, as the server sees it (SPEC.md §4)")
struct PassOrderIntegrationTests {
    @Test(
        "one pass: photos → inspections → issues → edits, then reference → assigned issues → follow-ups → schedules → notifications (mark-read first) → dashboard"
    )
    func outboxOrder() async throws {
        let recorder = RecordingTransport()
        let world = try TestApp(transport: recorder)
        try await world.ready()  // signed in; notifications pulled
        #expect(try world.app.notifications.markAllRead().isEmpty == false)
        let draft = try world.app.inspections.start(StartRequest(templateID: 3, facilityID: 11))
        try world.app.inspections.answer(localID: draft.localID, fieldID: "2", arguments: ["4"])
        let photo = try jpeg(in: world.clientDirectory.url, "evidence.jpg", seed: 3)
        try world.app.inspectionPhotos.attach(localID: draft.localID, fieldID: "9", file: photo)
        let issue = try world.app.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "Mop")
        _ = try world.app.issues.updateStatus(id: issue.localID, status: "in_progress")
        _ = try world.app.inspections.submit(localID: draft.localID)
        recorder.reset()

        let report = try await world.app.sync.sync(explicit: true)
        #expect(report.stoppedBy == nil)
        let sent = recorder.requests
        /// Where the first request matching `prefix` left, or `nil`.
        func first(_ prefix: String) -> Int? { sent.firstIndex { $0.hasPrefix(prefix) } }
        let steps = [
            "POST /api/v1/photos/upload", "POST /api/v1/inspections", "POST /api/v1/issues", "PATCH /api/v1/issues/",
            "GET /api/v1/facilities", "GET /api/v1/issues", "GET /api/v1/inspections",
            "GET /api/v1/scheduled-inspections",
            "PATCH /api/v1/notifications/mark-read", "GET /api/v1/notifications", "GET /api/v1/dashboard",
        ]
        let positions = steps.map(first)
        for (step, position) in zip(steps, positions) {
            #expect(position != nil, "the pass sent no \(step): \(sent)")
        }
        let found = positions.compactMap { $0 }
        #expect(found == found.sorted(), "out of order: \(sent)")
        // CONTRACT.md: the client never relies on the (ext) `local_id` dedupe, so no outbox POST may be re-sent
        // below the outbox: each leaves as non-idempotent (a fresh connection, never retried by libcurl).
        #expect(recorder.idempotentRequests.filter { $0.hasPrefix("POST") || $0.hasPrefix("PATCH") } == [])
        #expect(try world.app.outboxStatus().pending.values.allSatisfy { $0 == 0 })
    }
}
