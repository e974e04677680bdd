import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

@Suite("Header hygiene: server data never becomes a header it should not")
struct HeaderHygieneTests {
    struct BadToken: Sendable, CustomStringConvertible {
        let name: String
        let access: String
        let refresh: String
        let reason: String
        var description: String { name }
    }

    static let badTokens: [BadToken] = [
        BadToken(
            name: "CR-LF in the access token", access: HostilePeer.jwt() + "\r\nX-Injected: yes",
            refresh: HostilePeer.refreshToken,
            reason: "the access token from the server contains control characters (such as a line break)"),
        BadToken(
            name: "NUL in the access token", access: HostilePeer.jwt() + "\u{0}tail", refresh: HostilePeer.refreshToken,
            reason: "the access token from the server contains control characters (such as a line break)"),
        BadToken(
            name: "a 1 MB access token that is no JWT", access: String(repeating: "A", count: 1_048_576),
            refresh: HostilePeer.refreshToken,
            reason: "the access token from the server is 1048576 bytes long; at most 8192 are accepted"),
        BadToken(
            name: "a space in the access token", access: "two words", refresh: HostilePeer.refreshToken,
            reason: "the access token from the server contains spaces or characters outside ASCII"),
        BadToken(
            name: "an empty access token", access: "", refresh: HostilePeer.refreshToken,
            reason: "the access token from the server is empty"),
        BadToken(
            name: "LF in the refresh token", access: HostilePeer.jwt(), refresh: "abc\ndef",
            reason: "the refresh token from the server contains control characters (such as a line break)"),
        BadToken(
            name: "a 9 KiB refresh token", access: HostilePeer.jwt(), refresh: String(repeating: "f", count: 9216),
            reason: "the refresh token from the server is 9216 bytes long; at most 8192 are accepted"),
    ]

