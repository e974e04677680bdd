import CMicroHTTPD
import Foundation
import Synchronization

/// One HTTP request as the router sees it: the method, the decoded path, the query, the headers it
/// needs and the body (in memory, or in a temporary file for uploads).
struct HTTPRequest: Sendable {
    var method: String
    var path: String
    var query: [String: String]
    var headers: [String: String]
    var body: Data
    var bodyFile: URL?
    var bodyTooLarge: Bool
    var clientIsLoopback: Bool

    /// A header's value by lower-case name.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// One HTTP reply: the status, the content type, extra headers and the bytes.
struct HTTPResponse: Sendable {
    var status: Int
    var contentType: String
    var body: Data
    /// Close the connection without any reply (fault `drop`/`drop_after`).
    var dropConnection = false
    /// Further headers (`ETag`), by name.
    var headers: [String: String] = [:]
}

/// What the HTTP layer calls for each complete request (on a libmicrohttpd pool thread).
protocol HTTPHandler: Sendable {
    /// Answers a request. Never throws: every failure becomes an envelope.
    func handle(_ request: HTTPRequest) -> HTTPResponse
}

/// The per-request state kept between libmicrohttpd's calls: the body accumulated so far.
final class HTTPRequestContext: @unchecked Sendable {  // because: only its connection's pool thread touches it.
    var body = Data()
    var bodyFile: URL?
    var fileHandle: FileHandle?
    var received = 0
    var tooLarge = false
    var answered = false

    /// Removes the temporary upload file, if any.
    func cleanUp() {
        try? fileHandle?.close()
        fileHandle = nil
        if let bodyFile { try? FileManager.default.removeItem(at: bodyFile) }
        bodyFile = nil
    }
}

/// The libmicrohttpd daemon: thread-pool mode with an internal polling thread. Callbacks are static
/// functions of this type (STYLE.md pitfalls: C callbacks run on C threads); the handler reaches them
/// through an `Unmanaged` pointer to this `Sendable` object.
final class HTTPServer: Sendable {
    /// The largest request body accepted, in bytes (50 MB of photo plus 1 MiB of multipart framing).
    static let maximumBodyBytes = 50_000_000 + 1_048_576

    private let handler: any HTTPHandler
    private let temporaryDirectory: URL
    /// The running daemon as its address bit pattern (0 = none): a raw pointer is not `Sendable`.
    private let daemon = Mutex<UInt>(0)

    init(handler: any HTTPHandler, temporaryDirectory: URL) {
        self.handler = handler
        self.temporaryDirectory = temporaryDirectory
    }

