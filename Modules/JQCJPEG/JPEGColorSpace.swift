/// The colour model of the JPEG's components, as libjpeg identified it.
public enum JPEGColorSpace: String, Sendable, Equatable {
    /// One component.
    case gray
    /// Three components stored as RGB (Adobe transform 0).
    case rgb
    /// Three components stored as YCbCr (the usual case).
    case yCbCr
    /// Four components stored as CMYK (Adobe, often with inverted values).
    case cmyk
    /// Four components stored as YCCK (Adobe transform 2).
    case ycck
    /// Anything else libjpeg reports.
    case unknown

    init(libjpeg value: Int32) {
        switch value {
        case 1: self = .gray
        case 2: self = .rgb
        case 3: self = .yCbCr
        case 4: self = .cmyk
        case 5: self = .ycck
        default: self = .unknown
        }
    }
}
