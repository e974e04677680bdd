import Dispatch
import Foundation
import JQCKit
import JQCNetwork

/// SPEC.md §6 transport floor: N `POST /api/v1/issues` (distinct `local_id`s) through JQCNetwork's
/// ``APIClient`` over ``CurlTransport`` against the same N requests sent by one `curl` process reading a
/// config file (connections reused across `next`), both against a standalone release `jqc-devserver` on
/// loopback. Each measured run gets a fresh dev server (the server's work per request grows with the
/// records it holds), and the sides alternate which goes first.
///
/// Also `POST /api/v1/photos/upload` (multipart, a ~1600×1200 photo), the photo stage's request.
struct TransportBench {
    let devserver: String
    let work: URL
    /// Where the dev servers keep their data: tmpfs when available, so the server's fsyncs do not drown the
    /// client's overhead the row is about.
    let serverWork: URL
    let requests: Int
    let uploads: Int
    let rounds: Int

    func run() async throws -> [ReportRow] {
        guard let curl = Child.which("curl") else {
            return [.skipped("Transport floor", target: "≤ 1.3×", why: "curl not found: run make deps")]
        }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        var keepAlive = Samples()
        var fresh = Samples()
        var floor = Samples()
        for round in 0..<rounds {
            let sides = round % 2 == 0 ? [0, 1, 2] : [1, 2, 0]
            for side in sides {
                let session = try await Session.start(
                    devserver: devserver, work: serverWork, label: "issues-\(round)-\(side)")
                defer { session.stop() }
                switch side {
                case 0: keepAlive.add(try await session.postIssues(requests, prefix: "api-\(round)", reuse: true))
                case 1: floor.add(try session.curlIssues(requests, prefix: "curl-\(round)", curl: curl, work: work))
                default:
                    if round == 0 {
                        fresh.add(try await session.postIssues(requests, prefix: "fresh-\(round)", reuse: false))
                    }
                }
            }
        }
        var rows: [ReportRow] = []
        let ratio = keepAlive.minimum / floor.minimum
        note("issues: APIClient \(format(ms: keepAlive.minimum)), curl \(format(ms: floor.minimum))")
        rows.append(
            .ratio(
                "Transport floor: \(requests) POST /api/v1/issues", ours: rate(requests, keepAlive.minimum),
                reference: "curl -K (one process, keep-alive): \(rate(requests, floor.minimum))", ratio: ratio,
                atMost: 1.3, target: "ours/curl time ≤ 1.3×",
                note: "APIClient + CurlTransport, sendJSON(idempotent: true) reuses connections; best of \(rounds) "
                    + "fresh dev servers per side"))
        if let once = fresh.values.first {
            rows.append(
                ReportRow(
                    benchmark: "Transport: same POSTs on a fresh connection each", ours: rate(requests, once),
                    reference: "curl keep-alive: \(rate(requests, floor.minimum))",
                    ratio: format(ratio: once / floor.minimum), target: "info", verdict: .info,
                    note: "CurlTransport's default for non-idempotent POSTs (freshConnectionForNonIdempotent)"))
        }
        rows += try await readRow(curl: curl)
        rows.append(try await uploadRow(curl: curl))
        return rows
    }

