import Foundation
import JQCTestSupport
import Testing

@testable import JQCDevServer

@Suite("jqc-devserver command line")
struct CommandLineTests {
    var binary: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-devserver") }

    @Test("the binary prints the listening line first, serves, and exits 0 on SIGTERM")
    func listenAndTerminate() throws {
        let directory = TemporaryDirectory(prefix: "jqc-devserver-cli")
        let child = try ChildProcess(
            binary,
            [
                "--port", "0", "--admin", "--data-dir", directory.path("data").path,
                "--today", "2026-07-14",
            ])
        let line = try #require(child.readLine())
        #expect(line.hasPrefix("listening on http://127.0.0.1:"))
        let port = try #require(Int(line.split(separator: ":").last ?? ""))
        #expect(port > 0)
        let health = TestProcess()
        health.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        health.arguments = ["-s", "http://127.0.0.1:\(port)/api/v1/health"]
        let pipe = Pipe()
        health.standardOutput = pipe
        try health.run()
        let body = pipe.fileHandleForReading.readDataToEndOfFile()
        health.waitUntilExit()
        #expect(String(decoding: body, as: UTF8.self).contains("\"today\":\"2026-07-14\""))
        kill(child.process.processIdentifier, SIGTERM)
        let result = child.finish()
        #expect(result.status == 0)
        #expect(result.stdout == "")
        let log = try String(contentsOf: directory.path("data/server.log"), encoding: .utf8)
        #expect(log.contains("GET /api/v1/health 200"))
    }

    @Test("a bad option exits 64 with a sentence")
    func badOption() throws {
        let child = try ChildProcess(binary, ["--port", "banana"])
        let result = child.finish()
        #expect(result.status == 64)
        #expect(result.stderr.contains("--port must be a number from 0 to 65535, not 'banana'."))
        #expect(result.stdout == "")
    }

    @Test("options parse into the configuration")
    func parsing() throws {
        let options = try DevServerOptions.parse([
            "--host", "127.0.0.1", "--port", "8080", "--today", "2026-01-02",
            "--admin", "--access-ttl", "30", "--refresh-ttl", "60",
        ])
        #expect(options.configuration.port == 8080)
        #expect(options.configuration.today?.text == "2026-01-02")
        #expect(options.configuration.admin)
        #expect(options.configuration.accessTTL == 30)
        #expect(options.configuration.refreshTTL == 60)
        #expect(throws: DevServerError.self) { try DevServerOptions.parse(["--today", "2026-02-30"]) }
        #expect(throws: DevServerError.self) { try DevServerOptions.parse(["--frobnicate"]) }
    }
}
