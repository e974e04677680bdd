import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// Terminal-hostile text in every string field of a seed (the shell's sanitiser is tested against it) must
/// come back from the server exactly as seeded: the server stores and returns bytes, and JSON escapes the
/// control characters (`\u0000`, `\u001b`); only `server.log` escapes them for terminals.
@Suite("Hostile strings")
struct HostileStringTests {
    /// ESC (a colour), OSC 52 (clipboard), CR, BEL, NUL, U+202E, DEL, a C1 CSI, a quote and a backslash.
    static let hostile =
        " \u{1b}[31mred \u{1b}]52;c;aGk=\u{07} cr\r bel\u{07} nul\u{0}x rlo\u{202e}cba del\u{7f} csi\u{9b}1m \"q\" \\"

    /// Members whose strings mean something to the server (ids, kinds, dates, paths, credentials): kept.
    static let semanticKeys: Set<String> = [
        "username", "password", "role", "type", "status", "severity", "frequency", "handler_type", "event_type",
        "inspection_date", "due_date", "started_at", "completed_at", "created_at", "updated_at", "verified_at",
        "today", "timezone", "local_id", "photo_path", "mobile_photo_paths", "result_photos", "area_type", "id",
    ]

    /// `value` with the hostile text appended to every string that is not semantic.
    static func poisoned(_ value: JSONValue, key: String? = nil) -> JSONValue {
        switch value {
        case .string(let text):
            if let key, semanticKeys.contains(key) { return value }
            if text.hasPrefix("uploads/") { return value }  // a photo path: a file name on the server
            return .string(text + hostile)
        case .array(let items): return .array(items.map { poisoned($0, key: key) })
        case .object(let members):
            return .object(Dictionary(uniqueKeysWithValues: members.map { ($0.key, poisoned($0.value, key: $0.key)) }))
        default: return value
        }
    }

    static func demoSeed() throws -> JSONValue {
        try ServerStore.loadSeed(.demo)
    }

    @Test("every seeded string comes back intact from every list, JSON-escaped on the wire")
    func seededStringsIntact() throws {
        let seed = Self.poisoned(try Self.demoSeed())
        let server = try DirectServer(seed: seed)
        let token = server.token("alex")
        #expect(!token.isEmpty)
        func data(_ path: String, _ query: [String: String] = [:]) throws -> (JSONValue, Data) {
            let reply = server.request("GET", path, token: token, query: query)
            #expect(reply.status == 200, "\(path)")
            let body = reply.response.body
            #expect(
                !body.contains(0x00) && !body.contains(0x1B) && !body.contains(0x07), "\(path) has a raw control byte")
            return (try #require(reply.json?["data"]), body)
        }
        func seeded(_ list: String, _ id: Int64) -> JSONValue? {
            seed[list]?.arrayValue?.first { $0["id"]?.intValue == id }
        }

        let (facilities, facilitiesBody) = try data("/facilities")
        #expect(String(decoding: facilitiesBody, as: UTF8.self).contains(#"nul\u0000x"#))
        #expect(String(decoding: facilitiesBody, as: UTF8.self).contains(#"\u001b[31mred"#))
        for facility in facilities.arrayValue ?? [] {
            let original = try #require(seeded("facilities", facility["id"]?.intValue ?? 0))
            #expect(facility["name"] == original["name"])
            #expect(facility["address"] == original["address"])
            #expect(facility["name"]?.stringValue?.hasSuffix(Self.hostile) == true)
        }
        for area in (try data("/areas").0).arrayValue ?? [] {
            #expect(area["name"] == seeded("areas", area["id"]?.intValue ?? 0)?["name"])
        }
        for template in (try data("/templates").0).arrayValue ?? [] {
            let original = seeded("templates", template["id"]?.intValue ?? 0)
            #expect(template["name"] == original?["name"] && template["description"] == original?["description"])
            #expect(template["form_schema"] == original?["form_schema"])  // labels, options, headers: all of it
        }
        for issue in (try data("/issues").0).arrayValue ?? [] {
            let original = try #require(seeded("issues", issue["id"]?.intValue ?? 0))
            for key in ["description", "facility_handler_name", "facility_handler_contact", "vendor_name"] {
                #expect(issue[key] == original[key], "issue \(key)")
            }
            #expect(issue["facility_name"] == seeded("facilities", issue["facility_id"]?.intValue ?? 0)?["name"])
        }
        let history = try data("/inspections", ["limit": "200"]).0["inspections"]?.arrayValue ?? []
        #expect(!history.isEmpty)
        for inspection in history {
            let original = try #require(seeded("inspections", inspection["id"]?.intValue ?? 0))
            #expect(inspection["form_data"] == original["form_data"])
            #expect(inspection["follow_up_note"] == original["follow_up_note"])
            #expect(inspection["inspector_name"] == seed["users"]?.arrayValue?.first { $0["id"] == 7 }?["full_name"])
        }
        for schedule in (try data("/scheduled-inspections").0).arrayValue ?? [] {
            #expect(schedule["notes"] == seeded("scheduled_inspections", schedule["id"]?.intValue ?? 0)?["notes"])
        }
        for notification in (try data("/notifications").0).arrayValue ?? [] {
            let original = seeded("notifications", notification["id"]?.intValue ?? 0)
            #expect(notification["title"] == original?["title"] && notification["body"] == original?["body"])
        }
        #expect(try data("/auth/me").0["full_name"] == seed["users"]?.arrayValue?.first { $0["id"] == 7 }?["full_name"])
    }

