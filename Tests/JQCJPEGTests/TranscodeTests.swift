import Foundation
import Testing

@testable import JQCJPEG

/// The one-pass transcoder behind the import pipeline (issue 17): which route a photo takes, that the
/// routes agree with the plain decode → orient → encode, that two threads write what one writes, what is
/// held in memory, and that a failure on either thread ends the other.
@Suite("transcoding in one pass")
struct TranscodeTests {
    static let oneThreadRGB = JPEGTranscodeSettings(threads: 1, passThrough: false)
    static let oneThread = JPEGTranscodeSettings(threads: 1, passThrough: true)
    static let twoThreadsRGB = JPEGTranscodeSettings(threads: 2, passThrough: false)

    /// A photo-like upright pattern (the asymmetric blocks plus a little deterministic noise), stored turned
    /// so that EXIF `orientation` shows it upright, as a quality-90 4:2:0 JPEG carrying that orientation.
    static func photo(width: Int, height: Int, orientation: Int, channels: Int = 3) throws -> Data {
        try original(width: width, height: height, orientation: orientation, channels: channels).jpeg
    }

    /// ``photo(width:height:orientation:channels:)`` with the upright pixels it was made from.
    static func original(width: Int, height: Int, orientation: Int, channels: Int = 3) throws
        -> (jpeg: Data, upright: PixelImage)
    {
        let blocks = try TestImages.blocks(width: width, height: height, channels: channels)
        var state: UInt32 = 0x9E37_79B9
        let pixels = blocks.pixels.map { value -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(clamping: Int(value) + Int(state >> 29) - 4)
        }
        let upright = try PixelImage(width: width, height: height, channels: channels, pixels: pixels)
        let jpeg = try JPEGCodec.encode(try TestImages.stored(showing: upright, orientation), quality: 90)
        guard orientation != 1 else { return (jpeg, upright) }
        let payload = TestImages.orientationPayload(UInt16(orientation), bigEndian: false)
        return (TestImages.inserting(app1: payload, into: jpeg), upright)
    }

    /// An independent statement of the shim's rule: 4:2:0 planes are turned only when every flip keeps a
    /// chroma sample on its own 2 × 2 luma block (left–right: even stored width; top–bottom: even height).
    static func planesTurnCleanly(width: Int, height: Int, orientation: Int) -> Bool {
        let flipsX = [2, 3, 7, 8].contains(orientation)
        let flipsY = [3, 4, 6, 7].contains(orientation)
        return (!flipsX || width % 2 == 0) && (!flipsY || height % 2 == 0)
    }

    /// Whether two results agree on everything but the output's byte count.
    static func sameButSize(_ a: JPEGImportResult, _ b: JPEGImportResult) -> Bool {
        (a.width, a.height, a.orientationApplied, a.sourceWidth, a.sourceHeight)
            == (b.width, b.height, b.orientationApplied, b.sourceWidth, b.sourceHeight)
            && (a.scaleDenominator, a.channels, a.toleratedWarnings) == (
                b.scaleDenominator, b.channels, b.toleratedWarnings
            )
    }

    /// What the pipeline wrote before issue 17: the whole image decoded to RGB, turned, then encoded.
    static func decodeOrientEncode(_ jpeg: Data, options: JPEGImportOptions = JPEGImportOptions()) throws -> Data {
        var decoded = try JPEGCodec.decode(jpeg, maxLongEdge: options.maxLongEdge)
        decoded.image.apply(decoded.header.orientation)
        return try JPEGCodec.encode(decoded.image, quality: options.quality)
    }

    @Test(
        "the RGB route writes exactly the bytes of decode, orient, encode (odd and even sizes, gray and colour)",
        arguments: [(67, 41, 3), (64, 40, 3), (33, 50, 1)], Array(1...8))
    func rgbRouteMatchesWholeImage(size: (Int, Int, Int), orientation: Int) throws {
        let jpeg = try Self.photo(width: size.0, height: size.1, orientation: orientation, channels: size.2)
        let report = try JPEGCodec.transcode(jpeg, options: JPEGImportOptions(), settings: Self.oneThreadRGB)
        #expect(report.path == (orientation <= 2 ? .pixelStream : .fullBuffer))
        #expect(report.jpeg == (try Self.decodeOrientEncode(jpeg)), "\(size) orientation \(orientation)")
        #expect(report.result.width == size.0 && report.result.height == size.1)
        #expect(report.result.channels == size.2)
    }

