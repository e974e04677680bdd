import CJPEGShim

/// Decoded pixels: `height` rows of `width` pixels, each `channels` bytes (1 = gray, 3 = R, G, B),
/// packed with no row padding; row 0 is the top. 8 bits per sample.
public struct PixelImage: Sendable, Equatable {
    /// The longest side JPEG (and libjpeg) can hold, in px.
    public static let maxSide = 65_500

    /// Width in px.
    public private(set) var width: Int
    /// Height in px.
    public private(set) var height: Int
    /// Bytes per pixel: 1 (gray) or 3 (RGB).
    public let channels: Int
    /// `width * height * channels` bytes, row-major.
    public private(set) var pixels: [UInt8]

    /// Wraps a pixel buffer.
    /// - Throws: ``JPEGError`` `.invalidArgument` when a side is outside 1…65,500 px (JPEG's limit),
    ///   `channels` is not 1 or 3, or `pixels.count != width * height * channels`.
    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) throws(JPEGError) {
        let sidesFit = (1...Self.maxSide).contains(width) && (1...Self.maxSide).contains(height)
        guard sidesFit, channels == 1 || channels == 3, pixels.count == width * height * channels
        else {
            throw JPEGError(
                .invalidArgument,
                "A pixel image needs sides of 1 to 65,500 px, 1 or 3 channels and width × height × channels bytes.")
        }
        self.init(unchecked: width, height: height, channels: channels, pixels: pixels)
    }

    init(unchecked width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// The bytes of the pixel at column `x`, row `y` (0-based from the top left).
    public func pixel(x: Int, y: Int) -> ArraySlice<UInt8> {
        let start = (y * width + x) * channels
        return pixels[start..<start + channels]
    }

    /// Turns the pixels as EXIF `orientation` says, so the image shows upright. Values 2–4 work in place;
    /// 5–8 (which swap width and height) build the turned copy in a second buffer and release the first,
    /// so peak memory is two images (issue 8).
    public mutating func apply(_ orientation: ExifOrientation) {
        switch orientation {
        case .up:
            return
        case .upMirrored, .down, .downMirrored:
            let (w, h, c) = (Int32(width), Int32(height), Int32(channels))
            pixels.withUnsafeMutableBufferPointer { buffer in
                jqc_orient_in_place(buffer.baseAddress, w, h, c, Int32(orientation.rawValue))
            }
        case .leftMirrored, .right, .rightMirrored, .left:
            let (w, h, c) = (Int32(width), Int32(height), Int32(channels))
            let turned = [UInt8](unsafeUninitializedCapacity: pixels.count) { target, count in
                pixels.withUnsafeBufferPointer { source in
                    jqc_orient_copy(source.baseAddress, w, h, c, Int32(orientation.rawValue), target.baseAddress)
                }
                count = target.count
            }
            pixels = turned
            swap(&width, &height)
        }
    }
}
