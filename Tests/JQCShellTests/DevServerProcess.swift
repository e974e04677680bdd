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

    /// Calls an admin endpoint (curl, kept apart from the client under test).
    @discardableResult
    func admin(_ method: String, _ path: String, _ body: JSONValue? = nil) throws -> JSONValue {
        try AdminRequest.send(baseURL, method, path, body)
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

    /// A setup run that did not succeed, with what it printed.
    struct SetupError: Error, CustomStringConvertible { let description: String }

    /// Signs in as alex and syncs; then, with `submitting`, submits one Restroom QC inspection (pending).
    /// - Returns: the inspection's local id, or `""` without one.
    /// - Throws: ``SetupError`` when a command failed.
    @discardableResult
    func signIn(submitting: Bool = true) throws -> String {
        let inspection = submitting ? "; start --template 3 --facility 11 --area 111; answer 2 4; submit" : ""
        let result = try run("login alex --password inspect-demo; sync" + inspection)
        guard result.allOK else { throw SetupError(description: "\(result.stdout)\(result.stderr)") }
        return submitting ? result.jsonLines[2]["data"]?["local_id"]?.stringValue ?? "" : ""
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

/// A standalone dev server and a data directory of its own over it: what most multi-process tests start from.
final class ShellWorld {
    let server: DevServerProcess
    let data = TemporaryDirectory(prefix: "jqc-world")
    let shell: ShellOverDirectory

    /// Starts the server (`accessTTL` is `--access-ttl`); the shell runs with `environment` merged in.
    init(accessTTL: Int? = nil, environment: [String: String] = [:]) throws {
        server = try DevServerProcess(accessTTL: accessTTL)
        shell = ShellOverDirectory(directory: data.url, server: server.baseURL, environment: environment)
    }
}
