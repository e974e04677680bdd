import Foundation
import JQCJPEG
import Testing

/// Builders for test JPEGs: known asymmetric patterns, hand-built EXIF APP1 segments, byte surgery.
enum TestImages {
    /// A `width` × `height` pattern of 4 × 4 flat blocks, every block a different colour (or grey level),
    /// so any mirror or turn moves colours somewhere else.
    static func blocks(width: Int = 64, height: Int = 40, channels: Int = 3) throws -> PixelImage {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let bx = x * 4 / width
                let by = y * 4 / height
                let offset = (y * width + x) * channels
                if channels == 1 {
                    pixels[offset] = UInt8(10 + (bx + 4 * by) * 15)
                } else {
                    pixels[offset] = UInt8(20 + bx * 70)
                    pixels[offset + 1] = UInt8(20 + by * 70)
                    pixels[offset + 2] = UInt8(240 - (bx + 4 * by) * 14)
                }
            }
        }
        return try PixelImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Deterministic noise (hard to compress), for output-size caps.
    static func noise(width: Int, height: Int) throws -> PixelImage {
        var state: UInt32 = 2_463_534_242
        let pixels = (0..<width * height * 3).map { _ -> UInt8 in
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            return UInt8(truncatingIfNeeded: state)
        }
        return try PixelImage(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// An independent (pure Swift) reference for EXIF orientations: the upright image for stored pixels.
    static func reference(_ image: PixelImage, _ orientation: Int) throws -> PixelImage {
        let (w, h, c) = (image.width, image.height, image.channels)
        let (ow, oh) = orientation >= 5 ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: image.pixels.count)
        image.pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<oh {
                    for x in 0..<ow {
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case 2: (sx, sy) = (w - 1 - x, y)
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case 4: (sx, sy) = (x, h - 1 - y)
                        case 5: (sx, sy) = (y, x)
                        case 6: (sx, sy) = (y, h - 1 - x)
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case 8: (sx, sy) = (w - 1 - y, x)
                        default: (sx, sy) = (x, y)
                        }
                        for k in 0..<c { target[(y * ow + x) * c + k] = source[(sy * w + sx) * c + k] }
                    }
                }
            }
        }
        return try PixelImage(width: ow, height: oh, channels: c, pixels: out)
    }

    /// The stored image that shows as `upright` under EXIF `orientation` (the inverse transform).
    static func stored(showing upright: PixelImage, _ orientation: Int) throws -> PixelImage {
        let inverse = try #require([1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6][orientation])
        return try reference(upright, inverse)
    }

    /// Mean absolute difference per sample; `nil` when the shapes differ.
    static func meanAbsoluteDifference(_ a: PixelImage, _ b: PixelImage) -> Double? {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels else { return nil }
        var total = 0
        a.pixels.withUnsafeBufferPointer { left in
            b.pixels.withUnsafeBufferPointer { right in
                for i in 0..<left.count { total += abs(Int(left[i]) - Int(right[i])) }
            }
        }
        return Double(total) / Double(a.pixels.count)
    }

    /// One TIFF IFD entry (12 bytes).
    struct Entry {
        var tag: UInt16
        var type: UInt16 = 3  // SHORT
        var count: UInt32 = 1
        var value: UInt32
    }

    /// A hand-built APP1 payload ("Exif\0\0" + TIFF) with IFD 0 holding `ifd0` and, when given, an IFD 1
    /// (thumbnail) holding `ifd1`. `nextOfIFD0` overrides IFD 0's next-IFD offset (e.g. a loop to itself).
    static func exifPayload(
        bigEndian: Bool, ifd0: [Entry], ifd1: [Entry]? = nil,
        nextOfIFD0: UInt32? = nil
    ) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
        }
        func u32(_ v: UInt32) -> [UInt8] {
            let bytes = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? bytes : bytes.reversed()
        }
        func entry(_ e: Entry) -> [UInt8] {
            // A SHORT value sits in the first two bytes of the 4-byte value field.
            let value = e.type == 3 ? u16(UInt16(e.value)) + [0, 0] : u32(e.value)
            return u16(e.tag) + u16(e.type) + u32(e.count) + value
        }
        let ifd0Offset: UInt32 = 8
        let ifd1Offset = ifd0Offset + 2 + UInt32(ifd0.count * 12) + 4
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]
        tiff += u32(ifd0Offset)
        tiff += u16(UInt16(ifd0.count)) + ifd0.flatMap(entry)
        tiff += u32(nextOfIFD0 ?? (ifd1 == nil ? 0 : ifd1Offset))
        if let ifd1 {
            tiff += u16(UInt16(ifd1.count)) + ifd1.flatMap(entry) + u32(0)
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    /// An orientation-only EXIF payload, optionally with another orientation in the thumbnail's IFD 1.
    static func orientationPayload(_ value: UInt16, bigEndian: Bool, thumbnail: UInt16? = nil) -> [UInt8] {
        exifPayload(
            bigEndian: bigEndian, ifd0: [Entry(tag: 0x0112, value: UInt32(value))],
            ifd1: thumbnail.map { [Entry(tag: 0x0112, value: UInt32($0))] })
    }

    /// `jpeg` with an APP1 segment holding `payload` inserted right after SOI.
    static func inserting(app1 payload: [UInt8], into jpeg: Data) -> Data {
        let length = payload.count + 2
        var out = Data(jpeg.prefix(2))
        out.append(contentsOf: [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload)
        out.append(jpeg.dropFirst(2))
        return out
    }

    /// `jpeg` with `junk` inserted at byte `offset`.
    static func inserting(_ junk: [UInt8], at offset: Int, into jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        bytes.insert(contentsOf: junk, at: offset)
        return Data(bytes)
    }

    /// Marker codes (the byte after 0xFF) of the segments up to and including the first SOS.
    static func headerMarkers(_ jpeg: Data) -> [UInt8] {
        let bytes = [UInt8](jpeg)
        var markers: [UInt8] = []
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            markers.append(marker)
            if marker == 0xDA { break }
            i += 2 + (Int(bytes[i + 2]) << 8) + Int(bytes[i + 3])
        }
        return markers
    }

    /// Byte offset of the first `0xFF marker` pair.
    static func offset(ofMarker marker: UInt8, in jpeg: Data) -> Int? {
        let bytes = [UInt8](jpeg)
        return (0..<bytes.count - 1).first { bytes[$0] == 0xFF && bytes[$0 + 1] == marker }
    }

    /// `jpeg` with the SOF0 frame header's precision, height and width replaced.
    static func patchingFrame(_ jpeg: Data, precision: UInt8? = nil, width: Int? = nil, height: Int? = nil) -> Data {
        var bytes = [UInt8](jpeg)
        guard let sof = offset(ofMarker: 0xC0, in: jpeg) else { return jpeg }
        if let precision { bytes[sof + 4] = precision }
        if let height {
            bytes[sof + 5] = UInt8(height >> 8)
            bytes[sof + 6] = UInt8(height & 0xFF)
        }
        if let width {
            bytes[sof + 7] = UInt8(width >> 8)
            bytes[sof + 8] = UInt8(width & 0xFF)
        }
        return Data(bytes)
    }

    /// The luminance table of ITU-T T.81 Annex K (K.1), natural order.
    static let annexKLuminance: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61,
        12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77,
        24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101,
        72, 92, 95, 98, 112, 100, 103, 99,
    ]
}