    /// `GET /api/v1/auth/me` N times: almost no server work, so the ratio is the client's own overhead.
    private func readRow(curl: String) async throws -> [ReportRow] {
        var ours = Samples()
        var theirs = Samples()
        var bare = Samples()
        let session = try await Session.start(devserver: devserver, work: serverWork, label: "reads")
        defer { session.stop() }
        _ = try await session.getMe(50)  // warm-up: first connection, lazy set-up
        _ = try session.curlGetMe(50, curl: curl, work: work)
        for round in 0..<rounds {
            for side in round % 2 == 0 ? [0, 1, 2] : [2, 1, 0] {
                switch side {
                case 0: ours.add(try await session.getMe(requests))
                case 1: theirs.add(try session.curlGetMe(requests, curl: curl, work: work))
                default: bare.add(try await session.getMeTransportOnly(requests))
                }
            }
        }
        note("reads: APIClient \(format(ms: ours.minimum)), curl \(format(ms: theirs.minimum))")
        return [
            .ratio(
                "Transport overhead: \(requests) GET /api/v1/auth/me", ours: rate(requests, ours.minimum),
                reference: "curl -K (keep-alive): \(rate(requests, theirs.minimum))",
                ratio: ours.minimum / theirs.minimum, atMost: 1.15, target: "ours/curl time ≤ 1.15×",
                note: "a request the server answers at once, so the client's own cost shows; best of \(rounds) rounds"),
            ReportRow(
                benchmark: "Transport overhead: the same GETs through CurlTransport alone",
                ours: rate(requests, bare.minimum),
                reference: "curl -K (keep-alive): \(rate(requests, theirs.minimum))",
                ratio: format(ratio: bare.minimum / theirs.minimum), target: "info", verdict: .info,
                note: "no APIClient (no envelope decoding, session or clock work): splits the overhead above"),
        ]
    }

    private func uploadRow(curl: String) async throws -> ReportRow {
        let photo = work.appendingPathComponent("upload-1600x1200.jpg")
        try PhotoBench.generatePhoto(width: 1600, height: 1200, quality: 80, to: photo)
        let bytes = (try? photo.resourceValues(forKeys: [.fileSizeKey]).fileSize) ?? 0
        // The client sends every upload (a POST) on a fresh connection (CONTRACT.md: a non-idempotent request is
        // never re-sent), so the floor is curl doing the same (`Connection: close`), as in the sync growth rows;
        // curl on one kept-alive connection is measured too and shown in the note.
        var ours = Samples()
        var curlFresh = Samples()
        var curlKeptAlive = Samples()
        for round in 0..<rounds {
            for offset in 0..<3 {
                let side = (round + offset) % 3
                let session = try await Session.start(
                    devserver: devserver, work: serverWork, label: "upload-\(round)-\(side)")
                defer { session.stop() }
                switch side {
                case 0: ours.add(try await session.upload(uploads, photo: photo))
                case 1:
                    curlFresh.add(
                        try session.curlUpload(uploads, photo: photo, curl: curl, work: work, fresh: true))
                default:
                    curlKeptAlive.add(
                        try session.curlUpload(uploads, photo: photo, curl: curl, work: work, fresh: false))
                }
            }
        }
        note(
            "uploads: APIClient \(format(ms: ours.minimum)), curl with a connection per upload "
                + "\(format(ms: curlFresh.minimum)), curl kept alive \(format(ms: curlKeptAlive.minimum))")
        return .ratio(
            "Transport floor: \(uploads) POST /api/v1/photos/upload (\(bytes / 1024) KiB each)",
            ours: rate(uploads, ours.minimum),
            reference: "curl -K -F, a connection per upload: \(rate(uploads, curlFresh.minimum))",
            ratio: ours.minimum / curlFresh.minimum, atMost: 1.3, target: "ours/curl time ≤ 1.3×",
            note: "multipart streamed from disk, each upload on a fresh connection as the client sends it "
                + "(a POST is never re-sent); curl on one kept-alive connection \(rate(uploads, curlKeptAlive.minimum)) "
                + "(\(format(ratio: ours.minimum / curlKeptAlive.minimum)) of that); best of \(rounds) fresh dev "
                + "servers per side")
    }

    private func rate(_ count: Int, _ elapsed: Double) -> String {
        String(format: "%.0f req/s (%@)", Double(count) / elapsed, format(ms: elapsed))
    }
}

/// A standalone `jqc-devserver` child with a fresh data directory, and a signed-in API client for it.
final class Session {
    let server: DevServerProcess
    let api: APIClient
    let baseURL: String
    let accessToken: String
    let facilityID: Int64

