import Foundation
import JQCKit

/// The photo import pipeline: decode with libjpeg, apply the EXIF orientation to the pixels once, reduce
/// over-large photos, re-encode at quality 80 with no orientation left behind, write atomically
/// (seed 001 §13, rule 18; issue 8). Used by JQCPhotos and `jqc-shell photos recompress IN OUT` (SHELL.md).
///
/// Peak memory is about two decoded images: one decode buffer, plus a second only for orientations 5…8
/// (mirrors and 180° turns are done in place), plus the compressed output.
public enum JPEGPipeline {
    /// Re-encodes JPEG bytes in memory.
    /// - Parameters:
    ///   - data: the input file's bytes (judged by content, not name).
    ///   - options: size, quality and limits.
    /// - Returns: the new JPEG's bytes and what was done.
    /// - Throws: ``JPEGError``: `.notJPEG`, `.unsupportedPrecision`, `.truncated`, `.damaged`, `.corrupt`,
    ///   `.tooLarge`, `.outputTooLarge`, `.outOfMemory`, `.invalidArgument` (bad options).
    public static func recompress(_ data: Data, options: JPEGImportOptions = JPEGImportOptions())
        throws(JPEGError) -> (jpeg: Data, result: JPEGImportResult)
    {
        guard (1...100).contains(options.quality) else {
            throw JPEGError(.invalidArgument, "JPEG quality must be between 1 and 100; it was \(options.quality).")
        }
        var decoded = try JPEGCodec.decode(data, maxLongEdge: options.maxLongEdge, limits: options.limits)
        let orientation = decoded.header.orientation
        decoded.image.apply(orientation)
        let jpeg = try JPEGCodec.encode(decoded.image, quality: options.quality, maxBytes: options.maxOutputBytes)
        let result = JPEGImportResult(
            width: decoded.image.width, height: decoded.image.height, orientationApplied: orientation,
            sourceWidth: decoded.header.width, sourceHeight: decoded.header.height,
            scaleDenominator: decoded.scaleDenominator, outputBytes: jpeg.count, channels: decoded.image.channels,
            toleratedWarnings: decoded.toleratedWarnings)
        return (jpeg, result)
    }

    /// Re-encodes the JPEG at `input` into `output`, written atomically (temporary file, fsync, rename).
    /// Nothing is written when the photo is refused; an existing `output` is then left unchanged.
    /// - Parameters:
    ///   - input: the photo to import.
    ///   - output: where the new JPEG goes; its folder must exist. May equal `input`.
    ///   - options: size, quality and limits.
    /// - Returns: width, height, the orientation applied and the output size.
    /// - Throws: ``JPEGError``: everything ``recompress(_:options:)`` throws, plus `.readFailed` and
    ///   `.writeFailed` (disk full, permission denied, missing folder — with the OS reason as a sentence).
    public static func recompress(input: URL, output: URL, options: JPEGImportOptions = JPEGImportOptions())
        throws(JPEGError) -> JPEGImportResult
    {
        let data = try read(input)
        let (jpeg, result) = try recompress(data, options: options)
        do {
            try AtomicFile.write(jpeg, to: output, permissions: 0o644)
        } catch let failure as AtomicFile.WriteError {
            throw JPEGError(.writeFailed, failure.description, cause: String(cString: strerror(failure.code)))
        } catch {
            throw JPEGError(.writeFailed, "Could not save \(output.path): \(error).")
        }
        return result
    }

    /// The file's bytes, memory-mapped so a large input costs no heap.
    static func read(_ url: URL) throws(JPEGError) -> Data {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw JPEGError(.readFailed, "The photo \(url.path) does not exist. Check the path and try again.")
        }
        guard !isDirectory.boolValue else {
            throw JPEGError(.readFailed, "\(url.path) is a folder, not a photo. Choose a JPEG file.")
        }
        do {
            return try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw JPEGError(
                .readFailed, "Could not read the photo \(url.path): \(error.localizedDescription)",
                cause: "\(error)")
        }
    }
}
