/// How ``JPEGCodec/encode(_:quality:maxBytes:coding:)`` entropy-codes its output.
public enum JPEGCoding: Int32, Sendable, Equatable, CaseIterable {
    /// Sequential Huffman (SOF0): what every reader accepts; the pipeline's output.
    case baseline = 0
    /// Progressive Huffman (SOF2, libjpeg's simple progression script).
    case progressive = 1
    /// Sequential arithmetic coding (SOF9).
    case arithmetic = 2
}
