/// What a JPEG's markers say, read without decoding any pixels (libjpeg's jpeg_read_header plus the EXIF
/// orientation from the primary image's IFD 0).
public struct JPEGHeader: Sendable, Equatable {
    /// Width in px as stored (before orientation).
    public let width: Int
    /// Height in px as stored (before orientation).
    public let height: Int
    /// Number of components: 1, 3 or 4.
    public let components: Int
    /// The components' colour model.
    public let colorSpace: JPEGColorSpace
    /// Bits per sample (8 for everything JQCJPEG accepts).
    public let bitsPerSample: Int
    /// Progressive (SOF2/SOF10).
    public let isProgressive: Bool
    /// Arithmetic-coded (SOF9…SOF11).
    public let isArithmeticCoded: Bool
    /// An Adobe APP14 marker was present. CMYK samples are read as Adobe-inverted either way, as browsers
    /// and Pillow do (issue 18).
    public let hasAdobeMarker: Bool
    /// EXIF orientation of IFD 0; ``ExifOrientation/up`` when absent or unusable.
    public let orientation: ExifOrientation
    /// Quantisation table 0 (luminance), 64 values in natural row-major order; `nil` when absent.
    public let luminanceQuantTable: [UInt16]?
    /// Number of libjpeg warnings judged harmless while reading the header (e.g. stray bytes before a
    /// table marker).
    public let toleratedWarnings: Int
    /// libjpeg's text for the first tolerated warning, if any.
    public let firstToleratedWarning: String?

    /// Width and height once the orientation is applied (5…8 swap them).
    public var orientedSize: (width: Int, height: Int) {
        orientation.swapsDimensions ? (height, width) : (width, height)
    }
}
