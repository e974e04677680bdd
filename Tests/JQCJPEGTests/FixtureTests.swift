import Foundation
import JQCJPEG
import JQCTestSupport
import Testing

/// Real files made by others, read from ../shared/fixtures/photos (never copied into the repository).
enum Fixtures {
    static let manifest = TestPaths.sharedFixture("photos/MANIFEST.tsv")
    static let available = manifest.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
    static let absent =
        "../shared/fixtures/photos/MANIFEST.tsv is absent: fixture photo checks skipped "
        + "(the generated-JPEG suites still run)"

    static func url(_ name: String) -> URL {
        (manifest ?? URL(fileURLWithPath: "/nonexistent/MANIFEST.tsv")).deletingLastPathComponent()
            .appendingPathComponent(name)
    }

    struct Row: Sendable, CustomStringConvertible {
        var file: String
        var kind: String
        var expected: String
        var size: String
        var description: String { file }
    }

    static func rows() throws -> [Row] {
        guard let manifest else { return [] }
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").map(String.init)
        let columns = lines[0].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        let index = { (name: String) throws -> Int in try #require(columns.firstIndex(of: name), "column \(name)") }
        let (file, kind, expected, size) = (
            try index("file"), try index("kind"), try index("expected"), try index("width_x_height")
        )
        return try lines.dropFirst().map { line in
            let cells = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            try #require(cells.count > max(file, kind, expected, size), "a short manifest line: \(line)")
            return Row(file: cells[file], kind: cells[kind], expected: cells[expected], size: cells[size])
        }
    }

    /// The refusal code expected for each rejected fixture: by kind, and per file for the corrupt ones.
    static func expectedCode(_ row: Row) -> JPEGError.Kind? {
        switch row.kind {
        case "not-jpeg": return .notJPEG
        case "12bit": return .unsupportedPrecision
        case "truncated": return .truncated
        default: break
        }
        let corrupt: [String: JPEGError.Kind] = [
            "empty.jpg": .notJPEG,
            "missing-frame-image-1410.jpg": .corrupt,
            "missing-sos.jpg": .corrupt,
            "null_height.jpg": .corrupt,
            "max_size.jpg": .tooLarge,
            "derive-huffman-codes-overflow.jpg": .corrupt,
            "bomb-65500x65500.jpg": .tooLarge,
            "4085c929e00c446d3fee18b5b20a27f9.jpg": .corrupt,
            "40bb78b1ac031125a6d8466b374962a8.jpg": .damaged,
            "eddea4ef9629be031f750a8ff0b7497c.jpg": .corrupt,
            "hopper_bad_exif.jpg": .damaged,
        ]
        return corrupt[row.file]
    }

    /// Decoded pixels of the pipeline's output for a fixture.
    static func importedPixels(_ name: String) throws -> PixelImage {
        let (jpeg, _) = try JPEGPipeline.recompress(try Data(contentsOf: url(name)))
        return try JPEGCodec.decode(jpeg).image
    }
}

@Suite("fixture photos from ../shared", .enabled(if: Fixtures.available, Comment(rawValue: Fixtures.absent)))
struct FixtureTests {
    @Test("the manifest lists every kind of input the issue names")
    func manifestCoverage() throws {
        let rows = try Fixtures.rows()
        #expect(rows.count >= 50)
        let kinds = Set(rows.map(\.kind))
        for kind in [
            "baseline", "progressive", "arithmetic", "cmyk", "grayscale", "12bit", "truncated", "corrupt",
            "not-jpeg", "broken-exif", "huge-exif",
        ] {
            #expect(kinds.contains(kind), "kind \(kind)")
        }
        #expect(Set(rows.map(\.expected)) == ["decode-ok", "reject"])
    }

    @Test(
        "every manifest row has its expected outcome, size after orientation and refusal code",
        arguments: (try? Fixtures.rows()) ?? [])
    func manifestRow(_ row: Fixtures.Row) throws {
        let directory = TemporaryDirectory()
        let output = directory.path("out.jpg")
        let input = Fixtures.url(row.file)
        if row.expected == "decode-ok" {
            let result = try JPEGPipeline.recompress(input: input, output: output)
            // width_x_height is the stored size; orientations 5…8 swap it in the output.
            #expect("\(result.sourceWidth)x\(result.sourceHeight)" == row.size, "\(row.file)")
            let swapped = result.orientationApplied.swapsDimensions
            #expect(result.width == (swapped ? result.sourceHeight : result.sourceWidth), "\(row.file)")
            #expect(result.height == (swapped ? result.sourceWidth : result.sourceHeight), "\(row.file)")
            let header = try JPEGCodec.readHeader(try Data(contentsOf: output))
            #expect(header.width == result.width && header.height == result.height)
            #expect(header.orientation == .up)
            #expect(header.luminanceQuantTable == JPEGCodec.standardLuminanceTable(quality: 80))
            #expect(!TestImages.headerMarkers(try Data(contentsOf: output)).contains(0xE1))
        } else {
            #expect(row.expected == "reject")
            let error = try #require(
                refusal { () throws(JPEGError) in
                    try JPEGPipeline.recompress(input: input, output: output)
                }, "\(row.file)")
            #expect(error.kind == Fixtures.expectedCode(row), "\(row.file): \(error.message)")
            #expect(error.message.hasSuffix("."), "\(error.message)")
            #expect(!FileManager.default.fileExists(atPath: output.path))
        }
    }

