import Foundation
import JQCKit

#if canImport(Glibc)
    import Glibc
#endif

/// `<data-dir>/history`: the prompt's lines, read and written by our own code (libedit's `H_LOAD`/`H_SAVE`
/// take a path and follow symlinks; issue 14).
///
/// - **Safe to open**: opened with `O_NOFOLLOW`; a symbolic link, anything that is not a regular file, or a
///   file owned by another user is left untouched, with one warning, and history is kept in memory only
///   for the session. The file is 0600 (a looser mode is tightened).
/// - **Format** (ours): the first line `#jqc-history v1`, then one entry per line, UTF-8, oldest first, with
///   `\\`, `\n`, `\r` and `\xHH` (other control characters) escaped — so any line round-trips.
///   A file in libedit's format (`_HiStOrY_V2_`, vis-encoded) or without a header (plain lines) is read
///   and rewritten in ours at once; a file that is not UTF-8 text (or over 16 MiB) is moved aside to
///   `history.unreadable` with one warning.
/// - **Bounded**: the last `JQC_HISTORY_SIZE` entries (default 1,000; 0 keeps none).
/// - **No secrets**: every entry passes through ``SecretMask`` before it is stored, including what an
///   older file held (rewritten masked at once, with one note).
/// - Rewritten atomically after each line (``AtomicFile``). Two shells on one data directory: the last
///   one to write keeps its list.
final class HistoryFile {
    /// Our format's first line.
    static let header = "#jqc-history v1"
    /// libedit's format's first line.
    static let libeditHeader = "_HiStOrY_V2_"
    /// Entries kept when `JQC_HISTORY_SIZE` is not set.
    static let defaultLimit = 1000
    /// The largest `JQC_HISTORY_SIZE` honoured.
    static let maximumLimit = 100_000
    /// A larger file is not read (moved aside).
    static let maximumBytes = 16 << 20

    /// The file.
    let url: URL
    /// How many entries are kept.
    let limit: Int
    /// The entries, oldest first, masked.
    private(set) var entries: [String] = []
    /// Whether the file is read and written (`false`: memory only for this session).
    private(set) var isWritable = true

    init(url: URL, limit: Int) {
        self.url = url
        self.limit = limit
    }

    /// `JQC_HISTORY_SIZE`, or the default; a value that is not a whole number ≥ 0 gives the default and a warning.
    static func limit(environment: [String: String]) -> (limit: Int, warning: String?) {
        guard let text = environment["JQC_HISTORY_SIZE"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return (defaultLimit, nil)
        }
        guard let value = Int(text), value >= 0 else {
            return (
                defaultLimit,
                "JQC_HISTORY_SIZE must be a whole number of lines (0 or more), not '\(text)'; keeping \(defaultLimit)."
            )
        }
        return (min(value, maximumLimit), nil)
    }

    // MARK: Reading