    @Test("a hostile description posted over HTTP is stored and returned intact")
    func postedStringsIntact() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let description = "Leak" + Self.hostile
        let created = harness.request(
            "POST", "/issues", ["facility_id": 11, "severity": "low", "description": .string(description)], token: token
        )
        #expect(created.status == 201)
        let id = try #require(created.data?["id"]?.intValue)
        let shown = harness.get("/issues/\(id)", token: token)
        #expect(shown.data?["description"] == .string(description))
        #expect(!shown.body.contains(0x00) && !shown.body.contains(0x1B))
        try harness.restart()
        #expect(harness.get("/issues/\(id)", token: harness.token("alex")).data?["description"] == .string(description))
    }

    @Test("jqc-devserver --seed FILE serves a hostile seed's strings intact")
    func seedFileOverHTTP() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-hostile")
        let seed = Self.poisoned(try Self.demoSeed())
        let file = scratch.path("hostile.json")
        try seed.jsonData().write(to: file)
        let child = try ChildProcess(
            TestPaths.productsDirectory.appendingPathComponent("jqc-devserver"),
            ["--port", "0", "--data-dir", scratch.path("data").path, "--seed", file.path])
        defer { child.kill(SIGTERM) }
        let line = try #require(child.readLine())
        let client = CurlClient(base: String(line.dropFirst("listening on ".count)), scratch: scratch)
        let token = try #require(client.login("alex"))
        let reply = client.curl([client.base + "/api/v1/facilities", "-H", "Authorization: Bearer \(token)"])
        #expect(reply.status == 200)
        let names = (try JSONValue.parse(reply.body))["data"]?.arrayValue?.compactMap { $0["name"] }
        let expected = seed["facilities"]?.arrayValue?.filter {
            $0["is_active"] == true && [1, 2].contains($0["project_id"])
        }
        .map { $0["name"] ?? .null }
        #expect(Set(names ?? []) == Set(expected ?? []))
        #expect(names?.count == 5)  // four active facilities of alex's contracts, facility 21 twice (rule 45)
    }

    @Test("server.log escapes control characters of a request path, one line per request")
    func logEscapes() throws {
        let harness = try Harness()
        #expect(harness.curl([harness.base + "/api/v1/x%1b%5b31m%0d%0aPOST%20/fake%e2%80%ae"]).status == 401)
        let log = try String(contentsOf: harness.directory.path("data/server.log"), encoding: .utf8)
        let line = try #require(log.split(separator: "\n").last { $0.contains("GET /api/v1/x") })
        #expect(line.hasSuffix("ms"))
        #expect(line.contains(#"GET /api/v1/x\u{1b}[31m\u{d}\u{a}POST\u{20}/fake\u{202e} 401 "#))
        #expect(!log.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" })
        #expect(!log.contains("\u{202e}"))
    }
}
