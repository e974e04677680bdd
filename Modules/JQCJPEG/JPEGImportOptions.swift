/// Settings for the photo import pipeline (issue 8; seed 001 §13 and rule 18).
public struct JPEGImportOptions: Sendable, Equatable {
    /// Photos whose long edge is over this many px are reduced with libjpeg's DCT scaling (1/2, 1/4 or
    /// 1/8, the smallest reduction that fits) while decoding; smaller ones keep their size. Default 4,096.
    public var maxLongEdge: Int
    /// JPEG quality 1…100 of the output; default 80 (the app's 0.8, seed 001 rule 18).
    public var quality: Int
    /// Refused input sizes, checked right after the header (default 100 megapixels / 30,000 px a side).
    public var limits: JPEGLimits
    /// The output may be at most this many bytes: the server's 50 MB upload cap (CONTRACT.md, Photos: 413),
    /// taken as 50 × 1,024 × 1,024 = 52,428,800 bytes.
    public var maxOutputBytes: Int

    /// The server's upload cap in bytes (CONTRACT.md, Photos: "413 over 50 MB").
    public static let serverUploadCap = 50 * 1024 * 1024

    /// Creates options; the defaults are issue 8's.
    public init(
        maxLongEdge: Int = 4096, quality: Int = 80, limits: JPEGLimits = JPEGLimits(),
        maxOutputBytes: Int = JPEGImportOptions.serverUploadCap
    ) {
        self.maxLongEdge = maxLongEdge
        self.quality = quality
        self.limits = limits
        self.maxOutputBytes = maxOutputBytes
    }
}
