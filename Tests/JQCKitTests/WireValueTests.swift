import Foundation
import JQCKit
import Testing

@Suite("Typed wire values: known values typed, a newer server's value kept (issue 16)")
struct WireValueTests {
    @Test("a known string is its case; an unknown one is kept as other, exactly as sent")
    func readsKnownAndUnknown() {
        #expect(IssueSeverity(rawValue: "critical") == .critical)
        #expect(IssueStatus(rawValue: "in_progress") == .inProgress)
        #expect(IssueHandlerType(rawValue: "vendor") == .vendor)
        #expect(IssueSeverity(rawValue: "Urgent") == .other("Urgent"))
        #expect(IssueSeverity(rawValue: "Urgent").rawValue == "Urgent")
        #expect(IssueStatus(rawValue: "on_hold").isKnown == false)
        #expect(IssueStatus.resolved.isKnown)
        #expect("\(IssueStatus.other("on_hold"))" == "on_hold")
    }

    @Test("init(known:) accepts only this build's values, for typed input")
    func knownOnly() {
        #expect(IssueSeverity(known: "high") == .high)
        #expect(IssueSeverity(known: "urgent") == nil)
        #expect(IssueStatus(known: "in_progress") == .inProgress)
        #expect(IssueStatus(known: "inProgress") == nil)
        #expect(IssueHandlerType(known: "contractor") == nil)
        #expect(IssueSeverity.knownList == "low, medium, high, critical")
        #expect(IssueStatus.knownList == "open, in_progress, resolved")
        #expect(IssueHandlerType.knownList == "internal, facility, vendor")
    }

    @Test("JSON: decodes a new server value instead of failing, and encodes it back unchanged")
    func codable() throws {
        struct Reply: Codable, Equatable {
            var severity: IssueSeverity
            var status: IssueStatus
            var handlerType: IssueHandlerType?
        }
        let text = #"{"handlerType":"contractor","severity":"urgent","status":"resolved"}"#
        let reply = try JSONDecoder().decode(Reply.self, from: Data(text.utf8))
        #expect(reply == Reply(severity: .other("urgent"), status: .resolved, handlerType: .other("contractor")))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(reply), as: UTF8.self) == text)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Reply.self, from: Data(#"{"severity":3}"#.utf8))
        }
    }
}
