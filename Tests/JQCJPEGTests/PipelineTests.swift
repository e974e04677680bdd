import Foundation
import JQCJPEG
import JQCTestSupport
import Testing

/// Runs `body` and returns the JPEGError it throws, or records an issue when it throws nothing.
func refusal<T>(_ body: () throws(JPEGError) -> T, sourceLocation: SourceLocation = #_sourceLocation) -> JPEGError? {
    do {
        _ = try body()
        Issue.record("expected a JPEGError, got success", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

@Suite("quality 80 read back from the output's quantisation tables")
struct QualityTests {
    /// libjpeg's rule (jcparam.c): (base × scale + 50) / 100, clamped to 1…255 for baseline.
    static func expectedTable(quality: Int) -> [UInt16] {
        let scale = JPEGCodec.qualityScaling(quality)
        return TestImages.annexKLuminance.map { UInt16(min(255, max(1, ($0 * scale + 50) / 100))) }
    }

    @Test("the output's luminance table is Annex K scaled for quality 80, and not for 75 or 85")
    func quality80() throws {
        #expect(JPEGCodec.qualityScaling(80) == 40)
        let input = try JPEGCodec.encode(try TestImages.blocks(), quality: 97)
        let (output, _) = try JPEGPipeline.recompress(input)
        let table = try #require(try JPEGCodec.readHeader(output).luminanceQuantTable)
        #expect(table == Self.expectedTable(quality: 80))
        #expect(table == JPEGCodec.standardLuminanceTable(quality: 80))
        #expect(Array(table.prefix(8)) == [6, 4, 4, 6, 10, 16, 20, 24])
        #expect(table != Self.expectedTable(quality: 75))
        #expect(table != Self.expectedTable(quality: 85))
        #expect(try JPEGCodec.readHeader(input).luminanceQuantTable != table)
    }
}

@Suite("refusals: a sentence, a stable code and no output file")
struct RefusalTests {
    static let notJPEGs: [(String, [UInt8], String)] = [
        ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8), "a PNG image"),
        ("WebP", Array("RIFF".utf8) + [0x24, 0, 0, 0] + Array("WEBPVP8 ".utf8), "a WebP image"),
        (
            "HEIC", [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8),
            "a HEIC/HEIF image"
        ),
        ("text", Array("date,facility\n2026-11-30,North Tower\n".utf8), "a text file"),
        ("empty", [], "empty (0 bytes)"),
        ("unknown binary", [0x00, 0x01, 0x02, 0x03, 0xFE], "starts with 0x00 0x01"),
    ]

    @Test("bytes that are not a JPEG are refused by content, saying what they look like", arguments: notJPEGs)
    func notJPEG(name: String, bytes: [UInt8], phrase: String) throws {
        let directory = TemporaryDirectory()
        let input = directory.path("photo.jpg")
        try Data(bytes).write(to: input)
        let output = directory.path("out.jpg")
        let error = try #require(
            refusal { () throws(JPEGError) in
                try JPEGPipeline.recompress(input: input, output: output)
            })
        #expect(error.kind == .notJPEG, "\(name)")
        #expect(error.message.contains(phrase), "\(error.message)")
        #expect(error.message.hasSuffix("."))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("a JPEG cut short is refused as truncated")
    func truncated() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.noise(width: 64, height: 64), quality: 90)
        let error = try #require(
            refusal { () throws(JPEGError) in
                try JPEGPipeline.recompress(jpeg.prefix(jpeg.count * 2 / 3))
            })
        #expect(error.kind == .truncated)
        #expect(error.detail == "Premature end of JPEG file")
    }

    @Test("a JPEG missing only its final EOI marker is refused as truncated")
    func missingEndOfImage() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        let error = try #require(refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg.dropLast(2)) })
        #expect(error.kind == .truncated)
    }

    @Test("extraneous bytes before EOI (after the scan) are refused as damaged pixels")
    func junkBeforeEndOfImage() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        let damaged = TestImages.inserting([UInt8](repeating: 0x5A, count: 64), at: jpeg.count - 2, into: jpeg)
        let error = try #require(refusal { () throws(JPEGError) in try JPEGPipeline.recompress(damaged) })
        #expect(error.kind == .damaged)
        #expect(error.detail?.hasSuffix("extraneous bytes before marker 0xd9") == true, "\(error.detail ?? "")")
    }

    @Test("a marker inside the scan data is refused as a premature end of data segment")
    func markerInsideScan() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.noise(width: 64, height: 64), quality: 90)
        let sos = try #require(TestImages.offset(ofMarker: 0xDA, in: jpeg))
        let scanStart = sos + 2 + (Int(jpeg[sos + 2]) << 8) + Int(jpeg[sos + 3])
        let damaged = TestImages.inserting([0xFF, 0xD0], at: (scanStart + jpeg.count) / 2, into: jpeg)
        let error = try #require(refusal { () throws(JPEGError) in try JPEGPipeline.recompress(damaged) })
        #expect(error.kind == .damaged)
        #expect(error.detail == "Corrupt JPEG data: premature end of data segment")
    }

    @Test("extraneous bytes before a header marker are tolerated and counted")
    func junkBeforeTableMarker() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        let dqt = try #require(TestImages.offset(ofMarker: 0xDB, in: jpeg))
        let odd = TestImages.inserting([0xFF, 0x00, 0x00, 0x00], at: dqt, into: jpeg)
        let header = try JPEGCodec.readHeader(odd)
        #expect(header.toleratedWarnings == 1)
        #expect(header.firstToleratedWarning == "Corrupt JPEG data: 4 extraneous bytes before marker 0xdb")
        let (_, result) = try JPEGPipeline.recompress(odd)
        #expect(result.toleratedWarnings == 1 && result.width == 64)
    }

    @Test("a 12-bit JPEG is refused as unsupported precision")
    func twelveBit() throws {
        let jpeg = TestImages.patchingFrame(try JPEGCodec.encode(try TestImages.blocks(), quality: 90), precision: 12)
        let error = try #require(refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg) })
        #expect(error.kind == .unsupportedPrecision)
        #expect(error.message.hasPrefix("The photo is a 12-bit JPEG"))
    }

    @Test(
        "sizes over the limits are refused right after the header",
        arguments: [
            (65500, 65500), (30001, 16), (16, 30001), (10001, 10000),
        ])
    func tooLarge(width: Int, height: Int) throws {
        let jpeg = TestImages.patchingFrame(
            try JPEGCodec.encode(try TestImages.blocks(), quality: 90),
            width: width, height: height)
        #expect(try JPEGCodec.readHeader(jpeg).width == width)
        let error = try #require(refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg) })
        #expect(error.kind == .tooLarge)
        #expect(error.message.contains("\(width) × \(height) px"))
    }

    @Test("the pixel and side limits are inclusive: exactly at the limit decodes, one more is refused")
    func limitBoundaries() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.blocks(width: 64, height: 40), quality: 90)
        let exact = JPEGImportOptions(limits: JPEGLimits(maxPixels: 64 * 40, maxSide: 64))
        #expect(try JPEGPipeline.recompress(jpeg, options: exact).result.width == 64)
        let fewerPixels = JPEGImportOptions(limits: JPEGLimits(maxPixels: 64 * 40 - 1, maxSide: 64))
        #expect(
            refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg, options: fewerPixels) }?.kind
                == .tooLarge)
        let shorterSide = JPEGImportOptions(limits: JPEGLimits(maxPixels: 10_000, maxSide: 63))
        #expect(
            refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg, options: shorterSide) }?.kind
                == .tooLarge)
    }

    @Test("an output over the byte cap is refused and no file is written")
    func outputTooLarge() throws {
        let directory = TemporaryDirectory()
        let input = directory.path("noise.jpg")
        try JPEGCodec.encode(try TestImages.noise(width: 256, height: 256), quality: 95).write(to: input)
        let output = directory.path("out.jpg")
        let error = try #require(
            refusal { () throws(JPEGError) in
                try JPEGPipeline.recompress(
                    input: input, output: output, options: JPEGImportOptions(maxOutputBytes: 20_000))
            })
        #expect(error.kind == .outputTooLarge)
        #expect(error.message.contains("20000 bytes"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
        #expect(JPEGImportOptions().maxOutputBytes == 52_428_800)
    }

    @Test("a refused photo leaves an existing output file unchanged")
    func existingOutputKept() throws {
        let directory = TemporaryDirectory()
        let input = directory.path("in.jpg")
        try Data("not a photo".utf8).write(to: input)
        let output = directory.path("out.jpg")
        try Data("previous".utf8).write(to: output)
        #expect(
            refusal { () throws(JPEGError) in try JPEGPipeline.recompress(input: input, output: output) }?.kind
                == .notJPEG)
        #expect(try Data(contentsOf: output) == Data("previous".utf8))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
        #expect(names == ["in.jpg", "out.jpg"])
    }

    @Test("a missing input and an unwritable output are reported as sentences")
    func ioErrors() throws {
        let directory = TemporaryDirectory()
        let missing = refusal { () throws(JPEGError) in
            try JPEGPipeline.recompress(input: directory.path("nope.jpg"), output: directory.path("out.jpg"))
        }
        #expect(missing?.kind == .readFailed)
        let missingPath = directory.path("nope.jpg").path
        #expect(missing?.message == "The photo \(missingPath) does not exist. Check the path and try again.")

        let input = directory.path("in.jpg")
        try JPEGCodec.encode(try TestImages.blocks(), quality: 90).write(to: input)
        let output = directory.path("no-such-folder/out.jpg")
        let unwritable = refusal { () throws(JPEGError) in try JPEGPipeline.recompress(input: input, output: output) }
        #expect(unwritable?.kind == .writeFailed)
        #expect(unwritable?.message == "Could not save \(output.path): No such file or directory.")
    }

    @Test("impossible options are refused")
    func invalidOptions() throws {
        let jpeg = try JPEGCodec.encode(try TestImages.blocks(), quality: 90)
        #expect(
            refusal { () throws(JPEGError) in
                try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(quality: 0))
            }?.kind == .invalidArgument)
        #expect(
            refusal { () throws(JPEGError) in
                try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(maxLongEdge: 0))
            }?.kind == .invalidArgument)
        #expect(
            refusal { () throws(JPEGError) in
                try PixelImage(width: 2, height: 2, channels: 3, pixels: [0, 0, 0])
            }?.kind == .invalidArgument)
    }
}