    @Test(
        "a login reply with a token that would break a header is refused with a sentence and nothing is stored",
        arguments: badTokens)
    func loginRefusesBadToken(_ token: BadToken) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie(
            "POST", "/api/v1/auth/login",
            with: HostilePeer.envelope(
                HostilePeer.tokensJSON(access: token.access, refresh: token.refresh, withUser: true)))
        let directory = TemporaryDirectory()
        let tokens = FileTokenStore(url: directory.path("credentials"))
        let client = hostileClient(peer, tokens: tokens)
        let error = await thrownError { _ = try await client.login(username: "alex", password: "pw") }
        #expect(error as? APIError == .undecodable(token.reason))
        #expect(
            (error as? APIError)?.message
                == "The server's reply could not be read (\(token.reason)). Your work is kept; try again later.")
        #expect(!FileManager.default.fileExists(atPath: directory.path("credentials").path))
        #expect(await client.isSignedIn == false)
        // Nothing was replayed: the only request is the login itself.
        #expect(peer.requests.map(\.path) == ["/api/v1/auth/login"])
    }

    @Test("a refresh reply with a CR-LF token is refused, the old credentials stay, and it is never sent")
    func refreshRefusesBadToken() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let original = HostilePeer.jwt("old")
        peer.lie("GET", "/api/v1/issues", times: 1, with: HostilePeer.failure(401, "Token expired."))
        peer.lie(
            "POST", "/api/v1/auth/refresh",
            with: HostilePeer.envelope(
                HostilePeer.tokensJSON(access: "x\r\nX-Injected: 1", refresh: HostilePeer.refreshToken, withUser: false)
            ))
        let tokens = InMemoryTokenStore(Credentials(accessToken: original, refreshToken: "r1", user: alex))
        let client = hostileClient(peer, tokens: tokens)
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(
            error as? APIError
                == .undecodable("the access token from the server contains control characters (such as a line break)"))
        #expect(tokens.load()?.accessToken == original)
        #expect(peer.requests.map(\.path) == ["/api/v1/issues", "/api/v1/auth/refresh"])
        #expect(peer.requests.allSatisfy { $0.headers["x-injected"] == nil })
    }

    @Test("a stored token that cannot be sent (an older build's) is never replayed: the session ends, work is kept")
    func storedBadTokenSignsOut() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let tokens = InMemoryTokenStore(
            Credentials(accessToken: "abc\r\nX-Injected: 1", refreshToken: "r1", user: alex))
        let client = hostileClient(peer, tokens: tokens)
        let error = await thrownError { _ = try await client.getJSON("/api/v1/issues") }
        #expect(error as? APIError == .signedOut)
        #expect(tokens.load() == nil)
        #expect(peer.requests.isEmpty)
    }

    @Test(
        "the transport refuses a header value with CR, LF, NUL or another control character and sends nothing",
        arguments: ["a\r\nX-Injected: 1", "a\nb", "a\u{0}b", "a\u{7F}", "a\u{85}b", "a\u{1B}[31m"])
    func transportRefusesControlCharacters(_ value: String) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        var request = HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"))
        request.headers.set("Authorization", "Bearer \(value)")
        let error = await thrownError { _ = try await CurlTransport().send(request) }
        #expect(error as? TransportError == .invalidHeader(name: "Authorization"))
        #expect(peer.requests.isEmpty)
        #expect(
            APIError(.invalidHeader(name: "Authorization"))
                == .undecodable(
                    "a value for the Authorization header contains control characters, so the request was not sent"))
    }

    @Test("a tab, UTF-8 text and a long but bounded value are sent; a malformed name is refused")
    func safeValuesPass() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        var request = HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"))
        request.headers.set("X-Note", "a\tb Café")
        request.headers.set("X-Long", String(repeating: "v", count: 8000))
        let reply = try await CurlTransport().send(request)
        #expect(reply.status == 200)
        #expect(peer.requests.first?.headers["x-long"]?.count == 8000)
        var badName = HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"))
        badName.headers.set("X Bad:Name", "v")
        let error = await thrownError { _ = try await CurlTransport().send(badName) }
        #expect(error as? TransportError == .invalidHeader(name: "XBad:Name"))
        #expect(!HTTPHeaders.isSafeValue(String(repeating: "v", count: HTTPHeaders.maximumValueBytes + 1)))
        #expect(peer.requests.count == 1)
    }

    @Test("the token check accepts the contract's tokens and names what is wrong without the token itself")
    func tokenCheck() throws {
        try TokenCheck.validate(accessToken: HostilePeer.jwt(), refreshToken: HostilePeer.refreshToken)
        #expect(TokenCheck.problem(accessToken: String(repeating: "a", count: 8192)) == nil)
        #expect(TokenCheck.problem(accessToken: String(repeating: "a", count: 8193)) != nil)
        let secret = "s3cr3t\r\n"
        let problem = try #require(TokenCheck.problem(accessToken: secret))
        #expect(!problem.contains("s3cr3t"))
    }

    private var alex: User { User(id: 7, username: "alex", role: .inspector) }
}

@Suite("NUL and control characters in server strings")
struct ServerStringTests {
    @Test("a NUL inside a server string is kept whole through the transport and both decoders")
    func nulKeptIntact() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie(
            "GET", "/api/v1/facilities",
            with: HostilePeer.envelope(#"[{"id":1,"name":"North\u0000Tower\r\nEvil","project_id":10}]"#))
        let tokens = InMemoryTokenStore(
            Credentials(
                accessToken: HostilePeer.jwt(), refreshToken: "r1",
                user: User(id: 7, username: "alex", role: .inspector)))
        let client = hostileClient(peer, tokens: tokens)
        let raw = try await client.getJSON("/api/v1/facilities")
        let name = try #require(raw.arrayValue?.first?["name"]?.stringValue)
        #expect(name == "North\u{0}Tower\r\nEvil")
        #expect(Array(name.utf8).count == 17)
        struct Facility: Decodable { let id: Int64; let name: String; let projectId: Int64 }
        let typed = try APIClient.decode([Facility].self, from: raw)
        #expect(typed.first?.name == "North\u{0}Tower\r\nEvil")
        // And back out again (a request body built from it) without losing the tail.
        let again = try JSONValue.parse(JSONValue.string(name).jsonData())
        #expect(again.stringValue == name)
    }
}
