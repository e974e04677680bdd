import CCurl
import Dispatch
import Foundation
import JQCKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The live ``HTTPTransport``: libcurl, one blocking `curl_easy_perform` per request on the serial queue
/// of its easy handle (never the shared pool), with a small pool of reusable handles so connections are
/// kept alive between requests (issue 4; SPEC.md §3).
///
/// - Start-up: `curl_global_init` runs once per process and `SIGPIPE` is ignored process-wide before
///   the first handle exists (`CURLOPT_NOSIGNAL` is set on every handle).
/// - Timeouts: connecting ``Configuration/connectTimeout`` (10 s); the whole transfer
///   ``HTTPRequest/timeout`` (by ``RequestKind``), ``TransportError/deadlineExceeded(seconds:)``.
/// - Bounds (issue 21, ``TransferLimits``): a reply body over its kind's limit is refused from its
///   `Content-Length` (`CURLOPT_MAXFILESIZE_LARGE`) or aborted by the write callback as soon as it passes the
///   limit; a header block over its limit likewise; a transfer slower than the low-speed limit is stopped
///   (`CURLOPT_LOW_SPEED_LIMIT`/`_TIME`). Each ends in its own ``TransportError``. Nothing asks for
///   compressed replies, so no body grows after it arrives.
/// - TLS: peer and host verification are always on for https; there is no switch to turn them off.
///   Extra trust comes only from ``Configuration/trust`` (``TLSTrust``: added to the system store). A refused
///   certificate says which check failed (``TLSProblem``).
/// - Plain http: to loopback hosts only, unless ``Configuration/allowInsecureHTTP``; then a request that
///   ``HTTPRequest/carriesPassword`` is preceded by a warning (``Configuration/warn``).
/// - Redirects are never followed (`CURLOPT_FOLLOWLOCATION` 0): a 3xx is handed over as a reply, so
///   `Authorization` never travels to another origin. Header values with control characters are never sent.
/// - Uploads: no `Expect: 100-continue` stall; `multipart/form-data` through `curl_mime`, files streamed
///   from disk; upload progress reported from `CURLOPT_XFERINFOFUNCTION`.
/// - Cancellation: cancelling the calling task aborts the transfer within about a second (libcurl calls
///   the progress callback at least once a second) and throws ``TransportError/cancelled``.
/// - Reused connections: a request on a kept-alive connection the server had already closed is sent
///   again once on a fresh connection, but only when nothing can have been applied: the method is
///   idempotent, or nothing was sent. Non-idempotent requests (`POST`, `PATCH`) go out on a fresh
///   connection (``Configuration/freshConnectionForNonIdempotent``) because libcurl itself re-sends any
///   request whose reused connection answered nothing — which would apply a `POST` twice when the
///   server applied it and then dropped the connection.
public final class CurlTransport: HTTPTransport {
    /// Tunables of the transport.
    public struct Configuration: Sendable {
        /// Seconds allowed to establish a connection (TCP + TLS). Default 10.
        public var connectTimeout: Double
        /// How many idle easy handles (each with its kept-alive connections) are kept. Default 4.
        public var maximumIdleHandles: Int
        /// Send `POST`/`PATCH` on a fresh connection so no layer can ever re-send them. Default `true`.
        public var freshConnectionForNonIdempotent: Bool
        /// Reply size and speed bounds. Default ``TransferLimits/init(maximumJSONReplyBytes:maximumPhotoBytes:maximumHeaderBytes:lowSpeedBytesPerSecond:lowSpeedSeconds:)``'s defaults.
        public var limits: TransferLimits
        /// Certificate authorities trusted beyond the system store. Default none (``TLSTrust/systemOnly``).
        public var trust: TLSTrust
        /// Whether plain `http://` to a host that is not loopback is allowed (`--allow-insecure-http`). Default `false`.
        public var allowInsecureHTTP: Bool
        /// Receives a warning sentence for a person (the shell prints it on stderr) before a password goes
        /// out over plain http to a host that is not loopback; `nil` only logs it.
        public var warn: (@Sendable (String) -> Void)?