    private init(server: DevServerProcess, api: APIClient, accessToken: String, facilityID: Int64) {
        self.server = server
        self.api = api
        baseURL = server.baseURL
        self.accessToken = accessToken
        self.facilityID = facilityID
    }

    static func start(devserver: String, work: URL, label: String) async throws -> Session {
        let data = work.appendingPathComponent("devserver-\(label)", isDirectory: true)
        try? FileManager.default.removeItem(at: data)
        let server = try DevServerProcess(executable: devserver, dataDirectory: data)
        do {
            let tokens = InMemoryTokenStore()
            let api = APIClient(
                config: ServerConfig(store: InMemorySelectionStore(server.baseURL)),
                transport: CurlTransport(), tokens: tokens, refusals: InMemoryUpdateRefusalMemory(),
                identity: ClientIdentity(version: "bench"))
            _ = try await api.login(username: "alex", password: "inspect-demo")
            guard let token = tokens.load()?.accessToken else {
                throw BenchError("login", "The dev server accepted the login but no token was stored.")
            }
            let facilities = try await api.getJSON("/api/v1/facilities")
            guard let facility = facilities.arrayValue?.first?["id"]?.intValue else {
                throw BenchError("seed", "The dev server's demo seed has no facility for alex.")
            }
            return Session(server: server, api: api, accessToken: token, facilityID: facility)
        } catch {
            server.stop()
            throw error
        }
    }

    func stop() { server.stop() }

    private func issueBody(_ localID: String) -> JSONValue {
        .object([
            "local_id": .string(localID), "facility_id": .int(facilityID), "severity": "low",
            "description": "Paper towel dispenser empty (benchmark).",
        ])
    }

    /// Sends `count` issues one after another through the API client; returns the wall time.
    func postIssues(_ count: Int, prefix: String, reuse: Bool) async throws -> Double {
        try await seconds {
            for index in 0..<count {
                _ = try await api.sendJSON(
                    .post, path: "/api/v1/issues", body: issueBody("\(prefix)-\(index)"),
                    idempotent: reuse ? true : nil)
            }
        }
    }

    /// `GET /api/v1/auth/me` `count` times through the API client (envelope decoded); returns the wall time.
    func getMe(_ count: Int) async throws -> Double {
        try await seconds {
            for _ in 0..<count { _ = try await api.getJSON("/api/v1/auth/me") }
        }
    }

    /// The same reads straight through a ``CurlTransport`` (no APIClient: no envelope, session or clock work).
    func getMeTransportOnly(_ count: Int) async throws -> Double {
        let transport = CurlTransport()
        guard let base = URL(string: baseURL) else { throw BenchError("devserver", "Bad base URL \(baseURL).") }
        let request = HTTPRequest(
            method: .get, url: ServerConfig.url(base: base, path: "/api/v1/auth/me"),
            headers: ["Authorization": "Bearer \(accessToken)", "X-JQC-Client": "jqc-shell/bench"])
        return try await seconds {
            for _ in 0..<count {
                let response = try await transport.send(request)
                guard response.status == 200 else {
                    throw BenchError("devserver", "GET /api/v1/auth/me answered \(response.status).")
                }
            }
        }
    }

    /// The same reads from one curl process.
    func curlGetMe(_ count: Int, curl: String, work: URL) throws -> Double {
        var config = ""
        for index in 0..<count {
            if index > 0 { config += "next\n" }
            config += entry(url: "\(baseURL)/api/v1/auth/me")
        }
        return try runCurl(curl, config: config, expect: "200", count: count, work: work, name: "me")
    }

    /// The same requests from one curl process (`-K config`, `next` between requests); every status must be 201.
    func curlIssues(_ count: Int, prefix: String, curl: String, work: URL) throws -> Double {
        var config = ""
        for index in 0..<count {
            if index > 0 { config += "next\n" }
            config += entry(url: "\(baseURL)/api/v1/issues")
            config += "header = \"Content-Type: application/json\"\n"
            config += "data = \(quoted(issueBody("\(prefix)-\(index)").jsonString()))\n"
        }
        return try runCurl(curl, config: config, expect: "201", count: count, work: work, name: "issues")
    }

