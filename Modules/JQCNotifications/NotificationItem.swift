import Foundation
import JQCKit
import JQCNetwork
import Synchronization

/// One notification as pulled from `GET /api/v1/notifications` and kept on this device (CONTRACT.md
/// "Notifications, dashboard, health"): a value snapshot, never a live row (seed 001 rule 68).
public struct NotificationItem: Sendable, Equatable, Hashable {
    /// The server's id.
    public var id: Int64
    /// The headline, e.g. `Issue #49 assigned to you`.
    public var title: String
    /// The detail line (empty when the server sent none).
    public var body: String
    /// A web path such as `/issues/49`, or `nil`.
    public var link: String?
    /// The server's event type (`issue_assigned`, `follow_up_requested`, `notice`, …).
    public var eventType: String
    /// `created_at` exactly as the server sent it (ISO 8601 with an offset); the poll cursor is built from
    /// these, never from this device's clock.
    public var createdAt: String
    /// `createdAt` read as an instant, or `nil` when the server sent something unreadable.
    public var createdInstant: Date?
    /// Whether it has been read (here or on the server; once read, it stays read).
    public var read: Bool
    /// Whether a mark-read for it is queued for the server (`PATCH /notifications/mark-read`).
    public var readPendingPush: Bool

    /// A notification.
    public init(
        id: Int64, title: String, body: String = "", link: String? = nil, eventType: String = "",
        createdAt: String, createdInstant: Date? = nil, read: Bool = false, readPendingPush: Bool = false
    ) {
        self.id = id
        self.title = title
        self.body = body
        self.link = link
        self.eventType = eventType
        self.createdAt = createdAt
        self.createdInstant = createdInstant ?? DateFormats.instant(from: createdAt)
        self.read = read
        self.readPendingPush = readPendingPush
    }

    /// Reads one element of the `GET /notifications` reply (`{id, title, body, link, event_type, created_at,
    /// read}`).
    /// - Returns: the notification, or `nil` when ``init(reply:at:)`` refuses it.
    public init?(json: JSONValue) {
        guard let read = try? NotificationItem(reply: json, at: ReplyPath()) else { return nil }
        self = read
    }

    /// Reads one element of the `GET /notifications` reply at `path`: an integer `id` is required, and every
    /// member present must have its type (issue 21).
    /// - Throws: ``/JQCNetwork/ReplyShapeError`` naming the member's path.
    public init(reply: JSONValue, at path: ReplyPath) throws {
        let fields = try ReplyFields(reply, at: path)
        self.init(
            id: Int64(try fields.int("id")), title: try fields.optionalString("title") ?? "",
            body: try fields.optionalString("body") ?? "", link: try fields.optionalString("link"),
            eventType: try fields.optionalString("event_type") ?? "",
            createdAt: try fields.optionalString("created_at") ?? "", read: try fields.optionalBool("read") ?? false)
    }
}

/// Where a newly pulled notification is announced — the seed's local notification (SPEC.md §3: "local
/// notifications → a `NotificationSink`"; the shell prints a one-line banner on stderr). Called once per
/// notification, the first time it reaches this device unread; never for one already received.
public protocol NotificationSink: Sendable {
    /// Announces `notification`. Must not block: it is called from the pull, after its transaction.
    func deliver(_ notification: NotificationItem)
}

/// A sink that forwards to every attached sink, so the composition root owns one and the app (the shell's
/// banner, a test's collector) attaches its own before launch.
public final class NotificationRelay: NotificationSink {
    private let sinks = Mutex<[any NotificationSink]>([])

    /// A relay with no sink attached (deliveries go nowhere until one is).
    public init() {}

    /// Adds `sink`; it receives every later delivery.
    public func attach(_ sink: any NotificationSink) {
        sinks.withLock { $0.append(sink) }
    }

    /// Forwards `notification` to every attached sink, in attachment order.
    public func deliver(_ notification: NotificationItem) {
        for sink in sinks.withLock({ $0 }) { sink.deliver(notification) }
    }
}

/// A sink that keeps what it was given, in order (tests, and anything that wants to show them later).
public final class CollectingNotificationSink: NotificationSink {
    private let items = Mutex<[NotificationItem]>([])

    /// An empty collector.
    public init() {}

    /// Keeps `notification`.
    public func deliver(_ notification: NotificationItem) {
        items.withLock { $0.append(notification) }
    }

    /// Everything delivered so far, in delivery order.
    public var delivered: [NotificationItem] { items.withLock { $0 } }
}
