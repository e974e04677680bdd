import Foundation
import JQCKit

/// The fast path of ``APIClient/createRecord(path:json:idempotent:)`` (issue 17): the integer `data.id` of a
/// 2xx reply envelope `{"ok": true, "data": {"id": N, …}}`, read straight from the bytes without building the
/// reply's tree (a pushed inspection's reply is the whole record — ~70,000 instructions parsed into a
/// dictionary, of which only `id` is kept).
///
/// It answers only where the full path (`JSONValue.parse`, then `ok`, `data` and `data.id`) is certain to
/// give the same id: the text must be one JQCKit's `FastJSONReader` reads exactly — objects, arrays,
/// `true`/`false`/`null`, strings without escapes or control characters (valid UTF-8), integers of at most 18
/// digits, decimals with a fraction, no exponent and at most 17 digits, nested at most 64 deep, no key twice in
/// one object, nothing after the value — with `ok` the literal `true`, `data` an object and its `id` an
/// integer. For anything else it returns `nil` and the caller takes the full path, whose value or error is
/// then the answer (pinned by `CreatedReplyTests`, which compares both paths on the same texts).
enum CreatedReply {
    /// `data.id` of `body`, or `nil` when the full path must decide.
    static func id(_ body: Data) -> Int? {
        body.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress else { return nil }
            var scanner = FastJSONScanner(bytes: bytes, base: base)
            return scanner.envelopeID()
        }
    }
}

/// A reader of UTF-8 JSON bytes that builds nothing (issue 17): it accepts exactly a subset of what JQCKit's
/// `FastJSONReader` reads exactly (see ``CreatedReply``) — and refuses, besides, a key twice in one object and a
/// key that is not ASCII (two such keys may be equal as Swift strings) — so a text it accepts has the value
/// `JSONValue.parse` gives it, through that reader.
struct FastJSONScanner {
    /// The deepest nesting read (JQCKit's `FastJSONReader.maximumDepth`).
    static let maximumDepth = 64

    let bytes: UnsafeRawBufferPointer
    let base: UnsafeRawPointer
    /// A string value (never a key) starting with these bytes is refused (`local://`, rule 10), or none.
    var refusedValuePrefix: StaticString?
    var index = 0
    /// The keys of the objects being read, innermost last (start, count), to refuse a repeated key.
    var keys: [(start: Int, count: Int)] = []

    init(bytes: UnsafeRawBufferPointer, base: UnsafeRawPointer) {
        self.bytes = bytes
        self.base = base
        keys.reserveCapacity(64)
    }

