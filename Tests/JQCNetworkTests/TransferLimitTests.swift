import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

/// An API client over libcurl talking to `peer`, with `limits` (small ones keep the suite quick).
func hostileClient(
    _ peer: HostilePeer, limits: TransferLimits = TransferLimits(), tokens: any TokenStore = InMemoryTokenStore(),
    refusals: any UpdateRefusalMemory = InMemoryUpdateRefusalMemory()
) -> APIClient {
    APIClient(
        config: ServerConfig(store: InMemorySelectionStore(peer.baseURL)),
        transport: CurlTransport(configuration: CurlTransport.Configuration(limits: limits)), tokens: tokens,
        refusals: refusals, identity: ClientIdentity(version: "1.0"))
}

@Suite("Bounded transfers against a hostile peer")
struct TransferLimitTests {
    static let oneMiB = TransferLimits(maximumJSONReplyBytes: 1_048_576)

    @Test("an endless body is aborted at the reply limit with its own sentence", arguments: [false, true])
    func endlessBody(chunked: Bool) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("POST", "/api/v1/auth/login", with: HostilePeer.endlessBody(chunked: chunked))
        let tokens = InMemoryTokenStore()
        let error = await thrownError {
            _ = try await hostileClient(peer, limits: Self.oneMiB, tokens: tokens).login(
                username: "alex", password: "pw")
        }
        #expect(error as? APIError == .replyTooLarge(limitBytes: 1_048_576))
        #expect(
            (error as? APIError)?.message
                == "The server's reply was larger than the 1 MiB allowed, so it was stopped and none of it was used. "
                + "Your work is kept. If this server really sends replies that large, raise the limit with "
                + "--max-reply-mb N.")
        #expect((error as? APIError)?.code == "network.reply_too_large")
        #expect(tokens.load() == nil)
    }

    @Test("a 100 MB body announced by Content-Length is refused before any of it is read")
    func announcedHugeBody() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        // Only the head arrives (the body would follow in 30 s): a refusal, not the 5 s deadline, proves the
        // limit is checked against Content-Length up front (CURLOPT_MAXFILESIZE_LARGE).
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n"
        peer.lie(
            "GET", "/api/v1/health", with: .stream(head: Data(head.utf8), chunk: Data("{".utf8), interval: 30, count: 1)
        )
        let transport = CurlTransport()
        let error = await thrownError {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"), timeoutOverride: 5))
        }
        #expect(error as? TransportError == .replyTooLarge(limitBytes: 32 * 1_048_576))
    }

    @Test("a 100 MB body without a length is aborted once it passes the default 32 MiB")
    func unannouncedHugeBody() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/health", with: HostilePeer.hugeBody(bytes: 100 * 1_048_576, announced: false))
        let error = await thrownError { _ = try await hostileClient(peer).health() }
        #expect(error as? APIError == .replyTooLarge(limitBytes: 32 * 1_048_576))
        #expect((error as? APIError)?.message.contains("larger than the 32 MiB allowed") == true)
    }

    @Test("a photo body may be larger than the JSON limit, up to the contract's 50 MB")
    func photoKindLimit() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/static/big.jpg", with: HostilePeer.hugeBody(bytes: 2 * 1_048_576, announced: false))
        peer.lie("GET", "/static/huge.jpg", with: HostilePeer.hugeBody(bytes: 4 * 1_048_576, announced: true))
        let limits = TransferLimits(maximumJSONReplyBytes: 1_048_576, maximumPhotoBytes: 3 * 1_048_576)
        let transport = CurlTransport(configuration: CurlTransport.Configuration(limits: limits))
        let photo = try await transport.send(
            HTTPRequest(method: .get, url: peer.server.url("/static/big.jpg"), kind: .photo))
        #expect(photo.body.count == 2 * 1_048_576)
        let json = await thrownError {
            _ = try await transport.send(HTTPRequest(method: .get, url: peer.server.url("/static/big.jpg")))
        }
        #expect(json as? TransportError == .replyTooLarge(limitBytes: 1_048_576))
        let huge = await thrownError {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: peer.server.url("/static/huge.jpg"), kind: .photo))
        }
        #expect(huge as? TransportError == .replyTooLarge(limitBytes: 3 * 1_048_576))
        #expect(RequestKind.photo.maximumReplyBytes(TransferLimits()) == 50_000_000)
    }

    @Test("an endless header block is aborted at the header limit")
    func endlessHeaders() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let line = Data(("X-Filler: " + String(repeating: "h", count: 1000) + "\r\n").utf8)
        peer.lie(
            "GET", "/api/v1/health",
            with: .stream(head: Data("HTTP/1.1 200 OK\r\n".utf8), chunk: line, interval: 0, count: nil))
        let error = await thrownError { _ = try await hostileClient(peer).health() }
        #expect(error as? APIError == .replyTooLarge(limitBytes: 262_144))
    }

    @Test("a slow drip is stopped by the low-speed limit with its own sentence")
    func slowDrip() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/health", with: HostilePeer.drip(1, every: 0.2))
        let limits = TransferLimits(lowSpeedBytesPerSecond: 100, lowSpeedSeconds: 1)
        let error = await thrownError { _ = try await hostileClient(peer, limits: limits).health() }
        #expect(error as? APIError == .tooSlow(bytesPerSecond: 100, seconds: 1))
        #expect(
            (error as? APIError)?.message
                == "The server's reply came too slowly (fewer than 100 bytes a second for 1 second), so it was "
                + "stopped. Your work is kept; try again when the connection is better.")
        #expect((error as? APIError)?.code == "network.too_slow")
    }

    @Test("a reply that keeps coming fast enough is stopped at the request's deadline with its own sentence")
    func deadline() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/health", with: HostilePeer.drip(2048, every: 0.02))
        // The low-speed window (3 s) is longer than the deadline (1.5 s): under the whole suite on 2 cores the
        // peer's thread was once kept off a core for a second, and a 1 s window then stopped the reply first.
        let transport = CurlTransport(
            configuration: CurlTransport.Configuration(
                limits: TransferLimits(lowSpeedBytesPerSecond: 100, lowSpeedSeconds: 3)))
        let error = await thrownError {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: peer.server.url("/api/v1/health"), timeoutOverride: 1.5))
        }
        #expect(error as? TransportError == .deadlineExceeded(seconds: 1.5))
        let apiError = APIError(try #require(error as? TransportError))
        #expect(apiError.code == "network.deadline_exceeded")
        #expect(
            apiError.message
                == "The server's reply did not finish within the 1.5-second limit for this request, so it was "
                + "stopped. Your work is kept; try again in a moment.")
    }

    @Test("a TLS handshake that never answers is a connect timeout, not a slow reply")
    func silentHandshake() async throws {
        let server = try LoopbackServer { _ in .silent }  // never reads a request: the ClientHello gets no answer
        defer { server.stop() }
        let transport = CurlTransport(configuration: CurlTransport.Configuration(connectTimeout: 0.5))
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/api/v1/health"))
        let error = await thrownError { _ = try await transport.send(HTTPRequest(method: .get, url: url)) }
        guard case .timeout = error as? TransportError else {
            Issue.record("expected a connect timeout, got \(String(describing: error))")
            return
        }
        #expect(APIError(try #require(error as? TransportError)) == .timeout)
    }

    @Test("the limits' sentences name the sizes and the error codes stay stable")
    func sentencesAndCodes() {
        #expect(TransferLimits.describe(32 * 1_048_576) == "32 MiB")
        #expect(TransferLimits.describe(50_000_000) == "50 MB")
        #expect(TransferLimits.describe(262_144) == "256 KiB")
        #expect(TransferLimits.jsonReplyLimit(mebibytes: 0) == nil)
        #expect(TransferLimits.jsonReplyLimit(mebibytes: 1025) == nil)
        #expect(TransferLimits.jsonReplyLimit(mebibytes: 8)?.maximumJSONReplyBytes == Int64(8_388_608))
        #expect(APIError.replyTooLarge(limitBytes: 1).isTransient)
        #expect(APIError.replyTooLarge(limitBytes: 1).countsAsServerAnswer)
        #expect(!APIError.tooSlow(bytesPerSecond: 1, seconds: 1).countsAsServerAnswer)
        #expect(!APIError.deadlineExceeded(seconds: 1).countsAsServerAnswer)
        #expect(CurlTransport.milliseconds(.infinity) == 86_400_000)
        #expect(CurlTransport.milliseconds(1e300) == 86_400_000)
        #expect(CurlTransport.milliseconds(0.0001) == 1)
        #expect(CurlTransport.milliseconds(-5) == 1)
    }
}
