import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCNetwork

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a built executable (`jqc-shell`, `jqc-network-probe`) as a child: exit status (never a signal),
/// stdout and stderr; or a shell fed command by command, whose VmHWM is read while it waits for the next.
struct ClientChild {
    struct Result {
        let status: Int32
        let endedBySignal: Bool
        let stdout: String
        let stderr: String

        /// stdout's lines parsed as JSON (for `--json` runs).
        var jsonLines: [JSONValue] { stdout.split(separator: "\n").compactMap { try? JSONValue.parse(String($0)) } }
        /// The `error` of the last `{"ok":false,…}` line.
        var jsonError: String? { jsonLines.last { $0["ok"] == false }?["error"]?.stringValue }
    }

    /// Variables a developer's shell may set that would change what the child trusts or where it writes.
    static let scrubbed = [
        "JQC_CA_FILE", "SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE", "JQC_MAX_REPLY_MB", "JQC_PASSWORD",
        "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "JQC_HOME",
    ]

    /// Runs `program`; its stdout and stderr go to files in `io` (a fresh directory when `nil`), so a test
    /// may read what the child has written while it runs.
    static func run(
        _ program: String, _ arguments: [String], environment: [String: String] = [:], io: TemporaryDirectory? = nil
    ) throws -> Result {
        let process = TestProcess()
        process.executableURL = TestPaths.productsDirectory.appendingPathComponent(program)
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in scrubbed { env[name] = nil }
        env["NO_COLOR"] = "1"
        env.merge(environment) { _, new in new }
        process.environment = env
        let scratch = io ?? TemporaryDirectory(prefix: "jqc-child-io")
        let outFile = scratch.path("stdout"), errFile = scratch.path("stderr")
        _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outFile)
        process.standardError = try FileHandle(forWritingTo: errFile)
        try process.run()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, endedBySignal: process.endedBySignal,
            stdout: try String(contentsOf: outFile, encoding: .utf8),
            stderr: try String(contentsOf: errFile, encoding: .utf8))
    }

    /// `jqc-shell --data-dir DIR --json ARGS…`.
    static func shell(
        _ data: TemporaryDirectory, _ arguments: [String], environment: [String: String] = [:],
        io: TemporaryDirectory? = nil
    ) throws -> Result {
        try run("jqc-shell", ["--data-dir", data.url.path, "--json"] + arguments, environment: environment, io: io)
    }

    /// `jqc-shell --data-dir DIR --json ARGS…` reading `commands` from stdin one at a time (each runs as it
    /// arrives); after the last reply line, and before stdin closes, its VmHWM is read from /proc.
    /// - Returns: the reply lines, the peak resident size in KiB (-1 when the shell had already exited),
    ///   and the exit status.
    static func shellFedByLine(_ data: TemporaryDirectory, _ arguments: [String], commands: [String]) throws -> (
        lines: [JSONValue], peakKilobytes: Int, status: Int32, endedBySignal: Bool
    ) {
        let child = try ChildProcess(
            TestPaths.productsDirectory.appendingPathComponent("jqc-shell"),
            ["--data-dir", data.url.path, "--json"] + arguments, environment: ["NO_COLOR": "1"], removing: scrubbed)
        var lines: [JSONValue] = []
        for command in commands {
            child.write(command + "\n")
            guard let line = child.readLine() else { break }
            if let value = try? JSONValue.parse(line) { lines.append(value) }
        }
        let peak = child.process.currentPeakResidentKilobytes ?? -1
        let result = child.finish()
        return (lines, peak, result.status, child.process.endedBySignal)
    }
}

/// 256 MiB, the bound a client child stays under against an endless or 100 MB reply (issue 21).
let memoryBoundKilobytes = 256 * 1024

