import Foundation
import JQCKit

/// The dashboard's KPI tiles as `GET /api/v1/dashboard/stats` sent them (CONTRACT.md:
/// `{inspections_this_week, average_score, open_issues, overdue_schedules, pending_follow_ups}`), kept
/// losslessly with the time they were fetched. A member the server left out or sent as `null` is `nil`.
public struct DashboardStats: Sendable, Equatable {
    /// The stats keys of CONTRACT.md, in display order.
    public static let keys = [
        "inspections_this_week", "average_score", "open_issues", "overdue_schedules",
        "pending_follow_ups",
    ]

    /// The reply's `data` exactly as sent.
    public var raw: JSONValue
    /// When this device fetched them (this device's clock; shown as the age of the tiles only).
    public var fetchedAt: Date

    /// Stats from a reply's `data`.
    public init(raw: JSONValue, fetchedAt: Date) {
        self.raw = raw
        self.fetchedAt = fetchedAt
    }

    /// Inspections in the seven days ending with the server's today.
    public var inspectionsThisWeek: Int? { raw["inspections_this_week"]?.intValue.map(Int.init) }
    /// The average score (percent) of this week's scored inspections, or `nil` when none was scored.
    public var averageScore: Double? { raw["average_score"]?.doubleValue }
    /// Issues not resolved.
    public var openIssues: Int? { raw["open_issues"]?.intValue.map(Int.init) }
    /// Scheduled inspections due before the server's today.
    public var overdueSchedules: Int? { raw["overdue_schedules"]?.intValue.map(Int.init) }
    /// Follow-ups requested and not yet done.
    public var pendingFollowUps: Int? { raw["pending_follow_ups"]?.intValue.map(Int.init) }
}

/// The typed shape of `GET /api/v1/dashboard/stats` (CONTRACT.md): every tile optional (`null` or left out is
/// `nil`), but a tile that is present must be a number of its kind — counts integers, the average any number — or
/// the reply is refused with the tile's path before anything is cached (issue 21).
struct DashboardReply: Decodable {
    let inspectionsThisWeek: Int?
    let averageScore: Double?
    let openIssues: Int?
    let overdueSchedules: Int?
    let pendingFollowUps: Int?
}
