import JQCKit

/// Rounding that matches Python's `round(x, 2)` on an IEEE double (SCORING.md).
///
/// Python rounds the double's *exact* binary value to the nearest multiple of 0.01, ties to even,
/// then returns the double nearest that decimal. So `12.125` (exact in binary) becomes `12.12`, and a
/// double such as `0.285` (really 0.28499999999999998…) rounds down to `0.28`. Decimal arithmetic on
/// the printed value would get both wrong; this works on the double's bits.
public enum PythonRounding {
    /// `round(value, 2)` as Python computes it.
    /// - Parameter value: any double; NaN and infinities are returned unchanged.
    /// - Returns: the double nearest the correctly rounded two-decimal value (sign kept, `-0.0` for a
    ///   negative value that rounds to zero, as Python gives). Exact for |value| < 2^46; larger
    ///   values have no fraction finer than 0.01 to speak of and are returned as the nearest double
    ///   to the rounded hundredths.
    public static func roundToHundredths(_ value: Double) -> Double {
        guard value.isFinite, value != 0 else { return value }
        let magnitude = value.magnitude
        // magnitude = significand × 2^exponent with an integer significand below 2^53.
        let significand: UInt64
        let exponent: Int
        if magnitude.exponentBitPattern == 0 {
            significand = magnitude.significandBitPattern
            exponent = -1074
        } else {
            significand = magnitude.significandBitPattern | (1 << 52)
            exponent = Int(magnitude.exponentBitPattern) - 1075
        }
        if exponent >= 0 { return value }  // an integer already
        let shift = -exponent
        let scaled = significand * 100  // < 2^60: the value in hundredths, times 2^shift
        let quotient: UInt64
        let roundUp: Bool
        if shift >= 63 {
            quotient = 0  // below 2^60 / 2^63 hundredths: under half a hundredth
            roundUp = false
        } else {
            quotient = scaled >> UInt64(shift)
            let remainder = scaled & ((1 << UInt64(shift)) - 1)
            let half = UInt64(1) << UInt64(shift - 1)
            roundUp = remainder > half || (remainder == half && quotient & 1 == 1)
        }
        let hundredths = Double(quotient + (roundUp ? 1 : 0)) / 100
        return value < 0 ? -hundredths : hundredths
    }
}