        /// The defaults: 10 s connect timeout, 4 idle handles, fresh connections for non-idempotent requests,
        /// the default limits, the system's certificate authorities, plain http to loopback only.
        public init(
            connectTimeout: Double = 10, maximumIdleHandles: Int = 4,
            freshConnectionForNonIdempotent: Bool = true, limits: TransferLimits = TransferLimits(),
            trust: TLSTrust = .systemOnly, allowInsecureHTTP: Bool = false,
            warn: (@Sendable (String) -> Void)? = nil
        ) {
            self.connectTimeout = connectTimeout
            self.maximumIdleHandles = maximumIdleHandles
            self.freshConnectionForNonIdempotent = freshConnectionForNonIdempotent
            self.limits = limits
            self.trust = trust
            self.allowInsecureHTTP = allowInsecureHTTP
            self.warn = warn
        }
    }

    /// The configuration in force.
    public let configuration: Configuration
    private let idle = Mutex<[EasyHandle]>([])
    /// The URL and header fields of the last request judged safe to send (issue 17: a push sends the same URL
    /// and fields again and again; judging them was ~18,000 instructions of each request). A request that
    /// carries a password is judged every time (its warning must come before each).
    private let lastChecked = Mutex<(url: URL, fields: [(name: String, value: String)])?>(nil)
    private let logger: Logger
    private let trustStore: CATrustStore

