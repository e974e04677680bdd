import Foundation
import JQCKit
import JQCNetworkTestSupport
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCNetwork

/// A JWT-shaped token named `name` with `exp` and, when given, `iat` (unsigned).
private func token(_ name: String, issuedAt: Date?, expiresAt: Date) -> String {
    func encode(_ json: String) -> String {
        Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    let iat = issuedAt.map { #","iat":\#(Int($0.timeIntervalSince1970))"# } ?? ""
    let payload = #"{"sub":"\#(name)","exp":\#(Int(expiresAt.timeIntervalSince1970))\#(iat)}"#
    return encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(payload) + ".c2ln"
}

private let emptyList = HTTPResponse(status: 200, body: Data(#"{"ok":true,"data":[],"error":null}"#.utf8))
private let expired = HTTPResponse(status: 401, body: Data(#"{"ok":false,"data":null,"error":"Token expired."}"#.utf8))

/// Answers `/api/v1/issues` with 200 for any token but `old`, and 401 for `old`.
private func routeIssues(_ harness: Harness) {
    harness.transport.route(
        .get, path: "/api/v1/issues",
        [.respond { Harness.tokenName($0) == "old" ? expired : emptyList }], repeatLast: true)
}

/// A token store that refuses to write while `full` is set (a full disk), over a real file and its lock.
private final class FillableTokenStore: TokenStore {
    let file: FileTokenStore
    let full = Atomic<Bool>(false)
    init(url: URL) { file = FileTokenStore(url: url) }
    func load() -> Credentials? { file.load() }
    func save(_ credentials: Credentials) throws {
        if full.load(ordering: .relaxed) { throw AtomicFile.WriteError(path: file.url.path, systemErrno: ENOSPC) }
        try file.save(credentials)
    }
    func clear() throws { try file.clear() }
    var lock: FileLock? { file.lock }
}

/// A `/auth/refresh` reply with a new pair: access token `name` (valid 900 s), refresh token `refresh`.
private func renewed(_ name: String, _ refresh: String) -> ScriptedTransport.Step {
    .ok([
        "access_token": .string(Harness.jwt(name, expiresAt: Harness.serverNow + 900)),
        "refresh_token": .string(refresh),
    ])
}

/// The warning sentences a client said, in order.
private final class SaidWarnings: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A client whose credentials file sits on a full disk: signed in with `old`/r1, `/auth/refresh` answers
/// `new`/r2 once, and every warning it says is kept.
private struct FullDiskWorld {
    let harness = Harness()
    let store: FillableTokenStore
    let client: APIClient
    let warnings = SaidWarnings()

    init() throws {
        try harness.signIn(access: "old")
        routeIssues(harness)
        harness.transport.route(.post, path: "/api/v1/auth/refresh", [renewed("new", "r2")])
        store = FillableTokenStore(url: harness.credentialsURL)
        store.full.store(true, ordering: .relaxed)
        client = harness.client(tokens: store)
        let warnings = self.warnings
        client.warnings.attach { warnings.append($0) }
    }
}

@Suite("Session: one data directory, several processes (issue 15)")
struct RefreshAcrossProcessesTests {
    @Test("two clients over one credentials file, twenty requests each, after expiry: exactly one refresh is sent")
    func oneRefreshForTwoProcesses() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        harness.transport.route(
            .post, path: "/api/v1/auth/refresh",
            [
                renewed("new", "r2"),
                .error(401, "The refresh token has expired or was revoked."),  // r1 is single-use
            ], repeatLast: true)
        // Two clients, each with its own FileTokenStore and lock on the same file: two processes' worth.
        let shell = harness.client()
        let timer = harness.client()
        let results = try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for index in 0..<40 {
                let client = index % 2 == 0 ? shell : timer
                group.addTask { try await client.getJSON("/api/v1/issues") }
            }
            return try await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: [], count: 40))
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(await shell.isSignedIn)
        #expect(await timer.isSignedIn)
        #expect(FileTokenStore(url: harness.credentialsURL).load()?.refreshToken == "r2")
    }

    @Test("a client that finds a newer pair in the store uses it and sends no refresh of its own")
    func adoptsThePairAnotherProcessStored() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        let client = harness.client()  // read r1 at start
        // Another process refreshed meanwhile and stored its pair.
        try FileTokenStore(url: harness.credentialsURL).save(
            Credentials(
                accessToken: Harness.jwt("theirs", expiresAt: Harness.serverNow + 900), refreshToken: "r2",
                user: Harness.alice))
        #expect(try await client.getJSON("/api/v1/issues") == [])
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").isEmpty)
        #expect(harness.transport.requests.compactMap(Harness.tokenName) == ["old", "theirs"])
    }

    @Test(
        "a refresh refused with 400 invalid_grant, 401 or 403 signs out once: every waiting request fails signed out, no further request",
        arguments: [
            (400, #"{"error":"invalid_grant","error_description":"Refresh token expired"}"#),
            (400, ""),
            (401, #"{"ok":false,"data":null,"error":"The refresh token has expired or was revoked."}"#),
            (403, #"{"ok":false,"data":null,"error":"Forbidden."}"#),
        ])
    func refusedRefreshSignsOutOnce(status: Int, body: String) async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        harness.transport.route(.post, path: "/api/v1/auth/refresh", [.reply(status, body)])
        let client = harness.client()
        let warnings = Mutex<[String]>([])
        client.warnings.attach { sentence in warnings.withLock { $0.append(sentence) } }
        let errors = await withTaskGroup(of: APIError?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.getJSON("/api/v1/issues")
                        return nil
                    } catch {
                        return error as? APIError
                    }
                }
            }
            return await group.reduce(into: [APIError?]()) { $0.append($1) }
        }
        #expect(errors == Array(repeating: .signedOut, count: 10))
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(FileTokenStore(url: harness.credentialsURL).load() == nil)
        #expect(await !client.isSignedIn)
        let sent = harness.transport.requests.count
        for _ in 0..<3 {
            await #expect(throws: APIError.signedOut) { try await client.getJSON("/api/v1/issues") }
        }
        #expect(await client.restoreSession() == .signedOut)
        #expect(harness.transport.requests.count == sent)  // nothing more left until login
        let signedOutWarnings = warnings.withLock {
            $0.filter { $0.hasPrefix("The server refused the saved sign-in") }.count
        }
        #expect(signedOutWarnings == 1)
        #expect(harness.logSink.lines.filter { $0.contains("signing out") }.count == 1)
    }

    @Test("any other 4xx from /auth/refresh is the server's problem: signed in still, and no item would be refused")
    func otherRefreshStatusIsTransient() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        harness.transport.route(.post, path: "/api/v1/auth/refresh", [.error(404, "There is no such endpoint.")])
        let client = harness.client()
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        let apiError = try #require(error as? APIError)
        #expect(
            apiError
                == .server(status: 404, message: "The server could not renew the sign-in: There is no such endpoint."))
        #expect(apiError.isTransient)
        #expect(await client.isSignedIn)
        #expect(FileTokenStore(url: harness.credentialsURL).load()?.refreshToken == "r1")
    }

    @Test("a refusal that races a pair stored without the lock keeps that pair instead of signing out")
    func refusalAfterAnotherProcessStored() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        let credentialsURL = harness.credentialsURL
        harness.transport.route(
            .post, path: "/api/v1/auth/refresh",
            [
                .respond { _ in
                    // Another process rotated r1 first and stored its pair; r1 is refused here.
                    try FileTokenStore(url: credentialsURL).save(
                        Credentials(
                            accessToken: Harness.jwt("theirs", expiresAt: Harness.serverNow + 900),
                            refreshToken: "r2", user: Harness.alice))
                    return HTTPResponse(
                        status: 401, body: Data(#"{"ok":false,"data":null,"error":"Revoked."}"#.utf8))
                }
            ])
        let client = harness.client()
        #expect(try await client.getJSON("/api/v1/issues") == [])
        #expect(await client.isSignedIn)
        #expect(FileTokenStore(url: credentialsURL).load()?.refreshToken == "r2")
        #expect(harness.transport.requests.compactMap(Harness.tokenName) == ["old", "theirs"])
    }

    @Test("another process signed out: this client signs out at its next refresh without sending one")
    func signedOutElsewhere() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        let client = harness.client()
        try FileTokenStore(url: harness.credentialsURL).clear()
        await #expect(throws: APIError.signedOut) { try await client.getJSON("/api/v1/issues") }
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").isEmpty)
        #expect(await !client.isSignedIn)
    }

    @Test("someone else signed in to the data directory meanwhile: this client stops and leaves their pair alone")
    func someoneElseSignedIn() async throws {
        let harness = Harness()
        try harness.signIn(access: "old")
        routeIssues(harness)
        let client = harness.client()
        let bob = User(id: 8, username: "bob", role: .inspector)
        let theirs = Credentials(
            accessToken: Harness.jwt("bob", expiresAt: Harness.serverNow + 900), refreshToken: "b1", user: bob)
        try FileTokenStore(url: harness.credentialsURL).save(theirs)
        await #expect(throws: APIError.signedOut) { try await client.getJSON("/api/v1/issues") }
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").isEmpty)
        #expect(FileTokenStore(url: harness.credentialsURL).load() == theirs)
    }

    @Test(
        "a renewed pair that cannot be saved (disk full) is said at once, kept in memory, and written when space returns"
    )
    func diskFullDuringRotation() async throws {
        let world = try FullDiskWorld()
        let (harness, store, client) = (world.harness, world.store, world.client)
        #expect(try await client.getJSON("/api/v1/issues") == [])
        let expected: String =
            "Could not save \(harness.credentialsURL.path): the disk is full. Free some space and try again. "
            + "You stay signed in for this run and jqc keeps trying to save the new sign-in; if it is still "
            + "not saved when this run ends, the next run will ask you to log in again. "
            + "Your work on this device is kept."
        #expect(world.warnings.all == [expected])
        #expect(await !client.credentialsAreSaved)
        #expect(store.load()?.refreshToken == "r1")
        // The session goes on with the pair in memory: no second refresh, no second warning.
        #expect(try await client.getJSON("/api/v1/issues") == [])
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(world.warnings.all.count == 1)
        // Space comes back: the next request writes the pair first.
        store.full.store(false, ordering: .relaxed)
        #expect(try await client.getJSON("/api/v1/issues") == [])
        #expect(await client.credentialsAreSaved)
        #expect(store.load()?.refreshToken == "r2")
        #expect(harness.transport.requests.compactMap(Harness.tokenName) == ["old", "new", "new", "new"])
    }

    @Test("a pair still unsaved when the run ends is said again: the next run will ask to log in")
    func stillUnsavedAtShutdown() async throws {
        let world = try FullDiskWorld()
        _ = try await world.client.getJSON("/api/v1/issues")
        await world.client.saveUnsavedCredentials()
        let said = world.warnings.all
        #expect(said.count == 2)
        #expect(said.last?.hasPrefix("The new sign-in is still not saved (Could not save ") == true)
        #expect(
            said.last?.hasSuffix("the next run will ask you to log in again. Your work on this device is kept.") == true
        )
        world.store.full.store(false, ordering: .relaxed)
        await world.client.saveUnsavedCredentials()
        #expect(world.store.load()?.refreshToken == "r2")
        #expect(world.warnings.all.count == 2)
    }
}

