import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

@Suite("Photos, faults, concurrency, restarts")
struct PhotoAndFaultTests {
    func jpeg(_ harness: Harness) throws -> URL {
        let file = harness.directory.path("photo.jpg")
        var bytes = PlaceholderJPEG.data
        bytes.append(Data(repeating: 7, count: 1000))
        try bytes.write(to: file)
        return file
    }

    @Test("an uploaded photo is stored under uploads/ and served unchanged at /static/ without a token")
    func upload() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let file = try jpeg(harness)
        let reply = harness.upload(
            file, entity: "inspection", token: token,
            extra: ["-F", "captured_at=2026-07-14T08:00:00-04:00"])
        #expect(reply.status == 200)
        let path = try #require(reply.data?["path"]?.stringValue)
        #expect(path.hasPrefix("uploads/inspection_photos/") && path.hasSuffix(".jpg"))
        #expect(reply.data?["url"] == .string(harness.base + "/static/" + path))
        let served = harness.get("/static/" + path)
        #expect(served.status == 200)
        #expect(served.body == (try Data(contentsOf: file)))
        #expect(harness.get("/__admin/state").data?["photos"] == .array([.string(path)]))
        #expect(harness.upload(file, token: nil).status == 401)
        #expect(harness.upload(file, entity: "avatar", token: token).status == 422)
    }

    @Test("a file that is not an image is refused with 415")
    func notAnImage() throws {
        let harness = try Harness()
        let file = harness.directory.path("notes.jpg")
        try Data("just some text, not a photo".utf8).write(to: file)
        let reply = harness.upload(file, token: harness.token("alex"))
        #expect(reply.status == 415)
        #expect(reply.error == "The uploaded file is not an image; send a JPEG photo.")
        #expect(harness.get("/__admin/state").data?["photos"] == [])
    }

    @Test("an upload over 50 MB is refused with 413 and nothing is stored")
    func oversized() throws {
        let harness = try Harness()
        let file = harness.directory.path("huge.jpg")
        var bytes = PlaceholderJPEG.data
        bytes.append(Data(count: 51 * 1024 * 1024))
        try bytes.write(to: file)
        let reply = harness.upload(file, token: harness.token("alex"))
        #expect(reply.status == 413)
        #expect(reply.error == "The upload is larger than 50 MB; send a smaller photo.")
        #expect(harness.get("/__admin/state").data?["photos"] == [])
        #expect(harness.get("/health").status == 200)
    }

    @Test("a client that disconnects mid-upload leaves no photo and the server keeps serving")
    func disconnectMidUpload() throws {
        let harness = try Harness()
        let file = harness.directory.path("slow.jpg")
        var bytes = PlaceholderJPEG.data
        bytes.append(Data(count: 4 * 1024 * 1024))
        try bytes.write(to: file)
        let reply = harness.upload(
            file, token: harness.token("alex"),
            extra: ["--limit-rate", "1M", "--max-time", "1"])
        #expect(reply.curlExit == 28)
        #expect(harness.get("/health").status == 200)
        #expect(harness.get("/__admin/state").data?["photos"] == [])
        // The server learns of the disconnect on its own schedule: wait (bounded) for the part file to go.
        let temporary = harness.directory.url.appendingPathComponent("data/tmp").path
        let deadline = Date().addingTimeInterval(10)
        var leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary)
        while !leftovers.isEmpty, Date() < deadline {
            usleep(20_000)
            leftovers = try FileManager.default.contentsOfDirectory(atPath: temporary)
        }
        #expect(leftovers.isEmpty)
    }

    @Test("a status fault answers the envelope once, applies nothing, then clears")
    func statusFault() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/issues", "mode": "status", "status": 503])
        let failed = harness.request(
            "POST", "/issues", ["facility_id": 11, "severity": "low", "description": "x"],
            token: token)
        #expect(failed.status == 503)
        #expect(failed.json?["ok"] == false)
        #expect(harness.get("/issues", token: token).status == 200)
        #expect(harness.get("/__admin/state").data?["issues"]?.ids == [48, 49, 50, 51])
        harness.request(
            "POST", "/__admin/faults",
            [
                "method": "GET", "path_prefix": "/facilities", "mode": "status", "status": 426, "count": 2,
            ])
        #expect(harness.get("/facilities", token: token).error == "update_required")
        #expect(harness.get("/facilities", token: token).status == 426)
        #expect(harness.get("/facilities", token: token).status == 200)
    }

    @Test("drop closes without applying; drop_after applies then closes; html is a 502 page; truncate cuts the JSON")
    func connectionFaults() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let issue: JSONValue = ["facility_id": 11, "severity": "low", "description": "x"]
        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/issues", "mode": "drop"])
        let dropped = harness.request("POST", "/issues", issue, token: token)
        #expect(dropped.status == 0)
        #expect(dropped.curlExit == 52)
        #expect(harness.get("/__admin/state").data?["issues"]?.ids == [48, 49, 50, 51])

        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/issues", "mode": "drop_after"])
        #expect(harness.request("POST", "/issues", issue, token: token).status == 0)
        #expect(harness.get("/__admin/state").data?["issues"]?.ids.count == 5)

        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/issues", "mode": "html"])
        let html = harness.request("POST", "/issues", issue, token: token)
        #expect(html.status == 502)
        #expect(html.json == nil)
        #expect(String(decoding: html.body, as: UTF8.self).contains("502 Bad Gateway"))
        #expect(harness.get("/__admin/state").data?["issues"]?.ids.count == 5)

        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/issues", "mode": "truncate"])
        let truncated = harness.request("POST", "/issues", issue, token: token)
        #expect(truncated.json == nil)
        #expect(!truncated.body.isEmpty)
        #expect(harness.get("/__admin/state").data?["issues"]?.ids.count == 6)

        harness.request("POST", "/__admin/faults", ["path_prefix": "/api/v1/health", "mode": "delay", "delay_ms": 300])
        let started = Date()
        #expect(harness.get("/health").status == 200)
        #expect(Date().timeIntervalSince(started) >= 0.3)
        #expect(harness.request("POST", "/__admin/faults", ["path_prefix": "/", "mode": "explode"]).status == 422)
    }

    @Test("twenty parallel clients (separate curl processes, each signed in) get their own records with distinct ids")
    func parallelClients() throws {
        let harness = try Harness()
        let users = ["alex", "sam", "dana"]
        let tokens = (0..<20).map { harness.token(users[$0 % 3]) }
        let facilities: [String: Int] = ["alex": 11, "sam": 21, "dana": 31]
        var running: [(TestProcess, URL)] = []
        for index in 0..<20 {
            let output = harness.directory.path("parallel-\(index).json")
            let body: JSONValue = [
                "local_id": .string("parallel-\(index)"), "severity": "low",
                "description": .string("Parallel \(index)"),
                "facility_id": .int(Int64(try #require(facilities[users[index % 3]]))),
            ]
            let process = TestProcess()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = [
                "-s", "-o", output.path, "-X", "POST", harness.base + "/api/v1/issues",
                "-H", "Authorization: Bearer \(tokens[index])", "-H", "Content-Type: application/json",
                "--data-binary", body.jsonString(),
            ]
            try process.run()
            running.append((process, output))
        }
        var ids: [Int64] = []
        for (process, output) in running {
            process.waitUntilExit()
            if let id = try JSONValue.parse(Data(contentsOf: output))["data"]?["id"]?.intValue { ids.append(id) }
        }
        #expect(ids.count == 20)
        #expect(Set(ids).count == 20)
        #expect(ids.allSatisfy { $0 > 3003 })
        #expect(harness.get("/__admin/state").data?["issues"]?.ids.count == 24)
    }

    @Test("a restart keeps records, tokens and the id counter")
    func restartKeepsState() throws {
        let harness = try Harness()
        let tokens = harness.login("alex")
        let first = harness.request(
            "POST", "/issues", ["facility_id": 11, "severity": "low", "description": "before"],
            token: tokens.access)
        let firstID = try #require(first.data?["id"]?.intValue)
        try harness.restart()
        #expect(harness.get("/issues/\(firstID)", token: tokens.access).data?["description"] == "before")
        #expect(harness.request("POST", "/auth/refresh", ["refresh_token": .string(tokens.refresh)]).status == 200)
        let second = harness.request(
            "POST", "/issues", ["facility_id": 11, "severity": "low", "description": "after"],
            token: tokens.access)
        #expect((second.data?["id"]?.intValue ?? 0) > firstID)
    }

    @Test("admin state lists every user's records in the contract shapes")
    func adminState() throws {
        let harness = try Harness()
        let state = try #require(harness.get("/__admin/state").data)
        #expect(state["inspections"]?.ids == [501, 502, 503, 504])
        #expect(state["issues"]?.ids == [48, 49, 50, 51])
        #expect(state["scheduled_inspections"]?.ids == [901, 902, 903, 904, 905])
        #expect(state["scheduled_inspections"]?.arrayValue?.allSatisfy { $0["active"] == true } == true)
        #expect(state["notifications"]?.arrayValue?.first?["user_id"] == 7)
        #expect(state["notifications"]?.arrayValue?.first?["read"] == false)
        #expect(state["photos"] == [])
    }
}

@Suite("Server lifecycle")
struct LifecycleTests {
    @Test("starting on a port already in use fails with cannotListen")
    func portInUse() throws {
        let harness = try Harness()
        let port = try #require(harness.server.port)
        let other = DevServer(
            configuration: DevServerConfiguration(
                port: port, dataDirectory: harness.directory.url.appendingPathComponent("other")))
        #expect(throws: DevServerError.self) { try other.start() }
        #expect(harness.get("/health").status == 200)
    }

    @Test("stop is idempotent and baseURL follows the running state")
    func stopTwice() throws {
        let harness = try Harness()
        let port = try #require(harness.server.port)
        #expect(harness.server.baseURL == URL(string: "http://127.0.0.1:\(port)"))
        harness.server.stop()
        harness.server.stop()
        #expect(harness.server.baseURL == nil)
        #expect(harness.get("/health").status == 0)
    }

    @Test("a since cursor with an unencoded + offset is read as that offset")
    func plusOffsetCursor() throws {
        let harness = try Harness()
        let token = harness.token("alex")
        let reply = harness.curl([
            harness.base + "/api/v1/notifications?since=2026-07-11T15:00:05+02:00",
            "-H", "Authorization: Bearer \(token)",
        ])
        #expect(reply.data?.ids == [3002])
    }
}
