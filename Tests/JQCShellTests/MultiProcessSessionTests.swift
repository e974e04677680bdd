import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// Issue 15: one data directory, many processes. Every count comes from the dev server's request log
/// (`server.log`) and `/__admin/state`.
@Suite("One data directory, many jqc-shell processes (issue 15)", .serialized)
struct MultiProcessSessionTests {
    static let newInspection = "start --template 3 --facility 11 --area 111; answer 2 4; submit"

    /// `make test` runs 10 rounds; `make chaos` many more (JQC_PROCESS_ROUNDS).
    static var rounds: Int { ProcessInfo.processInfo.environment["JQC_PROCESS_ROUNDS"].flatMap(Int.init) ?? 10 }

    /// Nothing lost: after logging in again and syncing, nothing is pending and `localID` landed exactly once.
    static func expectLandsAfterLogin(_ shell: ShellOverDirectory, _ server: DevServerProcess, _ localID: String) throws
    {
        let back = try shell.run("login alex --password inspect-demo; sync; status")
        #expect(back.allOK, "\(back.stdout)\(back.stderr)")
        #expect(back.jsonLines[2]["data"]?["pending"]?["inspections"] == 0)
        let landed = (try server.state()["inspections"]?.arrayValue ?? []).filter { $0["local_id"] == .string(localID) }
        #expect(landed.count == 1)
    }

    @Test(
        "processes syncing one data directory after expire-tokens: all succeed, one refresh per expiry, never signed out, nothing POSTed twice",
        arguments: [2, 5])
    func parallelSyncAfterExpiry(processes: Int) throws {
        let world = try ShellWorld()
        let (server, data, shell) = (world.server, world.data, world.shell)
        try shell.signIn(submitting: false)
        var localIDs: [String] = []
        for round in 0..<MultiProcessSessionTests.rounds {
            let made = try shell.run(MultiProcessSessionTests.newInspection)
            try #require(made.allOK, "\(made.stdout)\(made.stderr)")
            localIDs.append(made.jsonLines[0]["data"]?["local_id"]?.stringValue ?? "")
            let refreshes = server.count("POST /api/v1/auth/refresh")
            try server.admin("POST", "/__admin/expire-tokens")
            let children = try (0..<processes).map { _ in try shell.start("sync") }
            let results = children.map { $0.finish() }
            for result in results {
                #expect(result.status == 0, "round \(round): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.contains(#""ok":true,"command":"sync""#), "round \(round): \(result.stdout)")
            }
            #expect(server.count("POST /api/v1/auth/refresh") == refreshes + 1, "round \(round)")
            #expect(
                FileManager.default.fileExists(atPath: data.path("credentials").path), "signed out after round \(round)"
            )
        }
        let posts = server.requests.filter { $0.contains("[devserver] POST /api/v1/inspections ") }
        #expect(posts.count == localIDs.count, "\(posts)")
        #expect(posts.allSatisfy { $0.contains("/api/v1/inspections 201 ") }, "a 200 is a duplicate POST: \(posts)")
        let landed = try server.state()["inspections"]?.arrayValue ?? []
        for id in localIDs { #expect(landed.filter { $0["local_id"] == .string(id) }.count == 1, "\(id)") }
        let final = try shell.run("whoami; status")
        #expect(final.jsonLines.first?["data"]?["signed_in"] == true)
        let pending = final.jsonLines.last?["data"]?["pending"]?.objectValue ?? [:]
        #expect(Set(["photos", "inspections", "issues"]).isSubset(of: pending.keys))
        #expect(pending.values.allSatisfy { $0 == 0 }, "\(pending)")
        print(
            "chaos: \(MultiProcessSessionTests.rounds) rounds of \(processes) processes after expire-tokens: "
                + "\(server.count("POST /api/v1/auth/refresh")) refreshes, \(posts.count) inspection POSTs for "
                + "\(localIDs.count) inspections")
    }

