import Foundation
import JQCJPEG
import Testing

/// Mean absolute difference per sample allowed between an oriented re-encode and the upright pattern
/// (two JPEG generations: quality 95 in, quality 80 out; measured ≤ 6.1, chroma subsampling at the sharp
/// block edges). A wrong orientation measures ≥ 56 (asserted below: > 3 × bound), so the bound tells
/// orientations apart.
let generatedPixelBound = 10.0

@Suite("EXIF orientation on generated JPEGs")
struct GeneratedOrientationTests {
    static let cases: [(Int, Bool)] = (1...8).flatMap { [($0, false), ($0, true)] }

    @Test(
        "each orientation in both byte orders is applied to the pixels once and the IFD 1 thumbnail tag is ignored",
        arguments: cases)
    func orientationApplied(orientation: Int, bigEndian: Bool) throws {
        let upright = try TestImages.blocks(width: 64, height: 40)
        let stored = try TestImages.stored(showing: upright, orientation)
        let plain = try JPEGCodec.encode(stored, quality: 95)
        let thumbnail: UInt16 = orientation == 6 ? 8 : 6
        let jpeg = TestImages.inserting(
            app1: TestImages.orientationPayload(UInt16(orientation), bigEndian: bigEndian, thumbnail: thumbnail),
            into: plain)

        let header = try JPEGCodec.readHeader(jpeg)
        #expect(header.orientation.rawValue == orientation)
        #expect(header.width == stored.width && header.height == stored.height)

        let (output, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.orientationApplied.rawValue == orientation)
        #expect(result.width == 64 && result.height == 40)
        #expect(result.sourceWidth == stored.width && result.sourceHeight == stored.height)
        #expect(result.outputBytes == output.count)
        #expect(!TestImages.headerMarkers(output).contains(0xE1), "the output carries no EXIF APP1")
        #expect(try JPEGCodec.readHeader(output).orientation == .up)

        let decoded = try JPEGCodec.decode(output).image
        let difference = try #require(TestImages.meanAbsoluteDifference(decoded, upright))
        #expect(difference < generatedPixelBound, "orientation \(orientation): mean difference \(difference)")

        // The bound is meaningful: the stored pixels turned any other way are far from upright.
        let storedDecoded = try JPEGCodec.decode(plain).image
        for wrong in 1...8 where wrong != orientation {
            let candidate = try TestImages.reference(storedDecoded, wrong)
            guard let wrongDifference = TestImages.meanAbsoluteDifference(candidate, upright) else { continue }
            #expect(wrongDifference > 3 * generatedPixelBound, "orientation \(wrong) instead of \(orientation)")
        }
    }

    @Test(
        "PixelImage.apply matches an independent reference exactly for all 8 orientations, RGB and gray, whole 8 × 8 blocks or not",
        arguments: [(3, 7, 5), (1, 9, 4), (3, 37, 29), (1, 37, 29), (1, 64, 48), (1, 8, 16)])
    func applyMatchesReference(channels: Int, width: Int, height: Int) throws {
        let noise = try TestImages.noise(width: width, height: height)
        let source =
            channels == 3
            ? noise
            : try PixelImage(
                width: width, height: height, channels: 1,
                pixels: stride(from: 0, to: noise.pixels.count, by: 3).map { noise.pixels[$0] })
        for orientation in ExifOrientation.allCases {
            var turned = source
            turned.apply(orientation)
            let expected = try TestImages.reference(source, orientation.rawValue)
            #expect(turned == expected, "orientation \(orientation.rawValue)")
        }
    }

    @Test("a grayscale JPEG stays a valid one-channel JPEG and is oriented like RGB")
    func grayscale() throws {
        let upright = try TestImages.blocks(width: 48, height: 32, channels: 1)
        let stored = try TestImages.stored(showing: upright, 6)
        let jpeg = TestImages.inserting(
            app1: TestImages.orientationPayload(6, bigEndian: true),
            into: try JPEGCodec.encode(stored, quality: 95))
        #expect(try JPEGCodec.readHeader(jpeg).colorSpace == .gray)
        let (output, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.channels == 1 && result.width == 48 && result.height == 32)
        let header = try JPEGCodec.readHeader(output)
        #expect(header.components == 1 && header.colorSpace == .gray)
        let decoded = try JPEGCodec.decode(output).image
        let difference = try #require(TestImages.meanAbsoluteDifference(decoded, upright))
        #expect(difference < generatedPixelBound)
    }
}

