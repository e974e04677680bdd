import Foundation
import JQCKit
import JQCTestSupport
import Testing

/// The frictions a newcomer hit (issue 14), each through the built `jqc-shell` as a person or script uses it.
@Suite("What a newcomer hit at the prompt (issue 14)")
struct NewcomerFrictionTests {
    let login = "login alex --password inspect-demo; sync"

    @Test("--version prints the build and the API version and starts nothing; with --json one JSON line")
    func version() throws {
        let harness = ShellHarness()
        let human = try harness.run(["--version"])
        #expect(human.status == 0)
        #expect(human.stdout.hasPrefix("jqc-shell ") && human.stdout.hasSuffix(" (API v1)\n"))
        let json = try harness.run(["--json", "--version"])
        let line = try #require(json.jsonLines.first)
        #expect(line["command"] == "version" && line["data"]?["api_version"] == 1)
        #expect(line["data"]?["version"]?.stringValue?.isEmpty == false)
        // Nothing started: no embedded server state, no store in the data directory.
        #expect(!FileManager.default.fileExists(atPath: harness.dataDirectory.path("store.sqlite").path))
    }

    @Test("airplane mode says how to leave it, not 'check the network connection'")
    func airplaneSentence() throws {
        let result = try ShellHarness().run(["--json", "-c", "login alex --password inspect-demo; offline; history"])
        #expect(result.status == 1)
        let error = try #require(result.jsonLines.last?["error"]?.stringValue)
        #expect(error.contains("You are offline (airplane mode): type 'online' to reconnect."))
        #expect(!error.contains("network connection"))
        let sync = try ShellHarness().run(["--json", "-c", "login alex --password inspect-demo; offline; sync"])
        #expect(sync.stdout.contains("You are offline (airplane mode): type 'online' to reconnect."))
    }

    @Test("areas 99 says there is no facility 99; a known facility without areas is not that error")
    func unknownFacility() throws {
        let result = try ShellHarness().run(["--json", "-c", "\(login); areas 99"])
        #expect(result.status == 1)
        #expect(result.jsonLines.last?["error"] == "There is no facility 99 on this device; 'facilities' lists them.")
        let known = try ShellHarness().run(["--json", "-c", "\(login); areas 11"])
        #expect(known.status == 0, "\(known.stderr)")
    }

    @Test("open takes a unique prefix of a local id; an ambiguous one names the candidates")
    func localIDPrefix() throws {
        let harness = ShellHarness()
        let first = try harness.run([
            "--json", "-c",
            "\(login); start --template 3 --facility 11 --area 111; start --template 3 --facility 11 --area 112",
        ])
        #expect(first.status == 0, "\(first.stderr)")
        let ids = first.jsonLines.suffix(2).compactMap { $0["data"]?["local_id"]?.stringValue }
        #expect(ids.count == 2)
        let target = try #require(ids.first)
        // The shortest prefix of `target` that the other id does not share.
        let other = try #require(ids.last)
        var length = 1
        while other.hasPrefix(String(target.prefix(length))) { length += 1 }
        let opened = try harness.run(["--json", "-c", "open \(target.prefix(length))"])
        #expect(opened.jsonLines.first?["data"]?["local_id"] == .string(target))
        let ambiguous = try harness.run(["--json", "-c", "open \"\""])
        #expect(ambiguous.status == 1)
    }

