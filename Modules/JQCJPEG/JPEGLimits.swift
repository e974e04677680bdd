/// Size limits checked right after the header is read, before any pixel is decoded (issue 8): a
/// few-hundred-byte "bomb" claiming 65,500 × 65,500 px would otherwise cost ~12 GB and seconds.
public struct JPEGLimits: Sendable, Equatable {
    /// Refuse images with more pixels than this (width × height); default 100,000,000 (100 megapixels).
    public var maxPixels: Int
    /// Refuse images with a side longer than this, in px; default 30,000.
    public var maxSide: Int

    /// Creates limits; the defaults are issue 8's.
    public init(maxPixels: Int = 100_000_000, maxSide: Int = 30_000) {
        self.maxPixels = maxPixels
        self.maxSide = maxSide
    }
}
