import Foundation
import JQCTestSupport
import Testing

@testable import JQCJPEG

/// Mutated JPEGs through the whole pipeline (issue 11 "Fuzzing"): every input either imports or is refused
/// with a typed error and a sentence; nothing traps, hangs or writes a partial file.
@Suite("JPEG fuzzing")
struct JPEGFuzzTests {
    /// Seeds: generated baseline, progressive-free grey, EXIF-bearing, plus a few real fixtures when present.
    static func seeds() throws -> [Data] {
        var seeds = [
            try JPEGCodec.encode(try TestImages.blocks(width: 48, height: 32), quality: 80),
            try JPEGCodec.encode(try TestImages.blocks(width: 24, height: 24, channels: 1), quality: 60),
            TestImages.inserting(
                app1: TestImages.orientationPayload(6, bigEndian: true),
                into: try JPEGCodec.encode(try TestImages.blocks(width: 32, height: 16), quality: 90)),
        ]
        for name in [
            "jpg-progressive.jpg", "testimgari.jpg", "restarts.jpg", "jpg-cmyk-1.jpg", "hopper_orientation_5.jpg",
        ] {
            if let url = TestPaths.sharedFixture("photos/\(name)"), let data = try? Data(contentsOf: url) {
                seeds.append(data)
            }
        }
        return seeds
    }

    @Test("mutated JPEGs import or are refused with a typed error and a sentence, never a trap")
    func mutatedInputs() throws {
        let seeds = try JPEGFuzzTests.seeds()
        var generator = FuzzGenerator(seed: 0x4A51_4331)
        let iterations = FuzzBudget.iterations(default: 400)
        var imported = 0, refused = 0
        let options = JPEGImportOptions()
        for _ in 0..<iterations {
            let input = Mutator.mutate(try #require(seeds.randomElement(using: &generator)), using: &generator)
            do {
                let (jpeg, result) = try JPEGPipeline.recompress(input, options: options)
                // Whatever was accepted is itself a JPEG that decodes to the reported size.
                let header = try JPEGCodec.readHeader(jpeg)
                #expect(header.width == result.width && header.height == result.height)
                imported += 1
            } catch {
                #expect(!error.message.isEmpty && error.message.hasSuffix("."), "\(error.kind): \(error.message)")
                refused += 1
            }
        }
        #expect(imported + refused == iterations)
        #expect(refused > 0)  // the mutator does damage; a run that refuses nothing fuzzed nothing
    }
}
