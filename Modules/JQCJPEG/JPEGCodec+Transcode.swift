import CJPEGShim
import Foundation

/// How ``JPEGCodec/transcode(_:options:settings:)`` moves samples from the decoder to the encoder. The
/// defaults are the pipeline's; tests turn them down to compare against the plain route (issue 17).
struct JPEGTranscodeSettings: Sendable, Equatable {
    /// 2: decoding and encoding overlap on two threads when the path streams (and the image is over
    /// ~0.26 MP and the machine has two cores); 1: everything on the calling thread.
    var threads = 2
    /// `true`: YCbCr 4:2:0 sources at full scale go from the decoder's IDCT to the encoder's DCT as planes
    /// (turned plane by plane when the flips keep chroma on its luma pairs). `false`: every colour source
    /// goes through RGB scanlines, as `djpeg | cjpeg` does.
    var passThrough = true
}

/// The route one transcode took (the shim's `jqc_transcode_path`).
enum JPEGTranscodePath: Int32, Sendable, Equatable {
    /// 4:2:0 YCbCr planes streamed from the decoder to the encoder: no upsampling, colour conversion or
    /// downsampling.
    case rawStream = 1
    /// Scanlines streamed in strips (orientations 1 and 2).
    case pixelStream = 2
    /// One decoded image held whole, then encoded in turned strips (orientations 3…8).
    case fullBuffer = 3
    /// The 4:2:0 planes held whole (1.5 bytes a pixel) and encoded in turned strips (orientations 3…8 at
    /// full scale when the flips keep chroma on its luma pairs).
    case rawFullBuffer = 4
}

/// What one transcode produced, and how.
struct JPEGTranscodeReport: Sendable {
    /// The new JFIF JPEG.
    let jpeg: Data
    /// Sizes, orientation and warnings, as the pipeline reports them.
    let result: JPEGImportResult
    /// The route taken.
    let path: JPEGTranscodePath
    /// Threads that ran: 1, or 2 when decoding and encoding overlapped.
    let threads: Int
    /// Bytes of decoded samples held at once: the strip ring when streaming, the whole image otherwise.
    let sampleBufferBytes: Int
}

extension JPEGCodec {
    /// Decodes and re-encodes in one pass (the import pipeline's core): DCT scaling so the long edge is at
    /// most `options.maxLongEdge`, the EXIF orientation applied to the pixels once, baseline quality
    /// `options.quality` with libjpeg's standard tables, no EXIF written. Scanlines stream from the decoder
    /// to the encoder when the orientation keeps row order (1, 2); 3…8 hold one decoded image.
    /// - Returns: the JPEG and what was done.
    /// - Throws: ``JPEGError``: everything ``decode(_:maxLongEdge:limits:)`` throws, plus `.outputTooLarge`
    ///   (over `options.maxOutputBytes`) and `.invalidArgument` (quality or long edge out of range).
    static func transcode(
        _ data: Data, options: JPEGImportOptions, settings: JPEGTranscodeSettings = JPEGTranscodeSettings()
    ) throws(JPEGError) -> JPEGTranscodeReport {
        guard (1...100).contains(options.quality) else {
            throw JPEGError(.invalidArgument, "JPEG quality must be between 1 and 100; it was \(options.quality).")
        }
        guard options.maxLongEdge >= 1 else {
            throw JPEGError(
                .invalidArgument, "The maximum long edge must be at least 1 px; it was \(options.maxLongEdge).")
        }
        return try withDecoder(data) { decoder, header -> Result<JPEGTranscodeReport, JPEGError> in
            if let refusal = check(header, against: options.limits) { return .failure(refusal) }
            let denominator = scaleDenominator(
                width: header.width, height: header.height, maxLongEdge: options.maxLongEdge)
            var request = jqc_transcode_options(
                scale_denom: Int32(denominator), orientation: Int32(header.orientation.rawValue),
                quality: Int32(options.quality), max_bytes: max(0, options.maxOutputBytes),
                threads: Int32(settings.threads), pass_through: settings.passThrough ? 1 : 0)
            var done = jqc_transcode_result()
            var status = jqc_jpeg_status()
            let kind = jqc_decoder_transcode(decoder, &request, &done, &status)
            guard kind == kindOK, let bytes = done.jpeg else {
                if kind == Int32(JQC_JPEG_OUTPUT_TOO_BIG.rawValue) {
                    return .failure(outputTooLarge(maxBytes: options.maxOutputBytes, status: status))
                }
                return .failure(error(from: status, header: header))
            }
            let jpeg = Data(bytesNoCopy: bytes, count: done.length, deallocator: .free)
            let result = JPEGImportResult(
                width: Int(done.width), height: Int(done.height), orientationApplied: header.orientation,
                sourceWidth: header.width, sourceHeight: header.height, scaleDenominator: denominator,
                outputBytes: jpeg.count, channels: Int(done.channels),
                toleratedWarnings: Int(status.tolerated_warnings))
            return .success(
                JPEGTranscodeReport(
                    jpeg: jpeg, result: result, path: JPEGTranscodePath(rawValue: done.path) ?? .fullBuffer,
                    threads: Int(done.threads), sampleBufferBytes: done.sample_buffer_bytes))
        }.get()
    }

    /// The refusal for an output over the byte cap (CONTRACT.md, Photos: 413 over the server's limit).
    static func outputTooLarge(maxBytes: Int, status: jqc_jpeg_status) -> JPEGError {
        JPEGError(
            .outputTooLarge,
            "The re-encoded photo would be larger than \(maxBytes) bytes, the server's upload "
                + "limit. Use a smaller photo.", detail: message(status.message))
    }
}
