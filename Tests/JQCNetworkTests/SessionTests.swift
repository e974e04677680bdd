import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// A `/auth/refresh` reply carrying a new access token named `name`, valid `lifetime` seconds.
private func refreshed(_ name: String, refresh: String, lifetime: Double = 900) -> ScriptedTransport.Step {
    .ok([
        "access_token": .string(Harness.jwt(name, expiresAt: Harness.serverNow + lifetime)),
        "refresh_token": .string(refresh),
    ])
}

@Suite("Session: refresh")
struct RefreshTests {
    @Test("twenty concurrent requests refused with 401 share exactly one refresh, then all succeed")
    func singleFlightRefresh() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        let barrier = Barrier(count: 20)
        harness.transport.route(
            .get, path: "/api/v1/issues",
            [
                .respond({ request in
                    if Harness.tokenName(request) == "old" {
                        await barrier.arrive()
                        return HTTPResponse(
                            status: 401, body: Data(#"{"ok":false,"data":null,"error":"Token expired."}"#.utf8))
                    }
                    return HTTPResponse(status: 200, body: Data(#"{"ok":true,"data":[],"error":null}"#.utf8))
                })
            ], repeatLast: true)
        harness.transport.route(.post, path: "/api/v1/auth/refresh", [refreshed("new", refresh: "r2")])
        let client = harness.client()
        let results = try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<20 { group.addTask { try await client.getJSON("/api/v1/issues") } }
            return try await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: [], count: 20))
        let refreshes = harness.transport.requests(path: "/api/v1/auth/refresh")
        #expect(refreshes.count == 1)
        #expect(await client.refreshesSent == 1)
        guard case .data(let body) = refreshes.first?.body else { Issue.record("no refresh body"); return }
        #expect(try JSONValue.parse(body) == ["refresh_token": "r1"])
        #expect(refreshes.first?.headers["Authorization"] == nil)
        let retried = harness.transport.requests(path: "/api/v1/issues").filter { Harness.tokenName($0) == "new" }
        #expect(retried.count == 20)
        let stored = try #require(FileTokenStore(url: harness.credentialsURL).load())
        #expect(stored.refreshToken == "r2")
        #expect(stored.user == Harness.alice)
    }

    @Test("a refused refresh signs out, clears the credentials and never loops")
    func refreshRejected() async throws {
        let harness = Harness([
            .error(401, "Token expired."),
            .error(401, "Refresh token revoked."),
        ])
        try harness.signIn()
        let outbox = harness.directory.path("outbox.sqlite")
        try Data("pending work".utf8).write(to: outbox)
        let client = harness.client()
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(error as? APIError == .signedOut)
        #expect(await !client.isSignedIn)
        #expect(FileTokenStore(url: harness.credentialsURL).load() == nil)
        #expect(try Data(contentsOf: outbox) == Data("pending work".utf8))
        #expect(!FileManager.default.fileExists(atPath: harness.credentialsURL.path))
        let again = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(again as? APIError == .signedOut)
        #expect(harness.transport.requests.map(\.url.path) == ["/api/v1/issues", "/api/v1/auth/refresh"])
    }

    @Test("a second 401 after a successful refresh is unauthorized, with no second refresh")
    func noRefreshLoop() async throws {
        let harness = Harness([
            .error(401, "Token expired."), refreshed("new", refresh: "r2"),
            .error(401, "You may not see this."),
        ])
        try harness.signIn()
        let client = harness.client()
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(error as? APIError == .unauthorized("You may not see this."))
        #expect(harness.transport.requests.count == 3)
        #expect(await client.refreshesSent == 1)
        #expect(await client.isSignedIn)
    }

    @Test("a refresh that cannot reach the server keeps the credentials and reports offline")
    func refreshOffline() async throws {
        let harness = Harness([.error(401, "Token expired."), .fail(.offline("Connection refused"))])
        try harness.signIn()
        let client = harness.client()
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(error as? APIError == .offline)
        #expect(await client.isSignedIn)
        #expect(FileTokenStore(url: harness.credentialsURL).load()?.refreshToken == "r1")
    }

    @Test("with the device clock 10 minutes fast a token valid on the server's clock is not refreshed early")
    func fastDeviceClockCausesNoStorm() async throws {
        let dated: HTTPHeaders = ["Date": Harness.httpDate(Harness.serverNow)]
        let harness = Harness(Array(repeating: .ok([], headers: dated), count: 6), deviceClockAhead: 600)
        try harness.signIn(expiresIn: 300)  // already "expired" on the device's clock
        let client = harness.client()
        for _ in 0..<6 { _ = try await client.getJSON("/api/v1/issues") }
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").isEmpty)
        #expect(await client.serverTimeOffset == -600)
    }

    @Test("a token within 60 s of expiry on the server's clock is refreshed once before use")
    func proactiveRefresh() async throws {
        let dated: HTTPHeaders = ["Date": Harness.httpDate(Harness.serverNow)]
        let harness = Harness(
            [
                .ok([], headers: dated), refreshed("new", refresh: "r2", lifetime: 900),
                .ok([], headers: dated), .ok([], headers: dated),
            ], deviceClockAhead: 600)
        try harness.signIn(access: "old", expiresIn: 45)
        let client = harness.client()
        _ = try await client.getJSON("/api/v1/issues")  // learns the server's clock
        _ = try await client.getJSON("/api/v1/issues")
        _ = try await client.getJSON("/api/v1/issues")
        #expect(
            harness.transport.requests.map(\.url.path) == [
                "/api/v1/issues", "/api/v1/auth/refresh", "/api/v1/issues", "/api/v1/issues",
            ])
        #expect(harness.transport.requests.compactMap(Harness.tokenName) == ["old", "new", "new"])
    }

