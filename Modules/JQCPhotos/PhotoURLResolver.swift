import Foundation
import JQCKit

/// Builds the URL a server photo is displayed from (seed 001 rules 39 and 67; CONTRACT.md, Photos).
///
/// The server's absolute URL (`url`, `photo_urls`, `form_media`) wins; without one the URL is
/// `ServerConfig.current + "/static/" + path` (the `/static/` prefix is required, rule 39). A server path is
/// only ever turned into a server URL, never into a local file path: paths that are absolute, contain `..`
/// or `.` segments, backslashes, control characters or a scheme are refused (traversal; CONTRACT.md).
/// Presigned URLs expire, so resolve from the freshest pull instead of persisting the result (rule 67).
public enum PhotoURLResolver {
    /// The display URL of a server photo.
    /// - Parameters:
    ///   - serverURL: the absolute URL the server returned for this photo, if any (`http`/`https` only).
    ///   - path: the server's relative path (`uploads/issue_photos/<hex>.jpg`).
    ///   - config: the server selection; its `current` base is read now.
    /// - Returns: the absolute URL when usable; else `current/static/<path>` when `path` is a safe relative
    ///   path; else `nil` (nothing safe to show — e.g. a `local://` sentinel, `../x`, `/etc/passwd`).
    public static func displayURL(serverURL: String?, path: String, config: ServerConfig) -> URL? {
        if let absolute = serverURL.flatMap(absoluteURL) { return absolute }
        if let absolute = absoluteURL(path) { return absolute }
        guard let segments = safeSegments(path) else { return nil }
        var base = config.current.baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/;?#%"))
        let encoded = segments.map { $0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0 }
        return URL(string: base + "/static/" + encoded.joined(separator: "/"))
    }

    /// Whether `path` is a relative server path safe to put under `/static/` (rule 39; CONTRACT.md).
    /// - Returns: `false` for empty, absolute (`/…`), `..`/`.` segments (also percent-encoded), backslashes,
    ///   control characters, `local://` sentinels and other schemes.
    public static func isSafeRelativePath(_ path: String) -> Bool { safeSegments(path) != nil }

    private static func absoluteURL(_ text: String) -> URL? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", trimmed.dropFirst(scheme.count).hasPrefix("://"),
            let host = url.host, !host.isEmpty
        else { return nil }
        return url
    }

    private static func safeSegments(_ path: String) -> [String]? {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.contains("\\"), !path.contains(":"),
            path.unicodeScalars.allSatisfy({ !CharacterSet.controlCharacters.contains($0) })
        else { return nil }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for segment in segments {
            let decoded = segment.removingPercentEncoding ?? segment
            guard !segment.isEmpty, decoded != "..", decoded != ".", !decoded.contains("/"),
                !decoded.contains("\\")
            else { return nil }
        }
        return segments
    }
}

/// Which photo section a record shows (seed 001 rule 34): while the record is not synced, only its local
/// photos; once synced, only its server photos — never both, so a half-uploaded set never shows broken images.
public enum PhotoDisplaySection: String, Sendable, Equatable {
    /// The photos on this device (pending or failed record).
    case local
    /// The server's photos (synced record), resolved through ``PhotoURLResolver``.
    case server

    /// The section for a record in `syncStatus` (rule 34).
    public static func forRecord(syncStatus: SyncStatus) -> PhotoDisplaySection {
        syncStatus == .synced ? .server : .local
    }
}
