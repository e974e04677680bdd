import CCrypto
import Foundation
import JQCKit

/// HMAC-SHA256, PBKDF2 and random bytes through libcrypto, and HS256 JWTs built on them.
enum ServerCrypto {
    /// `count` random bytes from libcrypto's generator.
    static func randomBytes(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        }
        return Data(bytes)
    }

    /// Lower-case hex of `data`.
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(data.count * 2)
        for byte in data {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    static func hmacSHA256(key: Data, message: Data) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        key.withUnsafeBytes { keyBytes in
            message.withUnsafeBytes { messageBytes in
                _ = HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count,
                    &output, &length)
            }
        }
        return Data(output.prefix(Int(length)))
    }

    /// SHA-256 of `parts` one after the other (32 bytes), without joining them first.
    static func sha256(_ parts: [Data]) -> Data {
        var output = [UInt8](repeating: 0, count: 32)
        guard let context = EVP_MD_CTX_new() else { return Data(output) }
        defer { EVP_MD_CTX_free(context) }
        var length: UInt32 = 0
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return Data(output) }
        for part in parts {
            _ = part.withUnsafeBytes { bytes in EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) }
        }
        _ = EVP_DigestFinal_ex(context, &output, &length)
        return Data(output.prefix(Int(length)))
    }

    /// SHA-256 of `data` (32 bytes).
    static func sha256(_ data: Data) -> Data { sha256([data]) }

    /// PBKDF2-HMAC-SHA256 of `password` with `salt` (`iterations` rounds, 32 bytes out), as hex.
    static func passwordHash(_ password: String, salt: Data, iterations: Int = 2_000) -> String {
        var output = [UInt8](repeating: 0, count: 32)
        let passwordBytes = Array(password.utf8)
        salt.withUnsafeBytes { saltBytes in
            passwordBytes.withUnsafeBufferPointer { passwordPointer in
                passwordPointer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: max(1, passwordBytes.count)) {
                    _ = PKCS5_PBKDF2_HMAC(
                        $0, Int32(passwordBytes.count),
                        saltBytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        Int32(saltBytes.count), Int32(iterations), EVP_sha256(), 32, &output)
                }
            }
        }
        return hex(Data(output))
    }

    /// Compares two strings in time independent of where they differ.
    static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8), right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func base64URLDecode(_ text: String) -> Data? {
        var base = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base.count % 4 != 0 { base += "=" }
        return Data(base64Encoded: base)
    }

    /// An HS256 JWT over `claims`.
    static func signJWT(claims: JSONValue, secret: Data) -> String {
        let header = base64URL(JSONValue.object(["alg": "HS256", "typ": "JWT"]).jsonData())
        let payload = base64URL(claims.jsonData())
        let signature = base64URL(hmacSHA256(key: secret, message: Data("\(header).\(payload)".utf8)))
        return "\(header).\(payload).\(signature)"
    }

    /// The claims of an HS256 JWT whose signature verifies under `secret`, or `nil`.
    static func verifyJWT(_ token: String, secret: Data) -> [String: JSONValue]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return nil }
        let expected = base64URL(hmacSHA256(key: secret, message: Data("\(parts[0]).\(parts[1])".utf8)))
        guard constantTimeEqual(expected, parts[2]),
            let headerData = base64URLDecode(parts[0]),
            let header = try? JSONValue.parse(headerData), header["alg"]?.stringValue == "HS256",
            let payloadData = base64URLDecode(parts[1]),
            let claims = try? JSONValue.parse(payloadData).objectValue
        else { return nil }
        return claims
    }
}
