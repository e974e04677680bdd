import Foundation
import JQCKit
import JQCStorage

/// One part of a `multipart/form-data` body: its form name, file name and bytes (a slice of the body).
struct MultipartPart {
    var name: String
    var filename: String?
    var contentType: String?
    var content: Data
}

/// A small `multipart/form-data` reader over a body held in memory or mapped from the upload file.
enum Multipart {
    /// The boundary of a `multipart/form-data; boundary=…` content type, or `nil`.
    static func boundary(contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The parts of `body`, or `nil` when it is not well-formed multipart with `boundary`.
    static func parse(_ body: Data, boundary: String) -> [MultipartPart]? {
        let delimiter = Data("--\(boundary)".utf8)
        let separator = Data("\r\n--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        guard let first = body.range(of: delimiter) else { return nil }
        var parts: [MultipartPart] = []
        var cursor = first.upperBound
        while true {
            guard cursor + 2 <= body.endIndex else { return nil }
            if body[cursor] == 0x2D, body[cursor + 1] == 0x2D { return parts }  // "--": the closing delimiter
            guard body[cursor] == 0x0D, body[cursor + 1] == 0x0A else { return nil }
            let headersStart = cursor + 2
            guard let headersRange = body.range(of: headerEnd, in: headersStart..<body.endIndex) else { return nil }
            let headerText = String(decoding: body[headersStart..<headersRange.lowerBound], as: UTF8.self)
            guard let next = body.range(of: separator, in: headersRange.upperBound..<body.endIndex) else { return nil }
            var part = MultipartPart(
                name: "", filename: nil, contentType: nil,
                content: body[headersRange.upperBound..<next.lowerBound])
            for line in headerText.components(separatedBy: "\r\n") {
                let lower = line.lowercased()
                if lower.hasPrefix("content-disposition:") {
                    part.name = parameter("name", in: line) ?? ""
                    part.filename = parameter("filename", in: line)
                } else if lower.hasPrefix("content-type:") {
                    part.contentType = String(line.dropFirst("content-type:".count))
                        .trimmingCharacters(in: .whitespaces)
                }
            }
            parts.append(part)
            cursor = next.upperBound
        }
    }

    private static func parameter(_ name: String, in line: String) -> String? {
        for piece in line.split(separator: ";") {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == name {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }
}

extension DevServerRouter {
    /// The largest photo accepted, in bytes (CONTRACT.md, Photos: 413 over 50 MB).
    static let maximumPhotoBytes = 50_000_000

    /// True when `data` is a JPEG: it starts with the SOI marker and a segment marker (`FF D8 FF`) and holds
    /// an EOI marker (`FF D9`) after them (bytes after the EOI, as some cameras append, are allowed).
    static func isJPEG(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard bytes.count >= 5, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF else { return false }
            var index = bytes.count - 1
            while index >= 4 {
                if bytes[index] == 0xD9, bytes[index - 1] == 0xFF { return true }
                index -= 1
            }
            return false
        }
    }

    /// What a file that is not a JPEG looks like, for the refusal's sentence: "a PNG image", "a HEIF image", …;
    /// `nil` when it looks like no image at all.
    static func describeNonJPEG(_ data: Data) -> String? {
        let bytes = [UInt8](data.prefix(12))
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return "a JPEG cut off before its end marker" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "a PNG image" }
        if bytes.starts(with: [0x47, 0x49, 0x46, 0x38]) { return "a GIF image" }
        if bytes.count >= 12, bytes[0...3] == [0x52, 0x49, 0x46, 0x46], bytes[8...11] == [0x57, 0x45, 0x42, 0x50] {
            return "a WebP image"
        }
        if bytes.count >= 12, bytes[4...7] == [0x66, 0x74, 0x79, 0x70] { return "a HEIF image" }
        return nil
    }

    /// POST /photos/upload: multipart `file`, `entity_type` ∈ issue, inspection, optional `captured_at`.
    func uploadPhoto(_ user: AuthUser, _ context: RouteContext) throws -> HTTPResponse {
        guard let contentType = context.request.header("content-type"),
            let boundary = Multipart.boundary(contentType: contentType)
        else {
            throw refuse(400, "Send the photo as multipart/form-data with a file part.")
        }
        let body: Data
        if let file = context.request.bodyFile {
            body = (try? Data(contentsOf: file, options: .alwaysMapped)) ?? Data()
        } else {
            body = context.request.body
        }
        guard let parts = Multipart.parse(body, boundary: boundary) else {
            throw refuse(400, "The multipart body is malformed; send a file part and entity_type.")
        }
        guard let file = parts.first(where: { $0.name == "file" }) else {
            throw refuse(400, "The upload has no file part named file.")
        }
        guard file.content.count <= Self.maximumPhotoBytes else {
            throw refuse(413, "The upload is larger than 50 MB; send a smaller photo.")
        }
        guard Self.isJPEG(file.content) else {
            // CONTRACT.md, Photos: the client only ever sends JPEG; nothing else is stored under a .jpg name.
            guard let looks = Self.describeNonJPEG(file.content) else {
                throw refuse(415, "The uploaded file is not an image; send a JPEG photo.")
            }
            throw refuse(415, "The uploaded file is not a JPEG (it looks like \(looks)); send the photo as a JPEG.")
        }
        let entity =
            parts.first(where: { $0.name == "entity_type" }).map {
                String(decoding: $0.content, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            } ?? ""
        guard entity == "issue" || entity == "inspection" else {
            throw refuse(422, "entity_type must be issue or inspection.")
        }
        let capturedAt = parts.first(where: { $0.name == "captured_at" }).map {
            String(decoding: $0.content, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let path = "uploads/\(entity)_photos/\(ServerCrypto.hex(ServerCrypto.randomBytes(16))).jpg"
        let destination = store.uploadsDirectory.deletingLastPathComponent().appendingPathComponent(path)
        do {
            try PrivateFiles.createFolder(destination.deletingLastPathComponent())
            try AtomicFile.write(Data(file.content), to: destination, permissions: PrivateFiles.fileMode)
        } catch {
            throw refuse(500, "The photo could not be stored; try again.")
        }
        try store.queue.write { db in
            try store.put(
                db, .photo,
                [
                    "id": .int(try store.nextID(db)), "path": .string(path), "entity_type": .string(entity),
                    "captured_at": capturedAt.map(JSONValue.string) ?? .null, "user_id": .int(user.id),
                    "size": .int(Int64(file.content.count)), "created_at": .string(DateFormats.instantString(now)),
                ])
        }
        return Envelope.success(.object(["path": .string(path), "url": .string(context.url(path))]))
    }

    /// GET /static/<path>: an uploaded file's bytes, no token; anything outside `uploads/` is 404.
    func serveStatic(_ context: RouteContext) throws -> HTTPResponse {
        guard context.request.method.uppercased() == "GET" || context.request.method.uppercased() == "HEAD" else {
            throw refuse(405, "Only GET is allowed on /static/.")
        }
        let notFound = refuse(404, "There is no such photo.")
        let relative = Array(context.segments.dropFirst())
        guard relative.count >= 2, relative[0] == "uploads",
            !relative.contains(where: { $0 == ".." || $0 == "." || $0.contains("\\") || $0.contains("\0") }),
            !context.request.path.contains("//")
        else { throw notFound }
        let root = store.uploadsDirectory.standardizedFileURL.resolvingSymlinksInPath()
        let file = root.appendingPathComponent(relative.dropFirst().joined(separator: "/")).standardizedFileURL
            .resolvingSymlinksInPath()
        guard file.path.hasPrefix(root.path + "/"), let data = try? Data(contentsOf: file) else { throw notFound }
        let bytes = [UInt8](data.prefix(4))
        let type = bytes.starts(with: [0x89, 0x50]) ? "image/png" : "image/jpeg"
        return HTTPResponse(status: 200, contentType: type, body: data)
    }
}
