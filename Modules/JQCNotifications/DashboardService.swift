import Foundation
import JQCKit
import JQCNetwork
import Synchronization

/// The dashboard stats: fetched best-effort at the end of every pass and on demand, cached with the time
/// they were fetched. A failed fetch never touches the cache and never blocks anything (seed 001 rule 49:
/// "best-effort — never blocks pipeline … never propagates errors").
public final class DashboardService: Sendable {
    /// `GET` path of the stats (CONTRACT.md).
    public static let statsPath = "/api/v1/dashboard/stats"

    private let store: NotificationStore
    private let api: APIClient
    private let clock: any Clock
    private let logger: Logger
    /// Bumped by ``clearServerPulledData()``: a fetch that started before a logout writes nothing.
    private let generation = Mutex<UInt64>(0)

    /// A service over the feature's store and the API client.
    public init(store: NotificationStore, api: APIClient, clock: any Clock, logger: Logger = .disabled) {
        self.store = store
        self.api = api
        self.clock = clock
        self.logger = logger.labeled("dashboard")
    }

    /// The cached stats, or `nil` when none were ever fetched (or a logout cleared them).
    /// - Throws: `DatabaseError`.
    public func cached() throws -> DashboardStats? {
        try store.dashboard().map { DashboardStats(raw: $0.stats, fetchedAt: $0.fetchedAt) }
    }

    /// Fetches the stats and caches them.
    /// - Returns: the fresh stats.
    /// - Throws: `APIError`; ``NotificationsError`` when the reply is not an object; `DatabaseError`. On any
    ///   failure the cache keeps its previous value.
    @discardableResult
    public func refresh() async throws -> DashboardStats {
        let started = generation.withLock { $0 }
        let reply = try await api.getJSON(Self.statsPath)
        guard reply.objectValue != nil else {
            throw NotificationsError(
                .unexpectedReply,
                "The server's dashboard stats were not an object; the last ones fetched are kept.")
        }
        // Typed before anything is kept (issue 21): a wrong-typed tile ("average_score":"x") is refused with its path.
        _ = try APIClient.decode(DashboardReply.self, from: reply)
        let stats = DashboardStats(raw: reply, fetchedAt: clock.now)
        try store.saveDashboard(
            reply, fetchedAt: stats.fetchedAt,
            shouldApply: { generation.withLock { $0 } == started })
        return stats
    }

    /// The dashboard as a read surface (seed 004's `LoadPhase`): refresh first, best-effort; on failure the
    /// cached stats are shown with the failure as `staleReason`.
    /// - Returns: fresh stats (`content`), cached ones after a failed refresh (`content`, stale), or `nil`
    ///   with phase `failed` when nothing is cached and the refresh failed. Never throws.
    public func load() async -> Loaded<DashboardStats?> {
        do {
            return Loaded(value: try await refresh(), phase: .content)
        } catch {
            let reason = Self.sentence(for: error)
            logger.warning("dashboard refresh failed: \(reason)")
            let cached = try? cached()
            let phase = LoadPhase.of(hasContent: cached != nil, isLoading: false, hasLoaded: true, failed: true)
            return Loaded(value: cached, phase: phase, staleReason: reason)
        }
    }

    /// Erases the cached stats (logout, server switch; rule 42), and makes a fetch in flight write nothing.
    /// - Throws: `DatabaseError`.
    public func clearServerPulledData() throws {
        generation.withLock { $0 &+= 1 }
        try store.clearDashboard()
    }

    static func sentence(for error: any Error) -> String {
        switch error {
        case let api as APIError: api.message
        case let own as NotificationsError: own.message
        default: String(describing: error)
        }
    }
}
