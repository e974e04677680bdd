import Foundation
import JQCIssues
import JQCKit
import JQCPhotos

/// An `issues` row and the `issue` of `flag` / `issue new` (SHELL.md JSON table), encoded by ``ViewJSON``.
struct IssueSummaryView: Encodable {
    let localID: String
    let serverID: Int?
    let severity: String
    let status: String
    let description: String
    let syncStatus: String
    let facilityID: Int
    let inspectionLocalID: String

    init(_ issue: Issue) {
        localID = issue.localID
        serverID = issue.serverID
        severity = issue.severity.rawValue
        status = issue.status.rawValue
        description = issue.description
        syncStatus = issue.syncStatus.rawValue
        facilityID = issue.facilityID
        inspectionLocalID = issue.inspectionLocalID
    }
}

/// `issue show`'s data: every field, with `photo_server_paths` and `photo_local_paths`, the photo section shown
/// (seed 001 rule 34) and its `photos` (local paths, or the server photos' display URLs).
struct IssueDetailView: Encodable {
    let localID: String
    let serverID: Int?
    let inspectionLocalID: String
    let inspectionServerID: Int?
    let facilityID: Int
    let facilityName: String?
    let areaID: Int?
    let areaName: String?
    let severity: String
    let description: String
    let status: String
    let syncStatus: String
    let syncError: String?
    let syncAttempts: Int
    let photoLocalPaths: [String]
    let photoServerPaths: [String]
    let photoServerURLs: [String?]
    let resultPhotos: [String]
    let photoSection: String
    let photos: [String?]
    let resultNotes: String?
    let verifiedAt: String?
    let verificationNote: String?
    let reportedByName: String?
    let assignedToName: String?
    let handlerType: String?
    let handlerLabel: String?
    let facilityHandlerName: String?
    let facilityHandlerContact: String?
    let facilityHandlerNotes: String?
    let vendorName: String?
    let vendorContact: String?
    let vendorNotes: String?
    let createdAt: String?

    /// The view of `issue`, its photo URLs resolved against `server` (``PhotoURLResolver``).
    init(_ issue: Issue, server: ServerConfig) {
        let section = PhotoDisplaySection.forRecord(syncStatus: issue.syncStatus)
        let urls = issue.photoServerPaths.enumerated().map { index, path -> String? in
            let serverURL =
                issue.photoServerURLs.count == issue.photoServerPaths.count ? issue.photoServerURLs[index] : nil
            return PhotoURLResolver.displayURL(serverURL: serverURL, path: path, config: server)?.absoluteString
        }
        localID = issue.localID
        serverID = issue.serverID
        inspectionLocalID = issue.inspectionLocalID
        inspectionServerID = issue.inspectionServerID
        facilityID = issue.facilityID
        facilityName = issue.facilityName
        areaID = issue.areaID
        areaName = issue.areaName
        severity = issue.severity.rawValue
        description = issue.description
        status = issue.status.rawValue
        syncStatus = issue.syncStatus.rawValue
        syncError = issue.syncError
        syncAttempts = issue.syncAttempts
        photoLocalPaths = issue.photoLocalPaths
        photoServerPaths = issue.photoServerPaths
        photoServerURLs = urls
        resultPhotos = issue.resultPhotos
        photoSection = section.rawValue
        photos = section == .local ? issue.photoLocalPaths : urls
        resultNotes = issue.resultNotes
        verifiedAt = issue.verifiedAt
        verificationNote = issue.verificationNote
        reportedByName = issue.reportedByName
        assignedToName = issue.assignedToName
        handlerType = issue.handlerType?.rawValue
        handlerLabel = issue.handlerLabel
        facilityHandlerName = issue.facilityHandlerName
        facilityHandlerContact = issue.facilityHandlerContact
        facilityHandlerNotes = issue.facilityHandlerNotes
        vendorName = issue.vendorName
        vendorContact = issue.vendorContact
        vendorNotes = issue.vendorNotes
        createdAt = issue.serverCreatedAt
    }
}

/// One row of `issue comments`.
struct IssueCommentView: Encodable {
    let id: Int
    let authorName: String?
    let body: String
    let createdAt: String?

    init(_ comment: IssueComment) {
        id = comment.id
        authorName = comment.authorName
        body = comment.body
        createdAt = comment.createdAt
    }
}
