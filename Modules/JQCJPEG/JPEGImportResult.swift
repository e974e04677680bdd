/// What an import produced.
public struct JPEGImportResult: Sendable, Equatable {
    /// Output width in px (after scaling and orientation).
    public let width: Int
    /// Output height in px (after scaling and orientation).
    public let height: Int
    /// The EXIF orientation that was applied to the pixels (``ExifOrientation/up`` = none).
    public let orientationApplied: ExifOrientation
    /// Input width in px as stored.
    public let sourceWidth: Int
    /// Input height in px as stored.
    public let sourceHeight: Int
    /// DCT scaling used while decoding: 1/`scaleDenominator` (1, 2, 4 or 8).
    public let scaleDenominator: Int
    /// Size of the written JPEG in bytes.
    public let outputBytes: Int
    /// Output channels: 1 for grayscale input, else 3.
    public let channels: Int
    /// libjpeg warnings judged harmless (header oddities such as stray bytes before a table marker).
    public let toleratedWarnings: Int
}
