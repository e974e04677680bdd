/// A decoded JPEG: pixels as stored (orientation NOT yet applied) and what the header said.
public struct DecodedJPEG: Sendable {
    /// The pixels, gray (1 channel) for grayscale input and RGB (3) for everything else (CMYK and YCCK
    /// converted; CMYK samples read as Adobe-inverted with or without the APP14 marker, issue 18), possibly
    /// reduced by DCT scaling.
    public var image: PixelImage
    /// The header, with the EXIF orientation still to apply.
    public let header: JPEGHeader
    /// The DCT scaling used: the image was decoded at 1/`scaleDenominator` (1, 2, 4 or 8).
    public let scaleDenominator: Int
    /// libjpeg warnings judged harmless during the whole decode (header oddities).
    public let toleratedWarnings: Int
}
