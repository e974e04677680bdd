import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    /// `/__admin/*` (SHELL.md): faults, expire-tokens, revoke-refresh, state, notify — with `--admin`, from
    /// loopback clients only, addressed to a loopback `Host`, from no foreign `Origin`, bodies as JSON.
    func admin(_ context: RouteContext) throws -> HTTPResponse {
        guard configuration.admin, context.request.clientIsLoopback else {
            throw refuse(404, "There is no such endpoint: \(context.request.path).")
        }
        try checkAdminDoor(context.request)
        let method = context.request.method.uppercased()
        switch (method, context.segments.dropFirst().first ?? "") {
        case ("POST", "faults"): return try addFault(context)
        case ("DELETE", "faults"):
            faults.withLock { $0.removeAll() }
            return Envelope.success(.object(["cleared": true]))
        case ("POST", "expire-tokens"):
            let generation = accessGeneration.withLock { value -> Int64 in
                value += 1
                return value
            }
            try store.queue.write { try store.setValue($0, "access_generation", String(generation)) }
            return Envelope.success(.object(["expired": true]))
        case ("POST", "revoke-refresh"):
            let count: Int = try store.queue.write { db in
                try db.execute("UPDATE refresh_tokens SET revoked = 1 WHERE revoked = 0")
                return db.changesCount
            }
            return Envelope.success(.object(["revoked": .int(Int64(count))]))
        case ("GET", "state"): return try state(context)
        case ("POST", "notify"):
            let body = try context.body()
            let userID = try Fields.int(body, "user_id", required: true)!
            guard reference.user(userID) != nil else { throw refuse(422, "There is no user \(userID).") }
            let title = try Fields.string(body, "title") ?? "Notice"
            let text = try Fields.string(body, "body") ?? ""
            let link = try Fields.string(body, "link")
            let event = try Fields.string(body, "event_type") ?? "notice"
            let doc = try store.queue.write {
                try addNotification($0, userID: userID, title: title, body: text, link: link, eventType: event)
            }
            return Envelope.success(notificationJSON(doc, includeUser: true))
        default:
            throw refuse(404, "There is no such admin endpoint: \(method) \(context.request.path).")
        }
    }

    private func addFault(_ context: RouteContext) throws -> HTTPResponse {
        let body = try context.body()
        let modes: Set<String> = ["status", "drop", "drop_after", "delay", "html", "truncate"]
        let mode = try Fields.string(body, "mode", required: true)!
        guard modes.contains(mode) else {
            throw refuse(422, "The fault mode \(mode) is not one of status, drop, drop_after, delay, html, truncate.")
        }
        let prefix = try Fields.string(body, "path_prefix", required: true)!
        let status = Int(try Fields.int(body, "status") ?? 500)
        guard (100...599).contains(status) else { throw refuse(422, "The fault status must be an HTTP status.") }
        let count = Int(try Fields.int(body, "count") ?? 1)
        let delay = Int(try Fields.int(body, "delay_ms") ?? 1_000)
        let method = try Fields.string(body, "method").flatMap { $0.isEmpty ? nil : $0.uppercased() }
        let fault = Fault(
            method: method, pathPrefix: prefix, mode: mode, status: status, remaining: max(1, count),
            delayMilliseconds: delay)
        faults.withLock { $0.append(fault) }
        return Envelope.success(
            .object([
                "method": method.map(JSONValue.string) ?? .null, "path_prefix": .string(prefix), "mode": .string(mode),
                "status": .int(Int64(status)), "count": .int(Int64(max(1, count))), "delay_ms": .int(Int64(delay)),
            ]))
    }

    /// Every record of every user, in the contract's payload shapes (SHELL.md, `GET /__admin/state`), plus
    /// `duplicates` (POSTs answered with an existing record by `local_id` dedupe, per kind) and `refreshes`
    /// (refresh exchanges that succeeded, and that were refused with 401), counted since the store was made.
    private func state(_ context: RouteContext) throws -> HTTPResponse {
        let (inspections, issues, schedules, notifications, photos) = try store.queue.read { db in
            (
                try store.all(db, .inspection), try store.all(db, .issue), try store.all(db, .schedule),
                try store.all(db, .notification), try store.all(db, .photo)
            )
        }
        let counters = try store.queue.read { db in
            (
                inspections: try store.counter(db, "duplicates.inspections"),
                issues: try store.counter(db, "duplicates.issues"),
                refreshed: try store.counter(db, "refreshes.succeeded"),
                refused: try store.counter(db, "refreshes.failed")
            )
        }
        return Envelope.success(
            .object([
                "inspections": .array(inspections.map { inspectionJSON($0, baseURL: context.baseURL) }),
                "issues": .array(issues.map { issueJSON($0, context: context) }),
                "scheduled_inspections": .array(schedules.map { scheduleJSON($0, includeActive: true) }),
                "notifications": .array(notifications.map { notificationJSON($0, includeUser: true) }),
                "photos": .array(photos.compactMap { $0["path"] }),
                "duplicates": .object([
                    "inspections": .int(counters.inspections), "issues": .int(counters.issues),
                ]),
                "refreshes": .object(["succeeded": .int(counters.refreshed), "failed": .int(counters.refused)]),
            ]))
    }
}

