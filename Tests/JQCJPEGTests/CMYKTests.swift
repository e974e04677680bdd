import Foundation
import Testing

@testable import JQCJPEG

@Suite("CMYK inputs become RGB")
struct CMYKTests {
    /// Stored samples of one flat colour.
    static let stored: [UInt8] = [30, 200, 90, 60]

    /// A `width` × `height` CMYK JPEG of one stored sample value, with or without the Adobe APP14 marker.
    static func flat(_ sample: [UInt8], width: Int = 16, height: Int = 16, adobeMarker: Bool) throws -> Data {
        let samples = (0..<width * height).flatMap { _ in sample }
        return try JPEGCodec.encodeCMYK(samples, width: width, height: height, quality: 100, adobeMarker: adobeMarker)
    }

    @Test(
        "CMYK samples are read as Adobe-inverted (Photoshop) whether or not the APP14 marker is present",
        arguments: [true, false])
    func conversion(adobeMarker: Bool) throws {
        let jpeg = try Self.flat(Self.stored, adobeMarker: adobeMarker)
        let header = try JPEGCodec.readHeader(jpeg)
        #expect(header.colorSpace == .cmyk && header.components == 4 && header.hasAdobeMarker == adobeMarker)
        #expect(TestImages.headerMarkers(jpeg).contains(0xEE) == adobeMarker, "APP14 present only when asked")
        let decoded = try JPEGCodec.decode(jpeg).image
        #expect(decoded.channels == 3 && decoded.width == 16 && decoded.height == 16)
        // Stored values are 255 − ink: R = C'·K'/255 = 30·60/255 ≈ 7, G = 200·60/255 ≈ 47, B = 90·60/255 ≈ 21.
        // Read as plain ink amounts instead, R = (255 − 30)(255 − 60)/255 ≈ 172: far outside the tolerance.
        let expected = [7, 47, 21]
        for (x, y) in [(0, 0), (7, 9), (15, 15)] {
            let pixel = decoded.pixel(x: x, y: y).map(Int.init)
            for channel in 0..<3 {
                #expect(abs(pixel[channel] - expected[channel]) <= 3, "pixel \(pixel) at \(x),\(y)")
            }
        }
        let (output, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.channels == 3)
        #expect(try JPEGCodec.readHeader(output).colorSpace == .yCbCr)
        let imported = try JPEGCodec.decode(output).image.pixel(x: 8, y: 8).map(Int.init)
        for channel in 0..<3 { #expect(abs(imported[channel] - expected[channel]) <= 4, "imported \(imported)") }
    }

    @Test("solid red CMYK without an Adobe APP14 marker imports as red, not a near-black negative (issue 18)")
    func redWithoutMarker() throws {
        // Red in Adobe's inverted convention: C 0, M 100 %, Y 100 %, K 0 stored as 255 − ink.
        let jpeg = try Self.flat([255, 0, 0, 255], width: 32, height: 32, adobeMarker: false)
        #expect(!TestImages.headerMarkers(jpeg).contains(0xEE))
        #expect(try JPEGCodec.readHeader(jpeg).hasAdobeMarker == false)
        let decoded = try JPEGCodec.decode(jpeg).image.pixel(x: 16, y: 16).map(Int.init)
        #expect(decoded[0] >= 250 && decoded[1] <= 5 && decoded[2] <= 5, "decoded centre \(decoded)")
        let (output, _) = try JPEGPipeline.recompress(jpeg)
        let centre = try JPEGCodec.decode(output).image.pixel(x: 16, y: 16).map(Int.init)
        // The old reading gave (0, 16, 15) here.
        #expect(centre[0] >= 240 && centre[1] <= 20 && centre[2] <= 20, "imported centre \(centre)")
    }
}
