import Foundation
import JQCTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `jqc-devserver --admin` of its own (port 0, its own data directory, optionally a seed file), for tests
/// that inject faults or notifications while a shell runs. Killed (SIGKILL: a `delay` fault would hold a
/// clean shutdown) when the value goes away.
final class StandaloneServer: @unchecked Sendable {  // because: used by one test at a time.
    let url: String
    private let process: ChildProcess
    private let directory = TemporaryDirectory(prefix: "jqc-devserver")

    init(seed: URL? = nil) throws {
        var arguments = ["--port", "0", "--admin", "--data-dir", directory.url.path]
        if let seed { arguments += ["--seed", seed.path] }
        process = try ChildProcess(TestPaths.productsDirectory.appendingPathComponent("jqc-devserver"), arguments)
        url = String(process.readLine()?.dropFirst("listening on ".count) ?? "")
    }

    deinit { process.kill(SIGKILL) }

    /// `POST path` on the server with a JSON body (the admin endpoints); returns the reply body.
    @discardableResult
    func post(_ path: String, _ body: String) throws -> String {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = [
            "-s", "-X", "POST", url + path, "-H", "Content-Type: application/json", "--data-binary", body,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let reply = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: reply, as: UTF8.self)
    }

    /// Adds a fault (SHELL.md `POST /__admin/faults`).
    func fault(_ body: String) throws { try post("/__admin/faults", body) }
}
