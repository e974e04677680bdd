import Foundation
import JQCKit
import JQCPhotos
import Testing

@Suite("Photo display URLs")
struct PhotoURLResolverTests {
    let config = ServerConfig(store: InMemorySelectionStore("https://jqc1.ltservicesinc.com"))

    @Test("the server's absolute URL wins over the path (rule 67)")
    func absoluteFirst() {
        let url = PhotoURLResolver.displayURL(
            serverURL: "https://r2.example.com/b/x.jpg?sig=1",
            path: "uploads/issue_photos/x.jpg", config: config)
        #expect(url?.absoluteString == "https://r2.example.com/b/x.jpg?sig=1")
    }

    @Test("without one, the URL is current + /static/ + path (rule 39)")
    func staticFallback() {
        #expect(
            PhotoURLResolver.displayURL(serverURL: nil, path: "uploads/issue_photos/ab.jpg", config: config)?
                .absoluteString == "https://jqc1.ltservicesinc.com/static/uploads/issue_photos/ab.jpg")
        #expect(
            PhotoURLResolver.displayURL(serverURL: "", path: "uploads/a b.jpg", config: config)?
                .absoluteString == "https://jqc1.ltservicesinc.com/static/uploads/a%20b.jpg")
        #expect(
            PhotoURLResolver.displayURL(serverURL: "not a url", path: "uploads/x.jpg", config: config)?
                .absoluteString == "https://jqc1.ltservicesinc.com/static/uploads/x.jpg")
        #expect(
            PhotoURLResolver.displayURL(
                serverURL: nil, path: "http://127.0.0.1:5055/static/uploads/x.jpg",
                config: config)?.absoluteString
                == "http://127.0.0.1:5055/static/uploads/x.jpg")
    }

    @Test("the current server is read at call time")
    func followsSelection() throws {
        let store = InMemorySelectionStore("https://jqc1.ltservicesinc.com")
        let config = ServerConfig(store: store)
        try config.select(.primary)
        #expect(
            PhotoURLResolver.displayURL(serverURL: nil, path: "uploads/x.jpg", config: config)?.absoluteString
                == "https://jqc.ltservicesinc.com/static/uploads/x.jpg")
    }

    @Test(
        "traversal, absolute paths, sentinels and schemes never become a URL",
        arguments: [
            "../etc/passwd", "uploads/../../secret", "/etc/passwd", "uploads/%2e%2e/x.jpg", "./x.jpg",
            "uploads//x.jpg", "uploads\\x.jpg", "local://photos/A.jpg", "file:///etc/passwd", "",
            "uploads/x.jpg/", "uploads/%2F..%2Fx",
        ])
    func refusesUnsafePaths(path: String) {
        #expect(PhotoURLResolver.displayURL(serverURL: nil, path: path, config: config) == nil)
        #expect(PhotoURLResolver.isSafeRelativePath(path) == false)
    }

    @Test("a record shows local photos until synced, then server photos only (rule 34)")
    func displayGate() {
        #expect(PhotoDisplaySection.forRecord(syncStatus: .pending) == .local)
        #expect(PhotoDisplaySection.forRecord(syncStatus: .failed) == .local)
        #expect(PhotoDisplaySection.forRecord(syncStatus: .synced) == .server)
    }

    @Test("the local:// sentinel round-trips and other values are not ours")
    func sentinel() throws {
        let id = try #require(UUID(uuidString: "6F1C1B5E-2B1A-4E0B-9E53-0D2C4A1B7C11"))
        #expect(PhotoSentinel.make(id) == "local://photos/6F1C1B5E-2B1A-4E0B-9E53-0D2C4A1B7C11.jpg")
        #expect(PhotoSentinel.photoID(PhotoSentinel.make(id)) == id)
        #expect(PhotoSentinel.photoID("local://photos/nope.jpg") == nil)
        #expect(PhotoSentinel.photoID("uploads/inspection_photos/a.jpg") == nil)
        #expect(PhotoSentinel.isLocal("local://anything"))
        #expect(!PhotoSentinel.isLocal("uploads/a.jpg"))
    }
}
