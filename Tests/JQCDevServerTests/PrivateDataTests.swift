import Foundation
import JQCKit
import JQCTestSupport
import Testing

@testable import JQCDevServer

/// Issue 19: the data directory holds the JWT signing secret, so nobody but its owner may read it, and a
/// directory others can write is refused.
@Suite("Private data directory")
struct PrivateDataTests {
    var binary: URL { TestPaths.productsDirectory.appendingPathComponent("jqc-devserver") }

    /// `jqc-devserver ARGS` started by `/bin/sh` under `umask 022` (the umask is process-wide: it is set in
    /// the child only, never in this test process).
    func startUnderUmask022(_ arguments: [String]) throws -> ChildProcess {
        try ChildProcess(
            URL(fileURLWithPath: "/bin/sh"), ["-c", "umask 022 && exec \"$0\" \"$@\"", binary.path] + arguments)
    }

    /// Every entry under `root` (root included) with its permission bits, by path relative to `root`.
    func modes(under root: URL) throws -> [String: (mode: mode_t, isDirectory: Bool)] {
        var found: [String: (mode: mode_t, isDirectory: Bool)] = [:]
        func visit(_ path: String, _ relative: String) throws {
            var info = stat()
            guard lstat(path, &info) == 0 else { throw TestFailure("\(path) cannot be read.") }
            let isDirectory = info.st_mode & S_IFMT == S_IFDIR
            found[relative] = (info.st_mode & 0o7777, isDirectory)
            guard isDirectory else { return }
            for name in try FileManager.default.contentsOfDirectory(atPath: path) {
                try visit(path + "/" + name, relative.isEmpty ? name : relative + "/" + name)
            }
        }
        try visit(root.path, "")
        return found
    }

    @Test("under umask 022 the data directory and every folder in it are 0700, every file 0600")
    func modesUnderUmask() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-modes")
        let data = scratch.path("nested/data")
        let child = try startUnderUmask022([
            "--port", "0", "--admin", "--data-dir", data.path, "--today", "2026-07-14",
        ])
        defer { child.kill(SIGTERM) }
        let line = try #require(child.readLine())
        let base = String(line.dropFirst("listening on ".count))
        // Writes: a login (refresh token row, WAL), an upload (photos folder and file), a state read.
        let harness = CurlClient(base: base, scratch: scratch)
        let token = try #require(harness.login("alex"))
        let photo = scratch.path("photo.jpg")
        try PlaceholderJPEG.data.write(to: photo)
        #expect(harness.upload(photo, token: token) == 200)
        child.kill(SIGTERM)

