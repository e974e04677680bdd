import Foundation

/// The fast path of ``JSONValue/parse(_:)-(Data)`` (issue 17): a reader straight from the UTF-8 bytes to a
/// value, for the JSON the app reads most (reply envelopes, stored answers and schemas). Through
/// `JSONSerialization` and Foundation objects a small reply cost ~250,000 instructions, most of a request.
///
/// It reads only what it can read exactly as `JSONSerialization` plus ``JSONValue/init(foundationObject:)`` do: objects, arrays,
/// `true`/`false`/`null`, strings without escapes or control characters (valid UTF-8), integers of at most
/// 18 digits (`.int`) and decimals with a fraction, no exponent and at most 17 digits (`.double`, so `4.0`
/// stays a double), nested at most ``maximumDepth`` deep, with no key twice in one object. For anything
/// else — an escape, an exponent, a longer number, a repeated key, a byte-order mark, text after the value,
/// or text that is not JSON at all — it returns `nil`, and ``JSONValue/parse(_:)-(Data)`` parses through
/// `JSONSerialization`, whose value or error is then the answer. So a text gives the same value either way
/// (pinned by `FastJSONReaderTests`, which compares both readers on the same texts).
enum FastJSONReader {
    /// The deepest nesting read here; deeper text goes to `JSONSerialization`.
    static let maximumDepth = 64

    /// The value of `data`, or `nil` when `data` holds anything this reader leaves to `JSONSerialization`.
    static func parse(_ data: Data) -> JSONValue? {
        data.withUnsafeBytes { bytes -> JSONValue? in
            var reader = Reader(bytes: bytes)
            guard let value = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            // Not `cond ? value : nil`: JSONValue is ExpressibleByNilLiteral, so that `nil` would be `.null`.
            guard reader.index == bytes.count else { return nil }
            return value
        }
    }

    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func skipSpace() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        mutating func value(depth: Int) -> JSONValue? {
            guard depth <= FastJSONReader.maximumDepth else { return nil }
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        mutating func object(depth: Int) -> JSONValue? {
            index += 1  // {
            var members: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let member = value(depth: depth + 1), members.updateValue(member, forKey: key) == nil else {
                    return nil  // unreadable here, or a repeated key: JSONSerialization decides
                }
                skipSpace()
                guard index < bytes.count else { return nil }
                switch bytes[index] {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    return .object(members)
                default: return nil
                }
            }
        }

        mutating func array(depth: Int) -> JSONValue? {
            index += 1  // [
            var elements: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                guard index < bytes.count else { return nil }
                switch bytes[index] {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "]"):
                    index += 1
                    return .array(elements)
                default: return nil
                }
            }
        }

        /// A string without escapes or control characters, valid UTF-8; `index` is on its opening quote.
        mutating func string() -> String? {
            let start = index + 1
            var end = start
            var ascii = true
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") { break }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                if byte >= 0x80 { ascii = false }
                end += 1
            }
            guard end < bytes.count else { return nil }
            index = end + 1
            let text = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
            // ASCII is valid UTF-8 as it stands: decoded without the generic validation (issue 17: ~44,000
            // instructions of a pushed inspection's reply, ~1,000 a string); anything else is validated.
            return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        }

        mutating func literal(_ word: StaticString, _ value: JSONValue) -> JSONValue? {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { return nil }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return nil }
            index += count
            return value
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?`; an exponent or too many digits is left to `JSONSerialization`.
        mutating func number() -> JSONValue? {
            let start = index
            guard let (integerDigits, fractionDigits) = JSONNumberGrammar.scan(bytes, at: &index) else {
                return nil
            }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            if fractionDigits == 0 {
                guard integerDigits <= 18, let integer = Int64(text) else { return nil }
                return .int(integer)
            }
            guard integerDigits + fractionDigits <= 17, let decimal = Double(text) else { return nil }
            return .double(decimal)
        }
    }
}
