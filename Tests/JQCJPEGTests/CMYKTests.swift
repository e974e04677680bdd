import Foundation
import Testing

@testable import JQCJPEG

@Suite("CMYK inputs become RGB")
struct CMYKTests {
    /// Stored samples of one flat colour.
    static let stored: [UInt8] = [30, 200, 90, 60]

    @Test(
        "Adobe CMYK is read as inverted (Photoshop) and plain CMYK as ink amounts",
        arguments: [(true, [7, 47, 21]), (false, [172, 42, 126])])
    func conversion(adobeMarker: Bool, expected: [Int]) throws {
        let (width, height) = (16, 16)
        let samples = (0..<width * height).flatMap { _ in Self.stored }
        let jpeg = try JPEGCodec.encodeCMYK(
            samples, width: width, height: height, quality: 100, adobeMarker: adobeMarker)
        let header = try JPEGCodec.readHeader(jpeg)
        #expect(header.colorSpace == .cmyk && header.components == 4 && header.hasAdobeMarker == adobeMarker)
        let decoded = try JPEGCodec.decode(jpeg).image
        #expect(decoded.channels == 3 && decoded.width == width && decoded.height == height)
        // With the marker, stored values are 255 − ink: R = C·K / 255. Without, R = (255 − C)(255 − K) / 255.
        for (x, y) in [(0, 0), (7, 9), (15, 15)] {
            let pixel = decoded.pixel(x: x, y: y).map(Int.init)
            for channel in 0..<3 {
                #expect(abs(pixel[channel] - expected[channel]) <= 3, "pixel \(pixel) at \(x),\(y)")
            }
        }
        let (output, result) = try JPEGPipeline.recompress(jpeg)
        #expect(result.channels == 3)
        #expect(try JPEGCodec.readHeader(output).colorSpace == .yCbCr)
    }
}
