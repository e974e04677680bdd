import Foundation
import JQCKit
import JQCTestSupport

/// A standalone `jqc-devserver --admin` started for one test (its own data directory, any free port),
/// with the request log (`server.log`) the counts come from, and curl for `/__admin`. Stopped with
/// SIGTERM when the value goes away.
final class DevServerProcess {
    struct StartError: Error, CustomStringConvertible { let description: String }

    let directory = TemporaryDirectory(prefix: "jqc-devserver")
    let baseURL: URL
    private let child: ChildProcess

    /// Starts the server; `accessTTL` is `--access-ttl` in seconds.
    init(accessTTL: Int? = nil) throws {
        let binary = TestPaths.productsDirectory.appendingPathComponent("jqc-devserver")
        var arguments = ["--port", "0", "--admin", "--data-dir", directory.url.path]
        if let accessTTL { arguments += ["--access-ttl", String(accessTTL)] }
        child = try ChildProcess(binary, arguments)
        let line = child.readLine() ?? ""
        guard let start = line.range(of: "http://"), let url = URL(string: String(line[start.lowerBound...])) else {
            throw StartError(description: "jqc-devserver did not say where it listens: '\(line)'")
        }
        baseURL = url
    }

    /// The request log's lines (`… INFO [devserver] POST /api/v1/auth/refresh 200 3ms`), admin calls left out.
    var requests: [String] {
        let text = (try? String(contentsOf: directory.path("server.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter {
            $0.contains("[devserver] ") && !$0.contains(" /__admin") && !$0.contains("listening on")
        }
    }

    /// How many logged requests start with `prefix` (`"POST /api/v1/auth/refresh"`).
    func count(_ prefix: String) -> Int { requests.filter { $0.contains("[devserver] \(prefix)") }.count }

    /// `GET /__admin/state`'s `data`.
    func state() throws -> JSONValue { try admin("GET", "/__admin/state")["data"] ?? .null }

    /// Calls an admin endpoint with curl (kept apart from the client under test).
    @discardableResult
    func admin(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var arguments = ["-s", "-X", method, baseURL.absoluteString + path]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body.jsonString()] }
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONValue.parse(data)
    }

    deinit { child.kill(SIGTERM) }
}

/// `jqc-shell` over one data directory, pointed at a server: runs to the end, or starts a child to
/// run alongside others.
struct ShellOverDirectory {
    let directory: URL
    let server: URL
    var environment: [String: String] = [:]

    /// Runs `commands` (`-c`, `--json`) to the end.
    func run(_ commands: String) throws -> ShellHarness.Result {
        try ShellHarness().run(
            ["--server", server.absoluteString, "--data-dir", directory.path, "--json", "-c", commands],
            environment: environment, dataDir: false)
    }

    /// Runs jqc-shell with exactly `arguments` after `--data-dir DIR` (the timer's form), without `--json`.
    func runWords(_ arguments: [String]) throws -> ShellHarness.Result {
        try ShellHarness().run(["--data-dir", directory.path] + arguments, environment: environment, dataDir: false)
    }

    /// Starts `commands` (`-c`, `--json`) in a child process.
    func start(_ commands: String) throws -> ChildProcess {
        try ChildProcess(
            ShellHarness.binary,
            ["--server", server.absoluteString, "--data-dir", directory.path, "--json", "-c", commands],
            environment: environment.merging(["NO_COLOR": "1"]) { _, new in new })
    }

    /// The lines of `<data-dir>/jqc.log` written by `sync --background`.
    var backgroundLog: [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("jqc.log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.contains(" [background] ") }
    }
}

extension ShellHarness.Result {
    /// Every JSON line said `"ok": true`.
    var allOK: Bool { !jsonLines.isEmpty && jsonLines.allSatisfy { $0["ok"] == true } }
}
