import Foundation
import JQCKit
import JQCPhotos
import JQCSync
import JQCTestSupport
import Testing

@testable import JQCIssues

/// Issue 18: every waiting issue records why, and one held by a failed photo names the photo, the failure and
/// the two commands that unblock it.
@Suite("Why an issue waits")
struct IssueWaitingReasonTests {
    @Test("an issue whose photo failed waits naming the photo, its failure, 'photo retry' and 'photo discard'")
    func failedPhoto() async throws {
        let world = try IssueTestWorld()
        let issue = try world.issues.createStandalone(
            facilityID: 21, severity: "low", description: "stain", photoFiles: [try world.jpeg("stain.jpg")])
        world.transport.route(.post, path: "/api/v1/photos/upload", [.error(422, "The photo is too big.")])
        world.transport.route(.get, path: "/api/v1/issues", [.ok([])])
        let reports = try await world.runStages()
        #expect(reports["photos"]?.failed == 1)
        let photo = try #require(try world.issues.localPhotos(of: issue).first)
        #expect(photo.syncStatus == .failed)
        let id = photo.id.uuidString
        let failure = try #require(photo.error)
        let reason =
            "waits for its photo \(id), which failed: \(failure) — 'photo retry \(id)' or 'photo discard \(id)'"
        #expect(!reason.lowercased().contains("try again"))
        #expect(reports["issues"]?.deferred == 1)
        #expect(reports["issues"]?.waitingReason == reason)
        let stored = try world.issues.issue(id: issue.localID)
        #expect(stored.syncStatus == .pending)
        #expect(stored.outbox.deferredReason == reason)
        #expect(try world.store.waiting() == [WaitingOutboxItem(kind: "issue", localID: issue.localID, reason: reason)])
    }

    @Test("an issue flagged on a draft waits for that inspection to be submitted, and status lists it")
    func draftParent() async throws {
        let world = try IssueTestWorld()
        let draft = try world.draft()
        let issue = try world.issues.flag(inspectionLocalID: draft.localID, severity: "low", description: "drip")
        let report = try await IssuePushStage(service: world.issues).run(world.pass())
        let reason = "waits for inspection \(draft.localID) to be submitted — 'open \(draft.localID)', then 'submit'"
        #expect(report.waitingReason == reason)
        #expect(try world.store.waiting() == [WaitingOutboxItem(kind: "issue", localID: issue.localID, reason: reason)])
    }
}
