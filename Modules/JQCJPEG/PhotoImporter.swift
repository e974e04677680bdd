import Foundation

/// The photo import pipeline as an injectable value (STYLE.md item 3): JQCPhotos and the shell hold one,
/// built live in the composition root; tests may substitute their own closure.
public struct PhotoImporter: Sendable {
    /// Size, quality and limits used by ``recompress(input:output:)``.
    public let options: JPEGImportOptions
    private let run: @Sendable (URL, URL, JPEGImportOptions) throws(JPEGError) -> JPEGImportResult

    /// The live importer: ``JPEGPipeline/recompress(input:output:options:)`` with `options`.
    public init(options: JPEGImportOptions = JPEGImportOptions()) {
        self.options = options
        self.run = { input, output, options throws(JPEGError) in
            try JPEGPipeline.recompress(input: input, output: output, options: options)
        }
    }

    /// An importer that runs `recompress` instead (for tests of the modules that use it).
    public init(
        options: JPEGImportOptions = JPEGImportOptions(),
        recompress: @escaping @Sendable (URL, URL, JPEGImportOptions) throws(JPEGError) -> JPEGImportResult
    ) {
        self.options = options
        self.run = recompress
    }

    /// Imports the JPEG at `input` into `output` (decode, orient, reduce, re-encode at quality 80, atomic
    /// write; seed 001 rule 18). Nothing is written when the photo is refused.
    /// - Returns: width, height, the orientation applied and the output size.
    /// - Throws: ``JPEGError`` (see ``JPEGPipeline/recompress(input:output:options:)``).
    public func recompress(input: URL, output: URL) throws(JPEGError) -> JPEGImportResult {
        try run(input, output, options)
    }
}
