import Foundation
import JQCKit
import JQCNetwork
import Synchronization

/// A transport for unit tests: answers from a queue of canned replies or failures and records every
/// request it got (seed 004's `ScriptedTransport`). Test support, never shipped: the tests of every module
/// that sends requests declare `JQCNetworkTestSupport`.
///
/// When the queue is empty it answers with ``whenEmpty`` (by default a failure saying so), so a test
/// that sends more than it scripted fails loudly instead of hanging.
public final class ScriptedTransport: HTTPTransport {
    /// One scripted outcome.
    public enum Step: Sendable {
        /// A reply with this status, headers and body.
        case reply(HTTPResponse)
        /// A failure before any reply.
        case fail(TransportError)
        /// A reply computed from the request (e.g. echo a token, or wait on a gate first).
        case respond(@Sendable (HTTPRequest) async throws -> HTTPResponse)

        /// A reply with a UTF-8 body (`{"ok":true,…}`) and optional headers.
        public static func reply(_ status: Int, _ body: String, headers: HTTPHeaders = [:]) -> Step {
            .reply(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
        }

        /// A `{"ok": true, "data": …, "error": null}` reply with status 200 (or `status`).
        public static func ok(_ data: JSONValue, status: Int = 200, headers: HTTPHeaders = [:]) -> Step {
            let envelope: JSONValue = ["ok": true, "data": data, "error": nil]
            return .reply(HTTPResponse(status: status, headers: headers, body: envelope.jsonData()))
        }

        /// A `{"ok": false, "data": null, "error": message}` reply with `status`.
        public static func error(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> Step {
            let envelope: JSONValue = ["ok": false, "data": nil, "error": .string(message)]
            return .reply(HTTPResponse(status: status, headers: headers, body: envelope.jsonData()))
        }
    }

    /// A routing rule: steps are taken from the first rule whose predicate matches the request.
    private struct State {
        var queue: [Step]
        var routes: [(matches: @Sendable (HTTPRequest) -> Bool, steps: [Step], repeatLast: Bool)] = []
        var requests: [HTTPRequest] = []
    }

    private let state: Mutex<State>
    /// The outcome when no step is left.
    public let whenEmpty: Step

    /// A transport answering `steps` in order.
    public init(_ steps: [Step] = [], whenEmpty: Step = .fail(.other("the scripted transport has no reply left"))) {
        state = Mutex(State(queue: steps))
        self.whenEmpty = whenEmpty
    }

    /// Appends steps to the main queue.
    public func enqueue(_ steps: Step...) {
        state.withLock { $0.queue.append(contentsOf: steps) }
    }

    /// Answers requests whose path equals `path` (and method, when given) from `steps`, ahead of the main
    /// queue; with `repeatLast` the last step answers every later match.
    public func route(_ method: HTTPMethod? = nil, path: String, _ steps: [Step], repeatLast: Bool = false) {
        state.withLock {
            $0.routes.append(
                (
                    matches: { ($0.url.path == path) && (method == nil || $0.method == method) },
                    steps: steps, repeatLast: repeatLast
                ))
        }
    }

    /// Every request received so far, in arrival order.
    public var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The requests whose URL path is `path`.
    public func requests(path: String) -> [HTTPRequest] { requests.filter { $0.url.path == path } }

    /// Sends `request`; see ``HTTPTransport/send(_:progress:)``. - Throws: ``TransportError``.
    public func send(_ request: HTTPRequest, progress: (@Sendable (Int64, Int64) -> Void)?) async throws
        -> HTTPResponse
    {
        let step = state.withLock { state -> Step in
            state.requests.append(request)
            if let index = state.routes.firstIndex(where: { $0.matches(request) }) {
                let route = state.routes[index]
                if route.steps.count > 1 || !route.repeatLast {
                    state.routes[index].steps.removeFirst()
                    if state.routes[index].steps.isEmpty { state.routes.remove(at: index) }
                }
                return route.steps[0]
            }
            return state.queue.isEmpty ? whenEmpty : state.queue.removeFirst()
        }
        if Task.isCancelled { throw TransportError.cancelled }
        if case .multipart(let parts) = request.body, let progress {
            let total = Int64(parts.reduce(0) { $0 + $1.byteCount })
            progress(total / 2, total)
            progress(total, total)
        }
        switch step {
        case .reply(let response): return response
        case .fail(let error): throw error
        case .respond(let respond): return try await respond(request)
        }
    }
}

extension MultipartPart {
    /// The part's size in bytes (a missing file counts 0).
    var byteCount: Int {
        switch content {
        case .data(let data): return data.count
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? NSNumber
            return size?.intValue ?? 0
        }
    }
}
