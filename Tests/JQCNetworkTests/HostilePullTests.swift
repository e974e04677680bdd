import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// Pulls against a peer that lies about one record of each list (issue 21): the record fails alone, its cached row
/// is kept, every pull stands alone, and `status` shows what could not be read.
@Suite("Pulled lists from a hostile peer", .serialized)
struct HostilePullTests {
    static let issue41 = #"{"id":41,"facility_id":1,"severity":"high","description":"Leak","status":"open"}"#
    static let schedule901 = #"{"id":901,"facility_id":1,"template_id":5,"due_date":"2026-12-01","frequency":"once"}"#
    static let followUp501 = #"{"id":501,"template_id":5,"facility_id":1,"follow_up_note":"Check","form_data":{}}"#
    static let facility1 =
        #"{"id":1,"name":"North Tower","address":"1 Main St","project_id":10,"project_name":"Acme","is_active":true}"#

    /// A peer whose lists hold two records each: the honest first, and `second` of each list as given.
    static func peer(
        facility2: String, issue42: String, schedule902: String, followUp502: String, on given: HostilePeer? = nil
    ) throws -> HostilePeer {
        let peer = try given ?? HostilePeer()
        peer.lie("GET", "/api/v1/facilities", with: HostilePeer.envelope("[\(facility1),\(facility2)]"))
        peer.lie("GET", "/api/v1/issues", with: HostilePeer.envelope("[\(issue41),\(issue42)]"))
        peer.lie("GET", "/api/v1/scheduled-inspections", with: HostilePeer.envelope("[\(schedule901),\(schedule902)]"))
        peer.lie(
            "GET", "/api/v1/inspections",
            with: HostilePeer.envelope(#"{"inspections":[\#(followUp501),\#(followUp502)],"total":2}"#))
        return peer
    }

    static let honest2 = (
        facility: #"{"id":2,"name":"South Annex","is_active":true}"#,
        issue: #"{"id":42,"facility_id":1,"severity":"low","description":"Bulb","status":"open"}"#,
        schedule: #"{"id":902,"facility_id":1,"template_id":5,"due_date":"2026-12-02","frequency":"once"}"#,
        followUp: #"{"id":502,"template_id":5,"facility_id":1,"follow_up_note":"Again","form_data":{}}"#
    )

    /// Every integer under an `id` or `server_id` key in `value`.
    static func ids(_ value: JSONValue?) -> Set<Int64> {
        switch value {
        case .object(let members):
            var found = Set<Int64>()
            for (key, member) in members {
                if key == "id" || key == "server_id", let id = member.intValue { found.insert(id) }
                found.formUnion(ids(member))
            }
            return found
        case .array(let elements): return elements.reduce(into: Set<Int64>()) { $0.formUnion(ids($1)) }
        default: return []
        }
    }

    /// The ids each cached list shows: facilities, issues, schedules, follow-ups.
    static func cached(_ data: TemporaryDirectory, _ peer: HostilePeer) throws -> [Set<Int64>] {
        let result = try ClientChild.shell(
            data, ["--server", peer.baseURL, "-c", "offline; facilities; issues; scheduled; follow-ups; online"])
        let lines = result.jsonLines
        guard lines.count >= 5 else { return [] }
        return (1...4).map { ids(lines[$0]["data"]) }
    }

    /// The stage of a `sync` JSON line by name.
    static func stage(_ sync: JSONValue?, _ name: String) -> JSONValue? {
        sync?["data"]?["stages"]?.arrayValue?.first { $0["name"]?.stringValue == name }
    }

    @Test("a malformed record of each list fails alone, counted and shown by status, and keeps its cached row")
    func malformedRecordsFailAlone() async throws {
        let data = TemporaryDirectory(prefix: "jqc-hostile-pull")
        let honest = try HostilePullTests.peer(
            facility2: HostilePullTests.honest2.facility, issue42: HostilePullTests.honest2.issue,
            schedule902: HostilePullTests.honest2.schedule, followUp502: HostilePullTests.honest2.followUp)
        let first = try ClientChild.shell(data, ["--server", honest.baseURL, "-c", "login alex --password pw; sync"])
        #expect(first.status == 0, "\(first.stdout)\(first.stderr)")
        let before = try HostilePullTests.cached(data, honest)
        #expect(before.count == 4)
        #expect(before.first?.isSuperset(of: [1, 2]) == true)
        #expect(before.dropFirst().first?.isSuperset(of: [41, 42]) == true)
        #expect(before.dropFirst(2).first?.isSuperset(of: [901, 902]) == true)
        #expect(before.dropFirst(3).first?.isSuperset(of: [501, 502]) == true)
        defer { honest.stop() }

        let hostile = try HostilePullTests.peer(
            facility2: #"{"id":2,"name":5,"is_active":true}"#,
            issue42: #"{"id":42,"facility_id":1,"severity":3,"description":"Bulb","status":"open"}"#,
            schedule902: #"{"id":902,"facility_id":1,"template_id":5,"due_date":"soon"}"#,
            followUp502: #"{"id":502,"template_id":5,"facility_id":"x","form_data":{}}"#, on: honest)
        let sync = try ClientChild.shell(data, ["--server", hostile.baseURL, "-c", "sync; status"])
        #expect(sync.status == 0 && !sync.endedBySignal, "\(sync.stdout)\(sync.stderr)")
        let syncLine = sync.jsonLines.first
        let expected: [(String, String)] = [
            ("reference", "facilities: data[1].name: expected a string, got 5"),
            ("assigned issues", "issues: data[1].severity: expected a string, got 3"),
            ("follow-ups", "follow-ups: data.inspections[1].facility_id: expected an integer, got a string"),
            ("scheduled", "scheduled: data[1].due_date: expected a yyyy-MM-dd day, got a string"),
        ]
        for (name, problem) in expected {
            let stage = HostilePullTests.stage(syncLine, name)
            #expect(stage?["failed"] == 1, "\(name): \(String(describing: stage))")
            #expect(stage?["problems"] == [.string(problem)], "\(name)")
            #expect(stage?["error"] == nil, "\(name)")
        }
        let status = sync.jsonLines.last
        #expect(status?["data"]?["pull_problems"] == .array(expected.map { .string($0.1) }))
        let after = try HostilePullTests.cached(data, hostile)
        #expect(after == before, "an unreadable record kept its cached row")

        // A record whose id itself cannot be read proves nothing gone: nothing is deleted.
        hostile.lie("GET", "/api/v1/issues", with: HostilePeer.envelope(#"[\#(HostilePullTests.issue41),{"id":"42"}]"#))
        hostile.lie(
            "GET", "/api/v1/scheduled-inspections",
            with: HostilePeer.envelope(#"[\#(HostilePullTests.schedule901),{"id":9.5}]"#))
        hostile.lie("GET", "/api/v1/facilities", with: HostilePeer.envelope(#"[\#(HostilePullTests.facility1),{}]"#))
        let again = try ClientChild.shell(data, ["--server", hostile.baseURL, "-c", "sync"])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        #expect(try HostilePullTests.cached(data, hostile) == before)
    }

    @Test("a failed pull never stops the others, and sync still succeeds")
    func pullsStandAlone() async throws {
        let data = TemporaryDirectory(prefix: "jqc-hostile-pull")
        let peer = try HostilePullTests.peer(
            facility2: HostilePullTests.honest2.facility, issue42: HostilePullTests.honest2.issue,
            schedule902: HostilePullTests.honest2.schedule, followUp502: HostilePullTests.honest2.followUp)
        defer { peer.stop() }
        peer.lie("GET", "/api/v1/facilities", with: HostilePeer.failure(500, "Reference data is down."))
        peer.lie("GET", "/api/v1/issues", with: HostilePeer.html(502))
        let sync = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "login alex --password pw; sync"])
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        let line = sync.jsonLines.last
        #expect(line?["data"]?["stopped"] == .null)
        #expect(
            HostilePullTests.stage(line, "reference")?["error"]
                == "The server had a problem (HTTP 500): Reference data is down.")
        #expect(HostilePullTests.stage(line, "assigned issues")?["error"] != nil)
        #expect(HostilePullTests.stage(line, "follow-ups")?["pulled"] == 2)
        #expect(HostilePullTests.stage(line, "scheduled")?["pulled"] == 2)
        #expect(HostilePullTests.stage(line, "notifications") != nil)
    }

    @Test("a redirect during sync stops the pass with its own sentence, not the offline one")
    func redirectStopsWithItsSentence() async throws {
        let data = TemporaryDirectory(prefix: "jqc-hostile-pull")
        let peer = try HostilePeer()
        defer { peer.stop() }
        let login = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "login alex --password pw"])
        #expect(login.status == 0)
        peer.lie("GET", "/api/v1/facilities", with: HostilePeer.redirect(302, to: "http://127.0.0.1:1/login"))
        let sync = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "sync"])
        #expect(sync.status == 1 && !sync.endedBySignal)
        #expect(
            sync.jsonError
                == "The server answered with a redirect (HTTP 302 to http://127.0.0.1:1/login), which is not followed, "
                + "so the request did not reach the API. Check the server address (--server); a Wi-Fi sign-in page "
                + "can also do this. Your work is kept.")
    }
}
