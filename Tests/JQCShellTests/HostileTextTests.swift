import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// Terminal-safe human output (STYLE.md item 18, issue 14): the dev server is seeded with hostile text in every
/// server-provided string — a screen clear, an OSC 52 clipboard write, CR, BEL, a right-to-left override and a
/// NUL — and every command's human output, with `--color always` and `never`, must carry no control byte but
/// LF (and, with `always`, our own SGR colours).
@Suite("Hostile server strings never reach the terminal raw")
struct HostileTextTests {
    /// What is appended to every server string (NUL last: a store may cut a string there).
    static let payload = "\u{1B}[2J\u{1B}]52;c;aGFjaw==\u{07}\r\u{07}\u{202E}\u{0}"
    /// How it must look once sanitised (up to the NUL).
    static let shown = #"\e[2J\e]52;c;aGFjaw==^G\r^G<U+202E>"#

    /// The keys of seed.json whose strings the server hands to the client: facility, area, template and
    /// project names, field labels and options, table headers, issue descriptions and handler texts,
    /// notification titles and bodies, schedule instructions (`notes`), notes and comments, the user's
    /// display name and role.
    static let keys: Set<String> = [
        "name", "label", "options", "col_headers", "description", "title", "body", "notes", "full_name", "role",
        "address", "comment", "follow_up_note", "verification_note", "vendor_name", "vendor_contact", "vendor_notes",
        "facility_handler_name", "facility_handler_contact", "facility_handler_notes", "result_notes",
    ]

    static func poisoned(_ value: JSONValue, key: String? = nil, payload: String = payload) -> JSONValue {
        switch value {
        case .object(let members):
            return .object(
                Dictionary(
                    uniqueKeysWithValues: members.map { ($0.key, poisoned($0.value, key: $0.key, payload: payload)) }))
        case .array(let items):
            return .array(items.map { poisoned($0, key: key, payload: payload) })
        case .string(let text) where key.map(keys.contains) == true:
            return .string(text + payload)
        default:
            return value
        }
    }

    /// The demo seed with the payload in every server string, written beside the test's files.
    static func hostileSeed(in directory: TemporaryDirectory, payload: String = payload) throws -> URL {
        let seed = TestPaths.repositoryRoot.appendingPathComponent("Tooling/JQCDevServer/Resources/seed.json")
        let json = try JSONValue.parse(try Data(contentsOf: seed))
        let url = directory.path("hostile-seed.json")
        try Data(poisoned(json, payload: payload).jsonString().utf8).write(to: url)
        return url
    }

    /// The first control byte (other than LF) or bidirectional control in `text`, after our own SGR colours are
    /// removed when `colours` is on; `nil` when there is none.
    static func firstUnsafe(_ text: String, colours: Bool) -> String? {
        var text = text
        if colours {
            for code in ["0", "1", "2", "31", "32", "33"] {
                text = text.replacingOccurrences(of: "\u{1B}[\(code)m", with: "")
            }
        }
        for (offset, scalar) in text.unicodeScalars.enumerated()
        where TerminalText.needsEscape(
            scalar, keepingLineFeeds: true)
        {
            let context = String(text.unicodeScalars.dropFirst(max(0, offset - 30)).prefix(60))
            return "U+\(String(scalar.value, radix: 16)) near \(context.debugDescription)"
        }
        return nil
    }

