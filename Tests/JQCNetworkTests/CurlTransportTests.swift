import Foundation
import JQCKit
import JQCTestSupport
import Synchronization
import Testing

@testable import JQCNetwork

#if canImport(Glibc)
    import Glibc
#endif

@Suite("libcurl transport over loopback HTTP")
struct CurlTransportTests {
    let transport = CurlTransport()

    @Test("a GET and a POST carry their headers and body, and the reply's headers are case-insensitive")
    func plainGetAndPost() async throws {
        let server = try LoopbackServer { request in
            if request.method == "GET" {
                return .text(200, #"{"ok":true}"#, headers: [("X-Reply", "yes"), ("Content-Type", "application/json")])
            }
            return .reply(status: 201, body: request.body)
        }
        defer { server.stop() }
        var get = HTTPRequest(method: .get, url: server.url("/api/v1/health?x=1"))
        get.headers.set("X-JQC-Client", "jqc-shell/1.0")
        let reply = try await transport.send(get)
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(reply.headers["x-reply"] == "yes")
        #expect(reply.headers["CONTENT-TYPE"] == "application/json")

        let payload = Data(#"{"facility_id":3,"bytes":"\u0000"}"#.utf8)
        let post = HTTPRequest(
            method: .post, url: server.url("/api/v1/issues"),
            headers: ["Content-Type": "application/json"], body: .data(payload))
        let created = try await transport.send(post)
        #expect(created.status == 201)
        #expect(created.body == payload)

        let seen = server.requests
        #expect(seen.map(\.method) == ["GET", "POST"])
        #expect(seen[0].path == "/api/v1/health?x=1")
        #expect(seen[0].headers["x-jqc-client"] == "jqc-shell/1.0")
        #expect(seen[1].body == payload)
        #expect(seen[1].headers["expect"] == nil)
        #expect(seen[1].headers["content-type"] == "application/json")
    }

    @Test("sequential requests reuse one kept-alive connection")
    func keepAlive() async throws {
        let server = try LoopbackServer { _ in .text(200, "{}") }
        defer { server.stop() }
        for _ in 0..<4 {
            _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/api/v1/issues")))
        }
        #expect(server.requests.map(\.connection) == [1, 1, 1, 1])
        #expect(server.connectionCount == 1)
    }

    @Test("a GET on a kept-alive connection the server closed is sent again once on a fresh connection")
    func closedKeepAliveRetried() async throws {
        let server = try LoopbackServer { request in
            request.path == "/second" && request.connection == 1 ? .drop : .text(200, "fine")
        }
        defer { server.stop() }
        _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/first")))
        let reply = try await transport.send(HTTPRequest(method: .get, url: server.url("/second")))
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == "fine")
        #expect(server.requests.map(\.path) == ["/first", "/second", "/second"])
        #expect(server.requests.map(\.connection) == [1, 1, 2])
    }

    @Test("a GET whose reused connection is reset by the server is sent again once and succeeds")
    func resetKeepAliveRetried() async throws {
        let server = try LoopbackServer { request in
            request.path == "/second" && request.connection == 1 ? .reset : .text(200, "fine")
        }
        defer { server.stop() }
        _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/first")))
        let reply = try await transport.send(HTTPRequest(method: .get, url: server.url("/second")))
        #expect(String(decoding: reply.body, as: UTF8.self) == "fine")
        #expect(server.requests.map(\.connection) == [1, 1, 2])
    }

    @Test("a GET whose fresh connection is dropped before any reply is sent again once and succeeds")
    func droppedFreshGetRetried() async throws {
        let server = try LoopbackServer { request in request.connection == 1 ? .drop : .text(200, "fine") }
        defer { server.stop() }
        let reply = try await transport.send(HTTPRequest(method: .get, url: server.url("/only")))
        #expect(String(decoding: reply.body, as: UTF8.self) == "fine")
        #expect(server.requests.map(\.connection) == [1, 2])
    }

    @Test("a GET dropped twice is reported after exactly one repeat, never a third send")
    func droppedGetRepeatedOnce() async throws {
        let server = try LoopbackServer { _ in .drop }
        defer { server.stop() }
        let error = await thrownError {
            _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/always")))
        }
        #expect(error is TransportError)
        #expect(server.requests.count == 2)
    }

    @Test("a POST whose connection drops is never sent a second time")
    func postNotResent() async throws {
        let server = try LoopbackServer { request in request.method == "POST" ? .drop : .text(200, "{}") }
        defer { server.stop() }
        _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/api/v1/health")))
        let error = await thrownError {
            _ = try await transport.send(
                HTTPRequest(
                    method: .post, url: server.url("/api/v1/inspections"),
                    body: .data(Data("{}".utf8))))
        }
        guard case .other = error as? TransportError else {
            Issue.record("expected a dropped-connection failure, got \(String(describing: error))")
            return
        }
        #expect(server.requests.filter { $0.method == "POST" }.count == 1)
        #expect(server.requests.last?.connection == 2)  // a POST never rides a reused connection
    }

    @Test("a refused connection is offline")
    func connectionRefused() async throws {
        let server = try LoopbackServer { _ in .text(200, "{}") }
        let port = server.port
        server.stop()
        await waitUntilRefused(port: port)
        let error = await thrownError {
            _ = try await transport.send(
                HTTPRequest(method: .get, url: try #require(URL(string: "http://127.0.0.1:\(port)/x"))))
        }
        guard let transportError = error as? TransportError, case .offline = transportError else {
            Issue.record("expected offline, got \(String(describing: error))")
            return
        }
        #expect(APIError(transportError) == .offline)
    }

    @Test("a reply slower than the request's time limit ends at its deadline")
    func slowReplyTimesOut() async throws {
        let server = try LoopbackServer { _ in .text(200, "{}", delay: 5) }
        defer { server.stop() }
        let error = await thrownError {
            _ = try await transport.send(HTTPRequest(method: .get, url: server.url("/slow"), timeoutOverride: 0.4))
        }
        // The server answers only after 5 s: the deadline error (not a 200) proves the 0.4 s limit ended the transfer.
        #expect(error as? TransportError == .deadlineExceeded(seconds: 0.4))
    }

    @Test("cancelling the task aborts a transfer in flight")
    func cancellationAborts() async throws {
        let server = try LoopbackServer { _ in .text(200, "{}", delay: 10) }
        defer { server.stop() }
        let transport = self.transport
        let url = server.url("/slow")
        let task = Task { try await transport.send(HTTPRequest(method: .get, url: url)) }
        await server.waitForRequests(1)
        task.cancel()
        let error = await thrownError { _ = try await task.value }
        // The server answers only after 10 s: a cancelled error (not a 200) proves the transfer was aborted.
        #expect(error as? TransportError == .cancelled)
    }

    @Test("a multipart upload streams a file with the fields and reports progress up to the whole size")
    func multipartUpload() async throws {
        let directory = TemporaryDirectory()
        let file = directory.path("photo.jpg")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        let server = try LoopbackServer { request in
            .text(200, #"{"ok":true,"data":{"path":"uploads/issue_photos/x.jpg"},"error":null}"#)
        }
        defer { server.stop() }
        let progress = ProgressLog()
        let request = HTTPRequest(
            method: .post, url: server.url("/api/v1/photos/upload"),
            body: .multipart([
                .field("entity_type", "issue"),
                .file("file", url: file, filename: "photo.jpg", contentType: "image/jpeg"),
            ]), kind: .upload)
        let reply = try await transport.send(request, progress: { progress.add($0, $1) })
        #expect(reply.status == 200)
        let received = try #require(server.requests.first)
        #expect(received.headers["expect"] == nil)
        #expect(received.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(received.body.range(of: Data("name=\"entity_type\"\r\n\r\nissue\r\n".utf8)) != nil)
        let fileHeader = "name=\"file\"; filename=\"photo.jpg\"\r\nContent-Type: image/jpeg"
        #expect(received.body.range(of: Data(fileHeader.utf8)) != nil)
        #expect(received.body.range(of: bytes) != nil)
        let total = Int64(received.body.count)
        let reports = progress.values
        #expect(!reports.isEmpty)
        #expect(reports.allSatisfy { $0.1 == total })
        #expect(reports.last?.0 == total)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.0 <= $1.0 })
    }

    @Test("a 502 HTML page through the API client is a server error whose message has no markup")
    func htmlBadGateway() async throws {
        let server = try LoopbackServer { _ in
            .reply(
                status: 502, headers: [("Content-Type", "text/html")],
                body: Data("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>".utf8))
        }
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let client = APIClient(
            config: ServerConfig(store: InMemorySelectionStore(server.url("/").absoluteString)),
            transport: transport, tokens: FileTokenStore(url: directory.path("credentials")),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "1.0"))
        let error = await thrownError { _ = try await client.health() }
        let apiError = try #require(error as? APIError)
        #expect(apiError == .server(status: 502, message: "The server is unavailable. Try again later."))
        #expect(!apiError.message.contains("<"))
        #expect(server.requests.first?.headers["x-jqc-api-version"] == "1")
    }

    @Test("a reply cut short before its announced length is an unreadable reply, not a crash")
    func truncatedReply() async throws {
        let server = try LoopbackServer { _ in
            .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n{\"ok\":true,\"data\":{\"id\":4".utf8))
        }
        defer { server.stop() }
        let client = APIClient(
            config: ServerConfig(store: InMemorySelectionStore(server.url("/").absoluteString)),
            transport: transport, tokens: InMemoryTokenStore(),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "1.0"))
        let error = await thrownError { _ = try await client.health() }
        #expect(error as? APIError == .undecodable("the reply was cut short"))
    }

    @Test("the API client learns the server's clock from the Date header over real HTTP")
    func dateHeaderOverHTTP() async throws {
        let server = try LoopbackServer { _ in
            .text(
                200, #"{"ok":true,"data":{"status":"ok"},"error":null}"#,
                headers: [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")])
        }
        defer { server.stop() }
        let clock = ManualClock(start: Date(timeIntervalSince1970: 784_111_777 + 600))
        let client = APIClient(
            config: ServerConfig(store: InMemorySelectionStore(server.url("/").absoluteString)),
            transport: transport, tokens: InMemoryTokenStore(),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "1.0"),
            clock: clock)
        #expect(try await client.health().status == "ok")
        #expect(await client.serverTimeOffset == -600)
    }

    /// Waits until nothing listens on `port` any more (the server's accept thread has closed it).
    private func waitUntilRefused(port: UInt16) async {
        for _ in 0..<1000 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if result != 0 { return }
            await Task.yield()
        }
    }
}

@Suite("API client over libcurl and loopback HTTP")
struct APIClientOverHTTPTests {
    /// Holds server threads until `count` of them have arrived (bounded, so a bug fails instead of hanging).
    final class ThreadBarrier: Sendable {
        private let condition = NSCondition()
        private let arrived = Mutex(0)
        private let count: Int
        init(count: Int) { self.count = count }
        func arrive() {
            condition.lock()
            let now = arrived.withLock { value -> Int in
                value += 1
                return value
            }
            if now >= count {
                condition.broadcast()
            } else {
                let deadline = Date().addingTimeInterval(10)
                while arrived.withLock({ $0 }) < count && condition.wait(until: deadline) {}
            }
            condition.unlock()
        }
    }

