import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// CONTRACT.md (ext) Conditional list pulls (issue 17): strong ETags on the six list endpoints and
/// `304 Not Modified` to a matching `If-None-Match`.
@Suite("ETags and 304")
struct ETagTests {
    /// The six lists, as (path, query) the sync path pulls them.
    static let lists: [(path: String, query: [String: String])] = [
        ("/facilities", [:]), ("/areas", [:]), ("/templates", [:]), ("/issues", [:]),
        ("/scheduled-inspections", [:]), ("/inspections", ["follow_up_required": "true", "limit": "200"]),
    ]

    /// A GET over real HTTP with curl: status, headers (lower-case names) and body.
    func get(_ harness: Harness, _ path: String, token: String, headers: [String] = []) throws
        -> (status: Int, headers: [String: String], body: Data)
    {
        let dump = harness.directory.path("headers-\(UUID().uuidString)")
        var arguments = ["-D", dump.path, harness.base + "/api/v1" + path, "-H", "Authorization: Bearer \(token)"]
        for header in headers { arguments += ["-H", header] }
        let reply = harness.curl(arguments)
        let text = try String(contentsOf: dump, encoding: .utf8)
        var parsed: [String: String] = [:]
        for line in text.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            parsed[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (reply.status, parsed, reply.body)
    }

    func isStrongTag(_ tag: String?) -> Bool {
        guard let tag, tag.count == 34, tag.hasPrefix("\""), tag.hasSuffix("\"") else { return false }
        return tag.dropFirst().dropLast().allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    @Test("each of the six lists sends a strong ETag; a matching If-None-Match gets 304 with no body")
    func conditionalOverHTTP() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        for list in Self.lists {
            let path = list.path + (list.query.isEmpty ? "" : "?follow_up_required=true&limit=200")
            let first = try get(harness, path, token: token)
            #expect(first.status == 200, "\(path)")
            let tag = try #require(first.headers["etag"], "\(path)")
            #expect(isStrongTag(tag), "\(path): \(tag)")
            #expect(first.headers["content-type"] == "application/json")
            let again = try get(harness, path, token: token)
            #expect(again.headers["etag"] == tag && again.body == first.body)  // the same reply, the same tag

            for header in [tag, "W/\(tag)", "\"0000\", \(tag)", "*", " \"x\" ,W/\(tag) "] {
                let cached = try get(harness, path, token: token, headers: ["If-None-Match: \(header)"])
                #expect(cached.status == 304, "\(path) If-None-Match: \(header)")
                #expect(cached.body.isEmpty)
                #expect(cached.headers["etag"] == tag)
            }
            for header in ["\"00000000000000000000000000000000\"", String(tag.dropLast()), "W/\"x\", \"y\""] {
                let fresh = try get(harness, path, token: token, headers: ["If-None-Match: \(header)"])
                #expect(fresh.status == 200, "\(path) If-None-Match: \(header)")
                #expect(fresh.body == first.body)
            }
        }
        // Without a token the list is refused as before, tag or not.
        #expect(try get(harness, "/facilities", token: "x", headers: ["If-None-Match: *"]).status == 401)
    }

    @Test("a change to an issue, a follow-up or a schedule changes that list's tag; the old tag gets the new list")
    func changesChangeTags() throws {
        let server = try DirectServer()
        let token = server.token("alex")
        func tag(_ index: Int) -> String? {
            server.request("GET", Self.lists[index].path, token: token, query: Self.lists[index].query)
                .response.headers["ETag"]
        }
        let before = (0..<6).map(tag)
        #expect(before.allSatisfy { $0 != nil })
        #expect(Set(before.compactMap { $0 }).count == 6)

        #expect(server.request("PATCH", "/issues/48/status", ["status": "in_progress"], token: token).status == 200)
        let reinspection: JSONValue = [
            "local_id": "etag-re", "template_id": 3, "facility_id": 11, "area_id": 111, "parent_inspection_id": 501,
            "form_data": ["2": 5],
        ]
        #expect(server.request("POST", "/inspections", reinspection, token: token).status == 201)
        let plan: JSONValue = ["parent_inspection_id": 502, "due_date": "2026-07-20"]
        #expect(server.request("POST", "/scheduled-inspections/follow-up", plan, token: token).status == 200)
        let after = (0..<6).map(tag)
        #expect(after[0] == before[0] && after[1] == before[1] && after[2] == before[2])  // reference: unchanged
        for index in 3..<6 {
            #expect(after[index] != before[index], "\(Self.lists[index].path)")
            let list = Self.lists[index]
            let old = server.request(
                "GET", list.path, token: token, query: list.query, headers: ["if-none-match": before[index] ?? ""])
            #expect(old.status == 200)
            #expect(old.response.headers["ETag"] == after[index])
        }
    }

    @Test("reference tags follow the content: another seed's name changes them; a restart keeps them")
    func referenceTags() throws {
        let seed = BigSeed(
            facilities: 12, areasPerFacility: 2, templates: 3, fieldsPerTemplate: 6, inspections: 5, issues: 3,
            schedules: 2, notifications: 2)
        var renamed = seed.json
        if case .object(var members) = renamed, case .array(var facilities)? = members["facilities"],
            case .object(var second)? = facilities.dropFirst().first  // the first is inactive
        {
            second["name"] = "Renamed facility"
            facilities[1] = .object(second)
            members["facilities"] = .array(facilities)
            renamed = .object(members)
        }
        let original = try DirectServer(seed: seed.json)
        let changed = try DirectServer(seed: renamed)
        let alex = original.token("alex"), dana = original.token("dana")
        func reply(_ server: DirectServer, _ path: String, _ token: String, tag: String? = nil) -> HTTPResponse {
            server.request("GET", path, token: token, headers: tag.map { ["if-none-match": $0] } ?? [:]).response
        }
        let facilities = try #require(reply(original, "/facilities", alex).headers["ETag"])
        let changedFacilities = reply(changed, "/facilities", changed.token("alex"), tag: facilities)
        #expect(changedFacilities.status == 200)
        #expect(changedFacilities.headers["ETag"] != facilities)
        #expect(
            reply(changed, "/areas", changed.token("alex")).headers["ETag"]
                == reply(original, "/areas", alex).headers["ETag"])

        // alex and dana see the same facilities (every contract), but each reply is per user: each its own tag.
        #expect(reply(original, "/facilities", dana).body == reply(original, "/facilities", alex).body)
        #expect(reply(original, "/facilities", dana, tag: facilities).status == 200)
        // Templates are the same for everyone: one tag.
        let templates = try #require(reply(original, "/templates", alex).headers["ETag"])
        #expect(reply(original, "/templates", dana, tag: templates).status == 304)
        // The areas of one facility are another reply with another tag.
        let areas = reply(original, "/areas", alex).headers["ETag"]
        let one = original.request("GET", "/areas", token: alex, query: ["facility_id": "10001"]).response
        #expect(one.status == 200 && one.headers["ETag"] != areas)

        let harness = try Harness()
        let token = harness.token("alex")
        let before = try get(harness, "/facilities", token: token).headers["etag"]
        try harness.restart()
        let token2 = harness.token("alex")
        let after = try get(harness, "/facilities", token: token2, headers: ["If-None-Match: \(before ?? "")"])
        #expect(after.status == 304)
    }

