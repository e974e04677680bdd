import Foundation
import JQCKit
import JQCStorage
import Synchronization

/// A signed-in user, from the access token.
struct AuthUser: Sendable {
    let id: Int64
    let role: String
    let projectIDs: Set<Int64>
    /// The ids of every facility (active or not) of the user's contracts.
    let facilityScope: Set<Int64>
    let doc: Doc

    /// Inspectors see their own inspections; supervisors and above every inspection of their contracts.
    var isInspector: Bool { role == "inspector" }
}

/// One parsed request inside the router, with helpers for bodies and ids.
struct RouteContext {
    let request: HTTPRequest
    let segments: [String]
    let baseURL: String

    /// The JSON object body.
    /// - Throws: ``DevServerError`` 400 when the body is missing, not JSON, or not an object.
    func body() throws -> Doc {
        guard !request.body.isEmpty else { throw refuse(400, "The request needs a JSON object body.") }
        guard let value = try? JSONValue.parse(request.body) else {
            throw refuse(400, "The request body is not valid JSON.")
        }
        guard let object = value.objectValue else { throw refuse(400, "The request body must be a JSON object.") }
        return object
    }

    /// The absolute display URL of an uploaded path (rules 39, 67).
    func url(_ path: String) -> String {
        if path.hasPrefix("http://") || path.hasPrefix("https://") { return path }
        return baseURL + "/static/" + path
    }
}

/// Reads typed members of a JSON body, answering 400 on a wrong type.
enum Fields {
    static func int(_ body: Doc, _ key: String, required: Bool = false) throws -> Int64? {
        switch body[key] {
        case nil, .null?:
            if required { throw refuse(400, "The field \(key) is required and must be an integer.") }
            return nil
        case .int(let value)?:
            return value
        case .double(let value)? where value.rounded() == value && abs(value) < 9e15:
            return Int64(value)
        default:
            throw refuse(400, "The field \(key) must be an integer.")
        }
    }

    static func string(_ body: Doc, _ key: String, required: Bool = false) throws -> String? {
        switch body[key] {
        case nil, .null?:
            if required { throw refuse(400, "The field \(key) is required and must be a string.") }
            return nil
        case .string(let value)?:
            return value
        default:
            throw refuse(400, "The field \(key) must be a string.")
        }
    }

    static func double(_ body: Doc, _ key: String) throws -> Double? {
        switch body[key] {
        case nil, .null?: return nil
        case .int(let value)?: return Double(value)
        case .double(let value)?: return value
        default: throw refuse(400, "The field \(key) must be a number.")
        }
    }

    static func bool(_ body: Doc, _ key: String) throws -> Bool? {
        switch body[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        default: throw refuse(400, "The field \(key) must be true or false.")
        }
    }

    static func stringArray(_ body: Doc, _ key: String) throws -> [String]? {
        switch body[key] {
        case nil, .null?: return nil
        case .array(let items)?:
            return try items.map { item in
                guard let text = item.stringValue else { throw refuse(400, "The field \(key) must list strings.") }
                return text
            }
        default: throw refuse(400, "The field \(key) must be an array of strings.")
        }
    }
}

/// An admin-installed fault (SHELL.md, `POST /__admin/faults`).
/// `path_prefix` matches the full path (`/api/v1/issues`) or, when it does not start with `/api/`, the path under
/// `/api/v1` (`/issues`).
struct Fault: Sendable {
    var method: String?
    var pathPrefix: String
    var mode: String
    var status: Int
    var remaining: Int
    var delayMilliseconds: Int
}

/// Routes every request: `/api/v1/*`, `/static/*`, `/__admin/*`; applies faults; logs to server.log.
final class DevServerRouter: HTTPHandler {
    let store: ServerStore
    let configuration: DevServerConfiguration
    let today: @Sendable (String) -> CalendarDay
    let logger: Logger
    let faults = Mutex<[Fault]>([])
    let accessGeneration: Mutex<Int64>
    /// The port the server listens on (set once it is bound): `/__admin` requires it in the `Host`.
    let boundPort = Atomic<Int>(0)
    /// Reference list replies by path, contracts and query (``referenceReply(_:_:)``).
    let referenceReplies = Mutex<[String: DigestedReply]>([:])

    init(
        store: ServerStore, configuration: DevServerConfiguration, today: @escaping @Sendable (String) -> CalendarDay,
        logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.today = today
        self.logger = logger
        let generation: String? = try? store.queue.read { try store.value($0, "access_generation") }
        accessGeneration = Mutex(generation.flatMap { Int64($0) } ?? 0)
    }

    var reference: ReferenceData { store.reference }
    var serverToday: CalendarDay { today(reference.timezone) }
    var now: Date { configuration.clock.now }