@Suite("DCT scaling for photos over the long-edge limit")
struct ScalingTests {
    @Test(
        "the scale denominator is the smallest of 1, 2, 4, 8 that fits the long edge",
        arguments: [
            (4096, 4096, 4096, 1), (4097, 10, 4096, 2), (10, 8192, 4096, 2), (8193, 10, 4096, 4),
            (16384, 10, 4096, 4), (16385, 10, 4096, 8), (40000, 10, 4096, 8), (1000, 600, 300, 4),
        ])
    func denominator(width: Int, height: Int, maxLongEdge: Int, expected: Int) {
        #expect(JPEGCodec.scaleDenominator(width: width, height: height, maxLongEdge: maxLongEdge) == expected)
    }

    @Test("a photo over the long edge is reduced while decoding; a smaller one keeps its size")
    func reduces() throws {
        let upright = try TestImages.blocks(width: 1000, height: 600)
        let jpeg = try JPEGCodec.encode(upright, quality: 90)
        let (_, reduced) = try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(maxLongEdge: 300))
        #expect(reduced.scaleDenominator == 4 && reduced.width == 250 && reduced.height == 150)
        let (_, kept) = try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(maxLongEdge: 1000))
        #expect(kept.scaleDenominator == 1 && kept.width == 1000 && kept.height == 600)
        let (_, odd) = try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(maxLongEdge: 999))
        #expect(odd.scaleDenominator == 2 && odd.width == 500 && odd.height == 300)
    }

    @Test("scaling and a 90° orientation combine: the reduced photo comes out upright")
    func scaledAndTurned() throws {
        let upright = try TestImages.blocks(width: 600, height: 1000)
        let stored = try TestImages.stored(showing: upright, 6)
        let jpeg = TestImages.inserting(
            app1: TestImages.orientationPayload(6, bigEndian: false),
            into: try JPEGCodec.encode(stored, quality: 90))
        let (output, result) = try JPEGPipeline.recompress(jpeg, options: JPEGImportOptions(maxLongEdge: 500))
        #expect(result.width == 300 && result.height == 500 && result.orientationApplied == .right)
        let expected = try JPEGCodec.decode(try JPEGCodec.encode(upright, quality: 90), maxLongEdge: 500).image
        let difference = try #require(TestImages.meanAbsoluteDifference(try JPEGCodec.decode(output).image, expected))
        #expect(difference < generatedPixelBound)
    }
}

