import JQCKit

/// The one error type of JQCJPEG: why a photo was refused or could not be saved (issue 8, STYLE.md items 6
/// and 14).
///
/// `kind` is stable (tests and callers switch on it) and gives ``code`` (`jpeg.not_jpeg`); `message` is a
/// sentence a person can act on; `detail` carries libjpeg's own text or the operating system's reason when
/// there is one, and `cause` the error underneath (a failed read or write). No output file exists when a
/// `JPEGError` is thrown by ``JPEGPipeline``.
public struct JPEGError: CodedError, Equatable {
    /// Stable reasons, one per kind of refusal (`jpeg.<raw value>`).
    public enum Kind: String, CodedErrorKind {
        /// The bytes are not a JPEG (PNG, WebP, HEIC, text, an empty file, …), judged by content, not name.
        case notJPEG = "not_jpeg"
        /// A 12-bit (or otherwise non-8-bit) JPEG, which the 8-bit libjpeg API cannot decode.
        case unsupportedPrecision = "unsupported_precision"
        /// The data ends before the image does (libjpeg's JWRN_JPEG_EOF), even when only the EOI marker is
        /// missing.
        case truncated = "truncated"
        /// libjpeg warned about damaged scan data (bad Huffman or arithmetic code, premature end of a data
        /// segment, must-resync, inconsistent progression, extraneous bytes once scan decoding has begun or
        /// before RSTn/EOI). Header oddities (stray bytes before a header marker, JWRN_NOT_SEQUENTIAL) are
        /// tolerated instead.
        case damaged = "damaged"
        /// libjpeg refused the stream outright (bad structure, tables or parameters).
        case corrupt = "corrupt"
        /// More than 100 megapixels or a side over 30,000 px (checked right after the header).
        case tooLarge = "too_large"
        /// The re-encoded JPEG would be over the server's 50 MB upload cap (CONTRACT.md, Photos: 413).
        case outputTooLarge = "output_too_large"
        /// The input file could not be read.
        case readFailed = "read_failed"
        /// The output file could not be written (disk full, permission denied, missing folder, …).
        case writeFailed = "write_failed"
        /// Not enough memory to decode or encode the photo.
        case outOfMemory = "out_of_memory"
        /// The caller passed an impossible value (options, pixel buffer shape).
        case invalidArgument = "invalid_argument"
        /// The codes' module part, `jpeg`.
        public static var module: String { "jpeg" }
    }

    /// The stable reason.
    public let kind: Kind
    /// A sentence saying what went wrong and what to do about it.
    public let message: String
    /// libjpeg's message or the OS reason, when there is one.
    public let detail: String?
    /// The error underneath (a failed read or write of a file), when there is one.
    public let cause: (any Error)?

    /// Creates an error; `message` should be a full sentence.
    public init(_ kind: Kind, _ message: String, detail: String? = nil, cause: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.detail = detail
        self.cause = cause
    }

    /// The stable code, `jpeg.<kind>` (`jpeg.not_jpeg`).
    public var code: String { kind.code }

    /// Same kind, sentence, detail and cause (``/JQCKit/sameCause(_:_:)``).
    public static func == (first: JPEGError, second: JPEGError) -> Bool {
        first.kind == second.kind && first.message == second.message && first.detail == second.detail
            && sameCause(first.cause, second.cause)
    }
}