    @Test("the 65,500 × 65,500 bomb is refused from its header, before any pixel is decoded")
    func bomb() throws {
        let data = try Data(contentsOf: Fixtures.url("bomb-65500x65500.jpg"))
        let header = try JPEGCodec.readHeader(data)
        #expect(header.width == 65500 && header.height == 65500)
        // Decoding it would need about 12 GB; a tooLarge refusal (not an out-of-memory failure) shows the
        // limit was applied from the header alone.
        let error = refusal { () throws(JPEGError) in try JPEGPipeline.recompress(data) }
        #expect(error?.kind == .tooLarge)
        #expect(
            error?.message == "The photo is 65500 × 65500 px (about 4290 megapixels); photos over 100 megapixels "
                + "or 30000 px on a side are refused before decoding. Use a smaller photo.")
    }

    @Test("headers report progressive, arithmetic, grayscale and Adobe CMYK inputs")
    func headerKinds() throws {
        let progressive = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("testimgp.jpg")))
        #expect(progressive.isProgressive && !progressive.isArithmeticCoded)
        let arithmetic = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("testimgari.jpg")))
        #expect(arithmetic.isArithmeticCoded)
        let gray = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("hopper_gray.jpg")))
        #expect(gray.colorSpace == .gray && gray.components == 1)
        let ycck = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("pil_sample_cmyk.jpg")))
        #expect(ycck.colorSpace == .ycck && ycck.hasAdobeMarker && ycck.components == 4)
        let cmyk = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("jpg-cmyk-1.jpg")))
        #expect(cmyk.colorSpace == .cmyk && cmyk.hasAdobeMarker)
        let odd = try JPEGCodec.readHeader(try Data(contentsOf: Fixtures.url("jpeg_ff00_header.jpg")))
        #expect(odd.toleratedWarnings == 1)
    }

    @Test(
        "Portrait_0 … Portrait_8 come out matching upright Portrait_1; a wrong orientation does not",
        arguments: 0...8)
    func portraits(_ index: Int) throws {
        let reference = try JPEGCodec.decode(try Data(contentsOf: Fixtures.url("Portrait_1.jpg"))).image
        let imported = try Fixtures.importedPixels("Portrait_\(index).jpg")
        #expect(imported.width == 1200 && imported.height == 1800)
        let difference = try #require(TestImages.meanAbsoluteDifference(imported, reference))
        #expect(difference < portraitBound, "Portrait_\(index): \(difference)")
        // Turned 180° or mirrored, the same pixels are far from the reference: the bound discriminates.
        for wrong in [2, 3, 4] {
            let misturned = try TestImages.reference(imported, wrong)
            let wrongDifference = try #require(TestImages.meanAbsoluteDifference(misturned, reference))
            #expect(wrongDifference > 3 * portraitBound, "Portrait_\(index) turned by \(wrong): \(wrongDifference)")
        }
    }

    @Test(
        "hopper_orientation_N comes out matching upright hopper.jpg; a wrong orientation does not",
        arguments: [2, 3, 4, 5, 7, 8])
    func hopper(_ orientation: Int) throws {
        let reference = try JPEGCodec.decode(try Data(contentsOf: Fixtures.url("hopper.jpg"))).image
        let imported = try Fixtures.importedPixels("hopper_orientation_\(orientation).jpg")
        let difference = try #require(TestImages.meanAbsoluteDifference(imported, reference))
        #expect(difference < hopperBound, "hopper_orientation_\(orientation): \(difference)")
        for wrong in 2...8 {
            let misturned = try TestImages.reference(imported, wrong)
            let wrongDifference = try #require(TestImages.meanAbsoluteDifference(misturned, reference))
            #expect(wrongDifference > 3 * hopperBound, "hopper_orientation_\(orientation) turned by \(wrong)")
        }
    }

    @Test("Adobe-inverted YCCK decodes to the colours Pillow shows: the top-left pixel is red, not cyan")
    func cmykNotInverted() throws {
        // Stored (inverted) 255, 13, 25, 255 = C 0, M 242, Y 230, K 0 (Pillow's test_cmyk reads it as red).
        let ycck = try Fixtures.importedPixels("pil_sample_cmyk.jpg")
        let corner = Array(ycck.pixel(x: 0, y: 0))
        #expect(ycck.channels == 3 && corner[0] > 200 && corner[1] < 60 && corner[2] < 60, "\(corner)")
    }
}

/// Tolerances for fixture comparisons: mean absolute difference per sample. Measured (libjpeg-turbo 2.1.5):
/// correct orientation ≤ 2.5 (Portrait) and ≤ 5.1 (hopper); any wrong one ≥ 42 and ≥ 58. The fixtures are
/// separate JPEG encodings of the turned photo, plus our q80 pass, hence the non-zero floor.
let portraitBound = 6.0
let hopperBound = 10.0
