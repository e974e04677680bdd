import Foundation
import JQCKit
import JQCNetwork
import JQCStorage
import JQCSync

/// Unsynced items of one author and server on this device ([authorship], issue 20), across every outbox
/// table (photos, inspections with their drafts, issues, queued edits and mark-reads).
public struct UnsyncedWork: Sendable, Hashable {
    /// Who made them, for which server.
    public var author: OutboxAuthor
    /// How many unsynced rows (pending, drafts included, or failed).
    public var count: Int
    /// Why the signed-in inspector's passes leave them ("waits for alex to sign in", "was made for server
    /// primary"), or `nil` when they are the signed-in inspector's own.
    public var waitReason: String?

    /// A count.
    public init(author: OutboxAuthor, count: Int, waitReason: String?) {
        self.author = author
        self.count = count
        self.waitReason = waitReason
    }

    /// "2 items wait for alex" / "1 item was made for server primary" (for `status`, `sync`, the warnings).
    public var sentence: String {
        let items = count == 1 ? "1 item" : "\(count) items"
        guard let waitReason else { return "\(items) of yours" }
        if let server = author.server, waitReason == OutboxAdmission.serverReason(server) {
            return "\(items) \(count == 1 ? "was" : "were") made for server \(server) (by \(author.displayName))"
        }
        return "\(items) wait\(count == 1 ? "s" : "") for \(author.displayName)"
    }
}

extension AppComposition {
    /// Records who makes outbox items now (the signed-in user, kept as the last one when signed out) and for
    /// which server. Called at launch; the shell calls it after a login and a server switch.
    /// - Throws: the store's error.
    public func recordOutboxSession() async throws {
        let user = await api.currentUser
        let server = serverIdentity()
        try store.write { db in
            try OutboxAuthorship.record(db, userID: user?.id, username: user?.username, server: server)
        }
    }

    /// Whom a push acts for: the signed-in user and the server, claiming the unknown author when they are the
    /// data directory's claimant; `nil` when nobody is signed in (the sync guards stop such a pass).
    static func outboxIdentity(api: APIClient, store: DatabaseQueue, server: @Sendable () -> String) async
        -> OutboxIdentity?
    {
        guard let user = await api.currentUser else { return nil }
        let session = try? store.read { db in try OutboxAuthorship.session(db) }
        return OutboxIdentity(
            userID: user.id, username: user.username, server: server(),
            claimsUnknownAuthor: session?.unknownClaimantID == user.id)
    }

    /// Whom a push would act for now (`outboxIdentity(api:store:server:)`).
    public func currentOutboxIdentity() async -> OutboxIdentity? {
        await Self.outboxIdentity(api: api, store: store, server: serverIdentity)
    }

    /// Every unsynced item on this device by author and server, merged across tables: the signed-in
    /// inspector's own first (`waitReason == nil`), then the others in author order.
    /// - Throws: the store's error.
    public func unsyncedWork() async throws -> [UnsyncedWork] {
        let identity = await currentOutboxIdentity()
        let counts = try store.read { db in try OutboxAuthorship.unsyncedCounts(db) }
        var merged: [OutboxAuthor: Int] = [:]
        var order: [OutboxAuthor] = []
        for count in counts {
            if merged[count.author] == nil { order.append(count.author) }
            merged[count.author, default: 0] += count.count
        }
        let work = order.map { author -> UnsyncedWork in
            let reason: String? =
                if let identity { OutboxAdmission.reason(for: author, identity: identity) } else {
                    OutboxAdmission.userReason(author.displayName)
                }
            return UnsyncedWork(author: author, count: merged[author] ?? 0, waitReason: reason)
        }
        return work.filter { $0.waitReason == nil } + work.filter { $0.waitReason != nil }
    }
}

/// The data directory's credentials, with the outbox session following them ([authorship], issue 20): every
/// save (a login, a refresh, a restored session) also records the user in the store's outbox session, so
/// the outbox rows made from then on are stamped with them — whichever process signed in. A clear (logout)
/// keeps the last signed-in user recorded. A failure to record is logged; the credentials are saved anyway.
struct AuthorRecordingTokenStore: TokenStore {
    let base: any TokenStore
    let store: DatabaseQueue
    let server: @Sendable () -> String
    let logger: Logger

    func load() -> Credentials? { base.load() }

    func save(_ credentials: Credentials) throws {
        try base.save(credentials)
        let user = credentials.user
        do {
            try store.write { db in
                try OutboxAuthorship.record(db, userID: user.id, username: user.username, server: server())
            }
        } catch {
            logger.error("could not record who makes outbox items now: \(error)")
        }
    }

    func clear() throws { try base.clear() }

    var lock: FileLock? { base.lock }
}

extension AppComposition {
    /// Every unsynced outbox row on this device, whole, by table (``/JQCStorage/OutboxAuthorship/unsyncedRows(_:)``),
    /// whoever made it: what `export-pending` writes.
    /// - Throws: the store's error.
    public func unsyncedRecords() throws -> [(table: String, rows: [Row])] {
        try store.read { db in try OutboxAuthorship.unsyncedRows(db) }
    }
}
