import Foundation

/// A 128-bit fingerprint of exact bytes — XXH64 (xxHash, Yann Collet's specification) with two seeds, 0 and
/// 0x9E3779B97F4A7C15, side by side — for "are these the very bytes I saw last time?" (issue 17: a list reply
/// that is byte-identical to the one the cache was built from is not decoded or applied again). Eight bytes a
/// step, a few gigabytes a second in a release build; SHA-256 is not in Foundation on Linux. It recognises
/// accidents, not attacks: whoever could forge a collision controls the server's data anyway.
public enum ContentDigest {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The digest of `bytes` as 32 lowercase hex digits (XXH64 seed 0, then XXH64 seed 0x9E3779B97F4A7C15).
    /// - Parameter bytes: any bytes (a reply body).
    /// - Returns: 32 hex digits.
    public static func hex(_ bytes: Data) -> String {
        bytes.withUnsafeBytes { raw in
            hex64(xxh64(raw, seed: 0)) + hex64(xxh64(raw, seed: 0x9E37_79B9_7F4A_7C15))
        }
    }

    /// XXH64 of `bytes` with `seed` (the reference algorithm: XXH64("", 0) = 0xEF46DB3751D8E999).
    /// - Returns: the 64-bit hash.
    public static func xxh64(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var hash: UInt64
        func word(_ at: Int) -> UInt64 {
            UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            while offset + 32 <= count {
                v1 = round(v1, word(offset))
                v2 = round(v2, word(offset + 8))
                v3 = round(v3, word(offset + 16))
                v4 = round(v4, word(offset + 24))
                offset += 32
            }
            hash = rotate(v1, 1) &+ rotate(v2, 7) &+ rotate(v3, 12) &+ rotate(v4, 18)
            for lane in [v1, v2, v3, v4] {
                hash ^= round(0, lane)
                hash = hash &* prime1 &+ prime4
            }
        } else {
            hash = seed &+ prime5
        }
        hash &+= UInt64(count)
        while offset + 8 <= count {
            hash ^= round(0, word(offset))
            hash = rotate(hash, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            let half = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            hash ^= half &* prime1
            hash = rotate(hash, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            hash ^= UInt64(bytes[offset]) &* prime5
            hash = rotate(hash, 11) &* prime1
            offset += 1
        }
        hash ^= hash >> 33
        hash = hash &* prime2
        hash ^= hash >> 29
        hash = hash &* prime3
        hash ^= hash >> 32
        return hash
    }

    @inline(__always) private static func round(_ accumulator: UInt64, _ input: UInt64) -> UInt64 {
        rotate(accumulator &+ input &* prime2, 31) &* prime1
    }

    @inline(__always) private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }

    private static func hex64(_ value: UInt64) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
