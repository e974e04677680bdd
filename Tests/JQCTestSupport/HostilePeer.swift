import Foundation
import Synchronization

/// A loopback server that speaks the contract's shapes (CONTRACT.md) honestly until told to lie (issue 21):
/// wrong types, fractions, huge, endless or slow bodies, CR-LF and NUL in strings and headers, bad
/// `Retry-After`, HTML bodies, redirects, 1xx and 3xx oddities.
///
/// Honest answers: `/health`, `/auth/login` (any user and password), `/auth/refresh`, `/auth/me`,
/// `/auth/logout`, the reference lists (one facility 1 "North Tower", area 11, template 5 with one required
/// rating field 1), `POST /inspections` (echoed with id 1001), empty lists for issues, schedules,
/// notifications and follow-ups, and the dashboard. A lie registered with ``lie(_:_:times:_:)`` answers
/// matching requests first (newest lie first), `times` times or for ever.
public final class HostilePeer: Sendable {
    /// A request the peer received.
    public typealias Request = LoopbackServer.Request
    /// An answer.
    public typealias Action = LoopbackServer.Action

    private struct Lie {
        let method: String?
        let pathPrefix: String
        var remaining: Int?
        let answer: @Sendable (Request) -> Action
    }

    /// The lies in force, shared with the server's handler.
    private final class Book: Sendable {
        let lies = Mutex<[Lie]>([])
    }

    /// The socket server underneath.
    public let server: LoopbackServer
    private let book: Book

