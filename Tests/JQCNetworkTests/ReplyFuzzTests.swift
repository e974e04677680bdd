import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// Mutated server replies through the API client (issue 11 "Fuzzing"): every reply either decodes or
/// fails as one `APIError` with a sentence free of markup; nothing traps.
@Suite("API reply fuzzing")
struct ReplyFuzzTests {
    /// A typed model in the shape feature endpoints decode (snake_case keys, nested raw form data).
    struct Inspection: Decodable, Sendable {
        let id: Int64
        let localId: String?
        let status: String
        let overallScore: Double?
        let formData: RawJSON
    }

    static let seeds: [String] = [
        #"{"ok":true,"data":{"id":501,"local_id":"A-1","status":"completed","overall_score":86.67,"form_data":{"2":4,"5":"Pass","9":["a","b"]}},"error":null}"#,
        #"{"ok":false,"data":null,"error":"Template 99 does not exist."}"#,
        #"{"ok":true,"data":[{"id":11,"name":"Main Courthouse","project_id":1}],"error":null}"#,
        "<html><body><h1>502 Bad Gateway</h1></body></html>",
        #"{"ok":true,"data":{"access_token":"x.y.z","refresh_token":"ab","user":{"id":7,"username":"alex","role":"inspector"}}}"#,
    ]

    @Test("mutated replies with random statuses decode or fail as one APIError, never a trap")
    func mutatedReplies() async throws {
        var generator = FuzzGenerator(seed: 0x4150_4931)
        let iterations = FuzzBudget.iterations(default: 300)
        let statuses = [200, 200, 200, 201, 400, 401, 404, 413, 422, 426, 429, 500, 502, 503]
        var steps: [ScriptedTransport.Step] = []
        for _ in 0..<iterations {
            let body = Mutator.mutate(
                Data(try #require(ReplyFuzzTests.seeds.randomElement(using: &generator)).utf8), using: &generator)
            steps.append(
                .reply(HTTPResponse(status: try #require(statuses.randomElement(using: &generator)), body: body)))
        }
        let harness = Harness(steps, deviceClockAhead: 0)
        try harness.signIn()
        let client = harness.client()
        var decoded = 0, refused = 0
        for index in 0..<iterations {
            do {
                if index.isMultiple(of: 2) {
                    _ = try await client.get(Inspection.self, path: "/api/v1/inspections/501")
                } else {
                    _ = try await client.getJSON("/api/v1/facilities")
                }
                decoded += 1
            } catch let error as APIError {
                #expect(!error.message.isEmpty && !error.message.contains("<h1>"), "\(error.message)")
                refused += 1
            } catch {
                Issue.record("not an APIError: \(error)")
            }
        }
        #expect(decoded + refused == iterations)
        #expect(refused > 0)
    }
}
