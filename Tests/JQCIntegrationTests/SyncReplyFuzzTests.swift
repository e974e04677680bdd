import Foundation
import JQCComposition
import JQCKit
import JQCNetwork
import JQCSync
import JQCTestSupport
import Synchronization
import Testing

/// Sends through libcurl to the in-process dev server and, while mutating, replaces each reply's body by a
/// seeded mutation of it (issue 21 "a fuzz target over reply bodies for every endpoint's decoder"): the real
/// replies of every endpoint a pass reaches — health, the session, facilities, areas, templates, issues,
/// follow-ups, schedules, notifications, the dashboard — reach their real decoders mutated.
final class MutatingTransport: HTTPTransport {
    private let base = CurlTransport()
    private let state: Mutex<(generator: FuzzGenerator, enabled: Bool, paths: Set<String>)>

    /// A transport mutating with the generator seeded by `seed`.
    init(seed: UInt64) { state = Mutex((FuzzGenerator(seed: seed), false, [])) }

    /// Whether replies are mutated now.
    func mutate(_ on: Bool) { state.withLock { $0.enabled = on } }

    /// The paths whose replies were mutated so far.
    var mutatedPaths: Set<String> { state.withLock { $0.paths } }

    func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws -> HTTPResponse {
        var request = request
        // Half the conditional requests go out unconditional, so lists with an ETag still arrive (and get mutated).
        let unconditional = state.withLock { $0.enabled && Bool.random(using: &$0.generator) }
        if unconditional { request.headers.set("If-None-Match", nil) }
        var response = try await base.send(request, progress: progress)
        state.withLock { state in
            guard state.enabled, !response.body.isEmpty, Int.random(in: 0..<4, using: &state.generator) != 0 else {
                return
            }
            response.body = Mutator.mutate(response.body, using: &state.generator)
            state.paths.insert(request.url.path)
        }
        return response
    }
}

@Suite("Fuzzing every endpoint's decoder through sync passes (issue 21)")
struct SyncReplyFuzzTests {
    @Test(
        "mutated real replies end every pass as a report or a stop with a sentence; nothing traps, the store stays usable"
    )
    func mutatedPasses() async throws {
        let transport = MutatingTransport(seed: 0x5359_4E43)
        let world = try TestApp(transport: transport)
        try await world.login()
        _ = try await world.app.sync.sync(explicit: true)  // every list cached once, honestly
        // A pass is ~10 requests: `make chaos`'s budget (JQC_FUZZ_ITERATIONS) is divided by 50.
        let passes = max(12, FuzzBudget.iterations(default: 2000) / 50)
        var reports = 0, stops = 0
        for _ in 0..<passes {
            if !(await world.app.api.isSignedIn) {
                transport.mutate(false)
                try await world.login()  // a mutated refresh may sign out: sign in again, honestly
            }
            transport.mutate(true)
            do {
                let report = try await world.app.sync.sync(explicit: true)
                for stage in report.stages {
                    #expect(stage.error.map { !$0.isEmpty && !$0.contains("<h") } ?? true, "\(stage)")
                }
                reports += 1
            } catch let stop as SyncStopError {
                #expect(!stop.message.isEmpty)
                stops += 1
            }
            transport.mutate(false)
            _ = try world.app.outboxKindStatuses()
            _ = try world.app.reference.facilities()
        }
        #expect(reports + stops == passes)
        #expect(reports > 0)
        let reached = transport.mutatedPaths
        for path in [
            "/api/v1/facilities", "/api/v1/areas", "/api/v1/templates", "/api/v1/issues",
            "/api/v1/scheduled-inspections", "/api/v1/notifications", "/api/v1/dashboard/stats",
        ] {
            #expect(reached.contains(path), "\(path) was never mutated: \(reached.sorted())")
        }
        // Honest again: the next pass runs every stage without an error.
        transport.mutate(false)
        if !(await world.app.api.isSignedIn) { try await world.login() }
        let clean = try await world.app.sync.sync(explicit: true)
        #expect(clean.stages.allSatisfy { $0.error == nil }, "\(clean.stages.filter { $0.error != nil })")
    }
}
