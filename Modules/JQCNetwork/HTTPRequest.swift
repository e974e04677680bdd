import Foundation

/// An HTTP method the client sends.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    /// `GET`: reads; safe to repeat.
    case get = "GET"
    /// `POST`: creates or acts (login, refresh, inspections, issues, uploads); never re-sent once it may have arrived.
    case post = "POST"
    /// `PUT`: replaces a resource; idempotent.
    case put = "PUT"
    /// `PATCH`: changes part of a record (an inspection; an issue's status, handler, photos); never re-sent.
    case patch = "PATCH"
    /// `DELETE`: removes a resource; idempotent.
    case delete = "DELETE"
    /// `HEAD`: like `GET` without a body.
    case head = "HEAD"

    /// Whether sending the request twice has the same effect as sending it once (RFC 9110 §9.2.2).
    /// `POST` and `PATCH` are not: a transport never re-sends them once they may have reached the server.
    public var isIdempotent: Bool {
        switch self {
        case .get, .put, .delete, .head: true
        case .post, .patch: false
        }
    }
}

/// What a request is for; it selects the overall time limit of the transfer (issue 4) and the largest
/// reply body accepted (issue 21, ``TransferLimits``).
public enum RequestKind: Sendable, Hashable {
    /// An ordinary API call: 30 s; a JSON reply.
    case api
    /// A photo or other large upload: 120 s; a JSON reply.
    case upload
    /// A connectivity probe (`/health`): 5 s; a JSON reply.
    case probe
    /// A photo's bytes (`GET /static/…`, not enveloped): 120 s; up to the contract's 50 MB.
    case photo

    /// The overall time limit in seconds (connecting, sending and receiving together).
    public var timeout: Double {
        switch self {
        case .api: 30
        case .upload, .photo: 120
        case .probe: 5
        }
    }

    /// The largest reply body in bytes a transfer of this kind accepts under `limits`: the photo limit for
    /// ``photo``, the JSON reply limit for every other kind.
    public func maximumReplyBytes(_ limits: TransferLimits) -> Int64 {
        switch self {
        case .photo: limits.maximumPhotoBytes
        case .api, .upload, .probe: limits.maximumJSONReplyBytes
        }
    }
}

/// One part of a `multipart/form-data` body.
public struct MultipartPart: Sendable, Hashable {
    /// Where a part's bytes come from.
    public enum Content: Sendable, Hashable {
        /// Bytes held in memory.
        case data(Data)
        /// A file read while sending (never loaded whole into memory).
        case file(URL)
    }

    /// The form field name (`file`, `entity_type`, …).
    public let name: String
    /// The file name announced for a file part, or `nil` for a plain field.
    public let filename: String?
    /// The part's MIME type (`image/jpeg`), or `nil` for none.
    public let contentType: String?
    /// The part's bytes.
    public let content: Content

    /// A part with explicit content.
    public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.content = content
    }

    /// A plain text field (`entity_type=issue`).
    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, content: .data(Data(value.utf8)))
    }

    /// A file field read from disk while sending.
    public static func file(_ name: String, url: URL, filename: String? = nil, contentType: String)
        -> MultipartPart
    {
        MultipartPart(
            name: name, filename: filename ?? url.lastPathComponent, contentType: contentType,
            content: .file(url))
    }
}

/// A request body.
public enum HTTPBody: Sendable, Hashable {
    /// No body.
    case none
    /// Raw bytes; set `Content-Type` in the headers.
    case data(Data)
    /// A `multipart/form-data` body; the transport sets `Content-Type` with the boundary.
    case multipart([MultipartPart])
}

