import Foundation
import Testing

@testable import JQCKit

@Suite("ContentDigest: XXH64 × 2 over exact bytes (issue 17)")
struct ContentDigestTests {
    func xxh64(_ text: String, seed: UInt64 = 0) -> UInt64 {
        Data(text.utf8).withUnsafeBytes { ContentDigest.xxh64($0, seed: seed) }
    }

    @Test("XXH64 gives the reference values (short input, the 4- and 1-byte tails, the 32-byte stripes)")
    func referenceValues() {
        #expect(xxh64("") == 0xEF46_DB37_51D8_E999)
        #expect(xxh64("a") == 0xD24E_C4F1_A98C_6E5B)
        #expect(xxh64("abc") == 0x44BC_2CF5_AD77_0999)
        #expect(xxh64("Nobody inspects the spammish repetition") == 0xFBCE_A83C_8A37_8BF1)
    }

    @Test("the hex digest is 32 digits, the same for the same bytes and different for any changed byte")
    func digest() {
        let body = Data(String(repeating: "{\"id\":12,\"name\":\"Main\"},", count: 1_000).utf8)
        let digest = ContentDigest.hex(body)
        #expect(digest.count == 32 && digest.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(ContentDigest.hex(Data(body)) == digest)
        var seen = Set([digest])
        for index in [0, 7, 31, 32, body.count / 2, body.count - 1] {
            var changed = body
            changed[index] ^= 1
            seen.insert(ContentDigest.hex(changed))
        }
        seen.insert(ContentDigest.hex(body.dropLast()))
        #expect(seen.count == 8)
        #expect(ContentDigest.hex(Data()).hasPrefix("ef46db3751d8e999"))
    }
}
