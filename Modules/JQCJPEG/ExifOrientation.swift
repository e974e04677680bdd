import CExif

/// The EXIF Orientation tag (0x0112) of the primary image (IFD 0): how the stored pixels must be turned
/// to show the photo upright. Names follow UIImage.Orientation; raw values are the EXIF values 1…8.
/// JQCJPEG applies it to the pixels exactly once and writes no orientation back (issue 8, rule 18).
public enum ExifOrientation: Int, Sendable, Equatable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left–right.
    case upMirrored = 2
    /// 3: turned 180°.
    case down = 3
    /// 4: mirrored top–bottom.
    case downMirrored = 4
    /// 5: transposed (mirrored, then turned 90° counter-clockwise).
    case leftMirrored = 5
    /// 6: shown by turning the stored pixels 90° clockwise.
    case right = 6
    /// 7: transversed (mirrored, then turned 90° clockwise).
    case rightMirrored = 7
    /// 8: shown by turning the stored pixels 90° counter-clockwise.
    case left = 8

    /// Whether applying it swaps width and height (values 5…8).
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation from one APP1 segment's payload (starting `Exif\0\0`), IFD 0 only — never
    /// IFD 1, which describes the thumbnail. Uses libexif, with its "fix to the specification" option off
    /// so nothing is invented.
    /// - Parameter app1: the APP1 payload without the marker and length bytes.
    /// - Returns: the orientation; ``up`` when the segment is not EXIF, is damaged, recursive or
    ///   truncated, has no Orientation tag, or holds a value outside 1…8 (0 included). Never fails.
    public static func read(app1: UnsafeRawBufferPointer) -> ExifOrientation {
        guard isExifSegment(app1), let base = app1.baseAddress, app1.count <= 0xFFFF else { return .up }
        guard let exif = exif_data_new() else { return .up }
        defer { exif_data_unref(exif) }
        exif_data_unset_option(exif, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_load_data(exif, base.assumingMemoryBound(to: UInt8.self), UInt32(app1.count))
        guard let ifd0 = exif.pointee.ifd.0,
            let entry = exif_content_get_entry(ifd0, EXIF_TAG_ORIENTATION),
            entry.pointee.format == EXIF_FORMAT_SHORT,
            entry.pointee.components >= 1,
            entry.pointee.size >= 2,
            let data = entry.pointee.data
        else { return .up }
        let value = exif_get_short(data, exif_data_get_byte_order(exif))
        return ExifOrientation(rawValue: Int(value)) ?? .up
    }

    /// Reads the orientation from bytes holding one APP1 payload; as the raw-buffer variant.
    /// - Returns: the orientation, ``up`` for anything unusable.
    public static func read(app1 bytes: [UInt8]) -> ExifOrientation {
        bytes.withUnsafeBytes { read(app1: $0) }
    }

    /// Whether an APP1 payload starts with the EXIF identifier `Exif\0\0` (XMP and others do not).
    static func isExifSegment(_ app1: UnsafeRawBufferPointer) -> Bool {
        app1.count >= 14 && app1.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0x00, 0x00])
    }
}