    @Test("answer echoes the field's label and the value as typed")
    func answerEcho() throws {
        let result = try ShellHarness().run([
            "-c", "\(login); start --template 3 --facility 11 --area 111; answer 2 4; answer 2 0",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("2 Floors clean and dry = 4 ★\n"))
        #expect(result.stdout.contains("2 Floors clean and dry cleared."))
    }

    @Test("a checkbox_group takes --add and --remove; any text field takes --file, line breaks kept")
    func answerOptions() throws {
        let directory = TemporaryDirectory(prefix: "jqc-answer-file")
        let note = directory.path("note.txt")
        try Data("Mirror cracked.\nSecond line: Küche\n".utf8).write(to: note)
        let result = try ShellHarness().run([
            "--json", "-c",
            "\(login); start --template 4 --facility 21; answer 102 --add Dusted; answer 102 --add trash Windows; "
                + "answer 102 --remove dusted; answer 102 --remove Trash Windows; start --template 3 --facility 11; "
                + "answer 10 --file \(note.path); answer 102 --add Nope",
        ])
        let lines = result.jsonLines
        #expect(lines[3]["data"]?["value"] == ["Dusted"])
        #expect(lines[4]["data"]?["value"] == ["Dusted", "Trash", "Windows"])  // stored in option order
        #expect(lines[5]["data"]?["value"] == ["Trash", "Windows"])
        #expect(lines[6]["data"]?["value"] == .null)  // none left: cleared
        #expect(lines[8]["data"]?["value"] == "Mirror cracked.\nSecond line: Küche\n")
        #expect(lines[9]["ok"] == false)  // field 102 is not on this form
        #expect(result.status == 1)
    }

    @Test("score --explain without a file scores the current inspection exactly as submit will")
    func scoreCurrent() throws {
        let harness = ShellHarness()
        let result = try harness.run([
            "--json", "-c",
            "\(login); start --template 3 --facility 11 --area 111; answer 2 4; score --explain; submit",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.jsonLines
        let score = try #require(lines[4]["data"]?["score"]?.doubleValue)
        #expect(lines[4]["data"]?["counted"]?.intValue ?? 0 >= 1)
        #expect(lines[5]["data"]?["inspection"]?["overall_score"]?.doubleValue == score)
    }

    @Test("history past the last page says so and names the last page")
    func historyPastEnd() throws {
        let result = try ShellHarness().run(["-c", "login alex --password inspect-demo; history --page 99"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Page 99 is past the end: "))
        #expect(result.stdout.contains("'history --page 1' shows the last."))
    }

    @Test("scheduled lines up its columns: every due date starts in the same column")
    func scheduledAligned() throws {
        let result = try ShellHarness().run(["-c", "\(login); scheduled"])
        #expect(result.status == 0, "\(result.stderr)")
        let rows = result.stdout.split(separator: "\n").map(String.init).filter {
            $0.range(of: #"^ *\d+  \d{4}-\d{2}-\d{2}"#, options: .regularExpression) != nil
        }
        #expect(rows.count >= 2)
        let dateColumns = rows.compactMap { row in
            row.range(of: #"\d{4}-\d{2}-\d{2}"#, options: .regularExpression).map {
                row.distance(from: row.startIndex, to: $0.lowerBound)
            }
        }
        #expect(Set(dateColumns).count == 1)
        // The frequency starts in one column too, whether or not a row carries the OVERDUE mark.
        let start = try #require(dateColumns.first) + 10 + (result.stdout.contains("OVERDUE") ? 8 : 0) + 2
        for row in rows {
            let characters = Array(row)
            #expect(characters.count > start && characters[start] != " " && characters[start - 1] == " ", "\(row)")
        }
    }

    @Test("timestamps shown to people are in the local time zone; JSON keeps UTC")
    func localTimeZone() throws {
        let harness = ShellHarness()
        let environment = ["TZ": "Asia/Kolkata"]
        let human = try harness.run(["-c", "\(login); status"], environment: environment)
        #expect(human.status == 0, "\(human.stderr)")
        let line = try #require(human.stdout.split(separator: "\n").first { $0.hasPrefix("last sync: ") })
        // Read back in India's zone (UTC+5:30 all year), the shown minute is the sync that just ran: in UTC
        // (or any other zone) it would be off by hours, or by 30 minutes.
        let shown = line.dropFirst("last sync: ".count).split(separator: " ").prefix(2).joined(separator: " ")
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = try #require(TimeZone(identifier: "Asia/Kolkata"))
        parser.dateFormat = "yyyy-MM-dd HH:mm"
        let instant = try #require(parser.date(from: shown), "\(line)")
        #expect(abs(instant.timeIntervalSinceNow) < 180, "\(line)")
        let json = try harness.run(["--json", "-c", "status"], environment: environment)
        #expect(json.jsonLines.first?["data"]?["last_sync_at"]?.stringValue?.hasSuffix("Z") == true)
    }

    @Test("an automatic pass that sent something says so in one line; the passes that sent nothing stay silent")
    func automaticPassLine() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try InteractiveTerminalTests.shell(directory)
        terminal.type("login alex --password inspect-demo\r")
        try terminal.waitForText("Signed in as")
        terminal.type("sync\r")  // the templates, before a start (the login's own pass may still be running)
        try terminal.waitForText("pending: ")
        terminal.type("start --template 3 --facility 11 --area 111\r")
        try terminal.waitForText("Started")
        terminal.type("answer 2 4\r")
        try terminal.waitForText("Floors clean and dry = 4")
        terminal.type("submit\r")
        let screen = try terminal.waitForText("automatic sync sent: inspections 1")
        // The login's pass pulled and pushed nothing: no line for it.
        #expect(screen.allLines.filter { $0.hasPrefix("automatic sync sent:") }.count == 1)
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test(
        "answer F --edit opens $EDITOR on the answer at the prompt and stores what it saved; a script is told to use --file"
    )
    func answerEdit() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let editor = directory.path("fake-editor")
        try Data("#!/bin/sh\nprintf 'Mirror cracked\\nsecond line: Küche' > \"$1\"\n".utf8).write(to: editor)
        chmod(editor.path, 0o700)
        let terminal = try InteractiveTerminalTests.shell(
            directory, environment: ["EDITOR": editor.path, "VISUAL": editor.path])
        terminal.type("login alex --password inspect-demo\r")
        try terminal.waitForText("Signed in as")
        terminal.type("sync\r")
        try terminal.waitForText("pending: ")
        terminal.type("start --template 3 --facility 11 --area 111\r")
        try terminal.waitForText("Started")
        terminal.type("answer 10 --edit\r")
        try terminal.waitForText("10 = Mirror cracked")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        let form = try ShellHarness(dataDirectory: directory).run(["--json", "-c", "form; answer 10 --edit"])
        #expect(form.jsonLines.first?["data"]?["answers"]?["10"] == "Mirror cracked\nsecond line: Küche")
        #expect(form.jsonLines.last?["code"] == "shell.usage")
    }
}
