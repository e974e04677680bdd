import Foundation
import JQCKit
import JQCNetwork

/// One row of the server's inspection history (CONTRACT.md `inspection`), as shown by `history`.
public struct HistoryInspection: Sendable, Hashable {
    /// The server id.
    public var id: Int
    /// The client id it was submitted with, when any.
    public var localID: String?
    /// The template's name.
    public var templateName: String?
    /// The facility's name.
    public var facilityName: String?
    /// The area's name.
    public var areaName: String?
    /// `yyyy-MM-dd` (the server's day).
    public var inspectionDate: String?
    /// The server's score.
    public var overallScore: Double?
    /// Whether a follow-up is requested.
    public var followUpRequired: Bool
    /// The full record as the server sent it.
    public var raw: JSONValue

    /// A row read from the server's JSON.
    public init(json: JSONValue) {
        id = Int(json["id"]?.intValue ?? 0)
        localID = json["local_id"]?.stringValue
        templateName = json["template_name"]?.stringValue
        facilityName = json["facility_name"]?.stringValue
        areaName = json["area_name"]?.stringValue
        inspectionDate = json["inspection_date"]?.stringValue
        overallScore = json["overall_score"]?.doubleValue
        followUpRequired = json["follow_up_required"]?.boolValue ?? false
        raw = json
    }
}

/// One page of history.
public struct HistoryPage: Sendable, Hashable {
    /// The rows, newest first.
    public var inspections: [HistoryInspection]
    /// How many there are in all.
    public var total: Int
    /// The page number (0-based).
    public var page: Int
    /// Whether a later page exists ("Load More").
    public var hasMore: Bool
}

/// Completed-inspection history: online only, paged by 30 (seed 001 §16).
public struct InspectionHistory: Sendable {
    /// Rows per page.
    public static let pageSize = 30
    private let api: APIClient

    /// History through `api`.
    public init(api: APIClient) {
        self.api = api
    }

    /// `GET /api/v1/inspections?status=completed&limit=30&offset=page*30`.
    /// - Parameter page: 0-based.
    /// - Throws: `APIError` (offline when no request may leave).
    public func page(_ page: Int) async throws -> HistoryPage {
        let offset = max(0, page) * InspectionHistory.pageSize
        let data = try await api.getJSON(
            "/api/v1/inspections",
            query: [
                URLQueryItem(name: "status", value: "completed"),
                URLQueryItem(name: "limit", value: String(InspectionHistory.pageSize)),
                URLQueryItem(name: "offset", value: String(offset)),
            ])
        let rows = (data["inspections"]?.arrayValue ?? []).map(HistoryInspection.init(json:))
        let total = Int(data["total"]?.intValue ?? Int64(rows.count))
        return HistoryPage(inspections: rows, total: total, page: max(0, page), hasMore: offset + rows.count < total)
    }

    /// `GET /api/v1/inspections/<id>`.
    /// - Throws: `APIError`.
    public func show(serverID: Int) async throws -> HistoryInspection {
        HistoryInspection(json: try await api.getJSON("/api/v1/inspections/\(serverID)"))
    }
}
