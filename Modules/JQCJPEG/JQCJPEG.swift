/// The JQCJPEG module: the tier-1 image codec adapter, the only home of libjpeg (through the CJPEGShim C
/// target, which keeps setjmp/longjmp in C) and libexif (issue 8; SPEC.md §2; seed 001 §13, rule 18).
///
/// Entry points:
/// - ``JPEGPipeline/recompress(input:output:options:)`` and ``JPEGPipeline/recompress(_:options:)``: the photo
///   import (decode, orient, reduce, re-encode at quality 80, write atomically), used by JQCPhotos and
///   `jqc-shell photos recompress IN OUT`.
/// - ``JPEGCodec``: header reading, decoding with DCT scaling, encoding raw pixels (e.g. a signature).
/// - ``ExifOrientation``, ``PixelImage``, ``FileKind``; every failure is a ``JPEGError``.
public enum JQCJPEGModule {
    /// The module's name, for diagnostics.
    public static let name = "JQCJPEG"
}