    @Test("DCT-scaled photos take the RGB routes and match decode, orient, encode too", arguments: [1, 2, 6])
    func scaledMatchesWholeImage(orientation: Int) throws {
        let jpeg = try Self.photo(width: 200, height: 120, orientation: orientation)
        let options = JPEGImportOptions(maxLongEdge: 100)
        let report = try JPEGCodec.transcode(jpeg, options: options)
        #expect(report.result.scaleDenominator == 2)
        #expect(report.path == (orientation <= 2 ? .pixelStream : .fullBuffer))
        #expect(report.jpeg == (try Self.decodeOrientEncode(jpeg, options: options)))
    }

    @Test(
        "4:2:0 photos at full scale go plane to plane and come out at least as close to the original as the RGB route",
        arguments: [(96, 64), (65, 41)], Array(1...8))
    func planesAtLeastAsGoodAsRGB(size: (Int, Int), orientation: Int) throws {
        let (jpeg, upright) = try Self.original(width: size.0, height: size.1, orientation: orientation)
        let planes = try JPEGCodec.transcode(jpeg, options: JPEGImportOptions(), settings: Self.oneThread)
        let rgb = try JPEGCodec.transcode(jpeg, options: JPEGImportOptions(), settings: Self.oneThreadRGB)
        let (storedWidth, storedHeight) = orientation >= 5 ? (size.1, size.0) : (size.0, size.1)
        let clean = Self.planesTurnCleanly(width: storedWidth, height: storedHeight, orientation: orientation)
        let planePath: JPEGTranscodePath = orientation <= 2 ? .rawStream : .rawFullBuffer
        #expect(planes.path == (clean ? planePath : (orientation <= 2 ? .pixelStream : .fullBuffer)))
        #expect(Self.sameButSize(planes.result, rgb.result) && planes.result.outputBytes == planes.jpeg.count)
        let header = try JPEGCodec.readHeader(planes.jpeg)
        #expect(header.luminanceQuantTable == JPEGCodec.standardLuminanceTable(quality: 80))
        #expect(!header.isProgressive && header.colorSpace == .yCbCr && header.orientation == .up)
        let fromPlanes = try JPEGCodec.decode(planes.jpeg).image
        let planeError = try #require(TestImages.meanAbsoluteDifference(fromPlanes, upright))
        let rgbError = try #require(TestImages.meanAbsoluteDifference(try JPEGCodec.decode(rgb.jpeg).image, upright))
        #expect(planeError <= rgbError + 0.05, "\(size) orientation \(orientation): \(planeError) vs \(rgbError)")
        #expect(planeError < generatedPixelBound)
        // The bound tells orientations apart: the same pixels turned any other way are far from the original.
        for wrong in 2...8 {
            guard let far = TestImages.meanAbsoluteDifference(try TestImages.reference(fromPlanes, wrong), upright)
            else { continue }
            #expect(far > 3 * generatedPixelBound, "orientation \(orientation) turned by \(wrong): \(far)")
        }
    }

    @Test(
        "a flip that would split chroma pairs (an odd stored side) takes the RGB route; a transpose never does",
        arguments: [
            (65, 40, 2, JPEGTranscodePath.pixelStream), (65, 40, 4, .rawFullBuffer), (64, 41, 4, .fullBuffer),
            (64, 41, 2, .rawStream), (65, 41, 5, .rawFullBuffer), (65, 41, 6, .fullBuffer), (41, 64, 8, .rawFullBuffer),
            (64, 41, 8, .fullBuffer), (65, 40, 7, .fullBuffer), (65, 41, 1, .rawStream),
        ])
    func oddSides(width: Int, height: Int, orientation: Int, path: JPEGTranscodePath) throws {
        let jpeg = try Self.photo(width: width, height: height, orientation: orientation)
        let report = try JPEGCodec.transcode(jpeg, options: JPEGImportOptions(), settings: Self.oneThread)
        #expect(report.path == path, "\(width)×\(height) orientation \(orientation)")
        #expect(report.result.width == width && report.result.height == height)
    }

