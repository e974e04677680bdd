import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import Synchronization
import Testing

/// Sends through libcurl and records, per request, its path, its `If-None-Match` and the reply's status.
final class ConditionRecorder: HTTPTransport {
    private let base = CurlTransport()
    private let sent = Mutex<[(path: String, condition: String?, status: Int)]>([])

    /// What was recorded since the last ``reset()``.
    var exchanges: [(path: String, condition: String?, status: Int)] { sent.withLock { $0 } }

    /// Forgets what was recorded.
    func reset() { sent.withLock { $0 = [] } }

    /// The recorded exchange of `path`, the last one.
    func last(_ path: String) -> (condition: String?, status: Int)? {
        exchanges.last { $0.path == path }.map { ($0.condition, $0.status) }
    }

    func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws -> HTTPResponse {
        let response = try await base.send(request, progress: progress)
        sent.withLock { $0.append((request.url.path, request.headers["If-None-Match"], response.status)) }
        return response
    }
}

@Suite("Conditional reference pulls against the dev server (issue 17)")
struct ConditionalPullIntegrationTests {
    static let lists = ["/api/v1/facilities", "/api/v1/areas", "/api/v1/templates"]

    @Test("a pass with nothing changed gets 304 for the reference lists and keeps the cache; logout drops the ETags")
    func notModifiedAndLogout() async throws {
        let recorder = ConditionRecorder()
        let world = try TestApp(transport: recorder)
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)
        for path in ConditionalPullIntegrationTests.lists {
            #expect(recorder.last(path)?.condition == nil, "\(path)")
            #expect(recorder.last(path)?.status == 200, "\(path)")
        }
        let facilities = try world.app.reference.facilities().value
        let templates = try world.app.reference.templates().value
        #expect(!facilities.isEmpty && !templates.isEmpty)

        recorder.reset()
        let second = try await world.app.sync.sync(explicit: true)
        for path in ConditionalPullIntegrationTests.lists {
            #expect(recorder.last(path)?.condition?.hasPrefix("\"") == true, "\(path)")
            #expect(recorder.last(path)?.status == 304, "\(path)")
        }
        #expect(second.stages.first { $0.name == "reference" }?.error == nil)
        #expect(second.stages.first { $0.name == "reference" }?.pulled == 0)
        #expect(try world.app.reference.facilities().value == facilities)
        #expect(try world.app.reference.templates().value == templates)

        // Logout clears the cache and its ETags: the next pull is unconditional and fills the cache again.
        try world.app.clearServerPulledData()
        #expect(try world.app.reference.facilities().value.isEmpty)
        recorder.reset()
        _ = try await world.app.sync.sync(explicit: true)
        for path in ConditionalPullIntegrationTests.lists {
            #expect(recorder.last(path)?.condition == nil, "\(path)")
            #expect(recorder.last(path)?.status == 200, "\(path)")
        }
        #expect(try world.app.reference.facilities().value == facilities)
    }
}

@Suite("No-change reference pulls against a dev server without ETags (issue 17)")
struct ByteIdenticalPullIntegrationTests {
    @Test("--no-etags: a pass with nothing changed gets the same bytes and neither decodes nor applies them")
    func unchangedRepliesWriteNothing() async throws {
        let recorder = ConditionRecorder()
        let world = try TestApp(transport: recorder, etags: false)
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)
        let facilities = try world.app.reference.facilities().value
        #expect(!facilities.isEmpty)
        recorder.reset()
        let report = try await world.app.sync.sync(explicit: true)
        for path in ConditionalPullIntegrationTests.lists {
            #expect(recorder.last(path)?.condition == nil, "\(path)")
            #expect(recorder.last(path)?.status == 200, "\(path)")
        }
        let reference = try #require(report.stages.first { $0.name == "reference" })
        #expect(reference.error == nil && reference.pulled == 0)
        // pulled 0: the byte-identical lists were recognised by their digest, neither decoded nor applied.
        #expect(try world.app.reference.facilities().value == facilities)
    }
}
