import Foundation
import JQCKit
import JQCTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The prompt as a person uses it (issue 14): the built `jqc-shell` on a pseudo-terminal, keys typed, the
/// screen read back. Each test waits on the screen with a deadline; none sleeps.
@Suite("The interactive shell on a pseudo-terminal")
struct InteractiveTerminalTests {
    /// Starts the shell on a pty over `directory` and waits for its first prompt.
    static func shell(
        _ directory: TemporaryDirectory, _ arguments: [String] = [], environment: [String: String] = [:]
    ) throws -> PseudoTerminal {
        let terminal = try PseudoTerminal(
            ShellHarness.binary, ["--data-dir", directory.url.path] + arguments, environment: environment)
        try terminal.waitForCursorLine("jqc>")
        return terminal
    }

    /// The history file's entries (without the header line).
    static func history(_ directory: TemporaryDirectory) throws -> [String] {
        let text = try String(contentsOf: directory.path("history"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "#jqc-history v1")
        return Array(lines.dropFirst())
    }

    /// Waits until `count` lines of the screen are exactly `text` (a command's output line).
    static func waitForLines(_ terminal: PseudoTerminal, _ text: String, count: Int = 1) throws {
        try terminal.waitFor("\(count) line(s) reading '\(text)'") { screen in
            screen.allLines.filter { $0 == text }.count >= count
        }
    }

    @Test("↑/↓ and Ctrl-P/Ctrl-N recall earlier lines, and UTF-8 typed at the prompt round-trips")
    func recall() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("echo Bälle Küche\r")
        try Self.waitForLines(terminal, "Küche")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("echo zwei\r")
        try Self.waitForLines(terminal, "zwei")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> echo zwei")
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> echo Bälle Küche")
        terminal.type("\u{1B}[B")
        try terminal.waitForCursorLine("jqc> echo zwei")
        terminal.type("\r")  // runs it again (not kept twice in a row)
        try Self.waitForLines(terminal, "zwei", count: 2)
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{10}")  // Ctrl-P
        try terminal.waitForCursorLine("jqc> echo zwei")
        terminal.type("\u{10}")
        try terminal.waitForCursorLine("jqc> echo Bälle Küche")
        terminal.type("\u{0E}")  // Ctrl-N
        try terminal.waitForCursorLine("jqc> echo zwei")
        terminal.type("\u{10}\r")
        try Self.waitForLines(terminal, "Bälle", count: 2)
        let screen = try Self.waitForCursor(terminal)
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(screen.allLines.filter { $0 == "Bälle" }.count == 2)
        #expect(try Self.history(directory) == ["echo Bälle Küche", "echo zwei", "echo Bälle Küche", "quit"])
    }

    static func waitForCursor(_ terminal: PseudoTerminal) throws -> VirtualScreen {
        try terminal.waitForCursorLine("jqc>")
    }