    mutating func envelopeID() -> Int? {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
        var ok = false
        var id: Int?
        let read = object(depth: 0) { scanner, key, depth in
            if scanner.equals(key, "ok") {
                guard scanner.literal("true") else { return scanner.value(depth: depth) }
                ok = true
                return true
            }
            if scanner.equals(key, "data") {
                scanner.skipSpace()
                guard scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] == UInt8(ascii: "{") else {
                    return scanner.value(depth: depth)
                }
                guard depth <= FastJSONScanner.maximumDepth else { return false }
                return scanner.object(depth: depth) { scanner, key, depth in
                    guard scanner.equals(key, "id") else { return scanner.value(depth: depth) }
                    scanner.skipSpace()
                    let start = scanner.index
                    guard scanner.value(depth: depth) else { return false }
                    id = scanner.integer(start..<scanner.index)
                    return true
                }
            }
            return scanner.value(depth: depth)
        }
        guard read else { return nil }
        skipSpace()
        guard index == bytes.count, ok else { return nil }
        return id
    }

    mutating func skipSpace() {
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// Skips one value (FastJSONReader's grammar), `true` when it was readable.
    mutating func value(depth: Int) -> Bool {
        guard depth <= FastJSONScanner.maximumDepth else { return false }
        skipSpace()
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth) { scanner, _, depth in scanner.value(depth: depth) }
        case UInt8(ascii: "["): return array(depth: depth)
        case UInt8(ascii: "\""):
            guard let text = string() else { return false }
            guard let prefix = refusedValuePrefix else { return true }
            return
                !(text.count >= prefix.utf8CodeUnitCount
                && memcmp(base + text.lowerBound, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0)
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return false
        }
    }

    /// Reads an object (`index` on its `{`), handing each member's key to `member`, which reads the value
    /// at `depth + 1`; `false` when unreadable here or a key repeats.
    mutating func object(
        depth: Int, member: (inout FastJSONScanner, _ key: Range<Int>, _ depth: Int) -> Bool
    ) -> Bool {
        index += 1  // {
        let first = keys.count
        defer { keys.removeSubrange(first...) }
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return true
        }
        while true {
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string(),
                isASCII(key)  // a non-ASCII key may equal another one as a Swift string: the full path decides
            else { return false }
            let last = key.count - 1  // -1 for "": the opening quote, the same for both
            for known in keys[first...] where known.count == key.count {
                // Most keys of one length differ in their first or last byte: no call for those.
                if bytes[known.start] == bytes[key.lowerBound],
                    bytes[known.start + last] == bytes[key.lowerBound + last],
                    memcmp(base + known.start, base + key.lowerBound, key.count) == 0
                {
                    return false  // a repeated key: the full path decides
                }
            }
            keys.append((key.lowerBound, key.count))
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
            index += 1
            guard member(&self, key, depth + 1) else { return false }
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return true
            default: return false
            }
        }
    }

    mutating func array(depth: Int) -> Bool {
        index += 1  // [
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return true
        }
        while true {
            guard value(depth: depth + 1) else { return false }
            skipSpace()
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// A string without escapes or control characters, valid UTF-8 (`index` on its opening quote): the
    /// range of its bytes between the quotes.
    mutating func string() -> Range<Int>? {
        let start = index + 1
        var end = start
        var ascii = true
        // Eight bytes at a time while none is a quote, a backslash or a control character (the words' bit tricks
        // never miss one; the bytes of a word that may hold one are read one by one below).
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var seen: UInt64 = 0
        while end + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: end, as: UInt64.self)
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
            if special & highs != 0 { break }
            seen |= word
            end += 8
        }
        if seen & highs != 0 { ascii = false }
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        guard end < bytes.count else { return nil }
        if !ascii {
            // Rare in a reply: validated as FastJSONReader does (allocating only here).
            guard String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self) != nil
            else { return nil }
        }
        index = end + 1
        return start..<end
    }

    mutating func literal(_ word: StaticString) -> Bool {
        skipSpace()
        let count = word.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 18 integer digits, or 17 digits with a fraction.
    mutating func number() -> Bool {
        guard let (integerDigits, fractionDigits) = JSONNumberGrammar.scan(bytes, at: &index) else {
            return false
        }
        return fractionDigits == 0 ? integerDigits <= 18 : integerDigits + fractionDigits <= 17
    }

    /// The integer written in `range` (a number already read by ``number()``), or `nil` when it is
    /// anything else (a string, a fraction, `null`…).
    func integer(_ range: Range<Int>) -> Int? {
        var position = range.lowerBound
        guard position < range.upperBound else { return nil }
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        guard position < range.upperBound else { return nil }
        var magnitude: Int64 = 0
        while position < range.upperBound {
            let byte = bytes[position]
            guard byte >= 0x30, byte <= 0x39 else { return nil }  // a fraction, a string, a literal
            magnitude = magnitude * 10 + Int64(byte - 0x30)  // at most 18 digits: no overflow
            position += 1
        }
        return Int(negative ? -magnitude : magnitude)
    }

    func isASCII(_ range: Range<Int>) -> Bool {
        for position in range where bytes[position] >= 0x80 { return false }
        return true
    }

    func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return memcmp(base + range.lowerBound, word.utf8Start, range.count) == 0
    }
}

/// JSON text a request body may carry as it stands, in place of the value it holds (issue 17: a pushed
/// inspection's stored `form_data` is sent without being parsed and written again).
public enum VerbatimJSON {
    /// Whether `text` is a JSON object whose value `JSONValue.parse` gives exactly through JQCKit's fast reader —
    /// objects, arrays, literals, strings without escapes or control characters (valid UTF-8), integers of at
    /// most 18 digits, decimals with a fraction and no exponent of at most 17 digits, at most 64 deep, no
    /// key twice in one object, ASCII keys — with no string value starting with `refusing` (`"local://"`).
    /// Such a text and `JSONValue.parse(text).jsonData()` are the same JSON value: the same keys, strings and
    /// numbers (only a number's spelling may differ, `0.10` for `0.1`, `-0` for `0`).
    /// - Parameters:
    ///   - text: UTF-8 JSON text.
    ///   - prefix: a prefix no string value may start with, or `nil` for none.
    /// - Returns: `false` for anything else (the caller parses and writes the value instead).
    public static func isObject(_ text: Data, refusing prefix: StaticString? = nil) -> Bool {
        text.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return false }
            var scanner = FastJSONScanner(bytes: bytes, base: base)
            scanner.refusedValuePrefix = prefix
            scanner.skipSpace()
            guard scanner.index < bytes.count, bytes[scanner.index] == UInt8(ascii: "{"),
                scanner.value(depth: 0)
            else { return false }
            scanner.skipSpace()
            return scanner.index == bytes.count
        }
    }
}