@Suite("progressive and arithmetic-coded inputs")
struct CodingTests {
    @Test(
        "progressive and arithmetic inputs are accepted, oriented and re-encoded as baseline",
        arguments: [JPEGCoding.progressive, .arithmetic])
    func accepted(coding: JPEGCoding) throws {
        let upright = try TestImages.blocks(width: 64, height: 40)
        let stored = try TestImages.stored(showing: upright, 7)
        let jpeg = TestImages.inserting(
            app1: TestImages.orientationPayload(7, bigEndian: true, thumbnail: 1),
            into: try JPEGCodec.encode(stored, quality: 95, coding: coding))
        let header = try JPEGCodec.readHeader(jpeg)
        #expect(header.isProgressive == (coding == .progressive))
        #expect(header.isArithmeticCoded == (coding == .arithmetic))
        let (output, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.orientationApplied == .rightMirrored && result.width == 64 && result.height == 40)
        let written = try JPEGCodec.readHeader(output)
        #expect(!written.isProgressive && !written.isArithmeticCoded)
        #expect(TestImages.headerMarkers(output).contains(0xC0))
        let difference = try #require(
            TestImages.meanAbsoluteDifference(try JPEGCodec.decode(output).image, upright))
        #expect(difference < generatedPixelBound)
    }

    @Test(
        "progressive and arithmetic JPEGs cut short are refused as truncated",
        arguments: [JPEGCoding.progressive, .arithmetic])
    func truncatedCoded(coding: JPEGCoding) throws {
        let jpeg = try JPEGCodec.encode(try TestImages.noise(width: 64, height: 64), quality: 90, coding: coding)
        let error = try #require(
            refusal { () throws(JPEGError) in try JPEGPipeline.recompress(jpeg.prefix(jpeg.count * 3 / 4)) })
        #expect(error.kind == .truncated)
    }
}

