/// The one error type of JQCJPEG: why a photo was refused or could not be saved (issue 8, STYLE.md item 6).
///
/// `code` is stable (tests and callers switch on it); `message` is a sentence a person can act on;
/// `cause` carries libjpeg's own text or the operating system's reason when there is one.
/// No output file exists when a `JPEGError` is thrown by ``JPEGPipeline``.
public struct JPEGError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable reasons, one per kind of refusal.
    public enum Code: String, Sendable, CaseIterable {
        /// The bytes are not a JPEG (PNG, WebP, HEIC, text, an empty file, …), judged by content, not name.
        case notJPEG = "not-jpeg"
        /// A 12-bit (or otherwise non-8-bit) JPEG, which the 8-bit libjpeg API cannot decode.
        case unsupportedPrecision = "unsupported-precision"
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
        case tooLarge = "too-large"
        /// The re-encoded JPEG would be over the server's 50 MB upload cap (CONTRACT.md, Photos: 413).
        case outputTooLarge = "output-too-large"
        /// The input file could not be read.
        case readFailed = "read-failed"
        /// The output file could not be written (disk full, permission denied, missing folder, …).
        case writeFailed = "write-failed"
        /// Not enough memory to decode or encode the photo.
        case outOfMemory = "out-of-memory"
        /// The caller passed an impossible value (options, pixel buffer shape).
        case invalidArgument = "invalid-argument"
    }

    /// The stable reason.
    public let code: Code
    /// A sentence saying what went wrong and what to do about it.
    public let message: String
    /// libjpeg's message or the OS reason, when there is one.
    public let cause: String?

    /// Creates an error; `message` should be a full sentence.
    public init(_ code: Code, _ message: String, cause: String? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// The sentence shown to a person.
    public var description: String { message }
}
