import Foundation
import JQCKit
import JQCTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What happens at the prompt while other work goes on (issue 14): a notification arriving while a line is half
/// typed, and Ctrl-C during a slow request — on a pseudo-terminal, against a standalone dev server.
@Suite("The prompt while background work and slow requests go on")
struct TerminalBackgroundTests {
    @Test("a notification banner arriving while a line is half typed prints above the prompt; the line stays intact")
    func bannerKeepsTheLine() throws {
        let server = try StandaloneServer()
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let setup = try ShellHarness(dataDirectory: directory).run(
            ["--server", server.url, "--json", "-c", "login alex --password inspect-demo; sync"])
        #expect(setup.status == 0, "\(setup.stdout)\(setup.stderr)")
        // The poll runs every 0.2 s here instead of 60 s (JQC_NOTIFICATION_POLL_SECONDS, Docs/SHELL.md).
        let terminal = try InteractiveTerminalTests.shell(
            directory, ["--server", server.url], environment: ["JQC_NOTIFICATION_POLL_SECONDS": "0.2"])
        terminal.type("echo halb getippt")
        try terminal.waitForCursorLine("jqc> echo halb getippt")
        try server.post("/__admin/notify", #"{"user_id":7,"title":"Neue Aufgabe","body":"Küche prüfen"}"#)
        let banner = "[notification] Neue Aufgabe — Küche prüfen"
        let screen = try terminal.waitFor("the banner above the intact line") { screen in
            screen.lines.contains(banner) && screen.cursorLine == "jqc> echo halb getippt"
        }
        let bannerRow = try #require(screen.lines.firstIndex(of: banner))
        #expect(bannerRow < screen.row)
        #expect(screen.lines.filter { $0.hasPrefix("jqc> echo halb") }.count == 1)  // the old prompt line was cleared
        // A line wrapped over two rows of the 100-column screen, the cursor on the second: both rows are cleared
        // and drawn again below the next banner.
        let long = " " + String(repeating: "w", count: 100)
        terminal.type(long)
        let first = "jqc> echo halb getippt" + long
        try terminal.waitForCursorLine(String(first.dropFirst(100)))
        try server.post("/__admin/notify", #"{"user_id":7,"title":"Zweite","body":"Nachricht"}"#)
        let wrapped = try terminal.waitFor("the second banner above the wrapped line") { screen in
            screen.lines.contains("[notification] Zweite — Nachricht")
                && screen.cursorLine == String(first.dropFirst(100))
        }
        let second = try #require(wrapped.lines.firstIndex(of: "[notification] Zweite — Nachricht"))
        #expect(wrapped.lines[second + 1] == String(first.prefix(100)))
        #expect(wrapped.lines.filter { $0.hasPrefix("jqc> echo halb") }.count == 1)
        #expect(wrapped.lines.filter { $0 == String(first.dropFirst(100)) }.count == 1)
        terminal.type(String(repeating: "\u{7F}", count: long.count))
        try terminal.waitForCursorLine("jqc> echo halb getippt")
        terminal.type(" fertig\r")
        try InteractiveTerminalTests.waitForLines(terminal, "fertig")
        #expect(terminal.current.allLines.contains("halb"))
        try terminal.waitForCursorLine("jqc>")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("Ctrl-C on a sync that waits behind an automatic pass's delayed request stops both at once; all stays queued")
    func interruptBehindAutomaticPass() throws {
        let server = try StandaloneServer()
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let made = try ShellHarness(dataDirectory: directory).run(
            [
                "--server", server.url, "--json", "-c",
                "login alex --password inspect-demo; sync; offline; start --template 3 --facility 11 --area 111; "
                    + "answer 2 4; submit",
            ])
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        try server.fault(#"{"method":"POST","path_prefix":"/api/v1/inspections","mode":"delay","delay_ms":60000}"#)

        let terminal = try InteractiveTerminalTests.shell(directory, ["--server", server.url])
        terminal.type("online\r")  // reconnecting starts an automatic pass: its POST waits 60 s at the server
        try terminal.waitForText("Online.")
        terminal.type("sync\r")
        try terminal.waitForText("syncing: inspections")
        // Ctrl-C. Before this fix the prompt came back only once the automatic pass ended: when its request timed
        // out (15 s), so the sentence must come well before that.
        terminal.type("\u{03}")
        let screen = try terminal.waitForText("Sync cancelled", timeout: 8)
        let sentence = screen.allLines.joined().components(separatedBy: "error: ").last ?? ""
        #expect(
            sentence.hasPrefix(
                "Sync cancelled before the server confirmed anything; everything stays queued (1 inspection) and "
                    + "the next sync sends it."))
        try terminal.waitForCursorLine("jqc>")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("Ctrl-C during a delayed request ends sync with what really happened: the inspection landed, the issue waits")
    func interruptDuringDelayedRequest() throws {
        let server = try StandaloneServer()
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let harness = ShellHarness(dataDirectory: directory)
        func run(_ commands: String) throws -> ShellHarness.Result {
            try harness.run(["--server", server.url, "--json", "-c", commands])
        }
        let made = try run(
            "login alex --password inspect-demo; sync; start --template 3 --facility 11 --area 111; answer 2 4; "
                + "submit; issue new --facility 11 low \"Wasserfleck im Flur\"")
        #expect(made.status == 0, "\(made.stdout)\(made.stderr)")
        // One refused try each (503: counted, kept pending with backoff), so the shell's automatic pass at start
        // leaves them alone and only the explicit sync below sends them.
        try server.fault(#"{"method":"POST","path_prefix":"/api/v1/inspections","mode":"status","status":503}"#)
        try server.fault(#"{"method":"POST","path_prefix":"/api/v1/issues","mode":"status","status":503}"#)
        #expect(try run("sync").status == 0)
        let pending = try run("status").jsonLines.first?["data"]?["pending"]
        #expect(pending?["inspections"] == 1)
        #expect(pending?["issues"] == 1)
        try server.fault(#"{"method":"POST","path_prefix":"/api/v1/issues","mode":"delay","delay_ms":60000}"#)

        let terminal = try InteractiveTerminalTests.shell(directory, ["--server", server.url])
        terminal.type("sync\r")
        try terminal.waitForText("syncing: issues")
        terminal.type("\u{03}")  // Ctrl-C: SIGINT from the terminal
        let screen = try terminal.waitForText("Sync cancelled", timeout: 20)
        let sentence = screen.allLines.joined().components(separatedBy: "error: ").last ?? ""
        #expect(
            sentence.hasPrefix(
                "Sync cancelled: 1 inspection reached the server before the cancel; 1 issue is still queued and "
                    + "the next sync sends it."))
        try terminal.waitForCursorLine("jqc>")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }
}
