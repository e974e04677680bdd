import Foundation
import Synchronization

/// How much a log line matters.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    /// In increasing order: detail for debugging, normal progress, something to look at, a failure.
    case debug, info, warning, error
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
    /// The level's name as printed (`DEBUG`, `INFO`, …).
    public var name: String { ["DEBUG", "INFO", "WARN", "ERROR"][rawValue] }
}

/// Where formatted log lines go.
public protocol LogSink: Sendable {
    /// Writes one already-redacted line (no trailing newline).
    func write(_ line: String)
}

/// A leveled logger that redacts secrets before anything is written: bearer tokens, JWTs,
/// `password`/`token` JSON members and 64-hex refresh tokens never reach a sink (issue 2; seed 001 §5).
public struct Logger: Sendable {
    /// The subsystem shown in each line (`sync`, `network`, …).
    public let label: String
    /// Lines below this level are dropped.
    public let minimumLevel: LogLevel
    private let sink: any LogSink
    private let clock: any Clock

    /// A logger writing to `sink`.
    public init(label: String, minimumLevel: LogLevel = .info, sink: any LogSink, clock: any Clock = SystemClock()) {
        self.label = label
        self.minimumLevel = minimumLevel
        self.sink = sink
        self.clock = clock
    }

    /// A logger that writes nothing.
    public static let disabled = Logger(label: "", minimumLevel: .error, sink: DiscardingSink())

    /// The same sink and level under another label.
    public func labeled(_ label: String) -> Logger {
        Logger(label: label, minimumLevel: minimumLevel, sink: sink, clock: clock)
    }

    /// Logs `message` at `level` after redaction. The message is built only when the level is enabled.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        let line = "\(DateFormats.instantString(clock.now)) \(level.name) [\(label)] \(Logger.redact(message()))"
        sink.write(line)
    }

    /// Logs `message` at ``LogLevel/debug`` (built only when the level is enabled; redacted).
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Logs `message` at ``LogLevel/info`` (built only when the level is enabled; redacted).
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Logs `message` at ``LogLevel/warning`` (printed as `WARN`; built only when enabled; redacted).
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Logs `message` at ``LogLevel/error`` (built only when the level is enabled; redacted).
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    /// `text` with secrets replaced by `[REDACTED]`. A line that holds none of what the patterns look for
    /// (`mayHoldSecret(_:)`) is returned as it is, without running them: the five regular expressions
    /// cost ~100 µs a line (an `info` line per uploaded photo, issue 17), the byte scan well under one.
    public static func redact(_ text: String) -> String {
        guard mayHoldSecret(text) else { return text }
        var result = text
        for pattern in redactionPatterns {
            result = result.replacing(pattern.regex) { match in
                String(result[match.range].prefix(pattern.keep)) + "[REDACTED]"
            }
        }
        return result
    }

    /// Whether `text` may hold something a redaction pattern matches: `bearer`, `password` or `token` in any
    /// ASCII case, `eyJ` (a JWT's start), a run of 64 lowercase hex digits — or any non-ASCII byte, where
    /// case-insensitive matching may fold other letters onto these (the patterns then decide).
    static func mayHoldSecret(_ text: String) -> Bool {
        var hexRun = 0
        // The last eight bytes, the newest lowest: as typed, and with ASCII letters folded to lower case.
        var typed: UInt64 = 0
        var folded: UInt64 = 0
        for byte in text.utf8 {
            if byte >= 0x80 { return true }
            let isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66)
            hexRun = isHex ? hexRun + 1 : 0
            if hexRun >= 64 { return true }
            typed = typed << 8 | UInt64(byte)
            folded = folded << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            if typed & 0xFF_FFFF == Trigger.jwt || folded & 0xFF_FFFF_FFFF == Trigger.token
                || folded & 0xFFFF_FFFF_FFFF == Trigger.bearer || folded == Trigger.password
            {
                return true
            }
        }
        return false
    }

    /// The triggers of ``mayHoldSecret(_:)``, packed as its windows hold them (first byte highest).
    private enum Trigger {
        static let jwt = packed("eyJ")
        static let token = packed("token")
        static let bearer = packed("bearer")
        static let password = packed("password")

        private static func packed(_ text: StaticString) -> UInt64 {
            var value: UInt64 = 0
            for index in 0..<text.utf8CodeUnitCount { value = value << 8 | UInt64(text.utf8Start[index]) }
            return value
        }
    }

    private struct Pattern: @unchecked Sendable {  // because: Regex is immutable after construction.
        let regex: Regex<AnyRegexOutput>
        let keep: Int
    }

    private static let redactionPatterns: [Pattern] = [
        Pattern(regex: try! Regex(#"(?i)bearer\s+[A-Za-z0-9._~+/=-]+"#), keep: 7),
        Pattern(regex: try! Regex(#"eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"#), keep: 0),
        Pattern(regex: try! Regex(#"(?i)"(password|access_token|refresh_token|token)"\s*:\s*"[^"]*""#), keep: 0),
        Pattern(regex: try! Regex(#"(?i)\b(password|access_token|refresh_token)=[^&\s]+"#), keep: 0),
        Pattern(regex: try! Regex(#"\b[0-9a-f]{64}\b"#), keep: 0),
    ]
}

/// A sink that drops every line.
public struct DiscardingSink: LogSink {
    /// The sink (it keeps nothing).
    public init() {}
    public func write(_ line: String) {}
}

/// A sink that keeps lines in memory (tests).
public final class MemoryLogSink: LogSink {
    private let storage = Mutex<[String]>([])
    /// A sink holding no lines yet.
    public init() {}
    public func write(_ line: String) { storage.withLock { $0.append(line) } }
    /// Every line written so far.
    public var lines: [String] { storage.withLock { $0 } }
}

/// A sink appending to a file (created 0600), one line each, flushed per line. The file is opened with
/// `O_APPEND`, so several processes logging to one file (the REPL, a background timer, scripts sharing a
/// data directory) each add whole lines and never write over one another's (issue 15).
public final class FileLogSink: LogSink {
    private let handle: Mutex<FileHandle?>
    /// Opens (or creates, mode 0600) the file at `url` for appending.
    public init(url: URL) {
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        self.handle = Mutex(fd >= 0 ? FileHandle(fileDescriptor: fd, closeOnDealloc: true) : nil)
    }
    public func write(_ line: String) {
        handle.withLock { try? $0?.write(contentsOf: Data((line + "\n").utf8)) }
    }
}

/// A sink writing to standard error.
public struct StandardErrorSink: LogSink {
    /// A sink writing to this process's standard error, unbuffered.
    public init() {}
    public func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
