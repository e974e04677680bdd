import Foundation
import JQCKit
import JQCTestSupport

@testable import JQCDevServer

/// A reply as curl saw it: the status (0 when the connection failed), the body, and curl's exit code.
struct Reply {
    let status: Int
    let body: Data
    let curlExit: Int32

    /// The parsed envelope, or nil when the body is not JSON.
    var json: JSONValue? { try? JSONValue.parse(body) }
    var data: JSONValue? { json?["data"] }
    var error: String? { json?["error"]?.stringValue }
    var ok: Bool { json?["ok"] == .bool(true) }
}

/// An in-process dev server on an ephemeral port with its own temporary data directory, driven over
/// real HTTP by `/usr/bin/curl` (the client library is another module's job).
final class Harness: @unchecked Sendable {  // because: used from one test at a time.
    let directory: TemporaryDirectory
    var server: DevServer
    let clock: ManualClock?
    var base: String

    /// A started server on the demo seed with today fixed to the seed's day (2026-07-14).
    init(
        admin: Bool = true, today: String? = "2026-07-14", clock: ManualClock? = nil, accessTTL: Double = 3_600,
        directory: TemporaryDirectory = TemporaryDirectory(prefix: "jqc-devserver")
    ) throws {
        self.directory = directory
        self.clock = clock
        let configuration = DevServerConfiguration(
            dataDirectory: directory.url.appendingPathComponent("data"), seed: .demo,
            today: today.flatMap(CalendarDay.init), admin: admin, accessTTL: accessTTL,
            clock: clock ?? SystemClock())
        server = DevServer(configuration: configuration)
        let port = try server.start()
        base = "http://127.0.0.1:\(port)"
    }

    /// Stops and starts a new server over the same data directory.
    func restart() throws {
        server.stop()
        server = DevServer(configuration: server.configuration)
        base = "http://127.0.0.1:\(try server.start())"
    }

    deinit { server.stop() }

    /// Runs curl with `arguments` plus `-s -o FILE -w %{http_code}`.
    func curl(_ arguments: [String]) -> Reply {
        let output = directory.path("reply-\(UUID().uuidString)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", output.path, "-w", "%{http_code}", "--max-time", "30"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = nil  // /dev/null
        do { try process.run() } catch { return Reply(status: 0, body: Data(), curlExit: -1) }
        let code = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let body = (try? Data(contentsOf: output)) ?? Data()
        try? FileManager.default.removeItem(at: output)
        return Reply(
            status: Int(String(decoding: code, as: UTF8.self)) ?? 0, body: body,
            curlExit: process.terminationStatus)
    }

    /// A JSON request to `path` (under `/api/v1` unless it starts with `/__admin` or `/static`).
    @discardableResult
    func request(
        _ method: String, _ path: String, _ body: JSONValue? = nil, raw: String? = nil,
        token: String? = nil
    ) -> Reply {
        let url = (path.hasPrefix("/__admin") || path.hasPrefix("/static") ? base : base + "/api/v1") + path
        var arguments = ["-X", method, url]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        if let text = raw ?? body?.jsonString() {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", text]
        }
        return curl(arguments)
    }

    func get(_ path: String, token: String? = nil) -> Reply { request("GET", path, token: token) }

    /// Signs in; returns (access, refresh).
    func login(_ username: String, _ password: String = "inspect-demo") -> (access: String, refresh: String) {
        let reply = request("POST", "/auth/login", ["username": .string(username), "password": .string(password)])
        return (reply.data?["access_token"]?.stringValue ?? "", reply.data?["refresh_token"]?.stringValue ?? "")
    }

    func token(_ username: String) -> String {
        login(username, username == "dana" ? "admin-demo" : "inspect-demo").access
    }

    /// Uploads `file` as multipart.
    func upload(_ file: URL, entity: String = "issue", token: String?, extra: [String] = []) -> Reply {
        var arguments =
            [
                "-X", "POST", base + "/api/v1/photos/upload", "-F", "file=@\(file.path);type=image/jpeg",
                "-F", "entity_type=\(entity)",
            ] + extra
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        return curl(arguments)
    }
}

extension JSONValue {
    /// The `id`s of an array of objects.
    var ids: [Int64] { (arrayValue ?? []).compactMap { $0["id"]?.intValue } }
}
