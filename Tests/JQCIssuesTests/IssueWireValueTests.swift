import Foundation
import JQCKit
import JQCNetwork
import JQCNetworkTestSupport
import JQCTestSupport
import Testing

@testable import JQCIssues

@Suite("Issues: a newer server's severity, status or handler type is kept readable (issue 16)")
struct IssueWireValueTests {
    @Test("a pulled issue with values this build does not know is stored and read back as sent")
    func unknownValuesPulled() async throws {
        let world = try IssueTestWorld()
        var unknown = try #require(IssueTestWorld.serverIssue(51, status: "on_hold").objectValue)
        unknown["severity"] = "urgent"
        unknown["handler_type"] = "contractor"
        world.transport.route(.get, path: "/api/v1/issues", [.ok([IssueTestWorld.serverIssue(48), .object(unknown)])])
        try await world.issues.pullAssigned(now: world.clock.now)
        let pulled = try world.issues.issue(id: "51")
        #expect(pulled.severity == .other("urgent"))
        #expect(pulled.status == .other("on_hold"))
        #expect(pulled.handlerType == .other("contractor"))
        #expect(pulled.description == "Issue 51")
        // Not resolved, so it is listed with the known one (rule 48 hides only `resolved`).
        #expect(Set(try world.issues.list().compactMap(\.serverID)) == [48, 51])
        let known = try world.issues.issue(id: "48")
        #expect(known.severity == .medium && known.status == .open && known.handlerType == .vendor)
    }

    @Test("typed input is held to this build's values: an unknown severity, status or handler is refused")
    func inputValidated() throws {
        let world = try IssueTestWorld()
        #expect(throws: IssuesError.self) {
            try world.issues.createStandalone(facilityID: 21, severity: "urgent", description: "x")
        }
        let issue = try world.issues.createStandalone(facilityID: 21, severity: "CRITICAL", description: "x")
        #expect(issue.severity == .critical && issue.status == .open)
        #expect {
            try world.issues.updateStatus(id: issue.localID, status: "on_hold")
        } throws: { ($0 as? IssuesError)?.message == "The status 'on_hold' is not one of open, in_progress, resolved." }
        #expect {
            try world.issues.updateHandler(id: issue.localID, IssueHandlerUpdate(type: .other("contractor")))
        } throws: {
            ($0 as? IssuesError)?.message == "The handler type 'contractor' is not one of internal, facility, vendor."
        }
        #expect(try world.issues.updateStatus(id: issue.localID, status: "in-progress").status == .inProgress)
    }
}