    @Test("a failed early refresh is tried at most once per token and the request still goes out")
    func proactiveRefreshOncePerToken() async throws {
        let dated: HTTPHeaders = ["Date": Harness.httpDate(Harness.serverNow)]
        let harness = Harness([
            .ok([], headers: dated), .error(503, "Maintenance."), .ok([], headers: dated),
            .ok([], headers: dated),
        ])
        try harness.signIn(access: "old", expiresIn: 30)
        let client = harness.client()
        for _ in 0..<3 { _ = try await client.getJSON("/api/v1/issues") }
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(harness.transport.requests(path: "/api/v1/issues").count == 3)
    }
}

@Suite("Session: login, logout, restore and credentials")
struct SessionLifecycleTests {
    static let loginReply: ScriptedTransport.Step = .ok([
        "access_token": .string(Harness.jwt("a1", expiresAt: Harness.serverNow + 900)),
        "refresh_token": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "user": [
            "id": 7, "username": "alice", "role": "inspector", "full_name": "Alice Moreau",
            "email": "alice@example.com",
        ],
    ])

    @Test("login stores the credentials in a 0600 file and no token appears in logs or other files")
    func loginStoresCredentialsSecretly() async throws {
        let harness = Harness([
            SessionLifecycleTests.loginReply, .error(401, "Token expired."),
            refreshed("b2", refresh: String(repeating: "fedcba9876543210", count: 4)),
            .ok([]),
        ])
        let client = harness.client(sink: FileLogSink(url: harness.directory.path("client.log")))
        let user = try await client.login(username: "alice", password: "s3cret-pw")
        #expect(user == Harness.alice)
        #expect(user.displayName == "Alice Moreau")
        _ = try await client.getJSON("/api/v1/issues")
        try FileUpdateRefusalMemory(url: harness.refusalURL).remember(
            build: "jqc-shell/0.1", server: "http://127.0.0.1:5055")

        let login = try #require(harness.transport.requests.first)
        #expect(login.headers["Authorization"] == nil)
        guard case .data(let body) = login.body else { Issue.record("no login body"); return }
        #expect(try JSONValue.parse(body) == ["username": "alice", "password": "s3cret-pw"])

        let mode = try FileManager.default.attributesOfItem(atPath: harness.credentialsURL.path)[.posixPermissions]
        #expect((mode as? NSNumber)?.intValue == 0o600)
        let stored = try #require(FileTokenStore(url: harness.credentialsURL).load())
        #expect(stored.user == Harness.alice)
        let secrets = [
            Harness.jwt("a1", expiresAt: Harness.serverNow + 900),
            Harness.jwt("b2", expiresAt: Harness.serverNow + 900),
            String(repeating: "0123456789abcdef", count: 4), String(repeating: "fedcba9876543210", count: 4),
            "s3cret-pw",
        ]
        #expect(stored.accessToken == secrets[1])
        let logText = try String(contentsOf: harness.directory.path("client.log"), encoding: .utf8)
        #expect(logText.contains("POST /api/v1/auth/refresh"))
        #expect(!String(describing: stored).contains(stored.accessToken))
        for secret in secrets { #expect(!logText.contains(secret)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory.url.path)
        #expect(files.sorted() == ["client.log", "credentials", "credentials.lock", "update-refused"])
        for file in files where file != "credentials" {
            let text = try String(contentsOf: harness.directory.path(file), encoding: .utf8)
            for secret in secrets { #expect(!text.contains(secret)) }
        }
    }

    @Test("bad credentials give the server's sentence and store nothing")
    func loginRejected() async throws {
        let harness = Harness([.error(401, "Invalid username or password.")])
        let client = harness.client()
        let error = await thrownError { _ = try await client.login(username: "alice", password: "nope") }
        #expect(error as? APIError == .unauthorized("Invalid username or password."))
        #expect((error as? APIError)?.message == "Invalid username or password.")
        #expect(!FileManager.default.fileExists(atPath: harness.credentialsURL.path))
        #expect(await !client.isSignedIn)
    }

    @Test("logout tells the server best-effort and clears the credentials even offline")
    func logoutOffline() async throws {
        let harness = Harness([.fail(.offline("Connection refused"))])
        try harness.signIn()
        let client = harness.client()
        await client.logout()
        #expect(await !client.isSignedIn)
        #expect(!FileManager.default.fileExists(atPath: harness.credentialsURL.path))
        let request = try #require(harness.transport.requests.first)
        #expect(request.url.path == "/api/v1/auth/logout")
        #expect(request.kind == .probe)
        guard case .data(let body) = request.body else { Issue.record("no logout body"); return }
        #expect(try JSONValue.parse(body) == ["refresh_token": "r1"])
    }

    @Test("restore confirms the session online and refreshes the stored identity")
    func restoreOnline() async throws {
        let harness = Harness([
            .ok([
                "id": 7, "username": "alice", "role": "supervisor", "full_name": "",
                "email": nil,
            ])
        ])
        try harness.signIn()
        let restore = await harness.client().restoreSession()
        let promoted = User(id: 7, username: "alice", role: .supervisor, fullName: "", email: nil)
        #expect(restore == .online(promoted))
        #expect(restore.user?.displayName == "alice")
        #expect(FileTokenStore(url: harness.credentialsURL).load()?.user == promoted)
        #expect(harness.transport.requests.first?.url.path == "/api/v1/auth/me")
    }

    @Test("restore when the server cannot be reached launches offline with the stored identity")
    func restoreOffline() async throws {
        let harness = Harness([.fail(.offline("Could not resolve host"))])
        try harness.signIn()
        let client = harness.client()
        #expect(await client.restoreSession() == .offline(Harness.alice, .offline))
        #expect(await client.currentUser == Harness.alice)
        #expect(FileTokenStore(url: harness.credentialsURL).load() != nil)
    }

    @Test("restore when the server errors launches offline too (rule 20)")
    func restoreServerError() async throws {
        let harness = Harness([.error(503, "Maintenance.")])
        try harness.signIn()
        #expect(
            await harness.client().restoreSession()
                == .offline(Harness.alice, .server(status: 503, message: "Maintenance.")))
    }

    @Test("restore when the session is over clears the credentials")
    func restoreNotAuthenticated() async throws {
        let harness = Harness([.error(401, "Token expired."), .error(401, "Refresh token expired.")])
        try harness.signIn()
        let client = harness.client()
        #expect(await client.restoreSession() == .signedOut)
        #expect(await !client.isSignedIn)
        #expect(!FileManager.default.fileExists(atPath: harness.credentialsURL.path))
    }

    @Test("restore with nothing stored is signed out without a request")
    func restoreNothing() async throws {
        let harness = Harness()
        #expect(await harness.client().restoreSession() == .signedOut)
        #expect(harness.transport.requests.isEmpty)
    }

    @Test("the display name is the full name when it has text, else the username (rule 38)")
    func displayName() {
        #expect(User(id: 1, username: "bob", role: .inspector, fullName: "Bob Ng").displayName == "Bob Ng")
        #expect(User(id: 1, username: "bob", role: .inspector, fullName: "  ").displayName == "bob")
        #expect(User(id: 1, username: "bob", role: .inspector, fullName: nil).displayName == "bob")
    }
}

@Suite("Tokens and dates")
struct TokenParsingTests {
    @Test("a JWT's exp is read from its base64url payload without checking the signature")
    func jwtExpiry() {
        let expiry = Harness.serverNow + 123
        #expect(AccessToken.expiry(of: Harness.jwt("x", expiresAt: expiry)) == expiry)
        #expect(AccessToken.expiry(of: "not-a-jwt") == nil)
        #expect(AccessToken.expiry(of: "a.b.c") == nil)
    }