    /// Process-wide start-up, run once (Swift initialises a static `let` exactly once, thread-safely).
    private static let processSetUp: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK
    }()

    /// A transport; the first one created in a process initialises libcurl and ignores `SIGPIPE`.
    /// - Parameters:
    ///   - configuration: timeouts and pooling.
    ///   - logger: receives one debug line per transfer (method, path, status, duration — never headers).
    public init(configuration: Configuration = Configuration(), logger: Logger = .disabled) {
        _ = CurlTransport.processSetUp
        self.configuration = configuration
        self.logger = logger
        let defaults = CurlTransport.defaultCALocations()
        trustStore = CATrustStore(
            configuration.trust, defaultBundle: defaults.bundle, defaultDirectory: defaults.directory)
        if let problem = trustStore.problem { logger.warning("\(problem.message)") }
    }

    /// libcurl's built-in CA bundle and directory (`CURLINFO_CAINFO`, `CURLINFO_CAPATH`, libcurl 7.84+).
    private static func defaultCALocations() -> (bundle: String?, directory: String?) {
        guard let handle = curl_easy_init() else { return (nil, nil) }
        defer { curl_easy_cleanup(handle) }
        var bundle: UnsafePointer<CChar>?
        var directory: UnsafePointer<CChar>?
        let bundleCode = jqc_curl_easy_getinfo_string(handle, CURLINFO_CAINFO, &bundle)
        let directoryCode = jqc_curl_easy_getinfo_string(handle, CURLINFO_CAPATH, &directory)
        return (
            bundleCode == CURLE_OK ? bundle.map { String(cString: $0) } : nil,
            directoryCode == CURLE_OK ? directory.map { String(cString: $0) } : nil
        )
    }

    /// The number of idle handles kept for reuse (tests).
    public var idleHandleCount: Int { idle.withLock { $0.count } }

    /// Sends `request`; see ``HTTPTransport/send(_:progress:)``. - Throws: ``TransportError``.
    public func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws
        -> HTTPResponse
    {
        try checkBeforeSending(request)
        let first = try await attempt(request, progress: progress)
        switch first {
        case .success(let response):
            return response
        case .failure(let failure):
            let droppedConnection =
                failure.code == CURLE_SEND_ERROR || failure.code == CURLE_RECV_ERROR
                || failure.code == CURLE_GOT_NOTHING
            // Sent again once: an idempotent method whatever the connection (RFC 9110 §9.2.2 lets a client
            // repeat it automatically; a fresh connection is dropped too, by a proxy or a restarting server),
            // and a request nothing of which reached the server on a stale keep-alive connection.
            let nothingApplied = request.isIdempotent || failure.bytesSent == 0
            let repeatable = request.method.isIdempotent || (failure.reusedConnection && nothingApplied)
            if droppedConnection && repeatable && !Task.isCancelled {
                logger.debug("\(request.method.rawValue) \(request.url.path): the connection was closed; retrying")
                switch try await attempt(request, progress: progress, fresh: true) {
                case .success(let response): return response
                case .failure(let again): throw again.error
                }
            }
            throw failure.error
        }
    }

    /// Refuses what must never leave: plain http to a host that is not loopback (unless allowed, and then
    /// a warning before a password), https while the named trust is unusable, and unsafe header fields. The
    /// same URL and fields as the last request that passed pass again without being judged (the transport's
    /// configuration and trust do not change).
    func checkBeforeSending(_ request: HTTPRequest) throws {
        if !request.carriesPassword, let known = lastChecked.withLock({ $0 }), known.url == request.url,
            known.fields.elementsEqual(request.headers.fields, by: { $0.name == $1.name && $0.value == $1.value })
        {
            return
        }
        let host = request.url.host ?? ""
        if PlainHTTP.isInsecure(request.url) {
            guard configuration.allowInsecureHTTP else { throw TransportError.insecureHTTP(host: host) }
            if request.carriesPassword {
                let warning =
                    "the password is being sent over plain HTTP (no TLS) to \(host), unencrypted: anyone on the "
                    + "network path can read it (--allow-insecure-http)."
                logger.warning(warning)
                configuration.warn?(warning)
            }
        }
        if request.url.scheme?.lowercased() == "https", let problem = trustStore.problem {
            throw TransportError.tls(problem)
        }
        for field in request.headers
        where !HTTPHeaders.isValidName(field.name) || !HTTPHeaders.isSafeValue(field.value) {
            let shown = String(
                field.name.unicodeScalars.filter { $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }.prefix(40))
            throw TransportError.invalidHeader(name: shown.isEmpty ? "unnamed" : shown)
        }
        lastChecked.withLock { $0 = (request.url, request.headers.fields) }
    }

    // MARK: - One transfer

    private struct Failure: Error {
        let code: CURLcode
        let error: TransportError
        let reusedConnection: Bool
        let bytesSent: Int
    }

    private func attempt(
        _ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?,
        fresh: Bool = false
    ) async throws -> Result<HTTPResponse, Failure> {
        if Task.isCancelled { throw TransportError.cancelled }
        let handle = acquire()
        let transfer = Transfer(
            progress: progress, maximumBodyBytes: request.kind.maximumReplyBytes(configuration.limits),
            maximumHeaderBytes: configuration.limits.maximumHeaderBytes)
        let started = ContinuousClock.now
        let run = { @Sendable [configuration, trustStore] () -> Result<HTTPResponse, Failure> in
            CurlTransport.perform(
                request, on: handle, transfer: transfer, configuration: configuration, trust: trustStore, fresh: fresh)
        }
        let result: Result<HTTPResponse, Failure> = await withTaskCancellationHandler {
            // On a thread that may block (a sync pass, issue 17) the transfer runs right here: no hop to the
            // handle's queue and back, two thread wake-ups per request fewer.
            if BlockingTaskExecutor.mayBlock { return run() }
            return await withCheckedContinuation { continuation in
                handle.queue.async { continuation.resume(returning: run()) }
            }
        } onCancel: {
            transfer.cancel()
        }
        release(handle)
        let elapsed = ContinuousClock.now - started
        switch result {
        case .success(let response):
            logger.debug("\(request.method.rawValue) \(request.url.path) → \(response.status) in \(elapsed)")
        case .failure(let failure):
            logger.debug("\(request.method.rawValue) \(request.url.path) failed in \(elapsed): \(failure.error)")
            if failure.error == .cancelled { throw TransportError.cancelled }
        }
        return result
    }

    private func acquire() -> EasyHandle {
        if let handle = idle.withLock({ $0.popLast() }) { return handle }
        return EasyHandle()
    }

    private func release(_ handle: EasyHandle) {
        curl_easy_reset(handle.pointer)
        let keep = idle.withLock { handles -> Bool in
            guard handles.count < configuration.maximumIdleHandles else { return false }
            handles.append(handle)
            return true
        }
        if !keep { handle.close() }
    }

    /// Runs one blocking transfer on the calling (worker) thread.
    private static func perform(
        _ request: HTTPRequest, on handle: EasyHandle, transfer: Transfer,
        configuration: Configuration, trust: CATrustStore, fresh: Bool
    ) -> Result<HTTPResponse, Failure> {
        let curl = handle.pointer
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        var mime: OpaquePointer? = nil
        defer {
            curl_slist_free_all(headerList)
            if let mime { curl_mime_free(mime) }
        }
        let context = Unmanaged.passUnretained(transfer).toOpaque()

        _ = request.url.absoluteString.withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_URL, $0) }
        _ = "http,https".withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_PROTOCOLS_STR, $0) }
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_SSL_VERIFYPEER, 1)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_SSL_VERIFYHOST, 2)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 0)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_MAXREDIRS, 0)
        if let bundle = trust.bundle {
            _ = bundle.withUnsafeBytes { bytes in
                jqc_curl_easy_setopt_blob_copy(curl, CURLOPT_CAINFO_BLOB, bytes.baseAddress, bytes.count)
            }
        }
        if let directories = trust.directories {
            _ = directories.withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_CAPATH, $0) }
        }
        let overall = CurlTransport.milliseconds(request.timeout)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_TIMEOUT_MS, overall)
        _ = jqc_curl_easy_setopt_long(
            curl, CURLOPT_CONNECTTIMEOUT_MS, min(overall, CurlTransport.milliseconds(configuration.connectTimeout)))
        let limits = configuration.limits
        _ = jqc_curl_easy_setopt_offset(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(transfer.maximumBodyBytes))
        if limits.lowSpeedBytesPerSecond > 0 {
            _ = jqc_curl_easy_setopt_long(curl, CURLOPT_LOW_SPEED_LIMIT, limits.lowSpeedBytesPerSecond)
            _ = jqc_curl_easy_setopt_long(curl, CURLOPT_LOW_SPEED_TIME, limits.lowSpeedSeconds)
        }
        if fresh || (!request.isIdempotent && configuration.freshConnectionForNonIdempotent) {
            _ = jqc_curl_easy_setopt_long(curl, CURLOPT_FRESH_CONNECT, 1)
        }
        _ = jqc_curl_easy_setopt_pointer(curl, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        _ = jqc_curl_easy_setopt_data_callback(curl, CURLOPT_WRITEFUNCTION, CurlTransport.writeCallback)
        _ = jqc_curl_easy_setopt_pointer(curl, CURLOPT_WRITEDATA, context)
        _ = jqc_curl_easy_setopt_data_callback(curl, CURLOPT_HEADERFUNCTION, CurlTransport.headerCallback)
        _ = jqc_curl_easy_setopt_pointer(curl, CURLOPT_HEADERDATA, context)
        _ = jqc_curl_easy_setopt_long(curl, CURLOPT_NOPROGRESS, 0)
        _ = jqc_curl_easy_setopt_xferinfo(curl, CurlTransport.progressCallback)
        _ = jqc_curl_easy_setopt_pointer(curl, CURLOPT_XFERINFODATA, context)

        // Method and body.
        switch request.method {
        case .get: _ = jqc_curl_easy_setopt_long(curl, CURLOPT_HTTPGET, 1)
        case .head: _ = jqc_curl_easy_setopt_long(curl, CURLOPT_NOBODY, 1)
        case .post: break
        case .put, .patch, .delete:
            _ = request.method.rawValue.withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_CUSTOMREQUEST, $0) }
        }
        let body = (request.method == .get || request.method == .head) ? HTTPBody.none : request.body
        switch body {
        case .none:
            if request.method == .post || request.method == .put || request.method == .patch {
                _ = jqc_curl_easy_setopt_offset(curl, CURLOPT_POSTFIELDSIZE_LARGE, 0)
                _ = "".withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_COPYPOSTFIELDS, $0) }
            }
        case .data(let data):
            _ = jqc_curl_easy_setopt_offset(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(data.count))
            data.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress, !bytes.isEmpty {
                    _ = jqc_curl_easy_setopt_string(
                        curl, CURLOPT_COPYPOSTFIELDS,
                        base.assumingMemoryBound(to: CChar.self))
                } else {
                    _ = "".withCString { jqc_curl_easy_setopt_string(curl, CURLOPT_COPYPOSTFIELDS, $0) }
                }
            }
        case .multipart(let parts):
            mime = curl_mime_init(curl)
            for part in parts {
                let mimePart = curl_mime_addpart(mime)
                _ = part.name.withCString { curl_mime_name(mimePart, $0) }
                switch part.content {
                case .data(let data):
                    if data.isEmpty {
                        _ = "".withCString { curl_mime_data(mimePart, $0, 0) }
                    } else {
                        _ = data.withUnsafeBytes { bytes in
                            let base = bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
                            return curl_mime_data(mimePart, base, bytes.count)
                        }
                    }
                case .file(let url):
                    let code = url.path.withCString { curl_mime_filedata(mimePart, $0) }
                    if code != CURLE_OK {
                        return .failure(
                            Failure(
                                code: code,
                                error: .other(
                                    "the file \(url.lastPathComponent) "
                                        + "could not be read"),
                                reusedConnection: false, bytesSent: 0))
                    }
                }
                if let filename = part.filename { _ = filename.withCString { curl_mime_filename(mimePart, $0) } }
                if let type = part.contentType { _ = type.withCString { curl_mime_type(mimePart, $0) } }
            }
            _ = jqc_curl_easy_setopt_mime(curl, mime)
        }

        // Header fields; an empty `Expect:` stops libcurl from waiting for `100 Continue`.
        for field in request.headers {
            headerList = curl_slist_append(headerList, "\(field.name): \(field.value)")
        }
        if body != .none && request.headers["Expect"] == nil {
            headerList = curl_slist_append(headerList, "Expect:")
        }
        if let headerList { _ = jqc_curl_easy_setopt_slist(curl, CURLOPT_HTTPHEADER, headerList) }

        let code = curl_easy_perform(curl)
        var receivedStatus = 0
        _ = jqc_curl_easy_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &receivedStatus)
        if code == CURLE_PARTIAL_FILE && receivedStatus > 0 && !transfer.isCancelled && transfer.exceeded == nil {
            // The reply was cut short: hand over what arrived so the caller classifies it as unreadable.
            return .success(
                HTTPResponse(
                    status: receivedStatus, headers: HTTPHeaders(transfer.headers),
                    body: transfer.body))
        }
        if code == CURLE_OK {
            var status = 0
            _ = jqc_curl_easy_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPResponse(status: status, headers: HTTPHeaders(transfer.headers), body: transfer.body))
        }
        var newConnections = 0
        _ = jqc_curl_easy_getinfo_long(curl, CURLINFO_NUM_CONNECTS, &newConnections)
        var requestSize = 0
        _ = jqc_curl_easy_getinfo_long(curl, CURLINFO_REQUEST_SIZE, &requestSize)
        let message = transfer.errorMessage(code: code)
        let host = request.url.host ?? "the server"
        let error: TransportError
        if transfer.isCancelled {
            error = .cancelled
        } else if let limit = transfer.exceeded {
            error = .replyTooLarge(limitBytes: limit)
        } else {
            switch code {
            case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT:
                error = .offline(message)
            case CURLE_FILESIZE_EXCEEDED:
                error = .replyTooLarge(limitBytes: transfer.maximumBodyBytes)
            case CURLE_OPERATION_TIMEDOUT:
                error = timeoutKind(
                    curl, request: request, limits: configuration.limits, reused: newConnections == 0,
                    message: message)
            case CURLE_PEER_FAILED_VERIFICATION:
                var verifyResult = 0
                _ = jqc_curl_easy_getinfo_long(curl, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
                error = .tls(.verification(code: verifyResult, host: host, detail: message))
            case CURLE_SSL_CACERT_BADFILE:
                error = .tls(
                    .trustFileUnusable(
                        path: "the trusted certificate authorities", origin: "",
                        reason: "libcurl could not read them (\(message))"))
            case CURLE_SSL_CONNECT_ERROR:
                error = .tls(.handshakeFailed(host: host, reason: message))
            default:
                error = .other(message)
            }
        }
        return .failure(
            Failure(
                code: code, error: error, reusedConnection: newConnections == 0,
                bytesSent: requestSize))
    }

    /// Which limit a `CURLE_OPERATION_TIMEDOUT` hit: connecting (no connection was ready), the whole
    /// transfer's deadline (the time spent reached it), or else the low-speed limit.
    private static func timeoutKind(
        _ curl: UnsafeMutableRawPointer, request: HTTPRequest, limits: TransferLimits, reused: Bool,
        message: String
    ) -> TransportError {
        var ready: curl_off_t = 0  // µs until the request could be sent (TCP and TLS done), 0 if never
        _ = jqc_curl_easy_getinfo_offset(curl, CURLINFO_PRETRANSFER_TIME_T, &ready)
        var total: curl_off_t = 0
        _ = jqc_curl_easy_getinfo_offset(curl, CURLINFO_TOTAL_TIME_T, &total)
        guard reused || ready > 0 else { return .timeout(message) }
        let elapsed = Double(total) / 1_000_000
        if limits.lowSpeedBytesPerSecond == 0 || elapsed >= request.timeout - 0.05 {
            return .deadlineExceeded(seconds: request.timeout)
        }
        return .tooSlow(bytesPerSecond: limits.lowSpeedBytesPerSecond, seconds: limits.lowSpeedSeconds)
    }

    /// `seconds` as whole milliseconds for libcurl, at least 1; checked (a non-finite or huge value is
    /// held at a day, never converted with a trap).
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite else { return 86_400_000 }
        let value = (seconds * 1000).rounded(.up)
        return Int(exactly: min(max(value, 1), 86_400_000)) ?? 86_400_000
    }

    // MARK: - C callbacks (called on libcurl's thread; context is an unretained `Transfer`)

    static let writeCallback: jqc_curl_data_callback = { buffer, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size &* count
        if transfer.isCancelled { return 0 }
        if Int64(transfer.body.count) + Int64(length) > transfer.maximumBodyBytes {
            transfer.exceeded = transfer.maximumBodyBytes  // aborts: libcurl ends with CURLE_WRITE_ERROR
            return 0
        }
        if let buffer, length > 0 {
            transfer.body.append(UnsafeRawPointer(buffer).assumingMemoryBound(to: UInt8.self), count: length)
        }
        return length
    }

    static let headerCallback: jqc_curl_data_callback = { buffer, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size &* count
        guard let buffer, length > 0 else { return length }
        transfer.headerBytes += length
        if transfer.headerBytes > transfer.maximumHeaderBytes {
            transfer.exceeded = Int64(transfer.maximumHeaderBytes)
            return 0
        }
        // On the bytes (issue 17: no Foundation string work per line): ASCII white space trimmed around the
        // line, the name and the value.
        let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
        let line = CurlTransport.trimmed(bytes[...])
        if line.starts(with: "HTTP/".utf8) {
            transfer.headers.removeAll()  // a new status line (after `100 Continue` or a retry)
            transfer.headerBytes = length
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = CurlTransport.trimmed(line[..<colon])
            let value = CurlTransport.trimmed(line[(colon + 1)...])
            transfer.headers.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return length
    }

    /// `bytes` without ASCII white space (space, tab, CR, LF, VT, FF) at either end.
    static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start..<end]
    }

    static let progressCallback: jqc_curl_xferinfo_callback = { context, _, _, uploadTotal, uploadNow in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        if transfer.isCancelled { return 1 }
        if let progress = transfer.progress, uploadTotal > 0, uploadNow != transfer.lastReportedUpload {
            transfer.lastReportedUpload = uploadNow
            progress(Int64(uploadNow), Int64(uploadTotal))
        }
        return 0
    }
}