    /// A peer on `host` (`127.0.0.1`; `0.0.0.0` to be reachable on this machine's other addresses too).
    /// - Throws: `POSIXError` when no socket can be bound.
    public init(host: String = "127.0.0.1") throws {
        let book = Book()
        self.book = book
        server = try LoopbackServer(host: host) { request in
            let lie = book.lies.withLock { lies -> (@Sendable (Request) -> Action)? in
                let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
                guard
                    let index = lies.lastIndex(where: { lie in
                        (lie.method == nil || lie.method == request.method) && path.hasPrefix(lie.pathPrefix)
                    })
                else { return nil }
                let answer = lies[index].answer
                if let remaining = lies[index].remaining {
                    if remaining <= 1 { lies.remove(at: index) } else { lies[index].remaining = remaining - 1 }
                }
                return answer
            }
            return lie?(request) ?? HostilePeer.honest(request)
        }
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { server.baseURL }
    /// Every request received so far.
    public var requests: [Request] { server.requests }

    /// Answers requests with `method` (any when `nil`) whose path starts with `pathPrefix` by `answer`,
    /// `times` times (`nil`: until ``tellTheTruth()``).
    public func lie(
        _ method: String? = nil, _ pathPrefix: String, times: Int? = nil,
        _ answer: @escaping @Sendable (Request) -> Action
    ) {
        book.lies.withLock { $0.append(Lie(method: method, pathPrefix: pathPrefix, remaining: times, answer: answer)) }
    }

    /// Answers matching requests with `action`; see ``lie(_:_:times:_:)``.
    public func lie(_ method: String? = nil, _ pathPrefix: String, times: Int? = nil, with action: Action) {
        lie(method, pathPrefix, times: times) { _ in action }
    }

    /// Forgets every lie: honest answers only from now on.
    public func tellTheTruth() { book.lies.withLock { $0.removeAll() } }

    /// Stops the server.
    public func stop() { server.stop() }

    deinit { server.stop() }

    // MARK: - The contract's shapes

    /// The user every login returns (CONTRACT.md "Auth" `user`).
    public static let userJSON =
        #"{"id":7,"username":"alex","role":"inspector","full_name":"Alex Rivera","email":"alex@example.com"}"#

    /// An `{"ok":true,"data":<dataJSON>,"error":null}` reply; `dataJSON` is written as given (any shape).
    public static func envelope(_ dataJSON: String, status: Int = 200, headers: [(String, String)] = []) -> Action {
        .reply(
            status: status, headers: [("Content-Type", "application/json")] + headers,
            body: Data(#"{"ok":true,"data":\#(dataJSON),"error":null}"#.utf8))
    }

    /// An `{"ok":false,"data":null,"error":<message>}` reply with `status`.
    public static func failure(_ status: Int, _ message: String, headers: [(String, String)] = []) -> Action {
        let quoted = String(decoding: (try? JSONEncoder().encode(message)) ?? Data("\"\"".utf8), as: UTF8.self)
        return .reply(
            status: status, headers: [("Content-Type", "application/json")] + headers,
            body: Data(#"{"ok":false,"data":null,"error":\#(quoted)}"#.utf8))
    }

    /// A login or refresh `data` object with these tokens (written as JSON strings, escaped as needed).
    public static func tokensJSON(access: String, refresh: String, withUser: Bool) -> String {
        func quoted(_ text: String) -> String {
            String(decoding: (try? JSONEncoder().encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        let user = withUser ? #","user":\#(userJSON)"# : ""
        return #"{"access_token":\#(quoted(access)),"refresh_token":\#(quoted(refresh))\#(user)}"#
    }

    /// A JWT-shaped access token (unsigned) for `subject` expiring at `expiresAt`.
    public static func jwt(_ subject: String = "alex", expiresAt: Date = Date().addingTimeInterval(900)) -> String {
        func encode(_ json: String) -> String {
            Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let exp = Int64(expiresAt.timeIntervalSince1970.rounded(.down))
        return encode(#"{"alg":"HS256","typ":"JWT"}"#) + "." + encode(#"{"sub":"\#(subject)","exp":\#(exp)}"#)
            + ".c2lnbmF0dXJl"
    }

    /// A 64-character hex refresh token.
    public static let refreshToken = String(repeating: "0123456789abcdef", count: 4)

    /// The honest answer to `request`.
    public static func honest(_ request: Request) -> Action {
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        switch (request.method, path) {
        case ("GET", "/api/v1/health"):
            let now = ISO8601DateFormatter().string(from: Date())
            return envelope(#"{"status":"ok","time":"\#(now)","today":"\#(now.prefix(10))","timezone":"UTC"}"#)
        case ("POST", "/api/v1/auth/login"):
            return envelope(tokensJSON(access: jwt(), refresh: refreshToken, withUser: true))
        case ("POST", "/api/v1/auth/refresh"):
            return envelope(tokensJSON(access: jwt(), refresh: refreshToken, withUser: false))
        case ("GET", "/api/v1/auth/me"):
            return envelope(userJSON)
        case ("POST", "/api/v1/auth/logout"):
            return envelope("{}")
        case ("GET", "/api/v1/facilities"):
            return envelope(
                #"[{"id":1,"name":"North Tower","address":"1 Main St","project_id":10,"project_name":"Acme","#
                    + #""is_active":true}]"#)
        case ("GET", "/api/v1/areas"):
            return envelope(#"[{"id":11,"facility_id":1,"name":"Lobby","area_type":"lobby"}]"#)
        case ("GET", "/api/v1/templates"):
            return envelope(
                #"[{"id":5,"name":"Daily","description":"","is_active":true,"form_schema":[{"id":1,"type":"rating","#
                    + #""label":"Floors clean","row":1,"col":1,"colSpan":12,"rowSpan":1,"required":true}]}]"#)
        case ("GET", "/api/v1/inspections"):
            return envelope(#"{"inspections":[],"total":0,"limit":200,"offset":0}"#)
        case ("POST", "/api/v1/inspections"):
            return envelope(#"{"id":1001,"status":"completed","overall_score":80.0,"form_data":{}}"#)
        case ("GET", "/api/v1/issues"), ("GET", "/api/v1/scheduled-inspections"), ("GET", "/api/v1/notifications"):
            return envelope("[]")
        case ("GET", "/api/v1/dashboard/stats"):
            return envelope(
                #"{"inspections_this_week":0,"average_score":null,"open_issues":0,"overdue_schedules":0,"#
                    + #""pending_follow_ups":0}"#)
        default:
            return failure(404, "Not found.")
        }
    }

    // MARK: - Lies

    /// A body that never ends: `200`, no length (close-delimited, or chunked), JSON-looking bytes for ever.
    public static func endlessBody(status: Int = 200, chunked: Bool = false) -> Action {
        let filler = Data(repeating: UInt8(ascii: " "), count: 65_536)
        let framing = chunked ? "Transfer-Encoding: chunked\r\n" : "Connection: close\r\n"
        let head = Data("HTTP/1.1 \(status) OK\r\nContent-Type: application/json\r\n\(framing)\r\n".utf8)
        let chunk = chunked ? Data("10000\r\n".utf8) + filler + Data("\r\n".utf8) : filler
        return .stream(head: head, chunk: chunk, interval: 0, count: nil)
    }

    /// A body of `bytes` bytes (a multiple of 64 KiB), with its `Content-Length` announced or not.
    public static func hugeBody(bytes: Int, announced: Bool) -> Action {
        let chunk = Data(repeating: UInt8(ascii: " "), count: 65_536)
        let length = announced ? "Content-Length: \(bytes)\r\n" : "Connection: close\r\n"
        let head = Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(length)\r\n".utf8)
        return .stream(head: head, chunk: chunk, interval: 0, count: bytes / 65_536)
    }

    /// A reply that trickles out: `chunkBytes` bytes every `interval` seconds, for ever.
    public static func drip(_ chunkBytes: Int = 1, every interval: Double) -> Action {
        let head = Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8)
        return .stream(
            head: head, chunk: Data(repeating: UInt8(ascii: " "), count: max(1, chunkBytes)), interval: interval,
            count: nil)
    }

    /// An HTML page (a proxy's error page or a Wi-Fi sign-in page) with `status`.
    public static func html(_ status: Int = 200) -> Action {
        .reply(
            status: status, headers: [("Content-Type", "text/html")],
            body: Data(
                "<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Wi-Fi</h1></body></html>".utf8))
    }

    /// A redirect with `status` to `location`.
    public static func redirect(_ status: Int = 302, to location: String) -> Action {
        .reply(status: status, headers: [("Location", location)], body: Data())
    }

    /// Exactly `head` (CR-LF line ends written by the caller) followed by `body`, then the connection closes.
    public static func raw(head: String, body: String = "") -> Action {
        .raw(Data(head.utf8) + Data(body.utf8))
    }
}
