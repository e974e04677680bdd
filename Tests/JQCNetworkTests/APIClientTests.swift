import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCNetwork

@Suite("API client: requests, envelope and bodies")
struct APIClientRequestTests {
    struct Facility: Decodable, Equatable {
        let id: Int
        let name: String
        let projectId: Int
        let projectName: String
        let isActive: Bool
    }

    @Test("every request names the build and API version and goes to the configured server")
    func requestPolicyHeaders() async throws {
        let harness = Harness([.ok([])])
        try harness.signIn()
        _ = try await harness.client(version: "2.3.4").getJSON(
            "/api/v1/facilities",
            query: [URLQueryItem(name: "limit", value: "5")])
        let request = try #require(harness.transport.requests.first)
        #expect(request.url.absoluteString == "http://127.0.0.1:5055/api/v1/facilities?limit=5")
        #expect(request.headers["x-jqc-client"] == "jqc-shell/2.3.4")
        #expect(request.headers["X-JQC-API-Version"] == "1")
        #expect(request.headers["Authorization"]?.hasPrefix("Bearer eyJ") == true)
        #expect(request.kind == .api)
    }

    @Test("the envelope's data decodes with snake_case keys into camelCase properties")
    func envelopeDecoding() async throws {
        let harness = Harness([
            .reply(
                200,
                #"{"ok":true,"data":[{"id":3,"name":"North Tower","project_id":12,"project_name":"Acme","#
                    + #""is_active":true}],"error":null}"#)
        ])
        try harness.signIn()
        let facilities = try await harness.client().get([Facility].self, path: "/api/v1/facilities")
        #expect(
            facilities == [
                Facility(id: 3, name: "North Tower", projectId: 12, projectName: "Acme", isActive: true)
            ])
    }