    @Test("no command's human output carries a control byte from the server, with colour always or never")
    func everyCommand() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-hostile")
        let server = try StandaloneServer(seed: try Self.hostileSeed(in: scratch))
        let typed = "Fleck \u{1B}[2J\u{1B}]0;title\u{07}"
        let script = [
            "login alex --password inspect-demo", "sync", "whoami", "status", "contracts", "facilities", "areas 11",
            "templates", "scheduled", "follow-ups", "notifications", "dashboard", "issues --all", "issue show 49",
            "issue comments 49 --add \"Kommentar \u{1B}[31mrot\"", "issue comments 49", "history",
            "inspection show 501", "start --template 3 --facility 11 --area 111", "form", "form --stacked",
            "answer 14 \"\(typed)\"", "answer 10 \"erste Zeile\u{0B}zweite\"", "form --stacked",
            "start --schedule 901", "form", "drafts", "inspections", "flag low \"\(typed)\"", "issues", "status",
            "echo \"\u{1B}[31mrot\" \"\u{9B}2J\"", "help", "help issue new",
        ].joined(separator: "\n")
        for colour in ["always", "never"] {
            let directory = TemporaryDirectory(prefix: "jqc-hostile-\(colour)")
            let harness = ShellHarness(dataDirectory: directory)
            let file = directory.path("script.jqc")
            try Data(script.utf8).write(to: file)
            let run = try harness.run(["--server", server.url, "--color", colour, "--script", file.path])
            #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
            #expect(Self.firstUnsafe(run.stdout, colours: colour == "always") == nil)
            #expect(Self.firstUnsafe(run.stderr, colours: colour == "always") == nil)
            // The strings were there, and are shown escaped: a facility, a label, a notification, the role.
            #expect(run.stdout.contains("Main Courthouse" + Self.shown))
            #expect(run.stdout.contains("Floors clean and dry" + Self.shown))
            #expect(run.stdout.contains("Hand dryer not working" + Self.shown))
            #expect(run.stdout.contains("inspector" + Self.shown))
            // The banner puts its text on one line itself (a CR or LF becomes a space), then the writer escapes the rest.
            #expect(run.stderr.contains(#"[notification] Issue #49 assigned to you\e[2J\e]52;c;aGFjaw==^G ^G<U+202E>"#))
            #expect(run.stdout.contains(#"Fleck \e[2J\e]0;title^G"#))
            #expect(run.stdout.contains(#"\e[31mrot"#))  // a foreign SGR is shown, never obeyed
            #expect(run.stdout.contains("<U+009B>2J"))
            #expect(colour == "never" || run.stdout.contains("\u{1B}[1m"))  // our own colours are still ours
        }
    }

    @Test("error lines are terminal-safe too: the shell's own sentences echoing typed text, and the server's")
    func errorLines() throws {
        let scratch = TemporaryDirectory(prefix: "jqc-hostile")
        let server = try StandaloneServer(seed: try Self.hostileSeed(in: scratch))
        let directory = TemporaryDirectory(prefix: "jqc-hostile-errors")
        let harness = ShellHarness(dataDirectory: directory)
        let setup = try harness.run(["--server", server.url, "-c", "login alex --password inspect-demo; sync"])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        // The dev server's own error sentences are fixed text (an injected `status` fault says "The server
        // answered 503 …"), so they cannot carry hostile text; the shell's sentences that echo typed text can.
        try server.fault(
            #"{"method":"GET","path_prefix":"/api/v1/inspections","mode":"status","status":503,"count":2}"#)
        try server.fault(#"{"method":"GET","path_prefix":"/api/v1/dashboard","mode":"status","status":503,"count":2}"#)
        for colour in ["always", "never"] {
            for command in [
                "areas \"99\u{1B}[2J\"", "\u{1B}[2J\u{07}bogus", "history", "dashboard",
                "issue show \"\u{1B}[2J\"", "start --template 3 --facility \"\u{1B}[H\"",
            ] {
                let run = try harness.run(["--server", server.url, "--color", colour, "-c", command])
                #expect(Self.firstUnsafe(run.stdout, colours: colour == "always") == nil, "\(command)")
                #expect(Self.firstUnsafe(run.stderr, colours: colour == "always") == nil, "\(command)")
                #expect(!run.stderr.isEmpty, "\(command) said nothing on stderr")
            }
        }
        let unknown = try harness.run(["--server", server.url, "-c", "\u{1B}[2J\u{07}bogus"])
        #expect(unknown.stderr.contains(#"Unknown command '\e[2J^Gbogus'"#))
    }
}
