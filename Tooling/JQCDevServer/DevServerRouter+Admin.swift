import Foundation
import JQCKit
import JQCStorage

extension DevServerRouter {
    /// `/__admin/*` (SHELL.md): faults, expire-tokens, revoke-refresh, state — with `--admin`, loopback only.
    func admin(_ context: RouteContext) throws -> HTTPResponse {
        guard configuration.admin, context.request.clientIsLoopback else {
            throw refuse(404, "There is no such endpoint: \(context.request.path).")
        }
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

    /// Every record of every user, in the contract's payload shapes (SHELL.md, `GET /__admin/state`).
    private func state(_ context: RouteContext) throws -> HTTPResponse {
        let (inspections, issues, schedules, notifications, photos) = try store.queue.read { db in
            (
                try store.all(db, .inspection), try store.all(db, .issue), try store.all(db, .schedule),
                try store.all(db, .notification), try store.all(db, .photo)
            )
        }
        return Envelope.success(
            .object([
                "inspections": .array(inspections.map { inspectionJSON($0, baseURL: context.baseURL) }),
                "issues": .array(issues.map { issueJSON($0, context: context) }),
                "scheduled_inspections": .array(schedules.map { scheduleJSON($0, includeActive: true) }),
                "notifications": .array(notifications.map { notificationJSON($0, includeUser: true) }),
                "photos": .array(photos.compactMap { $0["path"] }),
            ]))
    }
}