    @Test(
        "decoding and encoding overlap on two threads and write the same bytes as one thread",
        arguments: [1, 2], [true, false])
    func twoThreadsWriteWhatOneWrites(orientation: Int, passThrough: Bool) throws {
        let jpeg = try Self.photo(width: 640, height: 480, orientation: orientation)
        let two = try JPEGCodec.transcode(
            jpeg, options: JPEGImportOptions(), settings: JPEGTranscodeSettings(threads: 2, passThrough: passThrough))
        let one = try JPEGCodec.transcode(
            jpeg, options: JPEGImportOptions(), settings: JPEGTranscodeSettings(threads: 1, passThrough: passThrough))
        #expect(two.threads == (ProcessInfo.processInfo.activeProcessorCount >= 2 ? 2 : 1))
        #expect(one.threads == 1)
        #expect(two.path == (passThrough ? .rawStream : .pixelStream))
        #expect(two.jpeg == one.jpeg)
        #expect(two.result == one.result)
    }

    @Test("a small photo stays on one thread (a second one would cost more than it saves)")
    func smallStaysOnOneThread() throws {
        let report = try JPEGCodec.transcode(try Self.photo(width: 256, height: 200, orientation: 1), options: .init())
        #expect(report.threads == 1 && report.path == .rawStream)
    }

    @Test("streaming holds a few strips; a turned photo holds one decoded image (planes: half of one), never two")
    func samplesHeld() throws {
        let (width, height) = (640, 480)
        let decoded = width * height * 3
        let streamed = try JPEGCodec.transcode(
            try Self.photo(width: width, height: height, orientation: 2), options: .init(), settings: Self.twoThreadsRGB
        )
        // Four slots of 32 rows.
        #expect(streamed.sampleBufferBytes == 4 * 32 * width * 3)
        let planes = try JPEGCodec.transcode(
            try Self.photo(width: width, height: height, orientation: 1), options: .init())
        // Four slots of 32 luma rows and 16 rows of each half-width chroma plane.
        #expect(planes.path == .rawStream && planes.sampleBufferBytes == 4 * (32 * width + 2 * 16 * width / 2))
        let turned = try Self.photo(width: width, height: height, orientation: 6)
        let rgb = try JPEGCodec.transcode(turned, options: .init(), settings: Self.oneThreadRGB)
        // The image plus one strip of 32 turned rows (640 px wide, upright).
        #expect(rgb.path == .fullBuffer && rgb.sampleBufferBytes == decoded + 32 * width * 3)
        let turnedPlanes = try JPEGCodec.transcode(turned, options: .init())
        #expect(turnedPlanes.path == .rawFullBuffer)
        #expect(turnedPlanes.sampleBufferBytes > decoded / 2 && turnedPlanes.sampleBufferBytes < decoded * 6 / 10)
    }

    @Test(
        "a failure on either thread ends the other: a cut-short photo and an over-cap output are refused",
        arguments: [true, false])
    func failuresStopBothThreads(passThrough: Bool) throws {
        let settings = JPEGTranscodeSettings(threads: 2, passThrough: passThrough)
        let noise = try JPEGCodec.encode(try TestImages.noise(width: 640, height: 480), quality: 95)
        let cut = refusal { () throws(JPEGError) in
            try JPEGCodec.transcode(noise.prefix(noise.count / 2), options: .init(), settings: settings)
        }
        #expect(cut?.kind == .truncated)
        let capped = refusal { () throws(JPEGError) in
            try JPEGCodec.transcode(noise, options: JPEGImportOptions(maxOutputBytes: 50_000), settings: settings)
        }
        #expect(capped?.kind == .outputTooLarge)
        #expect(capped?.message.contains("50000 bytes") == true)
        let damaged = TestImages.inserting([UInt8](repeating: 0x5A, count: 64), at: noise.count - 2, into: noise)
        let junk = refusal { () throws(JPEGError) in
            try JPEGCodec.transcode(damaged, options: .init(), settings: settings)
        }
        #expect(junk?.kind == .damaged)
    }
}
