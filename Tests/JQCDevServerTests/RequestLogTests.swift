import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// What tests of the client count on the server: one `server.log` line per request, refresh exchanges and
/// deduplicated POSTs in `GET /__admin/state`, and the token lifetimes of the command line.
@Suite("Request log and counters")
struct RequestLogTests {
    /// The log lines ending `METHOD PATH STATUS Nms`, as (method, path, status).
    func requests(_ harness: Harness) throws -> [(method: String, path: String, status: String)] {
        let log = try String(contentsOf: harness.directory.path("data/server.log"), encoding: .utf8)
        return log.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ")
            guard words.count >= 7, words[2] == "[devserver]", words.last?.hasSuffix("ms") == true else { return nil }
            return (String(words[3]), String(words[4]), String(words[5]))
        }
    }

    @Test("every request is one log line with method, path and status; refreshes are counted in admin state")
    func refreshesCounted() throws {
        let harness = try Harness()
        let first = harness.login("alex")
        let rotated = harness.request("POST", "/auth/refresh", ["refresh_token": .string(first.refresh)])
        let second = try #require(rotated.data?["refresh_token"]?.stringValue)
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(second)]).status == 200)
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(first.refresh)]).status == 401)
        #expect(harness.request("POST", "/auth/refresh").status == 400)  // no body: not an exchange
        let state = harness.get("/__admin/state")
        #expect(state.data?["refreshes"] == ["succeeded": 2, "failed": 1])
        #expect(state.data?["duplicates"] == ["inspections": 0, "issues": 0])

        let logged = try requests(harness)
        let refreshes = logged.filter { $0.method == "POST" && $0.path == "/api/v1/auth/refresh" }
        #expect(refreshes.map(\.status) == ["200", "200", "401", "400"])
        #expect(logged.filter { $0.path == "/api/v1/auth/login" }.map(\.status) == ["200"])
        #expect(logged.last.map { "\($0.method) \($0.path) \($0.status)" } == "GET /__admin/state 200")
    }

    @Test("an upload refused for its announced size is logged like any request")
    func earlyRefusalLogged() throws {
        let harness = try Harness()
        let reply = harness.curl([
            "-X", "POST", harness.base + "/api/v1/photos/upload", "-H", "Content-Length: 60000000",
            "-H", "Content-Type: multipart/form-data; boundary=x", "--data-binary", "x", "--max-time", "5",
        ])
        #expect(reply.status == 413)
        #expect(reply.error == "The upload is larger than 50 MB; send a smaller photo.")
        #expect(try requests(harness).contains { $0.path == "/api/v1/photos/upload" && $0.status == "413" })
    }

    @Test("--access-ttl and --refresh-ttl set the token lifetimes the login reply and the JWT carry")
    func tokenLifetimes() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-ttl")
        let child = try ChildProcess(
            TestPaths.productsDirectory.appendingPathComponent("jqc-devserver"),
            ["--port", "0", "--data-dir", scratch.path("data").path, "--access-ttl", "7", "--refresh-ttl", "11"])
        defer { child.kill(SIGTERM) }
        let line = try #require(child.readLine())
        let client = CurlClient(base: String(line.dropFirst("listening on ".count)), scratch: scratch)
        let reply = client.curl([
            "-X", "POST", client.base + "/api/v1/auth/login", "-H", "Content-Type: application/json",
            "--data-binary", #"{"username":"alex","password":"inspect-demo"}"#,
        ])
        let data = try #require((try JSONValue.parse(reply.body))["data"])
        #expect(data["expires_in"] == 7)
        let access = try #require(data["access_token"]?.stringValue)
        let payload = try #require(access.split(separator: ".").dropFirst().first.map(String.init))
        let claims = try JSONValue.parse(try #require(ServerCrypto.base64URLDecode(payload)))
        let issued = try #require(claims["iat"]?.intValue), expiry = try #require(claims["exp"]?.intValue)
        #expect((7...8).contains(expiry - issued))  // `exp` is rounded up from the instant, `iat` down
        child.kill(SIGTERM)
        // The refresh token's expiry is stored as issued + 11 s.
        let day = try requireDay("2026-07-14")
        let store = try ServerStore(directory: scratch.path("data"), seed: .none, today: { _ in day }, now: Date())
        defer { store.queue.close() }
        let lifetimes: [Double] = try store.queue.read { db in
            try db.fetchAll("SELECT expires_at FROM refresh_tokens").compactMap { $0["expires_at"] as Double? }
        }
        #expect(lifetimes.count == 1)
        #expect(abs((lifetimes.first ?? 0) - Double(issued) - 11) < 1.5)
    }

    @Test("a refresh token stops working when --refresh-ttl has passed on the real clock")
    func refreshLifetime() throws {
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_784_000_000))
        let directory = TemporaryDirectory(prefix: "jqc-devserver")
        let server = DevServer(
            configuration: DevServerConfiguration(
                dataDirectory: directory.path("data"), today: CalendarDay("2026-07-14"), admin: true,
                refreshTTL: 100, clock: clock))
        let port = try server.start()
        defer { server.stop() }
        let client = CurlClient(base: "http://127.0.0.1:\(port)", scratch: directory)
        func refresh(_ token: String) -> (status: Int, body: Data) {
            client.curl([
                "-X", "POST", client.base + "/api/v1/auth/refresh", "-H", "Content-Type: application/json",
                "--data-binary", #"{"refresh_token":"\#(token)"}"#,
            ])
        }
        let login = client.curl([
            "-X", "POST", client.base + "/api/v1/auth/login", "-H", "Content-Type: application/json",
            "--data-binary", #"{"username":"alex","password":"inspect-demo"}"#,
        ])
        let token = try #require((try JSONValue.parse(login.body))["data"]?["refresh_token"]?.stringValue)
        clock.advance(by: 99)
        let rotated = refresh(token)
        #expect(rotated.status == 200)
        let next = try #require((try JSONValue.parse(rotated.body))["data"]?["refresh_token"]?.stringValue)
        clock.advance(by: 101)
        #expect(refresh(next).status == 401)
    }
}
