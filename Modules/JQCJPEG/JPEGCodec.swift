import CJPEGShim
import Foundation

/// libjpeg through the C shim: header reading, decoding with DCT scaling, encoding. Every libjpeg call
/// that may fail runs in C under its own setjmp (STYLE.md pitfalls); warnings are classified there.
public enum JPEGCodec {
    /// The DCT scale denominator (1, 2, 4 or 8) for decoding a `width` × `height` JPEG so that its long
    /// edge is at most `maxLongEdge`: the smallest reduction that fits. When even 1/8 is too large, 8 is
    /// returned and the image stays larger than `maxLongEdge` (no further resampling; with the default
    /// 30,000 px side limit and 4,096 px long edge this cannot happen, since 30,000 / 8 = 3,750).
    /// - Returns: 1 when the image already fits or `maxLongEdge` is `nil`.
    public static func scaleDenominator(width: Int, height: Int, maxLongEdge: Int?) -> Int {
        guard let maxLongEdge else { return 1 }
        let longEdge = max(width, height)
        for denominator in [1, 2, 4, 8] where (longEdge + denominator - 1) / denominator <= maxLongEdge {
            return denominator
        }
        return 8
    }

    /// Reads the header and EXIF orientation without decoding pixels.
    /// - Parameter data: the file's bytes.
    /// - Returns: the header.
    /// - Throws: ``JPEGError``: `.notJPEG` (judged by the bytes), `.unsupportedPrecision` (12-bit),
    ///   `.truncated`, `.corrupt`, `.tooLarge` (over libjpeg's 65,500 px), `.outOfMemory`.
    public static func readHeader(_ data: Data) throws(JPEGError) -> JPEGHeader {
        try withDecoder(data) { _, header in .success(header) }.get()
    }

