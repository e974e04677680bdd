import Foundation
import JQCKit

/// A push stage that sends one ``OutboxFeed`` through ``OutboxDriver`` — all a feature with a plain outbox
/// needs (its own stage type is only worth writing when it has more to say).
public struct OutboxPushStage<Feed: OutboxFeed>: SyncStage {
    /// The stage's name in `sync` reports.
    public let name: String
    /// The feed it sends.
    public let feed: Feed
    /// Where it runs relative to other stages.
    public let constraints: [StageConstraint]
    /// Push.
    public var direction: SyncDirection { .push }
    /// `false`: an outbox stage's failure stops the pass (what comes after may depend on it).
    public var isBestEffort: Bool { false }

    /// A stage named `name` sending `feed`.
    public init(_ name: String, feed: Feed, constraints: [StageConstraint] = []) {
        self.name = name
        self.feed = feed
        self.constraints = constraints
    }

    /// Pushes the feed's pending items.
    /// - Returns: `pushed`, `failed`, `deferred` and the last deferred item's reason.
    /// - Throws: ``SyncStopError`` to stop the pass; the store's error.
    public func run(_ pass: SyncPass) async throws -> StageReport {
        var report = try await OutboxDriver.push(feed, pass: pass).report
        report.name = name
        return report
    }
}
