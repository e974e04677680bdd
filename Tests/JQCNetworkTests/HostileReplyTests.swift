import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

@Suite("Retry-After from a server that lies")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_784_000_000)

    struct Case: Sendable, CustomStringConvertible {
        let header: String
        let seconds: Double?
        var description: String { "'\(header)'" }
    }

    static let cases: [Case] = [
        Case(header: "7", seconds: 7), Case(header: " 12 ", seconds: 12), Case(header: "0", seconds: 1),
        Case(header: "86400", seconds: 3600), Case(header: "9223372036854775807", seconds: 3600),
        Case(header: "1e300", seconds: nil), Case(header: "inf", seconds: nil), Case(header: "-inf", seconds: nil),
        Case(header: "nan", seconds: nil), Case(header: "12345678901234567890", seconds: nil),
        Case(header: "-5", seconds: nil), Case(header: "+5", seconds: nil), Case(header: "1.5", seconds: nil),
        Case(header: "soon", seconds: nil), Case(header: "", seconds: nil), Case(header: "5\u{0}", seconds: nil),
        Case(header: "0x10", seconds: nil), Case(header: "٣", seconds: nil),
        Case(header: "Thu, 01 Jul 2026 03:33:50 GMT", seconds: 30),
        Case(header: "Thu, 01 Jul 2026 03:33:00 GMT", seconds: 1),  // in the past: the least wait
        Case(header: "Fri, 01 Jan 9999 00:00:00 GMT", seconds: 3600),
        Case(header: "Fri, 01 Jan 99999999999999999 00:00:00 GMT", seconds: nil),
        Case(header: "Thu, 01 Jul 2026 99:00:00 GMT", seconds: nil),
        Case(header: "Thu, 01 Jul 2026 03:33:50 PST", seconds: nil),
    ]

    @Test("delta-seconds and HTTP dates are clamped to 1 s–1 h and everything else is ignored", arguments: cases)
    func parse(_ testCase: Case) {
        let serverNow = HTTPDate.parse("Thu, 01 Jul 2026 03:33:20 GMT") ?? RetryAfterTests.now
        #expect(RetryAfter.seconds(testCase.header, serverNow: serverNow) == testCase.seconds)
    }

    @Test("a busy sentence never traps, whatever number it is given")
    func sentenceNeverTraps() {
        for value in [1e300, -1e300, Double.infinity, -Double.infinity, Double.nan, 0, -5, 7200] {
            #expect(APIError.rateLimited(retryAfter: value).message == "The server is busy. Try again in a moment.")
        }
        #expect(APIError.rateLimited(retryAfter: 1).message == "The server is busy. Try again in 1 second.")
        #expect(APIError.rateLimited(retryAfter: 2.2).message == "The server is busy. Try again in 3 seconds.")
    }

    @Test(
        "a 429 with a hostile Retry-After over HTTP gives the busy sentence at login, and the process lives on",
        arguments: ["1e300", "inf", "12345678901234567890", "-1", "garbage"])
    func hostileRetryAfterAtLogin(_ header: String) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie(
            "POST", "/api/v1/auth/login",
            with: HostilePeer.failure(429, "Slow down.", headers: [("Retry-After", header)]))
        let error = await thrownError { _ = try await hostileClient(peer).login(username: "alex", password: "pw") }
        #expect(error as? APIError == .rateLimited(retryAfter: nil))
        #expect((error as? APIError)?.message == "The server is busy. Try again in a moment.")
    }

    @Test("a 429 with a sane Retry-After over HTTP says how long to wait")
    func saneRetryAfter() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie(
            "POST", "/api/v1/auth/login",
            with: HostilePeer.failure(429, "Slow down.", headers: [("Retry-After", "90000")]))
        let error = await thrownError { _ = try await hostileClient(peer).login(username: "alex", password: "pw") }
        #expect(error as? APIError == .rateLimited(retryAfter: 3600))
        #expect((error as? APIError)?.message == "The server is busy. Try again in 3600 seconds.")
    }
}

