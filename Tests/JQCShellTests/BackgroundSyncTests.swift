import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// `systemd-analyze verify` on unit files, or `nil` when systemd-analyze is not installed.
private func verifyUnits(_ files: [URL]) -> (status: Int32, output: String)? {
    let tool = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    guard let tool else { return nil }
    let scratch = TemporaryDirectory(prefix: "jqc-verify")
    let outFile = scratch.path("out")
    _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
    let process = TestProcess()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = ["verify"] + files.map(\.path)
    guard let handle = try? FileHandle(forWritingTo: outFile) else { return nil }
    process.standardOutput = handle
    process.standardError = handle
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    return (process.terminationStatus, (try? String(contentsOf: outFile, encoding: .utf8)) ?? "")
}

private let systemdAnalyzeInstalled = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].contains {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// A stand-in `systemctl` (a shell script) that records its arguments and keeps an "enabled" flag file.
private struct FakeSystemctl {
    let scratch = TemporaryDirectory(prefix: "jqc-fake-systemd")
    var script: URL { scratch.path("systemctl") }
    var calls: [String] {
        ((try? String(contentsOf: scratch.path("calls"), encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    init() throws {
        let text = """
            #!/bin/sh
            echo "$*" >> "\(scratch.path("calls").path)"
            case "$2" in
              show-environment) echo HOME=/root; exit 0 ;;
              is-enabled) if [ -f "\(scratch.path("enabled").path)" ]; then echo enabled; exit 0; fi; echo disabled; exit 1 ;;
              enable) touch "\(scratch.path("enabled").path)"; exit 0 ;;
              disable) rm -f "\(scratch.path("enabled").path)"; exit 0 ;;
            esac
            exit 0

            """
        try Data(text.utf8).write(to: script)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    }
}

/// Issue 15: `sync --background` (the timer's pass) and `background enable|disable|status`.
@Suite("Background sync: the timer's pass and its systemd user units (issue 15)", .serialized)
struct BackgroundSyncTests {
    /// No systemd and no cron reachable, whatever this machine has.
    static let noTimer = ["JQC_SYSTEMCTL": "/nonexistent/systemctl", "JQC_CRONTAB": "/nonexistent/crontab"]

    @Test("'jqc-shell --data-dir DIR sync --background' is silent on success and writes one line to jqc.log")
    func silentOnSuccess() throws {
        let world = try ShellWorld(environment: BackgroundSyncTests.noTimer)
        let (server, shell) = (world.server, world.shell)
        let localID = try shell.signIn()
        // A new notification: an interactive run would print a banner for it; the timer's pass prints nothing.
        try server.admin("POST", "/__admin/notify", ["user_id": 7, "title": "Re-check the lobby"])
        let run = try shell.runWords(["sync", "--background"])
        #expect(run.status == 0)
        #expect(run.stdout.isEmpty, "\(run.stdout)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
        let lines = shell.backgroundLog
        #expect(lines.count == 1, "\(lines)")
        #expect(
            lines.first?.contains("INFO [background] sync --background: synced: pushed 1, pulled ") == true, "\(lines)")
        let landed = (try server.state()["inspections"]?.arrayValue ?? []).filter { $0["local_id"] == .string(localID) }
        #expect(landed.count == 1)
        let status = try shell.run("background status; status; notifications")
        #expect(status.allOK, "\(status.stdout)\(status.stderr)")
        let background = status.jsonLines[0]["data"]
        #expect(background?["enabled"] == false)
        #expect(background?["timer"] == "none")
        #expect(background?["last_outcome"] == "synced")
        #expect(background?["last_run_at"]?.stringValue.flatMap(DateFormats.instant(from:)) != nil)
        #expect(status.jsonLines[1]["data"]?["background"]?["last_outcome"] == "synced")
        #expect(status.jsonLines[1]["data"]?["pending"]?["inspections"] == 0)
        let titles = status.jsonLines[2]["data"]?["notifications"]?.arrayValue?.compactMap { $0["title"]?.stringValue }
        #expect(titles?.contains("Re-check the lobby") == true, "the pass pulled it without a banner")
    }

    @Test("offline, another pass running, or signed out: skipped with exit 0, silent, one log line each")
    func skippedForNormalReasons() throws {
        let world = try ShellWorld(environment: BackgroundSyncTests.noTimer)
        let (server, data, shell) = (world.server, world.data, world.shell)
        try shell.signIn(submitting: false)
        func background(_ expected: String, _ sentence: String) throws {
            let before = shell.backgroundLog.count
            let run = try shell.runWords(["sync", "--background"])
            #expect(run.status == 0, "\(expected): \(run.stderr)")
            #expect(run.stdout.isEmpty && run.stderr.isEmpty, "\(expected): \(run.stdout)\(run.stderr)")
            let added = Array(shell.backgroundLog.dropFirst(before))
            #expect(added.count == 1, "\(expected): \(added)")
            #expect(
                added.first?.contains("INFO [background] sync --background: skipped: \(sentence) (\(expected),")
                    == true, "\(added)")
            #expect(try shell.run("background status").jsonLines.first?["data"]?["last_outcome"] == .string(expected))
        }
        // Airplane mode: no request leaves, not even the session check.
        try #require(try shell.run("offline").allOK)
        let mark = server.requests.count
        try background(
            "offline", "You are offline (airplane mode): type 'online' to reconnect. Everything stays queued.")
        #expect(server.requests.count == mark, "\(server.requests.dropFirst(mark))")
        try #require(try shell.run("online").allOK)
        // Another process holds the pass lock.
        let other = try #require(try FileLock(url: data.path("sync.lock")).tryAcquire())
        // A deadline, not a timing: a pass that waited instead of skipping gets the lock after it, and fails the test.
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { other.release() }
        try background("busy", "Another jqc process is syncing this data directory; this automatic pass was skipped.")
        other.release()
        // Signed out.
        try #require(try shell.run("logout").allOK)
        try background("signed_out", "You are not signed in; log in to sync. Nothing was lost.")
    }

    @Test("update required or a damaged store: exit 1 with the sentence on stderr and one log line")
    func failsForWhatAPersonMustFix() throws {
        let world = try ShellWorld(environment: BackgroundSyncTests.noTimer)
        let (server, shell) = (world.server, world.shell)
        try shell.signIn(submitting: false)
        try server.admin(
            "POST", "/__admin/faults",
            ["method": "GET", "path_prefix": "/api/v1/auth/me", "mode": "status", "status": 426])
        let refused = try shell.runWords(["sync", "--background"])
        #expect(refused.status == 1)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains("error: Update required: the server no longer accepts this version of jqc."))
        let lines = shell.backgroundLog
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("ERROR [background] sync --background could not run: Update required") == true)

        let damaged = TemporaryDirectory(prefix: "jqc-background-damaged")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: damaged.path("jqc.sqlite"))
        var broken = ShellOverDirectory(directory: damaged.url, server: server.baseURL)
        broken.environment = BackgroundSyncTests.noTimer
        let run = try broken.runWords(["--server", server.baseURL.absoluteString, "sync", "--background"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: The local store file is damaged or is not a jqc database"), "\(run.stderr)")
        #expect(broken.backgroundLog.count == 1)
        #expect(
            broken.backgroundLog.first?.contains("ERROR [background] sync --background could not run: The local store")
                == true)
    }

    @Test("an explicit sync says another pass is running, waits for it, then syncs")
    func explicitSyncWaits() throws {
        let world = try ShellWorld()
        let (data, shell) = (world.data, world.shell)
        try #require(try shell.run("login alex --password inspect-demo").allOK)
        let other = try #require(try FileLock(url: data.path("sync.lock")).tryAcquire())
        let child = try shell.start("sync")
        // A deadline, not a timing: a child that never says it waits is killed, and the test fails.
        let watchdog = DispatchWorkItem { kill(child.process.processIdentifier, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let said = child.readErrorLine() ?? ""
        #expect(
            said == "Another sync pass is running in another jqc process (process \(getpid())); waiting for it to end…")
        other.release()
        let end = child.finish()
        watchdog.cancel()
        #expect(end.status == 0, "\(end.stdout)\(end.stderr)")
        #expect(end.stdout.contains(#""ok":true,"command":"sync""#))
    }

    @Test("without systemd, 'background enable' installs nothing and prints the unit files and a crontab line")
    func enableWithoutSystemd() throws {
        let parent = TemporaryDirectory(prefix: "jqc-background")
        let data = parent.path("field data 100%")  // a space and a percent sign, quoted for systemd and cron
        let config = TemporaryDirectory(prefix: "jqc-config")
        let environment = BackgroundSyncTests.noTimer.merging(["XDG_CONFIG_HOME": config.url.path]) { _, new in new }
        let shell = ShellHarness()
        let json = try shell.run(
            ["--data-dir", data.path, "--json", "-c", "background enable"], environment: environment, dataDir: false)
        #expect(json.allOK, "\(json.stdout)\(json.stderr)")
        let reply = try #require(json.jsonLines.first?["data"])
        #expect(reply["installed"] == false)
        #expect(reply["timer"] == "none")
        let binary = ShellHarness.binary.standardizedFileURL.resolvingSymlinksInPath().path
        let crontab = try #require(reply["crontab_line"]?.stringValue)
        #expect(
            crontab
                == "*/5 * * * * '\(binary)' '--data-dir' '\(data.path.replacingOccurrences(of: "%", with: "\\%"))' 'sync' "
                + "'--background' >/dev/null 2>&1 # jqc-sync \(data.path.replacingOccurrences(of: "%", with: "\\%"))")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: config.url.path)) == [])
        let human = try shell.run(
            ["--data-dir", data.path, "-c", "background enable"], environment: environment, dataDir: false)
        #expect(human.status == 0)
        #expect(human.stdout.contains("systemd's user manager cannot be reached here"))
        #expect(human.stdout.contains(crontab))
        #expect(human.stdout.contains("OnCalendar=*:0/5"))
        let serviceText = try #require(reply["service_file"]?.stringValue)
        #expect(
            serviceText.contains(
                #"ExecStart="\#(binary)" "--data-dir" "\#(data.path.replacingOccurrences(of: "%", with: "%%"))" "sync" "--background""#
            ))
    }

    @Test(
        "the unit files pass systemd-analyze verify, for a data directory and a CA file with a space and a percent sign",
        .enabled(
            if: systemdAnalyzeInstalled,
            "systemd-analyze is not installed (Debian: apt-get install systemd); the other tests check the units line by line"
        ))
    func unitsPassSystemdAnalyze() throws {
        let parent = TemporaryDirectory(prefix: "jqc-background")
        let data = parent.path("field data 100%zone")  // %z is no systemd specifier: unescaped, verify refuses it
        let caFile = parent.path("our CA 50%.pem")
        let result = try ShellHarness().run(
            ["--data-dir", data.path, "--ca-file", caFile.path, "--json", "-c", "background enable"],
            environment: BackgroundSyncTests.noTimer, dataDir: false)
        let reply = try #require(result.jsonLines.first?["data"])
        let units = TemporaryDirectory(prefix: "jqc-units")
        let service = units.path(try #require(reply["service"]?.stringValue))
        let timer = units.path(try #require(reply["timer_unit"]?.stringValue))
        try Data((reply["service_file"]?.stringValue ?? "").utf8).write(to: service)
        try Data((reply["timer_file"]?.stringValue ?? "").utf8).write(to: timer)
        let verdict = try #require(verifyUnits([service, timer]))
        #expect(verdict.status == 0, "\(verdict.output)")
        #expect(verdict.output.isEmpty, "\(verdict.output)")
    }

    @Test(
        "with systemd, 'background enable' writes valid units, enables the timer, and 'disable' removes them",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/bin/sh"), "the stand-in systemctl is a sh script"))
    func enableWithSystemd() throws {
        let systemctl = try FakeSystemctl()
        let data = TemporaryDirectory(prefix: "jqc-background")
        let config = TemporaryDirectory(prefix: "jqc-config")
        let environment = [
            "JQC_SYSTEMCTL": systemctl.script.path, "JQC_CRONTAB": "/nonexistent/crontab",
            "XDG_CONFIG_HOME": config.url.path,
        ]
        let shell = ShellHarness(dataDirectory: data)
        // Options the timer's runs need too are passed on: a private CA (made absolute) and plain http.
        let on = try shell.run(
            [
                "--ca-file", "ca.pem", "--allow-insecure-http", "--json", "-c",
                "background enable; background status; status",
            ],
            environment: environment)
        #expect(on.allOK, "\(on.stdout)\(on.stderr)")
        let reply = try #require(on.jsonLines.first?["data"])
        #expect(reply["installed"] == true)
        let serviceName = try #require(reply["service"]?.stringValue)
        let timerName = try #require(reply["timer_unit"]?.stringValue)
        #expect(serviceName.hasPrefix("jqc-sync-") && serviceName.hasSuffix(".service"))
        let units = config.url.appendingPathComponent("systemd/user")
        let service = try String(contentsOf: units.appendingPathComponent(serviceName), encoding: .utf8)
        let timer = try String(contentsOf: units.appendingPathComponent(timerName), encoding: .utf8)
        let binary = ShellHarness.binary.standardizedFileURL.resolvingSymlinksInPath().path
        #expect(service.contains("Type=oneshot\n"))
        let caFile = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("ca.pem")
            .path
        let execStart =
            #"ExecStart="\#(binary)" "--data-dir" "\#(data.url.standardizedFileURL.path)" "--ca-file" "\#(caFile)" "#
            + #""--allow-insecure-http" "sync" "--background""#
        #expect(service.contains(execStart), "\(service)")
        #expect(timer.contains("OnCalendar=*:0/5\nPersistent=true\nUnit=\(serviceName)\n"))
        #expect(timer.contains("[Install]\nWantedBy=timers.target\n"))
        #expect(
            systemctl.calls == [
                "--user show-environment", "--user daemon-reload", "--user enable --now \(timerName)",
                "--user is-enabled \(timerName)", "--user is-enabled \(timerName)",
            ])
        #expect(on.jsonLines[1]["data"]?["enabled"] == true)
        #expect(on.jsonLines[1]["data"]?["timer"] == "systemd")
        #expect(on.jsonLines[2]["data"]?["background"]?["timer"] == "systemd")
        // The installed files are exactly the units 'background enable' prints (systemd-analyze checks those).
        #expect(service == reply["service_file"]?.stringValue)
        #expect(timer == reply["timer_file"]?.stringValue)
        let off = try shell.run(["--json", "-c", "background disable; background status"], environment: environment)
        #expect(off.allOK, "\(off.stdout)\(off.stderr)")
        #expect(off.jsonLines[0]["data"]?["removed"] == true)
        #expect(off.jsonLines[1]["data"]?["timer"] == "none")
        #expect(systemctl.calls.contains("--user disable --now \(timerName)"))
        #expect(!FileManager.default.fileExists(atPath: units.appendingPathComponent(timerName).path))
        #expect(!FileManager.default.fileExists(atPath: units.appendingPathComponent(serviceName).path))
    }

    @Test("a crontab line for this data directory counts as background sync on (timer: cron)")
    func cronLineIsRecognised() throws {
        let data = TemporaryDirectory(prefix: "jqc-background")
        let shell = ShellHarness(dataDirectory: data)
        let enable = try shell.run(["--json", "-c", "background enable"], environment: BackgroundSyncTests.noTimer)
        let line = try #require(enable.jsonLines.first?["data"]?["crontab_line"]?.stringValue)
        let scratch = TemporaryDirectory(prefix: "jqc-fake-cron")
        try Data("MAILTO=\"\"\n\(line)\n".utf8).write(to: scratch.path("table"))
        let crontab = scratch.path("crontab")
        try Data("#!/bin/sh\ncat '\(scratch.path("table").path)'\n".utf8).write(to: crontab)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: crontab.path)
        let status = try shell.run(
            ["--json", "-c", "background status"],
            environment: ["JQC_SYSTEMCTL": "/nonexistent/systemctl", "JQC_CRONTAB": crontab.path])
        #expect(status.jsonLines.first?["data"]?["enabled"] == true)
        #expect(status.jsonLines.first?["data"]?["timer"] == "cron")
    }

    @Test("words after the options run as one command, quotes and semicolons kept")
    func commandAfterOptions() throws {
        let result = try ShellHarness().run(["--json", "echo", "a b", "c;d", "it's"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.jsonLines.first?["data"]?["words"] == ["a b", "c;d", "it's"])
        let both = try ShellHarness().run(["-c", "echo x", "echo"])
        #expect(both.status == 64)
    }
}
