/// The JSON number grammar of the fast readers: the subset they read exactly, the rest left to the full parser.
public enum JSONNumberGrammar {
    /// Scans the JSON number at `index` in `bytes` in the one grammar the fast readers accept,
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` (issue 17: JQCKit's fast JSON reader and JQCNetwork's created-reply
    /// scanner share it): moves `index` past it and returns its digit counts, or `nil` (index anywhere) for anything else — an
    /// exponent, a leading zero, a bare `-` or `.` — which the callers leave to the full parser.
    /// - Parameters:
    ///   - bytes: UTF-8 JSON text; `index` must be in range and at `-` or a digit.
    ///   - index: a byte offset into `bytes`.
    /// - Returns: the number's integer and fraction digit counts, or `nil`.
    @inlinable
    public static func scan(_ bytes: UnsafeRawBufferPointer, at index: inout Int)
        -> (integerDigits: Int, fractionDigits: Int)?
    {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integerStart = index
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
        let integerDigits = index - integerStart
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            fractionDigits = index - fractionStart
            guard fractionDigits > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            return nil
        }
        return (integerDigits, fractionDigits)
    }
}