    @Test("Ctrl-R finds an earlier line by what it contains, and Enter runs it")
    func incrementalSearch() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("echo Bälle Küche\r")
        try Self.waitForLines(terminal, "Küche")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("echo andere\r")
        try Self.waitForLines(terminal, "andere")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{12}Bäl")  // Ctrl-R, then part of the line
        try terminal.waitFor("the search to find the line") { screen in
            screen.lines.contains("jqc> echo Bälle Küche")
                && screen.lines.contains { $0.contains("Bäl") && $0.hasPrefix("bck") }
        }
        terminal.type("\r")
        try Self.waitForLines(terminal, "Bälle", count: 2)
        try terminal.waitForCursorLine("jqc>")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("Backspace over ü removes one character, and Tab completes command names")
    func backspaceAndCompletion() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("echo Kü")
        try terminal.waitForCursorLine("jqc> echo Kü")
        terminal.type("\u{7F}")
        try terminal.waitForCursorLine("jqc> echo K")
        terminal.type("x\r")
        try Self.waitForLines(terminal, "Kx")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("ech\t")
        try terminal.waitForCursorLine("jqc> echo")
        terminal.type("fertig\r")
        try Self.waitForLines(terminal, "fertig")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("s\t")  // several commands start with s: they are listed, the line stays
        try terminal.waitFor("the candidates listed above the prompt") { screen in
            screen.lines.contains { $0.contains("scheduled") && $0.contains("sync") } && screen.cursorLine == "jqc> s"
        }
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Self.history(directory) == ["echo Kx", "echo fertig", "quit"])
    }

    @Test("Tab completes a command's declared options and choices at the prompt")
    func optionCompletion() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("issue new --fa\t")
        try terminal.waitForCursorLine("jqc> issue new --facility")
        terminal.type("21 me\t")
        try terminal.waitForCursorLine("jqc> issue new --facility 21 medium")
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
    }

    @Test("a password typed at the prompt never reaches the history file, in any spelling")
    func passwordNeverStored() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("login alex --password inspect-demo\r")
        try terminal.waitForText("Signed in as")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("login alex --password=\"inspect-demo\"; echo --password 'inspect demo' done\r")
        try Self.waitForLines(terminal, "done")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> login alex --password=***; echo --password *** done")
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
        let text = try String(contentsOf: directory.path("history"), encoding: .utf8)
        #expect(!text.contains("inspect"))
        #expect(
            try Self.history(directory) == [
                "login alex --password ***", "login alex --password=***; echo --password *** done", "quit",
            ])
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path("history").path)[.posixPermissions]
        #expect(mode as? Int == 0o600)
    }

    @Test("a password typed ahead of its prompt is dropped: never run as a command, never kept in the history")
    func passwordTypedAhead() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("login alex\rinspect-demo\r")  // one write: the password arrives before its prompt
        try terminal.waitForText("Password for alex:")
        terminal.type("inspect-demo\r")
        try terminal.waitForText("Signed in as")
        terminal.type("echo after\r")
        try Self.waitForLines(terminal, "after")
        let screen = try terminal.waitForCursorLine("jqc>").allLines.joined(separator: "\n")
        #expect(!screen.contains("Unknown command"), "\(screen)")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Self.history(directory) == ["login alex", "echo after", "quit"])
    }

    @Test("UTF-8 typed into an issue description reaches the store and the history file as typed")
    func utf8IntoTheStore() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type("login alex --password inspect-demo\r")
        try terminal.waitForText("Signed in as")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("sync\r")
        try terminal.waitForText("Sync finished.")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("issue new --facility 11 low \"Küche: Boden nass, Spülbecken verstopft\"\r")
        try terminal.waitFor("the issue to be created") { screen in
            screen.allLines.count { $0.hasPrefix("jqc>") } >= 4 && screen.cursorLine == "jqc>"
        }
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        let issues = try ShellHarness(dataDirectory: directory).run(["--json", "-c", "issues"])
        let descriptions = issues.jsonLines.first?["data"]?["issues"]?.arrayValue?.compactMap {
            $0["description"]?.stringValue
        }
        #expect(descriptions?.first == "Küche: Boden nass, Spülbecken verstopft", "\(issues.stdout)\(issues.stderr)")
        #expect(
            try Self.history(directory) == [
                "login alex --password ***", "sync",
                "issue new --facility 11 low \"Küche: Boden nass, Spülbecken verstopft\"", "quit",
            ])
    }

    @Test("an older history file is read and rewritten in our format: libedit's, a plain one, and one that is not text")
    func olderHistoryFiles() throws {
        // libedit's own format (vis-encoded: \040 is a space, \M-C\M-< the two bytes of ü), with a clear password.
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        try Data("_HiStOrY_V2_\nlogin\\040alex\\040--password\\040geheim\necho\\040K\\M-C\\M-<che\n".utf8)
            .write(to: directory.path("history"))
        var terminal = try Self.shell(directory)
        try terminal.waitForText("held 1 line with a password in clear; it is now masked.")
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> echo Küche")
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> login alex --password ***")
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Self.history(directory) == ["login alex --password ***", "echo Küche", "quit"])

        // Plain lines without a header.
        try Data("echo eins\necho zwei\n".utf8).write(to: directory.path("history"))
        terminal = try Self.shell(directory)
        terminal.type("\u{1B}[A")
        try terminal.waitForCursorLine("jqc> echo zwei")
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Self.history(directory) == ["echo eins", "echo zwei", "quit"])

        // Not text: moved aside with one warning, and a new history started.
        try Data([0xFF, 0xFE, 0x00, 0x41]).write(to: directory.path("history"))
        terminal = try Self.shell(directory)
        try terminal.waitForText("was not UTF-8 text; it was moved to history.unreadable")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Data(contentsOf: directory.path("history.unreadable")) == Data([0xFF, 0xFE, 0x00, 0x41]))
        #expect(try Self.history(directory) == ["quit"])
    }

    @Test("a history file planted as a symbolic link is not followed: its target stays untouched")
    func symlinkNotFollowed() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let elsewhere = TemporaryDirectory(prefix: "jqc-pty-target")
        let target = elsewhere.path("precious")
        try Data("precious\n".utf8).write(to: target)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: target.path)
        try FileManager.default.createSymbolicLink(at: directory.path("history"), withDestinationURL: target)
        let terminal = try Self.shell(directory)
        try terminal.waitForText("is a symbolic link; it was not followed")
        terminal.type("echo hallo\r")
        try Self.waitForLines(terminal, "hallo")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{1B}[A")  // history still works, in memory
        try terminal.waitForCursorLine("jqc> echo hallo")
        terminal.type("\u{15}quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try String(contentsOf: target, encoding: .utf8) == "precious\n")
        let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
        #expect(attributes[.posixPermissions] as? Int == 0o644)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: directory.path("history").path) == target.path)
    }

    @Test("bad input at the prompt gets a sentence and is neither run nor kept; the shell goes on")
    func badInput() throws {
        let directory = TemporaryDirectory(prefix: "jqc-pty")
        let terminal = try Self.shell(directory)
        terminal.type(bytes: Array("echo a".utf8) + [0xFF, 0xC3] + Array("b\r".utf8))  // not UTF-8
        try terminal.waitForText("held bytes that are not UTF-8")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("echo x\u{16}\u{07}y\r")  // Ctrl-V Ctrl-G: a BEL in the line
        try terminal.waitForText("holds a control character (^G)")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("\u{0}echo nul\r")  // NUL (Ctrl-Space) is an editing key, harmless
        try Self.waitForLines(terminal, "nul")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("echo " + String(repeating: "a", count: 1 << 20) + "\r")  // a line of a megabyte
        try terminal.waitForText("longer than 4096 characters")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("echo eins\recho zwei\r")  // pasted lines run one after the other
        try Self.waitForLines(terminal, "eins")
        try Self.waitForLines(terminal, "zwei")
        try terminal.waitForCursorLine("jqc>")
        terminal.type("quit\r")
        #expect(terminal.waitForExit() == 0)
        #expect(try Self.history(directory) == ["echo nul", "echo eins", "echo zwei", "quit"])
    }
}