    @Test("five processes starting the embedded server on a fresh data directory at once all sign in and sync")
    func embeddedServersStartTogether() throws {
        let data = TemporaryDirectory(prefix: "jqc-embedded-many")
        let children = try (0..<5).map { _ in
            try ChildProcess(
                ShellHarness.binary,
                ["--data-dir", data.url.path, "--json", "-c", "login alex --password inspect-demo; sync"],
                environment: ["NO_COLOR": "1"])
        }
        for result in children.map({ $0.finish() }) {
            #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
            #expect(!result.stderr.contains("could not start"), "\(result.stderr)")
        }
        // Whichever login was stored last, every later run's embedded server accepts it (one signing secret).
        let later = try ShellHarness(dataDirectory: data).run(["--json", "-c", "sync; whoami"])
        #expect(later.allOK, "\(later.stdout)\(later.stderr)")
        #expect(later.jsonLines.last?["data"]?["signed_in"] == true)
    }

    @Test(
        "a refresh refused with 400, 401 or 403 signs out once, sends nothing more, and keeps the pending inspection untried",
        arguments: [400, 401, 403])
    func refusedRefresh(status: Int) throws {
        let world = try ShellWorld()
        let (server, data, shell) = (world.server, world.data, world.shell)
        let localID = try shell.signIn()
        try server.admin("POST", "/__admin/expire-tokens")
        try server.admin(
            "POST", "/__admin/faults",
            [
                "method": "POST", "path_prefix": "/api/v1/auth/refresh", "mode": "status",
                "status": .int(Int64(status)), "count": 5,
            ])
        let mark = server.requests.count
        let refused = try shell.run("sync")
        #expect(refused.status == 1)
        #expect(refused.jsonLines.first?["error"] == "You are not signed in; log in to sync. Nothing was lost.")
        #expect(
            refused.stderr.contains(
                "warning: The server refused the saved sign-in (HTTP \(status)), so you are signed out"))
        let sent = server.requests.dropFirst(mark).map { $0.components(separatedBy: "[devserver] ").last ?? $0 }
        #expect(sent.count == 2, "\(sent)")
        #expect(sent.first?.hasPrefix("GET /api/v1/auth/me 401") == true, "\(sent)")
        #expect(sent.last?.hasPrefix("POST /api/v1/auth/refresh \(status)") == true, "\(sent)")
        #expect(!FileManager.default.fileExists(atPath: data.path("credentials").path))
        // Later runs send nothing that needs the session until login; the inspection is pending, not failed.
        let later = try shell.run("status; whoami; inspections")
        #expect(later.allOK, "\(later.stdout)\(later.stderr)")
        #expect(later.jsonLines[0]["data"]?["signed_in"] == false)
        #expect(later.jsonLines[0]["data"]?["pending"]?["inspections"] == 1)
        #expect(later.jsonLines[0]["data"]?["failed"] == [])
        let quiet = server.requests.dropFirst(mark + 2).filter { !$0.contains("GET /api/v1/health ") }
        #expect(quiet.isEmpty, "\(quiet)")
        try MultiProcessSessionTests.expectLandsAfterLogin(shell, server, localID)
    }

    @Test(
        "tokens that live 30 s or 90 s are not refreshed before every request: refreshes ≤ passes",
        arguments: [30, 90])
    func shortTokens(seconds: Int) throws {
        let world = try ShellWorld(accessTTL: seconds)
        let (server, shell) = (world.server, world.shell)
        let first = try shell.run("login alex --password inspect-demo; sync; sync; sync; sync; sync")
        #expect(first.allOK, "\(first.stdout)\(first.stderr)")
        var passes = 5
        for _ in 0..<3 {
            let more = try shell.run("sync")
            #expect(more.allOK, "\(more.stdout)\(more.stderr)")
            passes += 1
        }
        let refreshes = server.count("POST /api/v1/auth/refresh")
        let requests = server.requests.count
        #expect(refreshes <= passes, "\(refreshes) refreshes for \(passes) passes and \(requests) requests")
        #expect(server.count("GET /api/v1/facilities 401") == 0)
    }

    @Test(
        "disk full while the rotated pair is saved: said at once, this run stays signed in, the next run says why it is signed out; nothing lost",
        .enabled(if: TinyFilesystem.isAvailable, "mounting a 4 MB tmpfs needs root")
    )
    func diskFullDuringRotation() throws {
        let world = try FullDisk()
        let (server, disk, directory, shell, localID) = (
            world.server, world.disk, world.directory, world.shell, world.localID
        )
        let pulls = server.count("GET /api/v1/inspections 200")
        let full = try shell.run("whoami; history")
        #expect(full.allOK, "\(full.stdout)\(full.stderr)")
        #expect(full.jsonLines.first?["data"]?["signed_in"] == true)
        let credentials = directory.appendingPathComponent("credentials").path
        #expect(
            full.stderr.contains(
                "warning: Could not save \(credentials): the disk is full. Free some space and try again. "
                    + "You stay signed in for this run"), "\(full.stderr)")
        #expect(full.stderr.contains("warning: The new sign-in is still not saved"), "\(full.stderr)")
        #expect(server.count("POST /api/v1/auth/refresh") == 1)
        #expect(
            server.count("GET /api/v1/inspections 200") == pulls + 1, "history went out with the pair held in memory")
        disk.free()
        // The stored refresh token is the one the server rotated away: the next run is signed out, with why.
        let later = try shell.run("sync")
        #expect(later.status == 1)
        #expect(
            later.stderr.contains("warning: The server refused the saved sign-in (HTTP 401), so you are signed out"))
        try MultiProcessSessionTests.expectLandsAfterLogin(shell, server, localID)
    }

    @Test(
        "disk full during rotation, space freed while the run goes on: the pair is saved then, and the next run is signed in",
        .enabled(if: TinyFilesystem.isAvailable, "mounting a 4 MB tmpfs needs root")
    )
    func diskFreedDuringTheRun() throws {
        let world = try FullDisk()
        let (server, disk, directory, shell) = (world.server, world.disk, world.directory, world.shell)
        // Commands on stdin, one at a time: free the disk between them.
        let child = try ChildProcess(
            ShellHarness.binary,
            ["--server", server.baseURL.absoluteString, "--data-dir", directory.path, "--json"],
            environment: ["NO_COLOR": "1"])
        child.write("whoami\n")
        let whoami = try JSONValue.parse(child.readLine() ?? "")
        #expect(whoami["data"]?["signed_in"] == true)
        #expect(child.readErrorLine()?.hasPrefix("warning: Could not save ") == true)
        disk.free()
        child.write("history\n")
        let history = try JSONValue.parse(child.readLine() ?? "")
        #expect(history["ok"] == true)
        let end = child.finish()
        #expect(end.status == 0)
        #expect(!end.stderr.contains("still not saved"), "\(end.stderr)")
        let later = try shell.run("whoami; sync; status")
        #expect(later.allOK, "\(later.stdout)\(later.stderr)")
        #expect(later.jsonLines[2]["data"]?["pending"]?["inspections"] == 0)
        #expect(server.count("POST /api/v1/auth/refresh") == 1, "the later run used the saved pair")
    }
}

/// A data directory on a 4 MB tmpfs, signed in with one pending inspection, the access token expired on the
/// server, and the disk then filled: the next refresh cannot save its new pair.
private struct FullDisk {
    struct Unavailable: Error {}

    let server: DevServerProcess
    let disk: TinyFilesystem
    let directory: URL
    let shell: ShellOverDirectory
    let localID: String

    init() throws {
        server = try DevServerProcess()
        guard let disk = TinyFilesystem() else { throw Unavailable() }
        self.disk = disk
        directory = disk.mountPoint.appendingPathComponent("jqc")
        shell = ShellOverDirectory(directory: directory, server: server.baseURL)
        localID = try shell.signIn()
        try server.admin("POST", "/__admin/expire-tokens")
        disk.fill()
    }
}
