import Foundation

/// The certificate authorities trusted beyond the system store (issue 21; SHELL.md "Invocation").
///
/// Verification of the peer and of its host name is always on; this only *adds* trust. The system store
/// keeps working: ``CurlTransport`` hands libcurl one in-memory PEM bundle (`CURLOPT_CAINFO_BLOB`) made of
/// libcurl's own default bundle (`CURLINFO_CAINFO`, `/etc/ssl/certs/ca-certificates.crt` on Debian)
/// followed by every file named here, and keeps libcurl's default CA directory (`CURLINFO_CAPATH`,
/// `/etc/ssl/certs`) with the directories named here appended (`CURLOPT_CAPATH`, colon-separated, which
/// OpenSSL's directory lookup splits). With OpenSSL-backed libcurl the blob replaces only `CURLOPT_CAINFO`,
/// never the CA directory, so the union holds. Unlike the `curl` tool, `SSL_CERT_FILE` and `CURL_CA_BUNDLE`
/// therefore add to the system store instead of replacing it.
///
/// With nothing named, libcurl's defaults are left untouched.
public struct TLSTrust: Sendable, Hashable {
    /// A file or directory of certificates and the option or variable that named it (for sentences).
    public struct Source: Sendable, Hashable {
        /// The path as given.
        public var path: String
        /// Who named it: `--ca-file`, `JQC_CA_FILE`, `SSL_CERT_FILE`, `CURL_CA_BUNDLE` or `SSL_CERT_DIR`.
        public var origin: String

        /// A source.
        public init(path: String, origin: String) {
            self.path = path
            self.origin = origin
        }
    }

    /// PEM files of extra trusted certificates (one or more `-----BEGIN CERTIFICATE-----` blocks each).
    public var files: [Source]
    /// Directories of certificates in OpenSSL's hashed layout (`openssl rehash`).
    public var directories: [Source]

    /// Trust in `files` and `directories` on top of the system store.
    public init(files: [Source] = [], directories: [Source] = []) {
        self.files = files
        self.directories = directories
    }

    /// Nothing beyond the system store.
    public static let systemOnly = TLSTrust()

    /// Whether nothing beyond the system store is trusted.
    public var isSystemOnly: Bool { files.isEmpty && directories.isEmpty }

    /// The trust the shell uses: `caFile` (`--ca-file PATH`) or else `$JQC_CA_FILE`, then the standard
    /// `$SSL_CERT_FILE` and `$CURL_CA_BUNDLE` files and the `$SSL_CERT_DIR` directories (colon-separated).
    /// Empty values are ignored; a path named twice is used once.
    /// - Parameters:
    ///   - caFile: the `--ca-file` option, or `nil`.
    ///   - environment: the process environment.
    /// - Returns: the trust.
    public static func standard(caFile: String?, environment: [String: String]) -> TLSTrust {
        var files: [Source] = []
        func addFile(_ path: String?, _ origin: String) {
            guard let path, !path.isEmpty, !files.contains(where: { $0.path == path }) else { return }
            files.append(Source(path: path, origin: origin))
        }
        if let caFile, !caFile.isEmpty {
            addFile(caFile, "--ca-file")
        } else {
            addFile(environment["JQC_CA_FILE"], "JQC_CA_FILE")
        }
        addFile(environment["SSL_CERT_FILE"], "SSL_CERT_FILE")
        addFile(environment["CURL_CA_BUNDLE"], "CURL_CA_BUNDLE")
        var directories: [Source] = []
        for path in (environment["SSL_CERT_DIR"] ?? "").split(separator: ":").map(String.init)
        where !path.isEmpty && !directories.contains(where: { $0.path == path }) {
            directories.append(Source(path: path, origin: "SSL_CERT_DIR"))
        }
        return TLSTrust(files: files, directories: directories)
    }
}

/// What the transport hands libcurl for one https transfer: the PEM bundle and CA directory list built
/// from a ``TLSTrust``, or the reason the trust cannot be used (every https request then fails with it).
struct CATrustStore: Sendable {
    /// The bundle for `CURLOPT_CAINFO_BLOB`, or `nil` to leave libcurl's default bundle.
    let bundle: Data?
    /// The value for `CURLOPT_CAPATH`, or `nil` to leave libcurl's default directory.
    let directories: String?
    /// Why the named trust cannot be used, or `nil`.
    let problem: TLSProblem?

    /// The largest certificate file read, in bytes.
    static let maximumFileBytes = 16 * 1_048_576

    /// Reads every file of `trust` now.
    /// - Parameters:
    ///   - defaultBundle: libcurl's default CA bundle path (`CURLINFO_CAINFO`), or `nil`.
    ///   - defaultDirectory: libcurl's default CA directory (`CURLINFO_CAPATH`), or `nil`.
    init(_ trust: TLSTrust, defaultBundle: String?, defaultDirectory: String?) {
        guard !trust.isSystemOnly else {
            (bundle, directories, problem) = (nil, nil, nil)
            return
        }
        var problem: TLSProblem?
        var pem = Data()
        if let defaultBundle, let system = FileManager.default.contents(atPath: defaultBundle),
            system.count <= CATrustStore.maximumFileBytes
        {
            pem.append(system)
            pem.append(0x0A)
        }
        for source in trust.files where problem == nil {
            switch CATrustStore.readCertificates(source.path) {
            case .success(let data):
                pem.append(data)
                pem.append(0x0A)
            case .failure(let reason):
                problem = .trustFileUnusable(path: source.path, origin: source.origin, reason: reason.text)
            }
        }
        var directoryList: [String] = defaultDirectory.map { [$0] } ?? []
        for source in trust.directories where problem == nil {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: source.path, isDirectory: &isDirectory), isDirectory.boolValue {
                directoryList.append(source.path)
            } else {
                problem = .trustFileUnusable(path: source.path, origin: source.origin, reason: "it is not a directory")
            }
        }
        self.problem = problem
        bundle = trust.files.isEmpty ? nil : pem
        directories = trust.directories.isEmpty ? nil : directoryList.joined(separator: ":")
    }

    private struct Reason: Error {
        let text: String
    }

    private static func readCertificates(_ path: String) -> Result<Data, Reason> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Reason(text: "there is no such file"))
        }
        guard !isDirectory.boolValue else { return .failure(Reason(text: "it is a directory, not a file")) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(Reason(text: "it cannot be read"))
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maximumFileBytes + 1)) ?? Data()
        guard data.count <= maximumFileBytes else {
            return .failure(Reason(text: "it is larger than \(maximumFileBytes / 1_048_576) MiB"))
        }
        guard data.range(of: Data("-----BEGIN CERTIFICATE-----".utf8)) != nil else {
            return .failure(Reason(text: "it holds no PEM certificate (-----BEGIN CERTIFICATE-----)"))
        }
        return .success(data)
    }
}
