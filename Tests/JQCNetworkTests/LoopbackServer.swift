import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the libcurl transport's tests: POSIX sockets, one thread
/// per connection, keep-alive, and a scripted answer per request (reply, reply after a delay, reply and
/// close, or close without replying).
final class LoopbackServer: Sendable {
    struct Request: Sendable {
        /// 1 for the first accepted connection, 2 for the next, …
        let connection: Int
        let method: String
        let path: String
        /// Header names lower-cased.
        let headers: [String: String]
        let body: Data
    }

    enum Action: Sendable {
        /// Answer after `delay` seconds; with `close`, close the connection after the reply (no header).
        case reply(
            status: Int, headers: [(String, String)] = [], body: Data = Data(), delay: Double = 0,
            close: Bool = false)
        /// Close the connection without answering.
        case drop
        /// Write these bytes as they are, then close the connection.
        case raw(Data)
        /// Abort the connection with a TCP reset, without answering.
        case reset

        static func text(_ status: Int, _ body: String, headers: [(String, String)] = [], delay: Double = 0)
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

    let port: UInt16
    private let listener: Int32
    private let state = Mutex(State())
    private let handler: @Sendable (Request) -> Action

    init(_ handler: @escaping @Sendable (Request) -> Action) throws {
        self.handler = handler
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    var requests: [Request] { state.withLock { $0.requests } }
    var connectionCount: Int { state.withLock { $0.connections } }

    /// Returns once at least `count` requests have arrived.
    func waitForRequests(_ count: Int) async {
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
    func stop() {
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
            case .reply(let status, let headers, let body, let delay, let closeAfter):
                if delay > 0 {
                    let deadline = Date().addingTimeInterval(delay)
                    while Date() < deadline && !isStopped { usleep(5_000) }  // the scripted slow reply
                    if isStopped { return }
                }
                var head = "HTTP/1.1 \(status) Scripted\r\nContent-Length: \(body.count)\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "\r\n"
                guard write(socket, Data(head.utf8) + body) else { return }
                if closeAfter { return }
            }
        }
    }

    private func write(_ socket: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(socket, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    private func readRequest(_ socket: Int32, connection: Int, buffer: inout Data) -> Request? {
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            guard receive(socket, into: &buffer) else { return nil }
        }
        let headEnd = buffer.range(of: separator)!
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
            headers: headers, body: body)
    }

    private func receive(_ socket: Int32, into buffer: inout Data) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(socket, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<count])
        return true
    }
}