    @Test("twenty concurrent requests over real HTTP refused with 401 cause exactly one refresh call")
    func singleFlightOverHTTP() async throws {
        let barrier = ThreadBarrier(count: 20)
        let newToken = Harness.jwt("new", expiresAt: Harness.serverNow + 900)
        let server = try LoopbackServer { request in
            if request.path == "/api/v1/auth/refresh" {
                let tokens = #"{"access_token":"\#(newToken)","refresh_token":"r2"}"#
                return .text(200, #"{"ok":true,"data":\#(tokens),"error":null}"#)
            }
            if request.headers["authorization"] == "Bearer \(newToken)" {
                return .text(200, #"{"ok":true,"data":[],"error":null}"#)
            }
            barrier.arrive()
            return .text(401, #"{"ok":false,"data":null,"error":"Token expired."}"#)
        }
        defer { server.stop() }
        let directory = TemporaryDirectory()
        let tokens = FileTokenStore(url: directory.path("credentials"))
        try tokens.save(
            Credentials(
                accessToken: Harness.jwt("old", expiresAt: Harness.serverNow + 900),
                refreshToken: "r1", user: Harness.alice))
        let client = APIClient(
            config: ServerConfig(store: InMemorySelectionStore(server.url("/").absoluteString)),
            transport: CurlTransport(), tokens: tokens, refusals: InMemoryUpdateRefusalMemory(),
            identity: ClientIdentity(version: "1.0"))
        let results = try await withThrowingTaskGroup(of: JSONValue.self) { group in
            for _ in 0..<20 { group.addTask { try await client.getJSON("/api/v1/issues") } }
            return try await group.reduce(into: [JSONValue]()) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(server.requests.filter { $0.path == "/api/v1/auth/refresh" }.count == 1)
        #expect(server.requests.filter { $0.path == "/api/v1/issues" }.count == 40)
        #expect(tokens.load()?.refreshToken == "r2")
    }
}

@Suite("libcurl transport on a thread that may block")
struct CurlTransportInlineTests {
    /// Sends a 200 KB POST and reports, from every progress callback (which runs on the thread performing
    /// the transfer), whether that thread is a ``BlockingTaskExecutor``'s.
    private func progressThreads(preferring executor: BlockingTaskExecutor?) async throws -> [Bool] {
        let server = try LoopbackServer { _ in .text(201, "{}") }
        defer { server.stop() }
        let transport = CurlTransport()
        let seen = Mutex<[Bool]>([])
        let request = HTTPRequest(
            method: .post, url: server.url("/api/v1/issues"),
            headers: ["Content-Type": "application/json"], body: .data(Data(repeating: 0x20, count: 200_000)))
        let send = { @Sendable () async throws -> Int in
            try await transport.send(
                request,
                progress: { _, _ in
                    seen.withLock { $0.append(BlockingTaskExecutor.mayBlock) }
                }
            ).status
        }
        let status: Int
        if let executor {
            status = try await Task(executorPreference: executor) { try await send() }.value
        } else {
            status = try await Task { try await send() }.value
        }
        #expect(status == 201)
        return seen.withLock { $0 }
    }

    @Test("inside a task preferring a BlockingTaskExecutor the transfer runs inline, on that executor's thread")
    func inlineOnBlockingExecutor() async throws {
        let threads = try await progressThreads(preferring: BlockingTaskExecutor(label: "jqc.test.pass"))
        #expect(!threads.isEmpty)
        #expect(threads.allSatisfy { $0 })
    }

    @Test("elsewhere the transfer hops to the handle's own queue, never blocking the cooperative pool")
    func hopsElsewhere() async throws {
        let threads = try await progressThreads(preferring: nil)
        #expect(!threads.isEmpty)
        #expect(threads.allSatisfy { !$0 })
    }
}
