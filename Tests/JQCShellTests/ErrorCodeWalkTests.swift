import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// One failure path: the script run (its last command is the one that fails), the failing command's name and
/// the code its `--json` error line must carry.
struct FailurePath: Sendable, CustomTestStringConvertible {
    /// `jqc-shell` options before `--json -c` (e.g. `--server URL`).
    let options: [String]
    /// The `-c` script; `{dir}` is replaced by a scratch folder holding `text.jpg` (text) and `bad.json`.
    let script: String
    /// The failing command's name as the line reports it.
    let command: String
    /// The code expected.
    let code: String

    init(_ script: String, _ command: String, _ code: String, options: [String] = []) {
        self.options = options
        self.script = script
        self.command = command
        self.code = code
    }

    var testDescription: String { "\(script) → \(code)" }
}

/// A scratch folder with the bad inputs the paths use: a text file named `text.jpg` and a JSON file cut short.
private func badInputs() throws -> TemporaryDirectory {
    let scratch = TemporaryDirectory(prefix: "jqc-error-walk")
    try Data("just text\n".utf8).write(to: scratch.path("text.jpg"))
    try Data(#"{"schema": ["#.utf8).write(to: scratch.path("bad.json"))
    return scratch
}

/// Runs `path` with `harness` and checks its last line: exit status 1, `ok:false`, the command, a sentence,
/// and the code expected, which Docs/SHELL.md documents.
private func walk(_ path: FailurePath, harness: ShellHarness, scratch: TemporaryDirectory, documented: Set<String>)
    throws
{
    let script = path.script.replacingOccurrences(of: "{dir}", with: scratch.url.path)
    let result = try harness.run(path.options + ["--json", "-c", script])
    #expect(result.status == 1, "\(path.script): \(result.stdout) \(result.stderr)")
    let line = try #require(result.jsonLines.last, "\(path.script): no JSON line; stderr \(result.stderr)")
    #expect(line["ok"] == false, "\(line)")
    #expect(line["command"]?.stringValue == path.command, "\(line)")
    #expect(line["error"]?.stringValue?.isEmpty == false, "\(line)")
    let code = try #require(line["code"]?.stringValue, "\(path.script): the error line has no code: \(line)")
    #expect(code == path.code, "\(path.script): \(line)")
    #expect(documented.contains(code), "\(code) is not in Docs/SHELL.md \"Error codes\"")
}

@Suite("jqc-shell --json error lines carry a documented code on every failure path (issue 16)")
struct ErrorCodeWalkTests {
    /// Paths that need no sign-in: bad input, offline tools, a signed-out store, unreachable or refused servers.
    static let signedOut: [FailurePath] = [
        FailurePath("frobnicate", "frobnicate", "shell.unknown_command"),
        FailurePath("issue show", "issue show", "shell.usage"),
        FailurePath("help frobnicate", "help", "shell.usage"),
        FailurePath("start --template x", "start", "shell.usage"),
        FailurePath(#"echo "open"#, "echo", "shell.syntax"),
        FailurePath("score {dir}/missing.json", "score", "shell.file_unreadable"),
        FailurePath("score {dir}/bad.json", "score", "forms.malformed_schema"),
        FailurePath("photos recompress {dir}/text.jpg {dir}/out.jpg", "photos recompress", "jpeg.not_jpeg"),
        FailurePath("photos recompress {dir}/missing.jpg {dir}/out.jpg", "photos recompress", "jpeg.read_failed"),
        FailurePath("answer 2 4", "answer", "shell.no_inspection_open"),
        FailurePath("issue show 999", "issue show", "issues.not_found"),
        FailurePath("open nosuch", "open", "inspections.not_found"),
        FailurePath("inspection discard abc", "inspection discard", "shell.confirmation_needed"),
        FailurePath("photo retry 00000000-0000-0000-0000-000000000000", "photo retry", "photos.not_found"),
        FailurePath("sync", "sync", "sync.signed_out"),
        FailurePath("offline; sync", "sync", "sync.offline"),
        FailurePath("dashboard", "dashboard", "notifications.no_dashboard_stats"),
        FailurePath("login alex --password wrong", "login", "network.unauthorized"),
        FailurePath(
            "login alex --password inspect-demo", "login", "network.offline",
            options: ["--server", "http://127.0.0.1:1"]),
        FailurePath(
            "login alex --password inspect-demo", "login", "network.insecure_http",
            options: ["--server", "http://192.0.2.1:9"]),
    ]

    @Test("signed out, offline and bad input", arguments: signedOut)
    func signedOutPaths(_ path: FailurePath) throws {
        let documented = Set(try ErrorCodeTable.documented())
        try walk(path, harness: ShellHarness(), scratch: try badInputs(), documented: documented)
    }

    /// Paths run in order over one signed-in, synced data directory (the offline ones last).
    static let signedIn: [FailurePath] = [
        FailurePath("start --template 999 --facility 11 --area 112", "start", "inspections.unknown_template"),
        FailurePath("start --template 3 --facility 999", "start", "inspections.unknown_facility"),
        FailurePath("start --template 3 --facility 11 --area 999", "start", "inspections.unknown_area"),
        FailurePath(#"issue new --facility 21 --area 212 urgent "Leak""#, "issue new", "issues.invalid_value"),
        FailurePath(#"issue new --facility 999 medium "Leak""#, "issue new", "issues.unknown_facility"),
        FailurePath("start --schedule 999", "start", "scheduling.not_found"),
        FailurePath("start --follow-up 999", "start", "followups.not_found"),
        FailurePath("issue status 48 weird", "issue status", "issues.invalid_value"),
        FailurePath("issue retry 48", "issue retry", "issues.invalid_state"),
        FailurePath("server primary", "server", "shell.confirmation_needed"),
        FailurePath("start --template 3 --facility 11 --area 112; submit", "submit", "inspections.required_missing"),
        FailurePath("answer nosuch 3", "answer", "inspections.invalid_answer"),
        FailurePath("photo 2 {dir}/missing.jpg", "photo", "shell.file_unreadable"),
        FailurePath("flag HIGH Leak --photo {dir}/text.jpg", "flag", "issues.photo"),
        FailurePath("schedule-follow-up 99999 2030-01-01", "schedule-follow-up", "scheduling.rejected"),
        FailurePath("offline; issue comments 48", "issue comments", "issues.server"),
        FailurePath("history", "history", "network.airplane_mode"),
        FailurePath("schedule-follow-up 99999 2030-01-01", "schedule-follow-up", "scheduling.offline"),
    ]

    @Test("signed in against the dev server: refusals, bad values, online-only commands offline")
    func signedInPaths() throws {
        let documented = Set(try ErrorCodeTable.documented())
        let harness = ShellHarness()
        let scratch = try badInputs()
        let login = try harness.run(["--json", "-c", "login alex --password inspect-demo; sync"])
        #expect(login.status == 0, "\(login.stderr)")
        for path in Self.signedIn { try walk(path, harness: harness, scratch: scratch, documented: documented) }
    }

    @Test("human output is unchanged: the sentence after error: on stderr, and no code")
    func humanOutput() throws {
        let result = try ShellHarness().run(["-c", "issue show 999"])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.contains("error: There is no issue 999 on this device; see 'issues --all'.\n"))
        #expect(!result.stderr.contains("issues.not_found"))
    }
}
