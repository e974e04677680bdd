import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server for the network tests: plain POSIX sockets (no server library, so client test
/// targets can use it), one thread per connection, keep-alive, and a scripted answer per request — a
/// reply, a reply after a delay, raw bytes, a streamed (huge, endless or slow) body, silence, or a
/// closed or reset connection. ``HostilePeer`` builds the contract's shapes and its lies on top of it.
public final class LoopbackServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        /// 1 for the first accepted connection, 2 for the next, …
        public let connection: Int
        /// `GET`, `POST`, …
        public let method: String
        /// The request target (path and query).
        public let path: String
        /// Header fields, names lower-cased (the last of a repeated name wins).
        public let headers: [String: String]
        /// The header lines exactly as received (without the request line), for smuggling checks.
        public let headerLines: [String]
        /// The body bytes.
        public let body: Data
    }

    /// How the server answers one request.
    public enum Action: Sendable {
        /// Answer after `delay` seconds; with `close`, close the connection after the reply.
        case reply(
            status: Int, headers: [(String, String)] = [], body: Data = Data(), delay: Double = 0,
            close: Bool = false)
        /// Close the connection without answering.
        case drop
        /// Write these bytes as they are, then close the connection.
        case raw(Data)
        /// Abort the connection with a TCP reset, without answering.
        case reset
        /// Write `head` (status line, fields and the blank line, as given), then `chunk` `count` times (`nil`:
        /// until the client goes away) waiting `interval` seconds between chunks, then close.
        case stream(head: Data, chunk: Data, interval: Double, count: Int?)
        /// Read the request and never answer (until the client goes away or the server stops).
        case silent

        /// A reply with a UTF-8 body.
        public static func text(_ status: Int, _ body: String, headers: [(String, String)] = [], delay: Double = 0)
            -> Action
        {
            .reply(status: status, headers: headers, body: Data(body.utf8), delay: delay)
        }
    }

    private struct State {
        var requests: [Request] = []
        var connections = 0
        var openSockets: Set<Int32> = []
        var stopped = false
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    /// The port listened on.
    public let port: UInt16
    /// The address listened on (`127.0.0.1`, or `0.0.0.0` for every interface).
    public let host: String
    private let listener: Int32
    private let state = Mutex(State())
    private let handler: @Sendable (Request) -> Action

    /// Starts listening on `host` (a free port) and answering with `handler`.
    /// - Throws: `POSIXError` when no socket can be bound.
    public init(host: String = "127.0.0.1", _ handler: @escaping @Sendable (Request) -> Action) throws {
        self.handler = handler
        self.host = host
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { preconditionFailure("bad path \(path)") }
        return url
    }

    /// `http://127.0.0.1:<port>`, a server base URL.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in order.
    public var requests: [Request] { state.withLock { $0.requests } }
    /// How many connections were accepted.
    public var connectionCount: Int { state.withLock { $0.connections } }

    /// Returns once at least `count` requests have arrived.
    public func waitForRequests(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.requests.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Stops accepting and closes every connection.
    public func stop() {
        state.withLock { state in
            guard !state.stopped else { return }  // the listener fd may already be closed and reused
            state.stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in state.openSockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    deinit { stop() }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            let connection = state.withLock { state -> Int? in
                if state.stopped { return nil }
                state.connections += 1
                state.openSockets.insert(client)
                return state.connections
            }
            guard let connection else {
                close(client)
                break
            }
            let thread = Thread { [self] in serve(client, connection: connection) }
            thread.start()
        }
        close(listener)
    }

    private func serve(_ socket: Int32, connection: Int) {
        defer {
            state.withLock { _ = $0.openSockets.remove(socket) }
            close(socket)
        }
        var buffer = Data()
        while let request = readRequest(socket, connection: connection, buffer: &buffer) {
            let action = handler(request)
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.requests.append(request)
                let count = state.requests.count
                let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
                state.waiters.removeAll { $0.count <= count }
                return ready
            }
            for waiter in waiters { waiter.resume() }
            switch action {
            case .drop:
                return
            case .reset:
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(socket, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                return
            case .raw(let bytes):
                _ = write(socket, bytes)
                return
            case .silent:
                // Until the client closes (recv returns 0 or fails) or the server stops (shutdown wakes it).
                var scratch = Data()
                while !isStopped && receive(socket, into: &scratch) { scratch.removeAll(keepingCapacity: true) }
                return
            case .stream(let head, let chunk, let interval, let count):
                guard write(socket, head) else { return }
                var sent = 0
                while count.map({ sent < $0 }) ?? true, !isStopped {
                    if interval > 0 && !pause(interval) { return }
                    guard write(socket, chunk) else { return }
                    sent += 1
                }
                return
            case .reply(let status, let headers, let body, let delay, let closeAfter):
                if delay > 0 && !pause(delay) { return }
                var head = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "\r\n"
                guard write(socket, Data(head.utf8) + body) else { return }
                if closeAfter { return }
            }
        }
    }

    /// Waits `seconds` (the scripted slowness of a reply, not a test's timing), returning early with
    /// `false` when the server stops.
    private func pause(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if isStopped { return false }
            usleep(UInt32(min(5_000, max(100, deadline.timeIntervalSinceNow * 1_000_000))))
        }
        return !isStopped
    }

    private func write(_ socket: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return true }
            var offset = 0
            while offset < bytes.count {
                let sent = send(socket, base + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    private func readRequest(_ socket: Int32, connection: Int, buffer: inout Data) -> Request? {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard buffer.count < 1_048_576, receive(socket, into: &buffer) else { return nil }
        }
        guard let headEnd = buffer.range(of: separator) else { return nil }
        let head = String(decoding: buffer[buffer.startIndex..<headEnd.lowerBound], as: UTF8.self)
        buffer = Data(buffer[headEnd.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
                .trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length {
            guard receive(socket, into: &buffer) else { return nil }
        }
        let body = Data(buffer.prefix(length))
        buffer = Data(buffer.dropFirst(length))
        return Request(
            connection: connection, method: String(requestLine[0]), path: String(requestLine[1]),
            headers: headers, headerLines: lines, body: body)
    }

    private func receive(_ socket: Int32, into buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