@Suite("Redirects, HTML and status-line oddities")
struct HostileStatusTests {
    @Test(
        "a redirect is never followed, never carries Authorization elsewhere, and says so",
        arguments: [301, 302, 303, 307, 308])
    func redirectNotFollowed(_ status: Int) async throws {
        let elsewhere = try HostilePeer()
        defer { elsewhere.stop() }
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/issues", with: HostilePeer.redirect(status, to: "\(elsewhere.baseURL)/steal"))
        let tokens = InMemoryTokenStore(
            Credentials(
                accessToken: HostilePeer.jwt(), refreshToken: "r1",
                user: User(id: 7, username: "alex", role: .inspector)))
        let error = await thrownError { _ = try await hostileClient(peer, tokens: tokens).getJSON("/api/v1/issues") }
        #expect(error as? APIError == .redirected(status: status, location: "\(elsewhere.baseURL)/steal"))
        #expect(
            (error as? APIError)?.message
                == "The server answered with a redirect (HTTP \(status) to \(elsewhere.baseURL)/steal), which is not "
                + "followed, so the request did not reach the API. Check the server address (--server); a Wi-Fi "
                + "sign-in page can also do this. Your work is kept.")
        #expect(elsewhere.requests.isEmpty)
        #expect(peer.requests.count == 1)
        #expect(tokens.load() != nil)
    }

    @Test("a redirect's Location is shown only when it is plain text of a sane length")
    func locationSanitised() {
        #expect(APIError.sanitizedLocation("https://example.com/login") == "https://example.com/login")
        #expect(APIError.sanitizedLocation("https://x/\r\nSet-Cookie: a") == nil)
        #expect(APIError.sanitizedLocation("<script>") == nil)
        #expect(APIError.sanitizedLocation(String(repeating: "a", count: 201)) == nil)
        #expect(APIError.sanitizedLocation(nil) == nil)
        #expect(
            APIError.redirected(status: 302, location: nil).message.hasPrefix(
                "The server answered with a redirect (HTTP 302),"))
    }

    struct Oddity: Sendable, CustomStringConvertible {
        let name: String
        let action: LoopbackServer.Action
        let expected: APIError?
        var description: String { name }
    }

    static let oddities: [Oddity] = [
        Oddity(
            name: "100 Continue, then the reply",
            action: HostilePeer.raw(
                head: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 44\r\n\r\n",
                body: #"{"ok":true,"data":{"status":"ok"},"error":1}"#),
            expected: nil),
        Oddity(
            name: "103 Early Hints, then the reply",
            action: HostilePeer.raw(
                head: "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 44\r\n\r\n",
                body: #"{"ok":true,"data":{"status":"ok"},"error":1}"#),
            expected: nil),
        Oddity(
            name: "a bare 101", action: HostilePeer.raw(head: "HTTP/1.1 101 Switching Protocols\r\n\r\n"),
            expected: .connectionFailed("Empty reply from server")),
        Oddity(
            name: "304 without a conditional request",
            action: .reply(status: 304, headers: [], body: Data()),
            expected: .undecodable("the server answered with HTTP 304")),
        Oddity(
            name: "an HTML sign-in page with 200", action: HostilePeer.html(200),
            expected: .undecodable("the server sent a web page instead of data")),
        Oddity(
            name: "a status of 999", action: .reply(status: 999, headers: [], body: Data()),
            expected: .undecodable("the server answered with HTTP 999")),
    ]

    @Test("1xx and 3xx oddities and HTML bodies end as one sentence, never a crash", arguments: oddities)
    func oddity(_ oddity: Oddity) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/health", with: oddity.action)
        let client = hostileClient(peer)
        do {
            let status = try await client.health()
            #expect(oddity.expected == nil, "expected \(String(describing: oddity.expected)), got a reply")
            #expect(status.status == "ok")
        } catch let error as APIError {
            #expect(error == oddity.expected)
            #expect(!error.message.contains("<"))
        }
    }

    @Test("a status line that is not HTTP or a NUL in a reply header fails as a connection error; a bare CR is inert")
    func brokenFraming() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/health", times: 1, with: HostilePeer.raw(head: "HELLO THERE\r\n\r\n"))
        let first = await thrownError { _ = try await hostileClient(peer).health() }
        guard case .connectionFailed = first as? APIError else {
            Issue.record("expected a connection failure, got \(String(describing: first))")
            return
        }
        // A NUL inside a header: libcurl itself refuses the reply.
        peer.lie(
            "GET", "/api/v1/health", times: 1,
            with: HostilePeer.raw(
                head: "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994\u{0}08:49:37 GMT\r\nContent-Length: 44\r\n\r\n",
                body: #"{"ok":true,"data":{"status":"ok"},"error":1}"#))
        let second = await thrownError { _ = try await hostileClient(peer).health() }
        #expect(second as? APIError == .connectionFailed("Nul byte in header"))
        // A bare CR inside a value never becomes a field of its own, and a broken Date is not believed.
        peer.lie(
            "GET", "/api/v1/health",
            with: HostilePeer.raw(
                head: "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\rX-Evil: 1\r\nContent-Length: 44\r\n\r\n",
                body: #"{"ok":true,"data":{"status":"ok"},"error":1}"#))
        let client = hostileClient(peer)
        #expect(try await client.health().status == "ok")
        #expect(await client.serverTimeOffset == nil)  // the CR-broken Date was not believed
    }
}