@Suite("Session: the refresh margin follows the token's lifetime (issue 15)")
struct RefreshMarginTests {
    @Test("the margin is min(60 s, lifetime / 2), 60 s when the lifetime is unknown")
    func margin() {
        #expect(AccessToken.refreshMargin(lifetime: 30) == 15)
        #expect(AccessToken.refreshMargin(lifetime: 90) == 45)
        #expect(AccessToken.refreshMargin(lifetime: 120) == 60)
        #expect(AccessToken.refreshMargin(lifetime: 3_600) == 60)
        #expect(AccessToken.refreshMargin(lifetime: nil) == 60)
        #expect(AccessToken.refreshMargin(lifetime: -5) == 0)
        let issued = Harness.serverNow
        let jwt = token("x", issuedAt: issued, expiresAt: issued + 30)
        #expect(AccessToken.issuedAt(of: jwt) == issued)
        #expect(AccessToken.expiry(of: jwt) == issued + 30)
        #expect(AccessToken.issuedAt(of: Harness.jwt("y", expiresAt: issued)) == nil)
    }

    @Test(
        "a long session of requests refreshes each token at most once, never before half its life, never with a 401",
        arguments: [(30.0, true), (90.0, true), (3_600.0, true), (30.0, false), (90.0, false)])
    func atMostOneRefreshPerLifetime(lifetime: Double, withIssuedAt: Bool) async throws {
        let harness = Harness()
        let clock = harness.clock
        let minted = Atomic<Int>(0)
        @Sendable func mint() -> String {
            let name = "t\(minted.add(1, ordering: .relaxed).newValue)"
            return token(name, issuedAt: withIssuedAt ? clock.now : nil, expiresAt: clock.now + lifetime)
        }
        // With `iat` the first pair is stored as an older build did (no time of receipt): the margin alone decides.
        let start = clock.now
        try FileTokenStore(url: harness.credentialsURL).save(
            Credentials(
                accessToken: mint(), refreshToken: "r0", user: Harness.alice,
                accessTokenReceivedAt: withIssuedAt ? nil : start))
        let firstRefreshAt = Mutex<Date?>(nil)
        let refusedTokens = Atomic<Int>(0)
        harness.transport.route(
            .get, path: "/api/v1/issues",
            [
                .respond { request in
                    let headers: HTTPHeaders = ["Date": Harness.httpDate(clock.now)]
                    let exp = AccessToken.expiry(of: Harness.bearer(request) ?? "") ?? .distantPast
                    guard exp > clock.now else {
                        refusedTokens.add(1, ordering: .relaxed)
                        return HTTPResponse(status: 401, headers: headers, body: expired.body)
                    }
                    return HTTPResponse(status: 200, headers: headers, body: emptyList.body)
                }
            ], repeatLast: true)
        harness.transport.route(
            .post, path: "/api/v1/auth/refresh",
            [
                .respond { _ in
                    firstRefreshAt.withLock { $0 = $0 ?? clock.now }
                    let body: JSONValue = [
                        "ok": true, "error": nil,
                        "data": ["access_token": .string(mint()), "refresh_token": "r"],
                    ]
                    return HTTPResponse(status: 200, body: body.jsonData())
                }
            ], repeatLast: true)
        let client = harness.client()
        let step = lifetime / 30
        let requests = 300
        for _ in 0..<requests {
            _ = try await client.getJSON("/api/v1/issues")
            clock.advance(by: step)
        }
        let refreshes = harness.transport.requests(path: "/api/v1/auth/refresh").count
        let duration = step * Double(requests)
        #expect(refreshes >= Int(duration / lifetime) - 1, "the proactive refresh still happens")
        #expect(Double(refreshes) <= duration / (lifetime / 2) + 1, "\(refreshes) refreshes for \(requests) requests")
        #expect(refusedTokens.load(ordering: .relaxed) == 0)
        let first = try #require(firstRefreshAt.withLock { $0 })
        #expect(first.timeIntervalSince(start) >= lifetime / 2, "the first token was refreshed before half its life")
    }

    @Test("a token that still looks near expiry right after a refresh is used, not refreshed again")
    func nearExpiryRightAfterRefresh() async throws {
        let dated: HTTPHeaders = ["Date": Harness.httpDate(Harness.serverNow)]
        // The server's tokens say they were issued an hour ago and end in 30 s (a skewed server clock).
        func skewed(_ name: String) -> String {
            token(name, issuedAt: Harness.serverNow - 3_570, expiresAt: Harness.serverNow + 30)
        }
        let harness = Harness([
            .ok([], headers: dated),
            .ok(["access_token": .string(skewed("new")), "refresh_token": "r2"]),
            .ok([], headers: dated), .ok([], headers: dated), .ok([], headers: dated), .ok([], headers: dated),
        ])
        try FileTokenStore(url: harness.credentialsURL).save(
            Credentials(accessToken: skewed("old"), refreshToken: "r1", user: Harness.alice))
        let client = harness.client()
        for _ in 0..<5 { _ = try await client.getJSON("/api/v1/issues") }
        #expect(harness.transport.requests(path: "/api/v1/auth/refresh").count == 1)
        #expect(harness.transport.requests.compactMap(Harness.tokenName) == ["old", "new", "new", "new", "new"])
    }
}