@Suite("writing the output file")
struct OutputFileTests {
    @Test("the output file is written with the reported size and can replace its own input")
    func inPlace() throws {
        let directory = TemporaryDirectory()
        let photo = directory.path("photo.jpg")
        let stored = try TestImages.stored(showing: try TestImages.blocks(), 8)
        try TestImages.inserting(
            app1: TestImages.orientationPayload(8, bigEndian: false),
            into: try JPEGCodec.encode(stored, quality: 95)
        ).write(to: photo)
        let result = try JPEGPipeline.recompress(input: photo, output: photo)
        #expect(result.orientationApplied == .left && result.width == 64 && result.height == 40)
        let written = try Data(contentsOf: photo)
        #expect(written.count == result.outputBytes)
        #expect(try JPEGCodec.readHeader(written).orientation == .up)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == ["photo.jpg"])
    }
}

@Suite("PhotoImporter")
struct PhotoImporterTests {
    @Test("the live importer runs the pipeline with its options; a substitute closure is called instead")
    func importer() throws {
        let directory = TemporaryDirectory()
        let input = directory.path("in.jpg")
        try JPEGCodec.encode(try TestImages.blocks(width: 1000, height: 600), quality: 90).write(to: input)
        let live = PhotoImporter(options: JPEGImportOptions(maxLongEdge: 500))
        let result = try live.recompress(input: input, output: directory.path("out.jpg"))
        #expect(result.width == 500 && result.height == 300 && result.scaleDenominator == 2)

        let substitute = PhotoImporter { _, _, _ throws(JPEGError) in
            throw JPEGError(.writeFailed, "Could not save out.jpg: the disk is full. Free some space and try again.")
        }
        let error = refusal { () throws(JPEGError) in
            try substitute.recompress(input: input, output: directory.path("other.jpg"))
        }
        #expect(error?.kind == .writeFailed)
        #expect(substitute.options == JPEGImportOptions())
    }
}
