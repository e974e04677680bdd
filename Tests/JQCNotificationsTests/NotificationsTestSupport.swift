import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCStorage
import JQCSync
import JQCTestSupport
import Synchronization

@testable import JQCNotifications

/// One feature under test: a migrated temporary store, a scripted transport, an API client signed in as
/// alex, a manual clock, and the services over them.
struct Feature {
    let directory = TemporaryDirectory(prefix: "jqc-notifications")
    let clock: ManualClock
    let transport = ScriptedTransport()
    let store: NotificationStore
    let api: APIClient
    let sink = CollectingNotificationSink()
    let notifications: NotificationService
    let dashboard: DashboardService
    let log = MemoryLogSink()

    init(clock: ManualClock = ManualClock()) throws {
        self.clock = clock
        let queue = try DatabaseQueue(path: directory.url.appendingPathComponent("jqc.sqlite").path)
        var migrator = DatabaseMigrator()
        NotificationsSchema.register(in: &migrator)
        try migrator.migrate(queue)
        store = NotificationStore(queue: queue)
        let user = User(id: 7, username: "alex", role: .inspector, fullName: "Alex Rivera")
        api = APIClient(
            config: ServerConfig(store: InMemorySelectionStore("http://127.0.0.1:9")), transport: transport,
            tokens: InMemoryTokenStore(
                Credentials(
                    accessToken: "access", refreshToken: "refresh",
                    user: user)),
            refusals: InMemoryUpdateRefusalMemory(), identity: ClientIdentity(version: "test"),
            clock: clock)
        let logger = Logger(label: "test", minimumLevel: .debug, sink: log, clock: clock)
        notifications = NotificationService(store: store, api: api, sink: sink, clock: clock, logger: logger)
        dashboard = DashboardService(store: store, api: api, clock: clock, logger: logger)
    }

    /// An explicit pass with exact backoff.
    func pass(explicit: Bool = true) -> SyncPass {
        SyncPass(isExplicit: explicit, clock: clock, classify: SyncFailure.classify, jitter: { 1 })
    }

    /// `GET /api/v1/notifications` answers these replies in turn.
    func scriptList(_ replies: [JSONValue]) {
        transport.route(.get, path: NotificationService.listPath, replies.map { .ok($0) })
    }

    /// The `since` query item of each list request, in order (`nil` when absent).
    var sinceQueries: [String?] {
        transport.requests(path: NotificationService.listPath).map { request in
            URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
                .first { $0.name == "since" }?.value
        }
    }

    /// The JSON bodies of the mark-read requests, in order.
    var markReadBodies: [JSONValue] {
        transport.requests(path: NotificationService.markReadPath).compactMap { request in
            guard case .data(let data) = request.body else { return nil }
            return try? JSONValue.parse(data)
        }
    }
}

/// A notification as the server sends it.
func notification(_ id: Int64, _ title: String, createdAt: String, read: Bool = false) -> JSONValue {
    [
        "id": .int(id), "title": .string(title), "body": "", "link": nil, "event_type": "notice",
        "created_at": .string(createdAt), "read": .bool(read),
    ]
}

/// Waits (yielding, never sleeping) until `condition` holds; `false` when it never does.
func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<200_000 {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// A counter shared with a `@Sendable` closure.
final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
