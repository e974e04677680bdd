import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// A command declares its arguments once (issue 16 "Typed edges"): its usage line, `help COMMAND` and Tab
/// completion (`complete LINE` prints what Tab offers) all come from that declaration.
@Suite("Usage, help and completion derive from each command's declared arguments")
struct CommandDeclarationTests {
    /// Every command's name, from `help --json`.
    static func names(_ harness: ShellHarness) throws -> [String] {
        let listing = try harness.run(["--json", "-c", "help"])
        let commands = try #require(listing.jsonLines.first?["data"]?["commands"]?.arrayValue)
        return commands.compactMap { $0["name"]?.stringValue }
    }

    @Test("for every command: usage is its arguments' synopses, help lists each argument, every option completes")
    func everyCommand() throws {
        let harness = ShellHarness()
        let names = try Self.names(harness)
        #expect(names.count > 50)
        let script = names.flatMap { ["help \($0)", "complete \"\($0) --\"", "complete \"\($0) \""] }
        let file = harness.dataDirectory.path("declarations.jqc")
        try Data(script.joined(separator: "\n").utf8).write(to: file)
        let json = try harness.run(["--json", "--script", file.path])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = json.jsonLines
        try #require(lines.count == names.count * 3)
        let human = try harness.run(["--script", file.path])
        for (index, name) in names.enumerated() {
            let help = try #require(lines[index * 3]["data"])
            let arguments = help["arguments"]?.arrayValue ?? []
            let usage = help["usage"]?.stringValue ?? "?"
            let synopses = arguments.compactMap { $0["synopsis"]?.stringValue }
            if usage.contains(" | ") {
                #expect(synopses.allSatisfy(usage.contains), "\(name): \(usage)")
            } else {
                #expect(usage == synopses.joined(separator: " "), "\(name)")
            }
            // `help NAME` shows the synopsis and one line per argument with its help.
            #expect(human.stdout.contains(usage.isEmpty ? name : "\(name) \(usage)\n"), "\(name)")
            for argument in arguments {
                #expect(human.stdout.contains(argument["help"]?.stringValue ?? "?"), "\(name) \(argument)")
            }
            // `NAME --` completes to exactly the declared options and flags.
            let options = arguments.filter { $0["kind"] != "positional" }.compactMap { $0["name"]?.stringValue }
            let offered = lines[index * 3 + 1]["data"]?["candidates"]?.arrayValue?.compactMap(\.stringValue)
            #expect(offered == options.map { "--" + $0 }.sorted(), "\(name)")
            // `NAME ` offers the first positional's choices (unless subcommands complete first).
            let first = arguments.first { $0["kind"] == "positional" }
            let choices = first?["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !choices.isEmpty, !names.contains(where: { $0.hasPrefix(name + " ") }) {
                let values = lines[index * 3 + 2]["data"]?["candidates"]?.arrayValue?.compactMap(\.stringValue)
                #expect(values == choices.sorted(), "\(name)")
            }
        }
    }

    @Test("the derived usage lines read as SHELL.md documents them")
    func pinnedUsage() throws {
        let run = try ShellHarness().run([
            "--json", "-c", "help issue new; help start; help server; help delete-draft; help echo; help help",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let usages = run.jsonLines.map { $0["data"]?["usage"]?.stringValue }
        #expect(
            usages == [
                #"--facility ID [--contract ID] [--area ID] SEVERITY "DESCRIPTION" [--photo FILE]…"#,
                "--template ID --facility ID [--area ID] | --schedule ID [--area ID] | --follow-up PARENT_ID",
                "[embedded|primary|secondary|URL] [--yes]", "LOCAL_ID --yes", "WORDS…", "[COMMAND]",
            ])
    }

    @Test("help on a group lists its subcommands; an unknown name says so")
    func groupHelp() throws {
        let run = try ShellHarness().run(["-c", "help issue; help inspection"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("issue subcommands (help issue SUBCOMMAND for more):\n  issue new --facility ID"))
        #expect(run.stdout.contains("  issue discard ID [--yes]\n      Discard a failed issue and its photos"))
        #expect(run.stdout.contains("  inspection retry LOCAL_ID\n"))
        let unknown = try ShellHarness().run(["-c", "help bogus"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("There is no command 'bogus'"))
    }

    @Test("completion: command names one word at a time, help's command names, file paths, ids and field ids")
    func values() throws {
        let harness = ShellHarness()
        let directory = harness.dataDirectory
        try FileManager.default.createDirectory(at: directory.path("pics"), withIntermediateDirectories: true)
        try Data().write(to: directory.path("pics/mop.jpg"))
        try Data().write(to: directory.path("pics/.hidden.jpg"))
        let pics = directory.path("pics").path
        let run = try harness.run([
            "--json", "-c",
            "login alex --password inspect-demo; sync; start --template 3 --facility 11 --area 111; "
                + "complete \"iss\"; complete \"issue s\"; complete \"help issue s\"; "
                + "complete \"photo 9 \(pics)/m\"; complete \"flag low x --photo \(pics)/\"; "
                + "complete \"answer 1\"; complete \"open \"; complete \"echo --\"",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.jsonLines
        let localID = try #require(lines[2]["data"]?["local_id"]?.stringValue)
        func candidates(_ index: Int) -> [String] {
            lines[index]["data"]?["candidates"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        #expect(candidates(3) == ["issue", "issues"])
        #expect(candidates(4) == ["issue show", "issue status"])
        #expect(candidates(5) == ["show", "status"])
        #expect(candidates(6) == ["\(pics)/mop.jpg"])
        #expect(candidates(7) == ["\(pics)/mop.jpg"])  // hidden files only when asked for with a dot
        #expect(candidates(8) == ["1", "10", "11", "12", "13", "14"])  // template 3's field ids starting with 1
        #expect(candidates(9) == [localID])
        #expect(candidates(10) == [])  // echo declares no options
    }
}

extension CommandDeclarationTests {
    @Test("words are parsed against the declaration: unknown options, missing values and non-integers get the usage")
    func parsing() throws {
        let harness = ShellHarness()
        for (command, sentence) in [
            ("facilities --bogus", "Unknown option --bogus. Usage: facilities [--contract ID]"),
            ("history --page x", "--page must be a whole number, not 'x'. Usage: history [--page N]"),
            ("issue new --area x low d", "--area must be a whole number, not 'x'. Usage: issue new --facility ID"),
            ("areas --contract=2", "Unknown option --contract. Usage: areas FACILITY_ID"),
            ("issues --all=yes", "Unknown option --all. Usage: issues [--all]"),
            ("login alex --password", "--password needs a value. Usage: login USER [--password P]"),
            ("dashboard --now", "Unknown option --now. Usage: dashboard"),
        ] {
            let run = try harness.run(["-c", command])
            #expect(run.status == 1, "\(command)")
            #expect(run.stderr.contains(sentence), "\(command): \(run.stderr)")
        }
        // echo and answer take their words as typed.
        let echo = try harness.run(["-c", "echo --anything --goes"])
        #expect(echo.stdout == "--anything\n--goes\n")
    }
}
