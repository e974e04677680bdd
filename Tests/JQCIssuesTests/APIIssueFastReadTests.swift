import Foundation
import JQCKit
import JQCNetwork
import Testing

@testable import JQCIssues

/// `APIIssue.fast` reads a pulled issue without the generic decoder, and only when it agrees with it (issue 17).
@Suite("Pulled issues read straight from their members agree with ReplyDecoder (issue 17)")
struct APIIssueFastReadTests {
    /// Replaces (or, with `nil`, removes) members of an object.
    private static func with(_ value: JSONValue, _ changes: [String: JSONValue?]) -> JSONValue {
        guard case .object(var members) = value else { return value }
        for (key, change) in changes { members[key] = change }
        return .object(members)
    }

    private static let full = IssueTestWorld.serverIssue(
        3001, localID: "loc-1", photoPath: "uploads/issue_photos/a.jpg",
        mobile: ["uploads/issue_photos/b.jpg", "uploads/issue_photos/c.jpg"], results: ["uploads/r.jpg"])

    @Test(
        "plain replies: the fast read is the decoder's value",
        arguments: [
            full, IssueTestWorld.serverIssue(7),
            with(full, ["local_id": .null, "inspection_id": 900, "photo_urls": ["http://h/x.jpg"], "extra_key": [1]]),
            with(full, ["facility_name": nil, "area_id": nil, "mobile_photo_paths": .null, "status": nil]),
            ["id": 5],
        ])
    func agrees(reply: JSONValue) throws {
        let fast = try #require(APIIssue.fast(reply))
        #expect(fast == (try ReplyDecoder.decode(APIIssue.self, from: reply)))
        #expect(fast.id == reply["id"]?.intValue.map { Int($0) })
    }

    @Test(
        "anything else is left to the decoder, which gives the same value or the same error",
        arguments: [
            with(full, ["id": .double(3)]), with(full, ["localId": "camel", "local_id": nil]),
            with(full, ["LOCAL_ID": "upper"]), with(full, ["local__id": "double underscore"]),
            with(full, ["facility_id": "21"]), with(full, ["mobile_photo_paths": [1]]),
            with(full, ["id": nil]), with(full, ["severity": 3]), .array([]),
        ])
    func leftToTheDecoder(reply: JSONValue) {
        #expect(APIIssue.fast(reply) == nil)
        let path = ReplyPath().appending(index: 2)
        let viaDecoder = Result { try ReplyDecoder.decode(APIIssue.self, from: reply, at: path) }
        let viaRead = Result { try APIIssue.decode(reply, at: path) }
        switch (viaDecoder, viaRead) {
        case (.success(let expected), .success(let got)): #expect(got == expected)
        case (.failure(let expected), .failure(let got)): #expect("\(got)" == "\(expected)")
        default: Issue.record("the decoder gave \(viaDecoder), the read \(viaRead)")
        }
    }
}
