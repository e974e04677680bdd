import Foundation
import JQCFacilities
import JQCFollowUps
import JQCInspections
import JQCKit
import JQCNotifications
import JQCScheduling

/// The rows of the list commands' `--json` data (SHELL.md), each encoded by ``ViewJSON`` with snake_case keys.

/// A `contracts` row.
struct ContractView: Encodable {
    let id: Int
    let name: String

    init(_ contract: Contract) {
        id = contract.id
        name = contract.name
    }
}

/// A `facilities` row.
struct FacilityView: Encodable {
    let id: Int
    let name: String
    let projectID: Int?
    let projectName: String?
    let isActive: Bool

    init(_ facility: Facility) {
        id = facility.id
        name = facility.name
        projectID = facility.projectID
        projectName = facility.projectName
        isActive = facility.isActive
    }
}

/// An `areas` row.
struct AreaView: Encodable {
    let id: Int
    let facilityID: Int
    let name: String
    let areaType: String?

    init(_ area: Area) {
        id = area.id
        facilityID = area.facilityID
        name = area.name
        areaType = area.areaType
    }
}

/// A `templates` row (the schema itself is not listed; `form` shows it).
struct TemplateView: Encodable {
    let id: Int
    let name: String
    let description: String?
    let isActive: Bool
    let schemaHash: String

    init(_ template: InspectionTemplate) {
        id = template.id
        name = template.name
        description = template.description
        isActive = template.isActive
        schemaHash = template.schemaHash
    }
}

/// A `notifications` row.
struct NotificationView: Encodable {
    let id: Int64
    let title: String
    let body: String
    let link: String?
    let eventType: String
    let createdAt: String
    let read: Bool

    init(_ item: NotificationItem) {
        id = item.id
        title = item.title
        body = item.body
        link = item.link
        eventType = item.eventType
        createdAt = item.createdAt
        read = item.read
    }
}

/// A `scheduled` row (and `schedule-follow-up`'s `schedule`); overdue is judged against the server's today.
struct ScheduleView: Encodable {
    let id: Int
    let facilityID: Int
    let templateID: Int
    let dueDate: String
    let isOverdue: Bool
    let frequency: String
    let instructions: String?

    init(_ schedule: ScheduledInspection, today: CalendarDay?) {
        id = schedule.serverID
        facilityID = schedule.facilityID
        templateID = schedule.templateID
        dueDate = schedule.dueDate.text
        isOverdue = schedule.isOverdue(today: today)
        frequency = schedule.frequency.rawValue
        instructions = schedule.instructions
    }
}

/// A `follow-ups` row.
struct FollowUpView: Encodable {
    let id: Int
    let facilityID: Int
    let templateID: Int
    let note: String?
    let inspectionDate: String?

    init(_ request: FollowUpRequest) {
        id = request.serverID
        facilityID = request.facilityID
        templateID = request.templateID
        note = request.note
        inspectionDate = request.inspectionDate
    }
}

/// A `history` row.
struct HistoryView: Encodable {
    let id: Int
    let localID: String?
    let templateName: String?
    let facilityName: String?
    let areaName: String?
    let inspectionDate: String?
    let overallScore: Double?
    let followUpRequired: Bool

    init(_ row: HistoryInspection) {
        id = row.id
        localID = row.localID
        templateName = row.templateName
        facilityName = row.facilityName
        areaName = row.areaName
        inspectionDate = row.inspectionDate
        overallScore = row.overallScore
        followUpRequired = row.followUpRequired
    }
}

/// An inspection as `drafts`, `inspections`, `start`, `open` and `submit` list it.
struct InspectionSummaryView: Encodable {
    let localID: String
    let serverID: Int?
    let templateID: Int
    let templateName: String
    let facilityID: Int
    let facilityName: String
    let areaID: Int?
    let status: String
    let syncStatus: String
    let badge: String
    let badgeColour: String
    let overallScore: Double?
    let syncError: String?
    let schemaHash: String

    init(_ inspection: InspectionListing) {
        localID = inspection.localID
        serverID = inspection.serverID
        templateID = inspection.templateID
        templateName = inspection.templateName
        facilityID = inspection.facilityID
        facilityName = inspection.facilityName
        areaID = inspection.areaID
        status = inspection.status.rawValue
        syncStatus = inspection.syncStatus.rawValue
        badge = inspection.badge.label
        badgeColour = inspection.badge.colour
        overallScore = inspection.overallScore
        syncError = inspection.syncError
        schemaHash = inspection.schemaHash
    }
}
