/// What a file's first bytes say it is; used to refuse non-JPEG input by content, never by name (issue 8).
public enum FileKind: String, Sendable, Equatable, CaseIterable {
    /// Starts with FF D8 (SOI): handed to libjpeg.
    case jpeg
    /// 0 bytes.
    case empty
    /// 89 50 4E 47 0D 0A 1A 0A.
    case png
    /// "RIFF" … "WEBP".
    case webp
    /// An ISO-BMFF `ftyp` box with a HEIF/HEIC brand.
    case heic
    /// An ISO-BMFF `ftyp` box with an AVIF brand.
    case avif
    /// "GIF87a" / "GIF89a".
    case gif
    /// "II*\0" or "MM\0*".
    case tiff
    /// "BM".
    case bmp
    /// "%PDF".
    case pdf
    /// Printable text (ASCII or UTF-8) in the first 512 bytes.
    case text
    /// None of the above.
    case unknown

    /// Classifies `bytes` by their first bytes (up to 512 are looked at).
    /// - Parameter bytes: the file's contents or a prefix of them.
    /// - Returns: the kind; ``unknown`` when nothing matches.
    public static func sniff<Bytes: Collection>(_ bytes: Bytes) -> FileKind where Bytes.Element == UInt8 {
        let head = Array(bytes.prefix(512))
        if head.isEmpty { return .empty }
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xFF, 0xD8]) { return .jpeg }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        if starts(Array("ftyp".utf8), at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if brand.hasPrefix("avi") { return .avif }
            if ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"].contains(brand) { return .heic }
        }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if starts(Array("%PDF".utf8)) { return .pdf }
        if starts(Array("BM".utf8)), head.count >= 14 { return .bmp }
        if isText(head) { return .text }
        return .unknown
    }

    /// A short phrase naming the kind, e.g. "a PNG image".
    public var phrase: String {
        switch self {
        case .jpeg: return "a JPEG image"
        case .empty: return "an empty file (0 bytes)"
        case .png: return "a PNG image"
        case .webp: return "a WebP image"
        case .heic: return "a HEIC/HEIF image"
        case .avif: return "an AVIF image"
        case .gif: return "a GIF image"
        case .tiff: return "a TIFF image"
        case .bmp: return "a BMP image"
        case .pdf: return "a PDF document"
        case .text: return "a text file"
        case .unknown: return "not an image format this app knows"
        }
    }

    private static func isText(_ head: [UInt8]) -> Bool {
        guard String(validating: head, as: UTF8.self) != nil || head.count == 512 else { return false }
        return head.allSatisfy { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || ($0 >= 0x20 && $0 != 0x7F) }
    }
}
