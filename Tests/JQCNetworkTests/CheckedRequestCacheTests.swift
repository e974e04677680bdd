import Foundation
import JQCKit
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCNetwork

/// Issue 17: a transport judges a request's URL and header fields once; the same ones again pass without being
/// judged, anything else is judged afresh.
@Suite("One transport, many requests: what was judged safe and what was not")
struct CheckedRequestCacheTests {
    @Test(
        "after a safe request, one field changed to an unsafe value is still refused, every time, and nothing is sent")
    func changedFieldIsJudged() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let transport = CurlTransport()
        var good = HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"))
        good.headers.set("Accept", "application/json")
        good.headers.set("Authorization", "Bearer a1")
        var bad = good
        bad.headers.set("Authorization", "Bearer a1\r\nX-Injected: 1")
        var badName = good
        badName.headers.add("X Bad", "v")
        for _ in 0..<2 {
            #expect(try await transport.send(good).status == 200)
            let error = await thrownError { _ = try await transport.send(bad) }
            #expect(error as? TransportError == .invalidHeader(name: "Authorization"))
            let nameError = await thrownError { _ = try await transport.send(badName) }
            #expect(nameError as? TransportError == .invalidHeader(name: "XBad"))
        }
        #expect(peer.requests.count == 2)
        #expect(peer.requests.allSatisfy { $0.headers["x-injected"] == nil })
    }

    @Test("a password over plain http to another host is warned about before every request, not only the first")
    func passwordWarnedEveryTime() throws {
        let warnings = Mutex<[String]>([])
        let transport = CurlTransport(
            configuration: CurlTransport.Configuration(
                allowInsecureHTTP: true, warn: { text in warnings.withLock { $0.append(text) } }))
        let url = try #require(URL(string: "http://jqc.example.invalid:5055/api/v1/auth/login"))
        let login = HTTPRequest(method: .post, url: url, carriesPassword: true)
        try transport.checkBeforeSending(login)
        try transport.checkBeforeSending(login)
        #expect(warnings.withLock { $0.count } == 2)
        // A plain http request to another host without the allowance is refused however often it was checked.
        let strict = CurlTransport()
        let plain = HTTPRequest(method: .get, url: url)
        #expect(throws: TransportError.insecureHTTP(host: "jqc.example.invalid")) {
            try strict.checkBeforeSending(plain)
        }
        #expect(throws: TransportError.insecureHTTP(host: "jqc.example.invalid")) {
            try strict.checkBeforeSending(plain)
        }
    }
}