    @Test("an HTTP Date header is parsed to the exact second")
    func httpDate() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse(Harness.httpDate(Harness.serverNow)) == Harness.serverNow)
        #expect(HTTPDate.parse("yesterday") == nil)
    }

    @Test("headers are looked up regardless of letter case")
    func caseInsensitiveHeaders() {
        var headers: HTTPHeaders = ["Content-Type": "text/html", "Set-Cookie": "a"]
        headers.add("set-cookie", "b")
        #expect(headers["content-type"] == "text/html")
        headers.set("CONTENT-TYPE", "application/json")
        #expect(headers.fields.map(\.name) == ["Set-Cookie", "set-cookie", "CONTENT-TYPE"])
        #expect(headers["Content-Type"] == "application/json")
    }
}

/// Issue 18: a 401 that arrives after another request's refresh completed.
@Suite("Session: a late 401")
struct LateUnauthorizedTests {
    @Test("a 401 arriving after a completed refresh retries with the new token and starts no second refresh")
    func lateUnauthorized() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        let bothSent = Barrier(count: 2)  // A and B both went out with the old token
        let late = Barrier(count: 2)  // A's 401 is held until B's refresh and retry are done
        let unauthorized = HTTPResponse(
            status: 401, body: Data(#"{"ok":false,"data":null,"error":"Token expired."}"#.utf8))
        let ok = HTTPResponse(status: 200, body: Data(#"{"ok":true,"data":[],"error":null}"#.utf8))
        harness.transport.route(
            .get, path: "/api/v1/inspections",
            [
                .respond({ request in
                    guard Harness.tokenName(request) == "old" else { return ok }
                    await bothSent.arrive()
                    await late.arrive()
                    return unauthorized
                })
            ], repeatLast: true)
        harness.transport.route(
            .get, path: "/api/v1/issues",
            [
                .respond({ request in
                    guard Harness.tokenName(request) == "old" else { return ok }
                    await bothSent.arrive()
                    return unauthorized
                })
            ], repeatLast: true)
        harness.transport.route(.post, path: "/api/v1/auth/refresh", [refreshed("new", refresh: "r2")])
        let client = harness.client()
        let a = Task { try await client.getJSON("/api/v1/inspections") }
        #expect(try await client.getJSON("/api/v1/issues") == [])  // B: 401, refresh, retried with "new"
        #expect(await client.refreshesSent == 1)
        await late.arrive()  // now A's 401 arrives, after the refresh completed
        #expect(try await a.value == [])
        #expect(await client.refreshesSent == 1)
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(
            harness.transport.requests(path: "/api/v1/inspections").map { Harness.tokenName($0) } == ["old", "new"])
    }
}