    /// Decodes a JPEG, reducing it with DCT scaling so its long edge is at most `maxLongEdge`.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - maxLongEdge: px; `nil` decodes at full size.
    ///   - limits: refused sizes, checked before decompressing.
    /// - Returns: the pixels (orientation not applied) and the header.
    /// - Throws: ``JPEGError``: everything ``readHeader(_:)`` throws, plus `.tooLarge` (limits),
    ///   `.truncated` / `.damaged` (libjpeg warnings that mean damaged pixels), `.invalidArgument`.
    public static func decode(_ data: Data, maxLongEdge: Int? = nil, limits: JPEGLimits = JPEGLimits())
        throws(JPEGError) -> DecodedJPEG
    {
        if let maxLongEdge, maxLongEdge < 1 {
            throw JPEGError(.invalidArgument, "The maximum long edge must be at least 1 px; it was \(maxLongEdge).")
        }
        return try withDecoder(data) { decoder, header -> Result<DecodedJPEG, JPEGError> in
            if let refusal = check(header, against: limits) { return .failure(refusal) }
            let denominator = scaleDenominator(width: header.width, height: header.height, maxLongEdge: maxLongEdge)
            var status = jqc_jpeg_status()
            var width: Int32 = 0
            var height: Int32 = 0
            var channels: Int32 = 0
            let prepared = jqc_decoder_prepare(decoder, Int32(denominator), &width, &height, &channels, &status)
            guard prepared == kindOK else { return .failure(error(from: status, header: header)) }
            let count = Int(width) * Int(height) * Int(channels)
            let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                _ = jqc_decoder_decode(decoder, buffer.baseAddress, count, &status)
                initialized = count
            }
            guard status.kind == kindOK else { return .failure(error(from: status, header: header)) }
            let image = PixelImage(unchecked: Int(width), height: Int(height), channels: Int(channels), pixels: pixels)
            return .success(
                DecodedJPEG(
                    image: image, header: header, scaleDenominator: denominator,
                    toleratedWarnings: Int(status.tolerated_warnings)))
        }.get()
    }

    /// Encodes pixels as a JFIF JPEG with libjpeg's standard tables scaled for `quality` (baseline Huffman
    /// unless `coding` says otherwise).
    /// No EXIF (APP1) segment is written, so no orientation is left behind (rule 18).
    /// - Parameters:
    ///   - image: gray or RGB pixels.
    ///   - quality: 1…100; 80 is the app's 0.8 (seed 001 rule 18).
    ///   - maxBytes: refuse once the output would exceed this many bytes; `nil` for no cap.
    ///   - coding: baseline (the default, what the pipeline writes), progressive or arithmetic.
    /// - Returns: the JPEG file's bytes.
    /// - Throws: ``JPEGError``: `.outputTooLarge`, `.outOfMemory`, `.invalidArgument` (quality out of range).
    public static func encode(
        _ image: PixelImage, quality: Int = 80, maxBytes: Int? = nil, coding: JPEGCoding = .baseline
    ) throws(JPEGError) -> Data {
        guard (1...100).contains(quality) else {
            throw JPEGError(.invalidArgument, "JPEG quality must be between 1 and 100; it was \(quality).")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var status = jqc_jpeg_status()
        let kind = image.pixels.withUnsafeBufferPointer { buffer in
            jqc_jpeg_encode(
                buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(image.channels),
                Int32(quality), coding.rawValue, max(0, maxBytes ?? 0), &output, &length, &status)
        }
        guard kind == kindOK, let output else {
            if kind == Int32(JQC_JPEG_OUTPUT_TOO_BIG.rawValue), let maxBytes {
                throw outputTooLarge(maxBytes: maxBytes, status: status)
            }
            throw error(from: status, header: nil)
        }
        return Data(bytesNoCopy: output, count: length, deallocator: .free)
    }

    /// Encodes 4-component CMYK samples exactly as given, with or without the Adobe APP14 marker (which
    /// tells readers the values are stored inverted, Photoshop-style). For tests of the CMYK decode paths.
    /// - Throws: ``JPEGError`` `.invalidArgument` for a wrong buffer size, `.outOfMemory`.
    static func encodeCMYK(_ samples: [UInt8], width: Int, height: Int, quality: Int, adobeMarker: Bool)
        throws(JPEGError) -> Data
    {
        guard width > 0, height > 0, samples.count == width * height * 4 else {
            throw JPEGError(.invalidArgument, "CMYK samples must be width × height × 4 bytes.")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var status = jqc_jpeg_status()
        let kind = samples.withUnsafeBufferPointer { buffer in
            jqc_jpeg_encode_cmyk(
                buffer.baseAddress, Int32(width), Int32(height), Int32(quality), adobeMarker ? 1 : 0, &output,
                &length, &status)
        }
        guard kind == kindOK, let output else { throw error(from: status, header: nil) }
        return Data(bytesNoCopy: output, count: length, deallocator: .free)
    }

    /// libjpeg's `jpeg_quality_scaling`: the percentage the standard tables are scaled by for `quality`.
    public static func qualityScaling(_ quality: Int) -> Int {
        Int(jqc_jpeg_quality_scaling(Int32(quality)))
    }

    /// The luminance quantisation table libjpeg writes for `quality` (baseline), natural order.
    /// - Returns: 64 values, or `nil` when `quality` is outside 1…100.
    public static func standardLuminanceTable(quality: Int) -> [UInt16]? {
        var values = [UInt16](repeating: 0, count: 64)
        let ok = values.withUnsafeMutableBufferPointer {
            jqc_jpeg_standard_luminance_table(Int32(quality), $0.baseAddress)
        }
        return ok == 1 ? values : nil
    }

    // MARK: - Internals

    static let kindOK = Int32(JQC_JPEG_OK.rawValue)

    /// Opens a decoding session over `data`, reads the header and EXIF, and runs `body` with it.
    static func withDecoder<T>(_ data: Data, _ body: (OpaquePointer, JPEGHeader) -> Result<T, JPEGError>)
        -> Result<T, JPEGError>
    {
        let kind = FileKind.sniff(data.prefix(512))
        guard kind == .jpeg else { return .failure(notJPEG(kind, data)) }
        return data.withUnsafeBytes { raw -> Result<T, JPEGError> in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                let decoder = jqc_decoder_create(base, raw.count)
            else {
                return .failure(
                    JPEGError(
                        .outOfMemory,
                        "There is not enough memory to start decoding the photo. "
                            + "Close other apps and try again."))
            }
            defer { jqc_decoder_destroy(decoder) }
            var raw = jqc_jpeg_header()
            var status = jqc_jpeg_status()
            guard jqc_decoder_read_header(decoder, &raw, &status) == kindOK else {
                return .failure(error(from: status, partial: raw))
            }
            guard raw.data_precision == 8 else {
                return .failure(precisionError(Int(raw.data_precision), detail: nil))
            }
            var orientation = ExifOrientation.up
            for index in 0..<raw.app1_count {
                var bytes: UnsafePointer<UInt8>?
                var length = 0
                guard jqc_decoder_app1(decoder, index, &bytes, &length) == 1, let bytes else { continue }
                let segment = UnsafeRawBufferPointer(start: bytes, count: length)
                if ExifOrientation.isExifSegment(segment) {
                    orientation = ExifOrientation.read(app1: segment)
                    break
                }
            }
            var table = [UInt16](repeating: 0, count: 64)
            let hasTable = table.withUnsafeMutableBufferPointer { jqc_decoder_quant_table(decoder, 0, $0.baseAddress) }
            let tolerated = Int(status.tolerated_warnings)
            let header = JPEGHeader(
                width: Int(raw.width), height: Int(raw.height), components: Int(raw.components),
                colorSpace: JPEGColorSpace(libjpeg: raw.color_space), bitsPerSample: Int(raw.data_precision),
                isProgressive: raw.progressive != 0, isArithmeticCoded: raw.arithmetic != 0,
                hasAdobeMarker: raw.saw_adobe_marker != 0, orientation: orientation,
                luminanceQuantTable: hasTable == 1 ? table : nil, toleratedWarnings: tolerated,
                firstToleratedWarning: tolerated > 0 ? message(status.tolerated_message) : nil)
            return body(decoder, header)
        }
    }

    /// The refusal for a header over the limits, or `nil` when it fits.
    static func check(_ header: JPEGHeader, against limits: JPEGLimits) -> JPEGError? {
        let (pixels, overflow) = header.width.multipliedReportingOverflow(by: header.height)
        guard header.width > limits.maxSide || header.height > limits.maxSide || overflow || pixels > limits.maxPixels
        else { return nil }
        let megapixels = (pixels + 500_000) / 1_000_000
        return JPEGError(
            .tooLarge,
            "The photo is \(header.width) × \(header.height) px (about \(megapixels) megapixels); photos "
                + "over \(limits.maxPixels / 1_000_000) megapixels or \(limits.maxSide) px on a side are "
                + "refused before decoding. Use a smaller photo.")
    }

    static func notJPEG(_ kind: FileKind, _ data: Data) -> JPEGError {
        switch kind {
        case .empty:
            return JPEGError(.notJPEG, "The file is empty (0 bytes), not a JPEG photo. Choose the photo again.")
        case .unknown:
            let head = data.prefix(2).map { String(format: "0x%02X", $0) }.joined(separator: " ")
            return JPEGError(.notJPEG, "The file is not a JPEG photo (it starts with \(head)). Choose a JPEG photo.")
        default:
            return JPEGError(
                .notJPEG,
                "The file is \(kind.phrase), not a JPEG photo. Convert it to JPEG, or "
                    + "choose a JPEG photo.")
        }
    }

    static func precisionError(_ bits: Int, detail: String?) -> JPEGError {
        JPEGError(
            .unsupportedPrecision,
            "The photo is a \(bits)-bit JPEG, which this app cannot read. Save it as a standard 8-bit JPEG "
                + "and import it again.", detail: detail)
    }

    static func error(from status: jqc_jpeg_status, partial: jqc_jpeg_header) -> JPEGError {
        let cause = message(status.message)
        if status.kind == Int32(JQC_JPEG_PRECISION.rawValue) {
            return precisionError(Int(partial.data_precision), detail: cause)
        }
        if status.kind == Int32(JQC_JPEG_TOO_BIG.rawValue) {
            return JPEGError(
                .tooLarge,
                "The photo claims a size over libjpeg's 65,500 px limit (\(partial.width) × "
                    + "\(partial.height) px). Use a smaller photo.", detail: cause)
        }
        return error(from: status, header: nil)
    }

    static func error(from status: jqc_jpeg_status, header: JPEGHeader?) -> JPEGError {
        let cause = message(status.message)
        let quoted = cause.isEmpty ? "" : " (libjpeg: \(cause))"
        switch UInt32(bitPattern: status.kind) {
        case JQC_JPEG_TRUNCATED.rawValue:
            return JPEGError(
                .truncated,
                "The photo is cut short\(quoted), so part of it would be grey. Copy the "
                    + "complete file again and import it.", detail: cause)
        case JQC_JPEG_DAMAGED.rawValue:
            return JPEGError(
                .damaged,
                "The photo's image data is damaged\(quoted), so parts of it would be grey or "
                    + "garbled. Import an undamaged copy.", detail: cause)
        case JQC_JPEG_PRECISION.rawValue:
            return precisionError(header?.bitsPerSample ?? 12, detail: cause)
        case JQC_JPEG_TOO_BIG.rawValue:
            return JPEGError(
                .tooLarge, "The photo is larger than libjpeg can handle\(quoted). Use a smaller photo.",
                detail: cause)
        case JQC_JPEG_NOT_JPEG.rawValue:
            return JPEGError(.notJPEG, "The file is not a JPEG photo\(quoted). Choose a JPEG photo.", detail: cause)
        case JQC_JPEG_NO_MEMORY.rawValue:
            return JPEGError(
                .outOfMemory,
                "There is not enough memory to process the photo\(quoted). Close other "
                    + "apps and try again.", detail: cause)
        case JQC_JPEG_OUTPUT_TOO_BIG.rawValue:
            return JPEGError(
                .outputTooLarge,
                "The re-encoded photo would be over the upload limit\(quoted). Use a "
                    + "smaller photo.", detail: cause)
        case JQC_JPEG_BAD_ARGUMENT.rawValue:
            return JPEGError(.invalidArgument, "The photo could not be processed: \(cause)", detail: cause)
        default:
            return JPEGError(
                .corrupt,
                "The photo's JPEG data is corrupt and cannot be read\(quoted). Import an "
                    + "undamaged copy.", detail: cause)
        }
    }

    /// A NUL-terminated C character array (as Swift imports `char[200]`) as a String.
    static func message<Tuple>(_ tuple: Tuple) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