    @Test("--no-etags: the six lists send the same bodies without an ETag, and If-None-Match never gets a 304")
    func withoutETags() throws {
        let tagged = try DirectServer()
        let plain = try DirectServer(etags: false)
        let alex = tagged.token("alex"), plainAlex = plain.token("alex")
        for list in Self.lists {
            let reference = tagged.request("GET", list.path, token: alex, query: list.query).response
            let tag = try #require(reference.headers["ETag"], "\(list.path)")
            for header in [[:], ["if-none-match": tag], ["if-none-match": "*"]] {
                let reply = plain.request("GET", list.path, token: plainAlex, query: list.query, headers: header)
                #expect(reply.status == 200, "\(list.path) \(header)")
                #expect(reply.response.headers["ETag"] == nil, "\(list.path)")
                #expect(reply.response.body == reference.body, "\(list.path)")
            }
        }
        #expect(try DevServerOptions.parse(["--no-etags"]).configuration.etags == false)
        #expect(try DevServerOptions.parse([]).configuration.etags == true)
    }

    @Test("If-None-Match lists, W/ prefixes and * are read as RFC 9110 says")
    func parsing() {
        let tag = "\"0123456789abcdef0123456789abcdef\""
        #expect(EntityTag.ifNoneMatch(tag, matches: tag))
        #expect(EntityTag.ifNoneMatch("W/" + tag, matches: tag))
        #expect(EntityTag.ifNoneMatch("\"a\", \"b\",\(tag)", matches: tag))
        #expect(EntityTag.ifNoneMatch("bogus, \(tag)", matches: tag))
        #expect(EntityTag.ifNoneMatch("*", matches: tag))
        #expect(!EntityTag.ifNoneMatch("", matches: tag))
        #expect(!EntityTag.ifNoneMatch("\"a\", \"b\"", matches: tag))
        #expect(!EntityTag.ifNoneMatch(String(tag.dropFirst()), matches: tag))
        #expect(!EntityTag.ifNoneMatch("\"0123456789abcdef0123456789abcdef", matches: tag))
        #expect(!EntityTag.ifNoneMatch("w/" + tag, matches: tag))
        #expect(
            EntityTag.tag(bodyDigest: Data(count: 32), scope: "user:7")
                != EntityTag.tag(bodyDigest: Data(count: 32), scope: "user:8"))
    }
}