    /// Starts listening; returns the bound port.
    /// - Throws: ``DevServerError`` when the daemon cannot start (port in use, bad host).
    func start(host: String, port: Int) throws -> Int {
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = host.withCString { hostPointer in
            jqc_mhd_start(
                hostPointer, UInt16(truncatingIfNeeded: port), 8, HTTPServer.accessHandler, context,
                HTTPServer.completedHandler, context, 60)
        }
        guard let started else {
            throw DevServerError(
                .cannotListen,
                "The server could not listen on \(host):\(port); choose another port or host.")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))) }
        return Int(jqc_mhd_port(started))
    }

    /// Stops the daemon (waits for the pool threads); safe to call twice.
    func stop() {
        let running = daemon.withLock { value -> UInt in
            defer { value = 0 }
            return value
        }
        if let pointer = OpaquePointer(bitPattern: running) { MHD_stop_daemon(pointer) }
    }

    // MARK: libmicrohttpd callbacks

    static let accessHandler: MHD_AccessHandlerCallback = {
        serverPointer, connection, url, method, _, uploadData, uploadSize, contextSlot in
        guard let serverPointer, let connection, let uploadSize, let contextSlot else { return jqc_mhd_no() }
        let server = Unmanaged<HTTPServer>.fromOpaque(serverPointer).takeUnretainedValue()
        let path = url.map { String(cString: $0) } ?? "/"
        let methodName = method.map { String(cString: $0) } ?? "GET"
        return server.access(
            connection: connection, path: path, method: methodName, uploadData: uploadData,
            uploadSize: uploadSize, contextSlot: contextSlot)
    }

    static let completedHandler: MHD_RequestCompletedCallback = { _, _, contextSlot, _ in
        guard let contextSlot, let raw = contextSlot.pointee else { return }
        let context = Unmanaged<HTTPRequestContext>.fromOpaque(raw).takeRetainedValue()
        context.cleanUp()
        contextSlot.pointee = nil
    }

    /// The request headers the router reads (lower-case names).
    static let requestHeaders = [
        "authorization", "host", "content-type", "origin", "if-none-match", "x-jqc-client", "x-jqc-api-version",
    ]
    /// The query arguments the router reads.
    static let queryArguments = ["status", "limit", "offset", "follow_up_required", "since", "facility_id", "page"]

    private func access(
        connection: OpaquePointer, path: String, method: String,
        uploadData: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        contextSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = contextSlot.pointee else {
            // First call: headers only. Refuse an announced oversized body before reading it (through the
            // handler, so the refusal is logged like every other request).
            let context = HTTPRequestContext()
            contextSlot.pointee = Unmanaged.passRetained(context).toOpaque()
            if let length = header(connection, "Content-Length").flatMap(Int.init), length > Self.maximumBodyBytes {
                context.answered = true
                context.tooLarge = true
                return answer(connection, path: path, method: method, context: context)
            }
            return jqc_mhd_yes()
        }
        let context = Unmanaged<HTTPRequestContext>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            uploadSize.pointee = 0
            if context.answered || context.tooLarge { return jqc_mhd_yes() }
            context.received += count
            if context.received > Self.maximumBodyBytes {
                context.tooLarge = true
                context.cleanUp()
                context.body = Data()
                return jqc_mhd_yes()
            }
            guard let uploadData else { return jqc_mhd_yes() }
            let bytes = UnsafeRawBufferPointer(start: uploadData, count: count)
            if path.hasSuffix("/photos/upload") {
                if context.fileHandle == nil {
                    let file = temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString).part")
                    context.bodyFile = file
                    context.fileHandle = PrivateFiles.createForWriting(file)
                    guard context.fileHandle != nil else { return jqc_mhd_no() }
                }
                do {
                    try context.fileHandle?.write(contentsOf: Data(bytes))
                } catch {
                    return jqc_mhd_no()
                }
            } else {
                context.body.append(contentsOf: bytes)
            }
            return jqc_mhd_yes()
        }
        if context.answered { return jqc_mhd_yes() }
        context.answered = true
        try? context.fileHandle?.close()
        context.fileHandle = nil
        return answer(connection, path: path, method: method, context: context)
    }

    /// Hands the complete request to the handler and queues its reply.
    private func answer(
        _ connection: OpaquePointer, path: String, method: String, context: HTTPRequestContext
    ) -> MHD_Result {
        var headers: [String: String] = [:]
        for name in Self.requestHeaders {
            if let value = header(connection, name) { headers[name] = value }
        }
        var query: [String: String] = [:]
        for name in Self.queryArguments {
            if let value = jqc_mhd_query(connection, name) { query[name] = String(cString: value) }
        }
        let request = HTTPRequest(
            method: method, path: path, query: query, headers: headers, body: context.body,
            bodyFile: context.bodyFile, bodyTooLarge: context.tooLarge,
            clientIsLoopback: jqc_mhd_client_is_loopback(connection) == 1)
        let response = handler.handle(request)
        if response.dropConnection { return jqc_mhd_no() }
        return send(connection, response)
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        name.withCString { jqc_mhd_header(connection, $0) }.map { String(cString: $0) }
    }

    /// Queues `response`: its bytes copied, its content type (none on a 304) and extra headers added.
    private func send(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        let created = response.body.withUnsafeBytes { bytes in jqc_mhd_response_copy(bytes.count, bytes.baseAddress) }
        guard let created else { return jqc_mhd_no() }
        defer { MHD_destroy_response(created) }
        var headers = response.headers
        if response.status != 304 { headers["Content-Type"] = response.contentType }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard MHD_add_response_header(created, name, value) == jqc_mhd_yes() else { return jqc_mhd_no() }
        }
        return MHD_queue_response(connection, UInt32(response.status), created)
    }
}