    /// Answers one request and logs it to `server.log` as one line ending `METHOD PATH STATUS Nms` (STATUS
    /// `dropped` for a connection closed by a fault), so tests can count requests (SHELL.md manual).
    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = Date()
        let response = dispatch(request)
        let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
        let outcome = response.dropConnection ? "dropped" : String(response.status)
        logger.info(
            "\(Self.escapedForLog(request.method)) \(Self.escapedForLog(request.path)) \(outcome) \(milliseconds)ms")
        return response
    }

    /// `text` with control characters (C0, DEL, C1), bidirectional overrides and spaces escaped as `\u{…}`:
    /// a decoded request path may hold any of them, and the log is read on terminals; one log line per request.
    static func escapedForLog(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            if value <= 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value)
                || (0x2066...0x2069).contains(value) || value == 0x5C
            {
                out += "\\u{" + String(value, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private func dispatch(_ request: HTTPRequest) -> HTTPResponse {
        if request.path.hasPrefix("/__admin/") || request.path == "/__admin" {
            return route(request)
        }
        guard let fault = takeFault(method: request.method, path: request.path) else { return route(request) }
        switch fault.mode {
        case "status":
            let message =
                fault.status == 426
                ? "update_required"
                : "The server answered \(fault.status) (an injected fault); try again later."
            return Envelope.failure(fault.status, message)
        case "drop":
            return HTTPResponse(status: 500, contentType: "text/plain", body: Data(), dropConnection: true)
        case "html":
            let page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>"
            return HTTPResponse(status: 502, contentType: "text/html", body: Data(page.utf8))
        case "delay":
            usleep(useconds_t(max(0, min(fault.delayMilliseconds, 600_000))) * 1000)
            return route(request)
        case "drop_after":
            _ = route(request)
            return HTTPResponse(status: 500, contentType: "text/plain", body: Data(), dropConnection: true)
        case "truncate":
            var response = route(request)
            response.body = response.body.prefix(max(1, response.body.count / 2))
            return response
        default:
            return route(request)
        }
    }

    private func takeFault(method: String, path: String) -> Fault? {
        faults.withLock { list in
            guard
                let index = list.firstIndex(where: { fault in
                    (path.hasPrefix(fault.pathPrefix)
                        || (!fault.pathPrefix.hasPrefix("/api/") && path.hasPrefix("/api/v1" + fault.pathPrefix)))
                        && (fault.method.map { $0.caseInsensitiveCompare(method) == .orderedSame } ?? true)
                })
            else { return nil }
            let fault = list[index]
            list[index].remaining -= 1
            if list[index].remaining <= 0 { list.remove(at: index) }
            return fault
        }
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let host = request.header("host") ?? "\(configuration.host):\(configuration.port)"
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let context = RouteContext(request: request, segments: segments, baseURL: "http://\(host)")
        do {
            if request.bodyTooLarge { throw refuse(413, "The upload is larger than 50 MB; send a smaller photo.") }
            if segments.first == "static" { return try serveStatic(context) }
            if segments.first == "__admin" { return try admin(context) }
            guard segments.count >= 2, segments[0] == "api", segments[1] == "v1" else {
                throw refuse(404, "There is no such endpoint: \(request.path).")
            }
            return try api(context, Array(segments.dropFirst(2)))
        } catch let error as DevServerError {
            return Envelope.failure(error.httpStatus, error.message)
        } catch let error as DatabaseError {
            logger.error("database error: \(error)")
            return Envelope.failure(500, "The server could not read or write its store; try again.")
        } catch {
            logger.error("unexpected error: \(error)")
            return Envelope.failure(500, "The server failed unexpectedly; try again.")
        }
    }

    private func api(_ context: RouteContext, _ path: [String]) throws -> HTTPResponse {
        let method = context.request.method.uppercased()
        func expect(_ allowed: String...) throws {
            guard allowed.contains(method) else {
                throw refuse(405, "\(method) is not allowed on \(context.request.path).")
            }
        }
        func id(_ text: String) throws -> Int64 {
            guard let value = Int64(text) else { throw refuse(404, "There is no record \(text).") }
            return value
        }
        switch path.first ?? "" {
        case "health":
            try expect("GET")
            return Envelope.success(
                .object([
                    "status": "ok", "time": .string(DateFormats.instantString(now)),
                    "today": .string(serverToday.text), "timezone": .string(reference.timezone),
                ]))
        case "auth":
            switch (path.count > 1 ? path[1] : "") {
            case "login": try expect("POST"); return try login(context)
            case "refresh": try expect("POST"); return try refresh(context)
            case "logout": try expect("POST"); return try logout(context)
            case "me": try expect("GET"); return Envelope.success(userJSON(try authenticate(context).doc))
            default: throw refuse(404, "There is no such endpoint: \(context.request.path).")
            }
        default:
            break
        }
        let user = try authenticate(context)
        switch (path.first ?? "", path.count) {
        case ("facilities", 1):
            try expect("GET")
            let reply = try referenceReply("facilities \(contractsKey(user))") { facilities(user) }
            return conditional(reply, context, scope: scope(user))
        case ("areas", 1):
            try expect("GET")
            let only = context.request.query["facility_id"] ?? "-"
            let reply = try referenceReply("areas \(contractsKey(user)) \(only)") { try areas(user, context) }
            return conditional(reply, context, scope: scope(user))
        case ("templates", 1):
            try expect("GET")
            return conditional(try referenceReply("templates") { templates() }, context, scope: "")
        case ("inspections", 1):
            try expect("GET", "POST")
            if method == "POST" { return try createInspection(user, context) }
            return conditional(DigestedReply(try listInspections(user, context)), context, scope: scope(user))
        case ("inspections", 2):
            try expect("GET", "PATCH")
            let inspectionID = try id(path[1])
            return method == "PATCH"
                ? try updateInspection(user, context, inspectionID)
                : try showInspection(user, context, inspectionID)
        case ("issues", 1):
            try expect("GET", "POST")
            if method == "POST" { return try createIssue(user, context) }
            return conditional(DigestedReply(try listIssues(user, context)), context, scope: scope(user))
        case ("issues", 2):
            try expect("GET")
            return try showIssue(user, context, try id(path[1]))
        case ("issues", 3):
            let issueID = try id(path[1])
            switch path[2] {
            case "photos": try expect("PATCH", "PUT"); return try updateIssuePhotos(user, context, issueID)
            case "status": try expect("PATCH", "PUT"); return try updateIssueStatus(user, context, issueID)
            case "handler": try expect("PATCH", "PUT"); return try updateIssueHandler(user, context, issueID)
            case "comments":
                try expect("GET", "POST")
                return try issueComments(user, context, issueID, adding: method == "POST")
            default: throw refuse(404, "There is no such endpoint: \(context.request.path).")
            }
        case ("photos", 2) where path[1] == "upload":
            try expect("POST")
            return try uploadPhoto(user, context)
        case ("scheduled-inspections", 1):
            try expect("GET")
            return conditional(DigestedReply(try listSchedules(user, context)), context, scope: scope(user))
        case ("scheduled-inspections", 2) where path[1] == "follow-up":
            try expect("POST")
            return try scheduleFollowUp(user, context)
        case ("notifications", 1):
            try expect("GET")
            return try listNotifications(user, context)
        case ("notifications", 2) where path[1] == "mark-read":
            try expect("PATCH", "POST", "PUT")
            return try markNotificationsRead(user, context)
        case ("dashboard", 2) where path[1] == "stats":
            try expect("GET")
            return try dashboard(user, context)
        default:
            throw refuse(404, "There is no such endpoint: \(context.request.path).")
        }
    }

    // MARK: Scope

    /// Facilities of the user's contracts, active or not.
    func facilityIDsInScope(_ user: AuthUser) -> Set<Int64> { user.facilityScope }

    func canSee(inspection: Doc, _ user: AuthUser) -> Bool {
        if user.isInspector { return inspection.int("inspector_id") == user.id }
        return facilityIDsInScope(user).contains(inspection.int("facility_id") ?? -1)
    }

    /// True when the inspection is at a facility of the user's contracts (a re-inspection may follow
    /// another inspector's work; an issue may point at it).
    func inScope(_ inspection: Doc, _ user: AuthUser) -> Bool {
        facilityIDsInScope(user).contains(inspection.int("facility_id") ?? -1)
    }

    func canSee(issue: Doc, _ user: AuthUser) -> Bool {
        issue.int("reported_by_id") == user.id || issue.int("assigned_to_id") == user.id
    }

    func userJSON(_ user: Doc) -> JSONValue {
        .object([
            "id": user["id"] ?? .null, "username": user["username"] ?? .null, "role": user["role"] ?? .null,
            "full_name": user["full_name"] ?? .string(""), "email": user["email"] ?? .null,
        ])
    }

    /// Throws 422 when any string inside `value` is a device-local `local://` reference.
    func rejectLocalReferences(_ value: JSONValue, field: String) throws {
        switch value {
        case .string(let text) where text.hasPrefix("local://"):
            throw refuse(422, "The field \(field) holds a device-local reference (\(text)); upload the photo first.")
        case .array(let items): try items.forEach { try rejectLocalReferences($0, field: field) }
        case .object(let members): try members.forEach { try rejectLocalReferences($0.value, field: field) }
        default: break
        }
    }
}