/// One easy handle; it keeps its connections alive between transfers.
final class EasyHandle: @unchecked Sendable {  // because: one transfer at a time, handed over by the pool Mutex.
    let pointer: UnsafeMutableRawPointer
    /// The handle's own serial queue. A serial queue gets a thread of its own whenever it has work
    /// (it targets libdispatch's overcommit pool), so blocking transfers never starve the shared global
    /// pool, which grows only slowly when its threads block.
    let queue = DispatchQueue(label: "jqc.network.curl")
    private var closed = false

    init() {
        pointer = curl_easy_init()
    }

    /// Closes the handle's connections now.
    func close() {
        guard !closed else { return }
        closed = true
        curl_easy_cleanup(pointer)
    }

    deinit { close() }
}

/// The state of one transfer shared with libcurl's callbacks.
final class Transfer: @unchecked Sendable {  // because: only the perform thread mutates it; the flag is atomic.
    var body = Data()
    var headers: [(String, String)] = []
    var headerBytes = 0
    var lastReportedUpload: curl_off_t = -1
    /// The limit the reply passed (body or header block), once a callback aborted the transfer for it.
    var exceeded: Int64?
    let maximumBodyBytes: Int64
    let maximumHeaderBytes: Int
    let progress: (@Sendable (Int64, Int64) -> Void)?
    let errorBuffer: UnsafeMutablePointer<CChar>
    private let cancelled = Atomic<Bool>(false)

    init(progress: (@Sendable (Int64, Int64) -> Void)?, maximumBodyBytes: Int64, maximumHeaderBytes: Int) {
        self.progress = progress
        self.maximumBodyBytes = maximumBodyBytes
        self.maximumHeaderBytes = maximumHeaderBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit { errorBuffer.deallocate() }

    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// libcurl's detailed message for the failure, else its generic one.
    func errorMessage(code: CURLcode) -> String {
        let detailed = String(cString: errorBuffer).trimmingCharacters(in: .whitespacesAndNewlines)
        return detailed.isEmpty ? String(cString: curl_easy_strerror(code)) : detailed
    }
}
