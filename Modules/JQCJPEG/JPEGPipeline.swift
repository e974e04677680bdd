import Foundation
import JQCKit

/// The photo import pipeline: decode with libjpeg, apply the EXIF orientation to the pixels once, reduce
/// over-large photos, re-encode at quality 80 with no orientation left behind, write atomically
/// (seed 001 §13, rule 18; issue 8). Used by JQCPhotos and `jqc-shell photos recompress IN OUT` (SHELL.md).
///
/// Decoding and encoding are one pass in the C shim (issue 17): when the orientation keeps row order (1, 2)
/// strips of scanlines stream from the decoder to the encoder on a second thread, so the work overlaps as
/// in `djpeg | cjpeg` and only a few strips are held (4:2:0 photos at full scale and orientation 1 stream
/// their downsampled planes, skipping upsampling and colour conversion both ways). Orientations 3…8 hold
/// one decoded image and encode it in turned strips. Peak memory is therefore at most one decoded image,
/// plus the input (memory-mapped) and the compressed output.
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
        let report = try JPEGCodec.transcode(data, options: options)
        return (report.jpeg, report.result)
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
            throw JPEGError(
                .writeFailed, failure.message, detail: String(cString: strerror(failure.systemErrno)), cause: failure)
        } catch {
            throw JPEGError(.writeFailed, "Could not save \(output.path): \(error).", cause: error)
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
                detail: "\(error)", cause: error)
        }
    }
}