/// Header fields with case-insensitive lookup (RFC 9110 §5.1); the order and spelling given are kept.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order, as (name, value).
    public private(set) var fields: [(name: String, value: String)]

    /// Headers holding `fields` in order.
    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Headers from a literal, in the order written.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field `name` (any letter case), or `nil` when absent.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.sameName($0.name, name) }?.value
    }

    /// Replaces every field named `name` (any letter case) by one with `value`, or removes them when `nil`.
    public mutating func set(_ name: String, _ value: String?) {
        if fields.contains(where: { HTTPHeaders.sameName($0.name, name) }) {
            fields.removeAll { HTTPHeaders.sameName($0.name, name) }
        }
        if let value { fields.append((name: name, value: value)) }
    }

    /// Adds a field, keeping any others with the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Whether `value` may be sent as a header field value: no control character (CR, LF, NUL and the rest
    /// of C0, DEL, C1) except horizontal tab, at most ``maximumValueBytes`` UTF-8 bytes (RFC 9110 §5.5). A
    /// value built from server data (a token) that fails this is never sent (issue 21).
    public static func isSafeValue(_ value: String) -> Bool {
        // On the UTF-8 bytes (issue 17): C0 controls but tab, DEL, and the C1 controls U+0080…U+009F
        // (encoded 0xC2 0x80…0x9F) are refused.
        var previous: UInt8 = 0
        var count = 0
        for byte in value.utf8 {
            count += 1
            if (byte < 0x20 && byte != 0x09) || byte == 0x7F || (previous == 0xC2 && byte >= 0x80 && byte <= 0x9F) {
                return false
            }
            previous = byte
        }
        return count <= maximumValueBytes
    }

    /// Whether `name` is an HTTP field name: one or more `tchar`s (RFC 9110 §5.1, §5.6.2).
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
    }

    /// The longest header value sent, in UTF-8 bytes: 16 KiB (an 8 KiB token plus its scheme fits).
    public static let maximumValueBytes = 16_384

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }

    /// Whether two field names are the same name: equal bytes, ASCII letters compared without case (field
    /// names are ASCII tokens, RFC 9110 §5.1). Compares in place, allocating nothing (issue 17: every
    /// request sets and reads a few fields).
    static func sameName(_ left: String, _ right: String) -> Bool {
        left.utf8.elementsEqual(right.utf8) { a, b in
            a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A)
        }
    }

    /// Equal when the same fields appear in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name)
            hasher.combine(field.value)
        }
    }
}

/// A request handed to an ``HTTPTransport``.
public struct HTTPRequest: Sendable, Hashable {
    /// The method.
    public var method: HTTPMethod
    /// The absolute URL, always built by `ServerConfig` (seed 001 rule 17).
    public var url: URL
    /// Header fields to send.
    public var headers: HTTPHeaders
    /// The body.
    public var body: HTTPBody
    /// What the request is for; selects the overall time limit.
    public var kind: RequestKind
    /// An overall time limit in seconds that overrides ``RequestKind/timeout`` (tests), or `nil`.
    public var timeoutOverride: Double?
    /// Marks a non-idempotent request as safe to send twice (the server dedupes it); `nil` follows the method.
    public var idempotentOverride: Bool?
    /// Whether the body carries a password (`POST /auth/login`): over plain `http://` to a host that is not
    /// loopback (allowed only with `--allow-insecure-http`) the transport warns before sending it.
    public var carriesPassword: Bool

    /// A request.
    public init(
        method: HTTPMethod, url: URL, headers: HTTPHeaders = [:], body: HTTPBody = .none,
        kind: RequestKind = .api, timeoutOverride: Double? = nil, idempotentOverride: Bool? = nil,
        carriesPassword: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.kind = kind
        self.timeoutOverride = timeoutOverride
        self.idempotentOverride = idempotentOverride
        self.carriesPassword = carriesPassword
    }

    /// The overall time limit in seconds.
    public var timeout: Double { timeoutOverride ?? kind.timeout }

    /// Whether the transport may send this request a second time after a dropped connection.
    public var isIdempotent: Bool { idempotentOverride ?? method.isIdempotent }
}

/// A reply: status, header fields and the body bytes.
public struct HTTPResponse: Sendable, Hashable {
    /// The HTTP status code (200, 401, …).
    public var status: Int
    /// The reply's header fields (case-insensitive lookup).
    public var headers: HTTPHeaders
    /// The body bytes, possibly empty.
    public var body: Data

    /// A reply.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