extension DevServerRouter {
    /// The admin door (issue 19): a page in a browser on this machine must not reach `/__admin` through DNS
    /// rebinding (its `Host` is then the attacker's name) or a cross-site form (`Origin` is the page's, the
    /// body `text/plain`).
    /// - Throws: ``DevServerError`` 403 for a `Host` that is not `127.0.0.1`, `localhost` or `[::1]` with
    ///   this server's port, or an `Origin` that is not such a host; 415 for a body not sent as
    ///   `application/json` (a bodyless request passes).
    func checkAdminDoor(_ request: HTTPRequest) throws {
        let port = boundPort.load(ordering: .relaxed)
        guard let host = request.header("host"), Self.isLoopbackAuthority(host, port: port) else {
            throw refuse(
                403,
                "The admin endpoints answer only requests addressed to this machine: use "
                    + "http://127.0.0.1:\(port), http://localhost:\(port) or http://[::1]:\(port).")
        }
        if let origin = request.header("origin") {
            let lower = origin.lowercased()
            guard lower.hasPrefix("http://"), Self.isLoopbackAuthority(String(origin.dropFirst(7)), port: port) else {
                throw refuse(
                    403, "The admin endpoints refuse requests sent by a web page of another site (its Origin header).")
            }
        }
        if !request.body.isEmpty || request.bodyFile != nil {
            let mediaType = request.header("content-type")?.split(separator: ";").first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard mediaType == "application/json" else {
                throw refuse(
                    415, "Send the admin request's body as JSON, with the header Content-Type: application/json.")
            }
        }
    }

    /// True when `authority` (a `Host` value, or an origin after `http://`) names this machine by loopback —
    /// `127.0.0.1`, `localhost` or `[::1]`, any case — with `port` (no port = 80).
    static func isLoopbackAuthority(_ authority: String, port: Int) -> Bool {
        var name = Substring(authority)
        var portText: Substring?
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return false }
            let rest = name[name.index(after: close)...]
            name = name[...close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { return false }
                portText = rest.dropFirst()
            }
        } else if let colon = name.firstIndex(of: ":") {
            portText = name[name.index(after: colon)...]
            name = name[..<colon]
        }
        guard ["127.0.0.1", "localhost", "[::1]"].contains(name.lowercased()) else { return false }
        guard let portText else { return port == 80 }
        guard !portText.isEmpty, portText.allSatisfy({ $0.isASCII && $0.isNumber }), let given = Int(portText) else {
            return false
        }
        return given == port
    }
}
