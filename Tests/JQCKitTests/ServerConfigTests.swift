import Foundation
import Testing

@testable import JQCKit

@Suite("ServerConfig (rules 17, 81)")
struct ServerConfigTests {
    @Test("nothing stored means primary")
    func defaultsToPrimary() {
        let config = ServerConfig(store: InMemorySelectionStore())
        #expect(config.current == .primary)
        #expect(config.url(path: "/api/v1/health").absoluteString == "https://jqc.ltservicesinc.com/api/v1/health")
    }

    @Test(
        "a stale or hostile stored value self-heals to primary",
        arguments: [
            "", "Primary ", "tertiary", "ftp://example.com", "http://", "javascript:alert(1)",
            "https://user:pw@host.example",
            "https://host.example/api/v1", "https://host.example?x=1", "https://host.example:99999",
            "http://exa mple.com",
            "file:///etc/passwd",
        ])
    func selfHeal(stored: String) {
        let config = ServerConfig(store: InMemorySelectionStore(stored))
        if stored == "Primary " {
            #expect(config.current == .primary)  // case and whitespace are forgiven for the names
        } else {
            #expect(config.current == .primary, "stored \(stored)")
        }
    }

    @Test("secondary and explicit URLs are kept and normalised")
    func explicitSelections() throws {
        let config = ServerConfig(store: InMemorySelectionStore("secondary"))
        #expect(config.current == .secondary)
        try config.select(.explicit(try #require(ServerSelection.normalizedBaseURL("HTTP://127.0.0.1:5055/"))))
        #expect(config.current.storedValue == "http://127.0.0.1:5055")
        #expect(
            config.url(path: "/api/v1/issues", query: [URLQueryItem(name: "limit", value: "30")]).absoluteString
                == "http://127.0.0.1:5055/api/v1/issues?limit=30")
    }
}

@Suite("Date formats (rules 35, 82)")
struct DateFormatsTests {
    @Test("instants are ISO 8601 with offset; offsets and fractions are read")
    func instants() throws {
        let date = try #require(DateFormats.instant(from: "2026-07-14T09:30:00-04:00"))
        #expect(DateFormats.instantString(date) == "2026-07-14T13:30:00Z")
        #expect(DateFormats.instant(from: "2026-07-14T13:30:00.250Z")?.timeIntervalSince(date) == 0.25)
        #expect(DateFormats.instant(from: "14/07/2026") == nil)
    }

    @Test("days are yyyy-MM-dd and impossible days are refused")
    func days() {
        #expect(CalendarDay("2026-07-14")!.adding(days: 1).text == "2026-07-15")
        #expect(CalendarDay("2026-12-31")!.adding(days: 1).text == "2027-01-01")
        #expect(CalendarDay("2026-02-30") == nil)
        #expect(CalendarDay("2026-7-14") == nil)
        #expect(CalendarDay("2026-07-01")!.days(until: CalendarDay("2026-07-14")!) == 13)
    }
}

@Suite("Logger redaction")
struct LoggerTests {
    @Test("bearer tokens, JWTs, passwords and refresh tokens never reach the sink")
    func redaction() {
        let sink = MemoryLogSink()
        let logger = Logger(label: "t", sink: sink)
        let refresh = String(repeating: "ab12", count: 16)
        logger.info(
            #"Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjd9.c2ln {"password":"inspect-demo","refresh_token":"\#(refresh)"}"#
        )
        let line = sink.lines.joined()
        #expect(!line.contains("eyJ"))
        #expect(!line.contains("inspect-demo"))
        #expect(!line.contains(refresh))
        #expect(line.contains("[REDACTED]"))
    }

    @Test(
        "the scan that lets a plain line skip the patterns finds every trigger, in any case",
        arguments: [
            ("Authorization: BEARER abc.def", "Authorization: BEARER [REDACTED]"),
            ("sent with bearer xyz", "sent with bearer [REDACTED]"),
            (#"{"PassWord": "hunter2"}"#, #"{[REDACTED]}"#),
            (#"{"Token":"t0k"}"#, #"{[REDACTED]}"#),
            ("login?PASSWORD=hunter2&user=alex", "login?[REDACTED]&user=alex"),
            ("refresh_TOKEN=abc", "[REDACTED]"),
            ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjd9.c2ln seen", "jwt [REDACTED] seen"),
            ("key " + String(repeating: "0f", count: 32) + " end", "key [REDACTED] end"),
        ])
    func scanFindsEveryTrigger(line: String, redacted: String) {
        #expect(Logger.mayHoldSecret(line))
        #expect(Logger.redact(line) == redacted)
    }

    @Test("a line with none of the triggers is left as it is, and said to hold none")
    func plainLineUntouched() {
        let line =
            "photo 3f2a9c1e uploaded as uploads/inspection_photos/abc123.jpg for inspection 9c8b (tok en, pass word)"
        #expect(!Logger.mayHoldSecret(line))
        #expect(Logger.redact(line) == line)
        #expect(!Logger.mayHoldSecret(String(repeating: "ab", count: 31) + "a"))
        #expect(Logger.mayHoldSecret("Zoë"))
    }
}

@Suite("ManualClock")
struct ManualClockTests {
    @Test("a sleeper wakes only when the clock passes its deadline")
    func sleepersWake() async throws {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(seconds: 60) }
        while clock.sleeperCount == 0 { await Task.yield() }
        clock.advance(by: 59)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 1)
        try await task.value
        #expect(clock.sleeperCount == 0)
    }

    @Test("cancelling a sleeper throws CancellationError")
    func cancellation() async {
        let clock = ManualClock()
        let task = Task { try await clock.sleep(seconds: 60) }
        while clock.sleeperCount == 0 { await Task.yield() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}

@Suite("AtomicFile")
struct AtomicFileTests {
    @Test("writes the whole file with the requested mode and replaces the old one")
    func atomicWrite() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("credentials")
        try AtomicFile.write(Data("old".utf8), to: file)
        try AtomicFile.write(Data("new".utf8), to: file, permissions: 0o600)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["credentials"])
    }

    @Test("a write into a missing directory fails with a sentence naming the file")
    func failureIsASentence() {
        let file = URL(fileURLWithPath: "/nonexistent-\(UUID())/credentials")
        #expect { try AtomicFile.write(Data("x".utf8), to: file) } throws: { error in
            "\(error)".hasPrefix("Could not save /nonexistent-")
        }
    }
}

@Suite("ServerConfig: the validated selection kept between reads (issue 17)")
struct ServerConfigReuseTests {
    @Test("a new stored selection is seen on the next read; an invalid one falls back to primary")
    func changesAreSeenAtOnce() throws {
        let store = InMemorySelectionStore("http://127.0.0.1:5055")
        let config = ServerConfig(store: store)
        #expect(config.current.baseURL.absoluteString == "http://127.0.0.1:5055")
        #expect(config.current.baseURL.absoluteString == "http://127.0.0.1:5055")
        try store.save("http://127.0.0.1:6066")
        #expect(config.current.baseURL.absoluteString == "http://127.0.0.1:6066")
        try store.save("not a url at all")
        #expect(config.current == .primary)
        try store.save("secondary")
        #expect(config.current == .secondary)
        #expect(ServerConfig(store: InMemorySelectionStore()).current == .primary)
    }
}