@Suite("The shell against a hostile peer: sentences, exit statuses, bounded memory, nothing lost")
struct HostileShellTests {
    @Test("an endless login reply: exit 1 with the limit's sentence, bounded memory, no credentials stored")
    func endlessLogin() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("POST", "/api/v1/auth/login", with: HostilePeer.endlessBody())
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        let result = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "login alex --password pw"])
        #expect(result.status == 1)
        #expect(!result.endedBySignal)
        #expect(result.jsonError == APIError.replyTooLarge(limitBytes: 32 * 1_048_576).message)
        // Its memory is measured in shellFedByLine runs (sync) and by jqc-network-probe (the same login path).
        #expect(!FileManager.default.fileExists(atPath: data.path("credentials").path))
    }

    @Test("--max-reply-mb and JQC_MAX_REPLY_MB set the limit the sentence names; a bad value exits 64")
    func replyLimitOption() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        peer.lie("POST", "/api/v1/auth/login", with: HostilePeer.endlessBody(chunked: true))
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        let flag = try ClientChild.shell(
            data, ["--server", peer.baseURL, "--max-reply-mb", "2", "-c", "login alex --password pw"])
        #expect(flag.status == 1)
        #expect(flag.jsonError == APIError.replyTooLarge(limitBytes: 2 * 1_048_576).message)
        let variable = try ClientChild.shell(
            data, ["--server", peer.baseURL, "-c", "login alex --password pw"], environment: ["JQC_MAX_REPLY_MB": "3"])
        #expect(variable.jsonError == APIError.replyTooLarge(limitBytes: 3 * 1_048_576).message)
        for bad in ["0", "1025", "1e3", "-4", "lots"] {
            let refused = try ClientChild.shell(data, ["--max-reply-mb", bad, "-c", "whoami"])
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("--max-reply-mb takes a whole number of MiB from 1 to 1024, not '\(bad)'."))
        }
        let badVariable = try ClientChild.shell(data, ["-c", "whoami"], environment: ["JQC_MAX_REPLY_MB": "inf"])
        #expect(badVariable.status == 64)
        #expect(badVariable.stderr.contains("JQC_MAX_REPLY_MB takes a whole number of MiB from 1 to 1024, not 'inf'."))
    }

    @Test(
        "a probe child reads its own VmHWM from /proc: under 256 MiB against endless and 100 MB replies",
        arguments: ["endless", "100 MB announced", "100 MB unannounced"])
    func probeMemory(_ lie: String) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let action: LoopbackServer.Action =
            switch lie {
            case "endless": HostilePeer.endlessBody()
            case "100 MB announced": HostilePeer.hugeBody(bytes: 100 * 1_048_576, announced: true)
            default: HostilePeer.hugeBody(bytes: 100 * 1_048_576, announced: false)
            }
        peer.lie("POST", "/api/v1/auth/login", with: action)
        let result = try ClientChild.run("jqc-network-probe", [peer.baseURL, "login"])
        #expect(result.status == 0 && !result.endedBySignal, "\(result.stderr)")
        let line = try #require(result.jsonLines.first)
        #expect(line["code"] == "network.reply_too_large")
        let peak = try #require(line["vm_hwm_kib"]?.intValue)
        #expect(peak > 0 && peak < Int64(memoryBoundKilobytes), "VmHWM \(peak) KiB")
    }

    @Test("a 429 with Retry-After 1e300 at login and during sync: sentences, exit statuses, no signal")
    func absurdRetryAfter() async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        peer.lie(
            "POST", "/api/v1/auth/login", times: 1,
            with: HostilePeer.failure(429, "Slow down.", headers: [("Retry-After", "1e300")]))
        let login = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "login alex --password pw"])
        #expect(login.status == 1 && !login.endedBySignal)
        #expect(login.jsonError == "The server is busy. Try again in a moment.")
        peer.lie("GET", "/api/v1/", with: HostilePeer.failure(429, "Slow down.", headers: [("Retry-After", "1e300")]))
        let sync = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", "login alex --password pw; sync"])
        #expect(!sync.endedBySignal)
        #expect(sync.status == 0, "\(sync.stdout)\n\(sync.stderr)")
    }

    @Test("plain http to a host that is not loopback is refused before anything is sent, naming the way out")
    func insecureHTTPRefused() async throws {
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        let result = try ClientChild.shell(
            data, ["--server", "http://jqc.example.invalid:5055", "-c", "login alex --password pw"])
        #expect(result.status == 1 && !result.endedBySignal)
        #expect(result.jsonError == APIError.insecureHTTP(host: "jqc.example.invalid").message)
        #expect(!FileManager.default.fileExists(atPath: data.path("credentials").path))
    }

    @Test(
        "with --allow-insecure-http the warning is printed before the password reaches a non-loopback host",
        .enabled(if: HostileShellTests.nonLoopbackAddress != nil, "this machine has no non-loopback IPv4 address"))
    func insecureHTTPAllowedWarns() async throws {
        let address = try #require(HostileShellTests.nonLoopbackAddress)
        let peer = try HostilePeer(host: "0.0.0.0")
        defer { peer.stop() }
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        let io = TemporaryDirectory(prefix: "jqc-child-io")
        let server = "http://\(address):\(peer.server.port)"
        let warning =
            "warning: the password is being sent over plain HTTP (no TLS) to \(address), unencrypted: anyone on the "
            + "network path can read it (--allow-insecure-http)."
        // When the password arrives, the child's stderr must already hold the warning.
        let warnedFirst = Mutex2<Bool?>(nil)
        let stderrPath = io.path("stderr").path
        peer.lie("POST", "/api/v1/auth/login") { request in
            let written = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            warnedFirst.set(written.contains(warning) && String(decoding: request.body, as: UTF8.self).contains("pw"))
            return HostilePeer.honest(request)
        }
        let result = try ClientChild.shell(
            data, ["--server", server, "--allow-insecure-http", "-c", "login alex --password pw"], io: io)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        #expect(result.stderr.contains(warning))
        #expect(warnedFirst.get() == true)
    }

    @Test("TLS in the shell: an unknown CA is refused; with --ca-file (or JQC_CA_FILE) login goes through")
    func tlsThroughTheShell() async throws {
        let certificates = try TestCertificates()
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        do {
            let server = try TLSServer(certificate: certificates.validCertificate, key: certificates.serverKey)
            defer { server.stop() }
            let refused = try ClientChild.shell(data, ["--server", server.baseURL, "-c", "login alex --password pw"])
            #expect(refused.status == 1 && !refused.endedBySignal)
            #expect(refused.jsonError == TLSProblem.unknownAuthority(host: "localhost").message)
        }
        for (arguments, environment) in [
            (["--ca-file", certificates.caFile.path], [String: String]()),
            ([], ["JQC_CA_FILE": certificates.caFile.path]),
        ] {
            let server = try TLSServer(certificate: certificates.validCertificate, key: certificates.serverKey)
            defer { server.stop() }
            let relay = Thread {
                guard server.awaitRequest() != nil else { return }
                let body =
                    #"{"ok":true,"data":"#
                    + HostilePeer.tokensJSON(
                        access: HostilePeer.jwt(), refresh: HostilePeer.refreshToken, withUser: true)
                    + #","error":null}"#
                server.write(
                    "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            relay.start()
            let accepted = try ClientChild.shell(
                data, ["--server", server.baseURL] + arguments + ["-c", "login alex --password pw"],
                environment: environment)
            #expect(accepted.status == 0, "\(accepted.stdout)\n\(accepted.stderr)")
            #expect(accepted.jsonLines.last?["data"]?["username"] == "alex")
        }
    }

    @Test("TLS in the shell: expired and wrong-host certificates are refused with their own sentences")
    func tlsRefusalsThroughTheShell() async throws {
        let certificates = try TestCertificates()
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        for (certificate, problem) in [
            (certificates.expiredCertificate, TLSProblem.expired(host: "localhost")),
            (certificates.wrongHostCertificate, TLSProblem.wrongHost(host: "localhost")),
        ] {
            let server = try TLSServer(certificate: certificate, key: certificates.serverKey)
            defer { server.stop() }
            let result = try ClientChild.shell(
                data,
                ["--server", server.baseURL, "--ca-file", certificates.caFile.path, "-c", "login alex --password pw"])
            #expect(result.status == 1 && !result.endedBySignal)
            #expect(result.jsonError == problem.message)
        }
    }

    @Test(
        "hostile replies during sync leave the local store and the outbox as they were",
        arguments: [
            "endless body", "100 MB body", "HTML page", "redirect", "CR-LF token on refresh", "absurd Retry-After",
        ])
    func storeAndOutboxUnchanged(_ lie: String) async throws {
        let peer = try HostilePeer()
        defer { peer.stop() }
        let data = TemporaryDirectory(prefix: "jqc-hostile")
        let prepared = try ClientChild.shell(
            data,
            [
                "--server", peer.baseURL, "-c",
                "login alex --password pw; sync; start --template 5 --facility 1; answer 1 4; submit",
            ])
        #expect(prepared.status == 0, "\(prepared.stdout)\n\(prepared.stderr)")
        let snapshot = "status; inspections; facilities; templates"
        let before = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", snapshot])
        #expect(before.status == 0)
        #expect(before.jsonLines.first?["data"]?["pending"]?["inspections"] == 1)

        switch lie {
        case "endless body":
            peer.lie("POST", "/api/v1/inspections", with: HostilePeer.endlessBody())
            peer.lie("GET", "/api/v1/facilities", with: HostilePeer.endlessBody(chunked: true))
        case "100 MB body":
            peer.lie(
                "POST", "/api/v1/inspections", with: HostilePeer.hugeBody(bytes: 100 * 1_048_576, announced: false))
            peer.lie("GET", "/api/v1/templates", with: HostilePeer.hugeBody(bytes: 100 * 1_048_576, announced: true))
        case "HTML page":
            peer.lie("POST", "/api/v1/inspections", with: HostilePeer.html(200))
            peer.lie("GET", "/api/v1/facilities", with: HostilePeer.html(502))
        case "redirect":
            peer.lie("POST", "/api/v1/inspections", with: HostilePeer.redirect(307, to: "http://127.0.0.1:1/x"))
        case "CR-LF token on refresh":
            peer.lie("POST", "/api/v1/inspections", times: 1, with: HostilePeer.failure(401, "Token expired."))
            peer.lie(
                "POST", "/api/v1/auth/refresh",
                with: HostilePeer.envelope(
                    HostilePeer.tokensJSON(access: "a\r\nX-Injected: 1", refresh: "r\r\n", withUser: false)))
        default:
            peer.lie(
                "POST", "/api/v1/inspections",
                with: HostilePeer.failure(429, "Busy.", headers: [("Retry-After", "1e300")]))
        }
        let sync = try ClientChild.shellFedByLine(data, ["--server", peer.baseURL], commands: ["sync", "whoami"])
        #expect(!sync.endedBySignal)
        // A redirect stops the pass like being offline (sync fails with a sentence); every other lie is
        // item data, so the pass ran and the shell is still alive to be measured.
        #expect(sync.status == (lie == "redirect" ? 1 : 0), "\(sync.lines)")
        if sync.status == 0 {  // alive after the pass: its high-water mark covers the hostile transfers
            #expect(
                sync.peakKilobytes > 0 && sync.peakKilobytes < memoryBoundKilobytes, "VmHWM \(sync.peakKilobytes) KiB")
        }
        #expect(peer.requests.allSatisfy { $0.headers["x-injected"] == nil })
        peer.tellTheTruth()
        peer.lie("POST", "/api/v1/inspections", with: HostilePeer.failure(503, "Down for a moment."))
        let after = try ClientChild.shell(data, ["--server", peer.baseURL, "-c", snapshot])
        #expect(after.status == 0, "\(after.stdout)\n\(after.stderr)")
        #expect(after.jsonLines.first?["data"]?["pending"] == before.jsonLines.first?["data"]?["pending"])
        func stable(_ result: ClientChild.Result) -> [JSONValue] {
            result.jsonLines.dropFirst().map { line in
                guard case .object(var data) = line["data"] ?? .null else { return line }
                if case .array(let rows) = data["inspections"] ?? .null {
                    data["inspections"] = .array(
                        rows.map { row in
                            guard case .object(var fields) = row else { return row }
                            fields["sync_error"] = nil  // the last attempt's reason is data, not a change of work
                            return .object(fields)
                        })
                }
                data["stale"] = nil
                data["stale_reason"] = nil
                data["phase"] = nil
                return .object(data)
            }
        }
        #expect(stable(after) == stable(before))
        #expect(stable(before).count == 3)
    }

    /// The first IPv4 address of this machine that is not loopback, or `nil`.
    static let nonLoopbackAddress: String? = {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            let text = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer -> String in
                var inet = pointer.pointee.sin_addr
                var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                inet_ntop(AF_INET, &inet, &buffer, socklen_t(INET_ADDRSTRLEN))
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            if !PlainHTTP.isLoopback(host: text) { return text }
        }
        return nil
    }()
}
