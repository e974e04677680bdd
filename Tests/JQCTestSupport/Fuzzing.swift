import Foundation

/// A seeded random number generator (SplitMix64): a fuzz run is repeatable from its seed.
public struct FuzzGenerator: RandomNumberGenerator {
    private var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How many fuzz iterations a test runs: its default (a short budget for `make test`), or
/// `$JQC_FUZZ_ITERATIONS` (the longer budget of `make chaos`).
public enum FuzzBudget {
    /// The iteration count for a test whose short budget is `defaultCount`.
    public static func iterations(default defaultCount: Int) -> Int {
        ProcessInfo.processInfo.environment["JQC_FUZZ_ITERATIONS"].flatMap(Int.init) ?? defaultCount
    }
}

/// Byte-level mutations in the style of AFL's havoc stage: bit flips, interesting bytes, insertions,
/// deletions, duplicated runs, truncation, and JPEG-ish marker bytes.
public enum Mutator {
    /// `data` with one to four random mutations applied.
    public static func mutate(_ data: Data, using generator: inout FuzzGenerator) -> Data {
        var bytes = [UInt8](data)
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            guard !bytes.isEmpty else {
                bytes = [UInt8.random(in: 0...255, using: &generator)]
                continue
            }
            let index = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<8, using: &generator) {
            case 0:
                bytes[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1:
                bytes[index] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE].randomElement(using: &generator) ?? 0x00
            case 2:
                let insert = (0..<Int.random(in: 1...16, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
                bytes.insert(contentsOf: insert, at: index)
            case 3:
                let end = min(bytes.count, index + Int.random(in: 1...64, using: &generator))
                bytes.removeSubrange(index..<end)
            case 4:
                let end = min(bytes.count, index + Int.random(in: 1...64, using: &generator))
                bytes.insert(contentsOf: bytes[index..<end], at: Int.random(in: 0...bytes.count, using: &generator))
            case 5:
                bytes.removeSubrange(index...)
            case 6:
                // A marker where none belongs (JPEG segment structure) or a stray quote (JSON structure).
                bytes.insert(
                    contentsOf: [
                        0xFF,
                        [0xD8, 0xD9, 0xDA, 0xC0, 0xC4, 0xDB, 0xE1, 0xD0].randomElement(using: &generator) ?? 0xD8,
                    ],
                    at: index)
            default:
                bytes[index] =
                    [
                        UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "]"), UInt8(ascii: ","),
                        UInt8(ascii: "9"),
                    ].randomElement(using: &generator) ?? UInt8(ascii: "9")
            }
        }
        return Data(bytes)
    }
}