    @Test("a user whose role this build does not know decodes, keeping the role as sent (issue 16)")
    func unknownRoleDecodes() async throws {
        let harness = Harness([
            .reply(200, #"{"ok":true,"data":{"id":9,"username":"sam","role":"auditor"},"error":null}"#),
            .reply(200, #"{"ok":true,"data":{"id":7,"username":"alex","role":"project_manager"},"error":null}"#),
        ])
        try harness.signIn()
        let client = try harness.client()
        #expect(try await client.get(User.self, path: "/api/v1/auth/me").role == .other("auditor"))
        #expect(try await client.get(User.self, path: "/api/v1/auth/me").role == .projectManager)
    }

    struct Inspection: Decodable {
        let id: Int
        let templateName: String
        let formData: RawJSON
        let formSchema: RawJSON?
    }

    @Test("form_data and form_schema keep their keys and numbers exactly (never key-converted)")
    func formDataFidelity() async throws {
        let body = #"""
            {"ok":true,"error":null,"data":{"inspections":[{"id":5,"template_name":"Daily",
            "form_data":{"5":4,"12":"Pass","7":{"row_1":{"col_a":"x"}},"9":4.0,"table_rows":["a_b"]},
            "form_schema":[{"id":5,"type":"rating","colSpan":2,"col_headers":["Floor_1","Floor 2"],"row_span":1}]}]}}
            """#
        let harness = Harness([.reply(200, body), .reply(200, body)])
        try harness.signIn()
        let client = harness.client()
        struct Page: Decodable { let inspections: [Inspection] }
        let page = try await client.get(Page.self, path: "/api/v1/inspections")
        let inspection = try #require(page.inspections.first)
        #expect(inspection.templateName == "Daily")
        #expect(
            inspection.formData.value == [
                "5": 4, "12": "Pass", "7": ["row_1": ["col_a": "x"]], "9": .double(4.0), "table_rows": ["a_b"],
            ])
        #expect(
            inspection.formSchema?.value == [
                ["id": 5, "type": "rating", "colSpan": 2, "col_headers": ["Floor_1", "Floor 2"], "row_span": 1]
            ])
        let raw = try await client.getJSON("/api/v1/inspections")
        #expect(raw["inspections"]?.arrayValue?.first?["form_data"]?["7"] == ["row_1": ["col_a": "x"]])
        #expect(raw["inspections"]?.arrayValue?.first?["form_data"]?["9"] == .double(4.0))
    }

    @Test("request bodies are sent with their literal snake_case keys as JSON")
    func snakeCaseBodies() async throws {
        let harness = Harness([.ok(["id": 41])])
        try harness.signIn()
        struct Created: Decodable { let id: Int }
        let created = try await harness.client().send(
            .patch, path: "/api/v1/issues/41/handler",
            body: ["handler_type": "vendor", "vendor_name": "Clean Co", "facility_handler_notes": nil],
            as: Created.self)
        #expect(created.id == 41)
        let request = try #require(harness.transport.requests.first)
        #expect(request.method == .patch)
        #expect(request.headers["Content-Type"] == "application/json")
        guard case .data(let data) = request.body else { Issue.record("expected a JSON body"); return }
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"facility_handler_notes":null,"handler_type":"vendor","vendor_name":"Clean Co"}"#)
    }

    @Test("a reply whose data does not fit the model is undecodable and names the member")
    func shapeMismatch() async throws {
        let harness = Harness([.ok([["id": 3]])])
        try harness.signIn()
        let client = harness.client()
        let error = await thrownError { _ = try await client.get([Facility].self, path: "/api/v1/facilities") }
        #expect(error as? APIError == .undecodable("data[0].name: the member is missing"))
    }

    @Test("health needs no token and teaches the client the server's clock")
    func healthLearnsServerTime() async throws {
        let harness = Harness([
            .ok([
                "status": "ok", "time": "2026-07-14T09:30:00-04:00", "today": "2026-07-14",
                "timezone": "America/New_York",
            ])
        ])
        let client = harness.client()
        let health = try await client.health()
        #expect(
            health
                == HealthStatus(
                    status: "ok", time: "2026-07-14T09:30:00-04:00", today: "2026-07-14",
                    timezone: "America/New_York"))
        let request = try #require(harness.transport.requests.first)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.kind == .probe)
        let serverTime = try #require(DateFormats.instant(from: "2026-07-14T09:30:00-04:00"))
        #expect(await client.serverTimeOffset == serverTime.timeIntervalSince(harness.clock.now))
    }

    @Test("an upload sends multipart parts with the upload time limit and reports progress")
    func uploadThroughClient() async throws {
        let harness = Harness([.ok(["path": "uploads/issue_photos/ab.jpg", "url": "http://x/static/ab.jpg"])])
        try harness.signIn()
        struct Uploaded: Decodable, Equatable {
            let path: String
            let url: String
        }
        let reports = ProgressLog()
        let uploaded = try await harness.client().upload(
            path: "/api/v1/photos/upload",
            parts: [
                .field("entity_type", "issue"),
                MultipartPart(
                    name: "file", filename: "a.jpg",
                    contentType: "image/jpeg",
                    content: .data(Data(count: 10))),
            ],
            as: Uploaded.self, progress: { reports.add($0, $1) })
        #expect(uploaded == Uploaded(path: "uploads/issue_photos/ab.jpg", url: "http://x/static/ab.jpg"))
        #expect(harness.transport.requests.first?.kind == .upload)
        #expect(reports.values.last?.0 == 15 && reports.values.last?.1 == 15)
    }
}

final class ProgressLog: Sendable {
    private let storage = Mutex<[(Int64, Int64)]>([])
    func add(_ sent: Int64, _ total: Int64) { storage.withLock { $0.append((sent, total)) } }
    var values: [(Int64, Int64)] { storage.withLock { $0 } }
}

@Suite("API client: every failure is classified")
struct APIClientErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let step: ScriptedTransport.Step
        let expected: APIError
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "offline", step: .fail(.offline("Connection refused")), expected: .offline),
        Case(name: "timeout", step: .fail(.timeout("Operation timed out")), expected: .timeout),
        Case(
            name: "dropped", step: .fail(.other("Empty reply from server")),
            expected: .connectionFailed("Empty reply from server")),
        Case(name: "cancelled", step: .fail(.cancelled), expected: .cancelled),
        Case(
            name: "500 with a sentence", step: .error(500, "The database is busy."),
            expected: .server(status: 500, message: "The database is busy.")),
        Case(
            name: "503 without a body", step: .reply(503, ""),
            expected: .server(status: 503, message: "The server is unavailable. Try again later.")),
        Case(
            name: "502 HTML page", step: .reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
            expected: .server(status: 502, message: "The server is unavailable. Try again later.")),
        Case(
            name: "429 with Retry-After", step: .error(429, "Slow down.", headers: ["Retry-After": "7"]),
            expected: .rateLimited(retryAfter: 7)),
        Case(name: "429 without Retry-After", step: .error(429, "Slow down."), expected: .rateLimited(retryAfter: nil)),
        Case(
            name: "404", step: .error(404, "That inspection does not exist."),
            expected: .rejected(status: 404, message: "That inspection does not exist.")),
        Case(
            name: "422", step: .error(422, "form_data contains a local photo path."),
            expected: .rejected(status: 422, message: "form_data contains a local photo path.")),
        Case(
            name: "403 HTML", step: .reply(403, "<html>Forbidden</html>"),
            expected: .rejected(status: 403, message: "The server refused the request (HTTP 403).")),
        Case(name: "426", step: .error(426, "update_required"), expected: .updateRequired),
        Case(
            name: "200 HTML page", step: .reply(200, "<!DOCTYPE html><html><p>Login to Wi-Fi</p></html>"),
            expected: .undecodable("the server sent a web page instead of data")),
        Case(
            name: "200 truncated JSON", step: .reply(200, #"{"ok":true,"data":[{"id":1},{"id""#),
            expected: .undecodable("the reply was cut short")),
        Case(name: "200 empty", step: .reply(200, ""), expected: .undecodable("the reply was empty")),
        Case(
            name: "200 not an envelope", step: .reply(200, "[1,2]"),
            expected: .undecodable("the reply was not a JQC envelope")),
        Case(
            name: "200 ok false", step: .error(200, "Nothing to do."),
            expected: .rejected(status: 200, message: "Nothing to do.")),
    ]

    @Test("a failure is classified into one APIError whose message has no markup", arguments: cases)
    func classification(_ testCase: Case) async throws {
        let harness = Harness([testCase.step])
        try harness.signIn()
        let error = await thrownError { _ = try await harness.client().getJSON("/api/v1/issues") }
        let apiError = try #require(error as? APIError)
        #expect(apiError == testCase.expected)
        #expect(!apiError.message.contains("<"))
        #expect(!apiError.message.isEmpty)
    }

    @Test("transient failures and server answers are told apart for the sync engine's try limit")
    func transientAndCounting() {
        #expect(APIError.offline.isTransient && !APIError.offline.countsAsServerAnswer)
        #expect(APIError.timeout.isTransient && !APIError.timeout.countsAsServerAnswer)
        #expect(APIError.connectionFailed("x").isTransient && !APIError.connectionFailed("x").countsAsServerAnswer)
        #expect(APIError.server(status: 500, message: "x").isTransient)
        #expect(APIError.server(status: 500, message: "x").countsAsServerAnswer)
        let busy = APIError.rateLimited(retryAfter: 3)
        #expect(busy.isTransient && busy.countsAsServerAnswer)
        #expect(!APIError.rejected(status: 422, message: "x").isTransient)
        #expect(!APIError.updateRequired.isTransient && !APIError.signedOut.isTransient)
        #expect(APIError.rateLimited(retryAfter: 7).message == "The server is busy. Try again in 7 seconds.")
        #expect(APIError.updateRequired.code == "network.update_required")
    }

    @Test("a 429 Retry-After given as a date is measured on the server's clock")
    func retryAfterDate() async throws {
        let harness = Harness(
            [
                .error(
                    429, "Slow down.",
                    headers: [
                        "Date": Harness.httpDate(Harness.serverNow),
                        "Retry-After": Harness.httpDate(Harness.serverNow + 30),
                    ])
            ], deviceClockAhead: 600)
        try harness.signIn()
        let error = await thrownError { _ = try await harness.client().getJSON("/api/v1/issues") }
        #expect(error as? APIError == .rateLimited(retryAfter: 30))
    }

    @Test("a client with nobody signed in refuses authenticated calls without sending them")
    func signedOutRefusesLocally() async throws {
        let harness = Harness([.ok([])])
        let error = await thrownError { _ = try await harness.client().getJSON("/api/v1/issues") }
        #expect(error as? APIError == .signedOut)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("cancelling the calling task while the request is in flight ends with the cancelled error")
    func taskCancellation() async throws {
        let gate = Barrier(count: 2)
        let harness = Harness([
            .respond({ _ in
                await gate.arrive()
                try await Task.sleep(for: .seconds(86_400))  // waits until cancelled; never elapses in a passing run
                return HTTPResponse(status: 200, body: Data(#"{"ok":true,"data":1}"#.utf8))
            })
        ])
        try harness.signIn()
        let client = harness.client()
        let task = Task { try await client.getJSON("/api/v1/issues") }
        await gate.arrive()
        task.cancel()
        let error = await thrownError { _ = try await task.value }
        #expect(error as? APIError == .cancelled)
    }
}

@Suite("Request policy: a refused build is remembered")
struct UpdateRefusalTests {
    @Test("a 426 is remembered across a new client and later requests are refused locally until the build changes")
    func refusalPersists() async throws {
        let harness = Harness([.error(426, "update_required"), .ok(["status": "ok"])])
        try harness.signIn()
        let first = await thrownError { _ = try await harness.client(version: "1.0.0").getJSON("/api/v1/issues") }
        #expect(first as? APIError == .updateRequired)
        #expect(
            try String(contentsOf: harness.refusalURL, encoding: .utf8)
                == #"{"format":2,"refusals":[{"build":"jqc-shell/1.0.0","server":"http://127.0.0.1:5055"}]}"# + "\n")

        let restarted = harness.client(version: "1.0.0")
        #expect(await restarted.isUpdateRequired)
        let second = await thrownError { _ = try await restarted.getJSON("/api/v1/issues") }
        #expect(second as? APIError == .updateRequired)
        let login = await thrownError { _ = try await restarted.login(username: "alice", password: "pw") }
        #expect(login as? APIError == .updateRequired)
        #expect(harness.transport.requests.count == 1)

        let updated = harness.client(version: "1.0.1")
        #expect(await !updated.isUpdateRequired)
        #expect(try await updated.health().status == "ok")
        #expect(harness.transport.requests.count == 2)
    }

    @Test("a refusal belongs to the server that gave it: another server starts clean, and switching back finds it")
    func refusalPerServer() async throws {
        let selection = InMemorySelectionStore("https://jqc.ltservicesinc.com")
        let transport = ScriptedTransport([.error(426, "update_required"), .ok(["status": "ok"])])
        let directory = TemporaryDirectory()
        let memory = FileUpdateRefusalMemory(url: directory.path("update-required"))
        let client = APIClient(
            config: ServerConfig(store: selection), transport: transport, tokens: InMemoryTokenStore(),
            refusals: memory, identity: ClientIdentity(version: "2.0"))
        let refused = await thrownError { _ = try await client.health() }
        #expect(refused as? APIError == .updateRequired)
        #expect(await client.isUpdateRequired)

        try selection.save("secondary")
        #expect(await !client.isUpdateRequired)
        #expect(try await client.health().status == "ok")
        #expect(transport.requests.last?.url.absoluteString == "https://jqc1.ltservicesinc.com/api/v1/health")

        try selection.save("primary")  // the same server as the explicit URL above
        #expect(await client.isUpdateRequired)
        let again = await thrownError { _ = try await client.health() }
        #expect(again as? APIError == .updateRequired)
        #expect(transport.requests.count == 2)
        let reread = FileUpdateRefusalMemory(url: directory.path("update-required"))
        #expect(reread.isRefused(build: "jqc-shell/2.0", server: "https://jqc.ltservicesinc.com"))
        #expect(!reread.isRefused(build: "jqc-shell/2.0", server: "https://jqc1.ltservicesinc.com"))
        #expect(!reread.isRefused(build: "jqc-shell/2.1", server: "https://jqc.ltservicesinc.com"))
    }

    @Test("an old one-line refusal file is attributed to the server first asked about and rewritten in format 2")
    func legacyFileMigrates() throws {
        let directory = TemporaryDirectory()
        let url = directory.path("update-required")
        try Data("jqc-shell/0.1.0\n".utf8).write(to: url)
        let memory = FileUpdateRefusalMemory(url: url)
        #expect(memory.isRefused(build: "jqc-shell/0.1.0", server: "http://127.0.0.1:5055"))
        #expect(!memory.isRefused(build: "jqc-shell/0.1.0", server: "https://jqc.ltservicesinc.com"))
        #expect(
            try String(contentsOf: url, encoding: .utf8)
                == #"{"format":2,"refusals":[{"build":"jqc-shell/0.1.0","server":"http://127.0.0.1:5055"}]}"# + "\n")
        let reread = FileUpdateRefusalMemory(url: url)
        #expect(!reread.isRefused(build: "jqc-shell/0.1.0", server: "https://jqc.ltservicesinc.com"))
        #expect(reread.isRefused(build: "jqc-shell/0.1.0", server: "http://127.0.0.1:5055"))
    }

    @Test("one refusal per server is kept, at most sixteen servers, and a garbled file refuses nothing")
    func boundedAndTolerant() throws {
        let directory = TemporaryDirectory()
        let url = directory.path("update-required")
        let memory = FileUpdateRefusalMemory(url: url)
        try memory.remember(build: "jqc-shell/1", server: "https://a.example")
        try memory.remember(build: "jqc-shell/2", server: "https://a.example")
        #expect(!memory.isRefused(build: "jqc-shell/1", server: "https://a.example"))
        #expect(memory.isRefused(build: "jqc-shell/2", server: "https://a.example"))
        for index in 0..<20 { try memory.remember(build: "jqc-shell/2", server: "https://s\(index).example") }
        let reread = FileUpdateRefusalMemory(url: url)
        #expect(!reread.isRefused(build: "jqc-shell/2", server: "https://a.example"))
        #expect(reread.isRefused(build: "jqc-shell/2", server: "https://s19.example"))
        #expect(!reread.isRefused(build: "jqc-shell/2", server: "https://s3.example"))
        try Data("{not json\nat all".utf8).write(to: url)
        #expect(!FileUpdateRefusalMemory(url: url).isRefused(build: "{not json", server: "https://a.example"))
        try memory.clear()
        #expect(!memory.isRefused(build: "jqc-shell/2", server: "https://s19.example"))
    }
}