    /// Reads the file (when there is one).
    /// - Returns: warnings to show once (a link not followed, a file moved aside, secrets masked).
    func load() -> [String] {
        guard limit > 0 else { return [] }
        let path = url.path
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return [] }
            isWritable = false
            if code == ELOOP {
                return [
                    "The history file \(path) is a symbolic link; it was not followed and is left as it is. "
                        + "History is kept in memory only this session (remove the link to keep it again)."
                ]
            }
            return [
                "The history file \(path) cannot be read (\(String(cString: strerror(code)))); "
                    + "history is kept in memory only this session."
            ]
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            isWritable = false
            return [
                "The history file \(path) is not a regular file; it is left as it is and history is kept in "
                    + "memory only this session."
            ]
        }
        guard status.st_uid == geteuid() else {
            isWritable = false
            return [
                "The history file \(path) belongs to another user; it is left as it is and history is kept in "
                    + "memory only this session."
            ]
        }
        if status.st_mode & 0o077 != 0 { fchmod(descriptor, 0o600) }
        guard status.st_size <= HistoryFile.maximumBytes, let bytes = HistoryFile.readAll(descriptor),
            !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self)
        else {
            return moveAside(
                because: status.st_size > HistoryFile.maximumBytes ? "larger than 16 MiB" : "not UTF-8 text")
        }
        return parse(text)
    }

    private static func readAll(_ descriptor: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > maximumBytes { return nil }
        }
    }

    private func moveAside(because reason: String) -> [String] {
        let aside = url.path + ".unreadable"
        guard rename(url.path, aside) == 0 else {
            isWritable = false
            return [
                "The history file \(url.path) is \(reason) and could not be moved aside; it is left as it is and "
                    + "history is kept in memory only this session."
            ]
        }
        return [
            "The history file \(url.path) was \(reason); it was moved to \(url.lastPathComponent).unreadable "
                + "and a new one is started."
        ]
    }

    private func parse(_ text: String) -> [String] {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        let decode: (String) -> String?
        var rewrite = true
        if lines.first == HistoryFile.header {
            lines.removeFirst()
            decode = HistoryFile.decode
            rewrite = false
        } else if lines.first == HistoryFile.libeditHeader {
            lines.removeFirst()
            decode = HistoryFile.decodeLibedit
        } else {
            decode = { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        }
        var masked = 0
        var kept: [String] = []
        for line in lines {
            guard let entry = decode(line), !entry.isEmpty,
                !entry.unicodeScalars.contains(where: PromptLine.isControl)
            else {
                rewrite = true
                continue
            }
            let safe = SecretMask.masked(entry)
            if safe != entry { masked += 1 }
            kept.append(safe)
        }
        if kept.count > limit { rewrite = true }
        entries = Array(kept.suffix(limit))
        var warnings: [String] = []
        if masked > 0 || rewrite {
            if let warning = save() { warnings.append(warning) }
        }
        if masked > 0 {
            warnings.append(
                "The history file held \(masked) line\(masked == 1 ? "" : "s") with a password in clear; "
                    + "\(masked == 1 ? "it is" : "they are") now masked.")
        }
        return warnings
    }

    // MARK: Writing

    /// Adds one line (masked here too) and rewrites the file.
    /// - Returns: a warning the first time the file cannot be written (then history is kept in memory only).
    func append(_ line: String) -> String? {
        guard limit > 0 else { return nil }
        let entry = SecretMask.masked(line)
        guard entries.last != entry else { return nil }  // as libedit keeps it: no repeat of the line before
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        return save()
    }

    private func save() -> String? {
        guard isWritable else { return nil }
        let path = url.path
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFREG, status.st_uid == geteuid() else {
                isWritable = false
                return "The history file \(path) was replaced by something that is not our regular file; it is left "
                    + "as it is and history is kept in memory only this session."
            }
        }
        let text = ([HistoryFile.header] + entries.map(HistoryFile.encode)).joined(separator: "\n") + "\n"
        do {
            try AtomicFile.write(Data(text.utf8), to: url, permissions: 0o600)
            return nil
        } catch {
            isWritable = false
            return "History could not be saved (\(error)); it is kept in memory only this session."
        }
    }

    // MARK: Encoding

    /// One entry as a line of our format.
    static func encode(_ entry: String) -> String {
        var line = ""
        for scalar in entry.unicodeScalars {
            switch scalar.value {
            case 0x5C: line += "\\\\"
            case 0x0A: line += "\\n"
            case 0x0D: line += "\\r"
            case 0x00..<0x20, 0x7F: line += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: line.unicodeScalars.append(scalar)
            }
        }
        return line
    }

    /// One line of our format as the entry; `nil` when it is damaged.
    static func decode(_ line: String) -> String? {
        var scalars = String.UnicodeScalarView()
        var iterator = line.unicodeScalars.makeIterator()
        while let scalar = iterator.next() {
            guard scalar == "\\" else {
                scalars.append(scalar)
                continue
            }
            switch iterator.next() {
            case "\\": scalars.append("\\")
            case "n": scalars.append("\n")
            case "r": scalars.append("\r")
            case "x":
                guard let high = iterator.next(), let low = iterator.next(),
                    let value = UInt8(String(high) + String(low), radix: 16)
                else { return nil }
                scalars.append(Unicode.Scalar(value))
            default: return nil
            }
        }
        return String(scalars)
    }

    /// One line of libedit's format (`strvis` with `VIS_WHITE`: `\040`, `\\`, `\M-x`, `\^x`, C escapes) as the
    /// entry; `nil` when it is not UTF-8 once unescaped.
    static func decodeLibedit(_ line: String) -> String? {
        let input = Array(line.utf8)
        var bytes: [UInt8] = []
        var index = 0
        func control(_ byte: UInt8) -> UInt8 { byte == UInt8(ascii: "?") ? 0x7F : byte & 0x1F }
        while index < input.count {
            let byte = input[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < input.count else {
                bytes.append(byte)
                continue
            }
            let next = input[index]
            index += 1
            switch next {
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(next - UInt8(ascii: "0"))
                var digits = 1
                while digits < 3, index < input.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(input[index]) {
                    value = value * 8 + Int(input[index] - UInt8(ascii: "0"))
                    index += 1
                    digits += 1
                }
                bytes.append(UInt8(truncatingIfNeeded: value))
            case UInt8(ascii: "M") where index + 1 < input.count && input[index] == UInt8(ascii: "-"):
                bytes.append(input[index + 1] | 0x80)
                index += 2
            case UInt8(ascii: "M") where index + 1 < input.count && input[index] == UInt8(ascii: "^"):
                bytes.append(control(input[index + 1]) | 0x80)
                index += 2
            case UInt8(ascii: "^") where index < input.count:
                bytes.append(control(input[index]))
                index += 1
            case UInt8(ascii: "n"): bytes.append(0x0A)
            case UInt8(ascii: "t"): bytes.append(0x09)
            case UInt8(ascii: "r"): bytes.append(0x0D)
            case UInt8(ascii: "s"): bytes.append(0x20)
            case UInt8(ascii: "E"): bytes.append(0x1B)
            case UInt8(ascii: "a"): bytes.append(0x07)
            case UInt8(ascii: "b"): bytes.append(0x08)
            default: bytes.append(next)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