@Suite("damaged EXIF means orientation 1")
struct DamagedExifTests {
    typealias Entry = TestImages.Entry

    static let payloads: [(String, [UInt8])] = [
        ("orientation 0", TestImages.orientationPayload(0, bigEndian: true)),
        ("orientation 9", TestImages.orientationPayload(9, bigEndian: false)),
        ("orientation 65535", TestImages.orientationPayload(65535, bigEndian: true)),
        (
            "orientation stored as LONG",
            TestImages.exifPayload(
                bigEndian: false, ifd0: [Entry(tag: 0x0112, type: 4, value: 6)])
        ),
        (
            "orientation with zero components",
            TestImages.exifPayload(
                bigEndian: true, ifd0: [Entry(tag: 0x0112, count: 0, value: 6)])
        ),
        (
            "only in the thumbnail's IFD 1",
            TestImages.exifPayload(
                bigEndian: false, ifd0: [Entry(tag: 0x010F, type: 3, value: 1)], ifd1: [Entry(tag: 0x0112, value: 6)])
        ),
        ("TIFF header cut short", Array(TestImages.orientationPayload(6, bigEndian: true).prefix(12))),
        ("IFD 0 cut in the middle of its entry", Array(TestImages.orientationPayload(6, bigEndian: false).prefix(18))),
        (
            "bad byte-order mark",
            Array("Exif".utf8) + [
                0, 0, 0x58, 0x58, 0x2A, 0x00, 8, 0, 0, 0, 1, 0, 0x12, 0x01,
                3, 0, 1, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0,
            ]
        ),
        (
            "IFD 0 offset beyond the segment",
            Array("Exif".utf8) + [0, 0, 0x49, 0x49, 0x2A, 0x00, 0xFF, 0xFF, 0, 0]
                + [UInt8](repeating: 0, count: 8)
        ),
        (
            "Exif sub-IFD pointing outside",
            TestImages.exifPayload(
                bigEndian: true, ifd0: [Entry(tag: 0x8769, type: 4, value: 0x7FFF_FFF0)])
        ),
        ("not EXIF at all (XMP)", Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)),
    ]

    @Test("unusable EXIF reads as orientation 1 and the photo still imports", arguments: payloads)
    func unusableExif(name: String, payload: [UInt8]) throws {
        #expect(ExifOrientation.read(app1: payload) == .up, "\(name)")
        let jpeg = TestImages.inserting(app1: payload, into: try JPEGCodec.encode(try TestImages.blocks(), quality: 90))
        let (_, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.orientationApplied == .up)
        #expect(result.width == 64 && result.height == 40)
    }

    @Test("a looping IFD chain or a sub-IFD pointing back at IFD 0 neither hangs nor fails; IFD 0's tag still counts")
    func recursiveExif() throws {
        let selfLoop = TestImages.exifPayload(bigEndian: false, ifd0: [Entry(tag: 0x0112, value: 3)], nextOfIFD0: 8)
        #expect(ExifOrientation.read(app1: selfLoop) == .down)
        let subIFDLoop = TestImages.exifPayload(
            bigEndian: true, ifd0: [Entry(tag: 0x0112, value: 8), Entry(tag: 0x8769, type: 4, value: 8)])
        #expect(ExifOrientation.read(app1: subIFDLoop) == .left)
        let base = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        let jpeg = TestImages.inserting(app1: subIFDLoop, into: base)
        let (_, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.orientationApplied == .left && result.width == 40 && result.height == 64)
    }

    @Test("only the first EXIF segment counts: a second, different one is ignored")
    func firstExifSegmentWins() throws {
        let base = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        let second = TestImages.inserting(app1: TestImages.orientationPayload(6, bigEndian: true), into: base)
        let both = TestImages.inserting(app1: TestImages.orientationPayload(3, bigEndian: false), into: second)
        #expect(try JPEGCodec.readHeader(both).orientation == .down)
    }
}