    /// Uploads `count` copies of `photo` through the API client; returns the wall time.
    func upload(_ count: Int, photo: URL) async throws -> Double {
        try await seconds {
            for _ in 0..<count {
                let _: JSONValue = try await api.upload(
                    path: "/api/v1/photos/upload",
                    parts: [.file("file", url: photo, contentType: "image/jpeg"), .field("entity_type", "issue")])
            }
        }
    }

    /// The same uploads from one curl process (`form =` entries); `fresh`: each on its own connection
    /// (`Connection: close`, as the client sends a POST), else on one kept-alive connection.
    func curlUpload(_ count: Int, photo: URL, curl: String, work: URL, fresh: Bool) throws -> Double {
        var config = ""
        for index in 0..<count {
            if index > 0 { config += "next\n" }
            config += entry(url: "\(baseURL)/api/v1/photos/upload")
            if fresh { config += "header = \"Connection: close\"\n" }
            config += "form = \(quoted("file=@\(photo.path);type=image/jpeg"))\n"
            config += "form = \"entity_type=issue\"\n"
        }
        return try runCurl(curl, config: config, expect: "200", count: count, work: work, name: "upload")
    }

    func entry(url: String) -> String {
        "url = \(quoted(url))\noutput = \"/dev/null\"\nwrite-out = \"%{http_code}\\n\"\n"
            + "header = \(quoted("Authorization: Bearer \(accessToken)"))\n"
            + "header = \"X-JQC-Client: curl/bench\"\nheader = \"X-JQC-API-Version: 1\"\n"
            + "header = \"Expect:\"\n"
    }

    func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    func runCurl(_ curl: String, config: String, expect: String, count: Int, work: URL, name: String)
        throws -> Double
    {
        try runCurl(curl, config: config, expecting: [expect], count: count, work: work, name: name)
    }

    /// Runs one curl process over `config`; every status must be one of `expecting`; returns the wall time.
    func runCurl(_ curl: String, config: String, expecting: Set<String>, count: Int, work: URL, name: String)
        throws -> Double
    {
        let file = work.appendingPathComponent("curl-\(name).conf")
        try Data(config.utf8).write(to: file)
        let result = try Child.run(curl, ["-s", "-S", "-K", file.path])
        let codes = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        guard result.status == 0, codes.count == count, codes.allSatisfy({ expecting.contains(String($0)) }) else {
            let seen = Set(codes).sorted().joined(separator: ",")
            throw BenchError(
                "child-failed",
                "curl sent \(codes.count) of \(count) requests (statuses \(seen)); "
                    + "exit \(result.status): \(result.stderr)")
        }
        return result.elapsed
    }
}

/// `jqc-devserver --data-dir DIR --port 0` as a child process; its first stdout line names the address.
final class DevServerProcess: @unchecked Sendable {  // because: `process` is only touched from the creating task.
    let process: Process
    let baseURL: String
    let dataDirectory: URL

    /// Starts the server on `seed` (`demo` or a seed file), with `options` added (`--no-etags`).
    init(executable: String, dataDirectory: URL, seed: String = "demo", options: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            ["--data-dir", dataDirectory.path, "--port", "0", "--seed", seed, "--access-ttl", "7200"] + options
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw BenchError("spawn", "Could not start \(executable): \(error). Build it: swift build -c release.")
        }
        var line = Data()
        let handle = out.fileHandleForReading
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "listening on ") else {
            process.terminate()
            throw BenchError("devserver", "jqc-devserver did not say where it listens (it printed \(text)).")
        }
        self.process = process
        self.dataDirectory = dataDirectory
        baseURL = String(text[range.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server and removes its data directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: dataDirectory)
    }
}
