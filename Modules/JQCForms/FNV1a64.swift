import JQCKit

/// The 64-bit FNV-1a hash (Fowler–Noll–Vo, offset basis 0xcbf29ce484222325, prime 0x100000001b3).
///
/// Used for schema pinning (``FormSchema/hash``): SHA-256 is not in Foundation on Linux and this
/// module may import nothing else. It is a fingerprint, not a security measure.
public enum FNV1a64 {
    /// The hash of `bytes`.
    /// - Parameter bytes: any bytes.
    /// - Returns: the 64-bit hash.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var value: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            value ^= UInt64(byte)
            value = value &* 0x0000_0100_0000_01b3
        }
        return value
    }

    /// The hash of `bytes` as 16 lowercase hex digits.
    public static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let text = String(hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