        let found = try modes(under: data)
        let files = found.filter { !$0.value.isDirectory }.keys.sorted()
        #expect(files.contains("server.sqlite"))
        #expect(files.contains("server.log"))
        #expect(files.contains { $0.hasPrefix("uploads/issue_photos/") && $0.hasSuffix(".jpg") })
        #expect(files.contains { $0.hasPrefix("uploads/inspection_photos/seed-") })
        for (path, entry) in found {
            #expect(entry.mode == (entry.isDirectory ? 0o700 : 0o600), "\(path) is \(PrivateFiles.octal(entry.mode))")
        }
        // The parent the server made for it too.
        #expect(try modes(under: scratch.path("nested"))[""]?.mode == 0o700)
    }

    @Test("while it runs, the store's -wal and -shm files are 0600 under umask 022")
    func walModes() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-wal")
        let data = scratch.path("data")
        let child = try startUnderUmask022(["--port", "0", "--data-dir", data.path])
        defer { child.kill(SIGTERM) }
        let line = try #require(child.readLine())
        let harness = CurlClient(base: String(line.dropFirst("listening on ".count)), scratch: scratch)
        _ = try #require(harness.login("alex"))
        let found = try modes(under: data)
        let wal = try #require(found["server.sqlite-wal"])
        let shm = try #require(found["server.sqlite-shm"])
        #expect(wal.mode == 0o600)
        #expect(shm.mode == 0o600)
        #expect(found["server.sqlite"]?.mode == 0o600)
    }

    @Test("a data directory others can write is refused at start with a sentence and exit status 1")
    func writableByOthers() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-unsafe")
        for mode: mode_t in [0o777, 0o770, 0o702] {
            let data = scratch.path("data-\(PrivateFiles.octal(mode))")
            #expect(mkdir(data.path, 0o700) == 0)
            #expect(chmod(data.path, mode) == 0)
            let child = try ChildProcess(binary, ["--port", "0", "--data-dir", data.path])
            if let line = child.readLine() {  // it started: stop it rather than wait for it
                child.kill(SIGTERM)
                Issue.record("The server started on a \(PrivateFiles.octal(mode)) directory: \(line)")
            }
            let result = child.finish()
            #expect(result.status == 1)
            #expect(result.stdout == "")
            #expect(
                result.stderr
                    == "jqc-devserver: devserver.unsafe_data_directory: The data directory \(data.path) can be "
                    + "written by other users (mode \(PrivateFiles.octal(mode))), who could read or replace the "
                    + "server's signing secret; run 'chmod 700 \(data.path)' or choose another --data-dir.\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: data.path) == [])
        }
    }

    @Test("a data directory of another user is refused; one others can only read is made 0700")
    func ownerAndReadable() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-devserver-owner")
        let readable = scratch.path("readable")
        #expect(mkdir(readable.path, 0o700) == 0)
        #expect(chmod(readable.path, 0o755) == 0)
        let server = DevServer(configuration: DevServerConfiguration(dataDirectory: readable, seed: .none))
        _ = try server.start()
        server.stop()
        #expect(try modes(under: readable)[""]?.mode == 0o700)

        // Only root can give a folder away; elsewhere the ownership check is covered by the same guard.
        guard geteuid() == 0 else { return }
        let foreign = scratch.path("foreign")
        #expect(mkdir(foreign.path, 0o700) == 0)
        #expect(chown(foreign.path, 65_534, 65_534) == 0)
        let refused = DevServer(configuration: DevServerConfiguration(dataDirectory: foreign, seed: .none))
        #expect {
            try refused.start()
        } throws: { error in
            (error as? DevServerError)?.kind == .unsafeDataDirectory
                && (error as? DevServerError)?.message
                    == "The data directory \(foreign.path) belongs to another user (uid 65534); use a folder of your "
                    + "own with --data-dir."
        }
    }

    @Test("a token signed with any secret but the server's own is refused by /auth/me")
    func forgedToken() throws {
        let server = try DirectServer()
        let claims: JSONValue = [
            "sub": "2", "uid": 2, "iat": .int(Int64(Date().timeIntervalSince1970)),
            "exp": .int(Int64(Date().timeIntervalSince1970) + 3_600), "gen": 1_000, "jti": "forged",
        ]
        let forged = ServerCrypto.signJWT(claims: claims, secret: ServerCrypto.randomBytes(32))
        let refused = server.request("GET", "/auth/me", token: forged)
        #expect(refused.status == 401)
        #expect(refused.json?["error"] == "The access token is not valid; sign in again.")
        // The same claims under the store's secret pass: the refusal is the signature's alone.
        let genuine = ServerCrypto.signJWT(claims: claims, secret: server.store.secret)
        let accepted = server.request("GET", "/auth/me", token: genuine)
        #expect(accepted.status == 200)
        #expect(accepted.json?["data"]?["username"] == "dana")
    }
}

/// A few requests through `/usr/bin/curl` against a server known only by its base URL.
struct CurlClient {
    let base: String
    let scratch: TemporaryDirectory

    /// Runs curl; returns the HTTP status and the body.
    func curl(_ arguments: [String]) -> (status: Int, body: Data) {
        let output = scratch.path("curl-\(UUID().uuidString)")
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", output.path, "-w", "%{http_code}", "--max-time", "30"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch { return (0, Data()) }
        let code = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let body = (try? Data(contentsOf: output)) ?? Data()
        try? FileManager.default.removeItem(at: output)
        return (Int(String(decoding: code, as: UTF8.self)) ?? 0, body)
    }

    /// Signs in with the demo password; the access token, or `nil`.
    func login(_ username: String) -> String? {
        let reply = curl([
            "-X", "POST", base + "/api/v1/auth/login", "-H", "Content-Type: application/json", "--data-binary",
            #"{"username":"\#(username)","password":"inspect-demo"}"#,
        ])
        return (try? JSONValue.parse(reply.body))?["data"]?["access_token"]?.stringValue
    }

    /// Uploads `file` as an issue photo; the status.
    func upload(_ file: URL, token: String) -> Int {
        curl([
            "-X", "POST", base + "/api/v1/photos/upload", "-F", "file=@\(file.path);type=image/jpeg",
            "-F", "entity_type=issue", "-H", "Authorization: Bearer \(token)",
        ]).status
    }
}
