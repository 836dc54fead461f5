import Foundation

/// Finds the top-level `signedDate` (milliseconds since 1970, possibly fractional) of a JWS payload,
/// the instant at which Apple's library validates the certificate chain.
///
/// A single pass over the JSON object's top-level members, skipping values without building them:
/// the verifier runs this on every document, and a full JSON parse would cost more than the ES256
/// verification itself. Nested objects are skipped whole, so a `signedDate` inside one is not taken.
enum SignedDateScanner {
    /// The payload's `signedDate`, or nil when it has none.
    static func signedDate(in payload: Data) throws(PayloadError) -> Date? {
        let result = payload.withUnsafeBytes { bytes in
            var scanner = Scanner(bytes: bytes)
            return scanner.scanTopLevel()
        }
        switch result {
        case .found(let milliseconds):
            return Date(timeIntervalSince1970: milliseconds / 1000)
        case .absent:
            return nil
        case .notANumber:
            throw PayloadError("JWS payload signedDate is not a number of milliseconds since 1970")
        case .escapedKey:
            return try signedDateByFullParse(payload)
        case .malformed:
            throw JWS.malformed("payload is not a JSON object")
        }
    }

    /// The slow path for payloads whose keys use `\` escapes, which the scanner does not decode.
    private static func signedDateByFullParse(_ payload: Data) throws(PayloadError) -> Date? {
        guard let object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else {
            throw JWS.malformed("payload is not a JSON object")
        }
        guard let value = object["signedDate"] else { return nil }
        guard let number = value as? NSNumber, !(value is Bool), number.doubleValue.isFinite else {
            throw PayloadError("JWS payload signedDate is not a number of milliseconds since 1970")
        }
        return Date(timeIntervalSince1970: number.doubleValue / 1000)
    }

    enum Result {
        case found(Double)
        case absent
        case notANumber
        case escapedKey
        case malformed
    }

    private struct Scanner {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        private static let key: [UInt8] = Array("signedDate".utf8)

        mutating func scanTopLevel() -> Result {
            var result = Result.absent
            skipWhitespace()
            guard consume(UInt8(ascii: "{")) else { return .malformed }
            skipWhitespace()
            if consume(UInt8(ascii: "}")) { return finish(result) }
            while true {
                skipWhitespace()
                guard peek() == UInt8(ascii: "\"") else { return .malformed }
                guard let (keyRange, escaped) = scanString() else { return .malformed }
                if escaped { return .escapedKey }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return .malformed }
                skipWhitespace()
                if isSignedDateKey(keyRange) {
                    if let number = scanNumber() {
                        result = .found(number)
                    } else {
                        guard skipValue() else { return .malformed }
                        result = .notANumber
                    }
                } else {
                    guard skipValue() else { return .malformed }
                }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                guard consume(UInt8(ascii: "}")) else { return .malformed }
                return finish(result)
            }
        }

        private mutating func finish(_ result: Result) -> Result {
            skipWhitespace()
            return index == bytes.count ? result : .malformed
        }

        private func isSignedDateKey(_ range: Range<Int>) -> Bool {
            guard range.count == Scanner.key.count else { return false }
            for (offset, byte) in Scanner.key.enumerated() where bytes[range.lowerBound + offset] != byte {
                return false
            }
            return true
        }

        private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        private mutating func consume(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// Scans a string starting at its opening quote; returns the range of its raw contents.
        private mutating func scanString() -> (Range<Int>, escaped: Bool)? {
            index += 1
            let start = index
            var escaped = false
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    defer { index += 1 }
                    return (start..<index, escaped)
                case UInt8(ascii: "\\"):
                    escaped = true
                    index += 2
                default:
                    index += 1
                }
            }
            return nil
        }

        /// A JSON number at `index`, or nil (index unchanged) when the value is not a number.
        private mutating func scanNumber() -> Double? {
            let start = index
            var end = index
            while end < bytes.count, Scanner.isNumberByte(bytes[end]) { end += 1 }
            guard end > start,
                bytes[start] == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[start]),
                let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)),
                value.isFinite
            else { return nil }
            index = end
            return value
        }

        private static func isNumberByte(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                return true
            default:
                return false
            }
        }

        /// Skips one value of any kind; false when the JSON is cut short or unbalanced.
        private mutating func skipValue() -> Bool {
            guard let first = peek() else { return false }
            switch first {
            case UInt8(ascii: "\""):
                return scanString() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = peek() {
                    switch byte {
                    case UInt8(ascii: "\""):
                        guard scanString() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["):
                        depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            index += 1
                            return true
                        }
                    default:
                        break
                    }
                    index += 1
                }
                return false
            default:
                // A number or a literal (true, false, null): runs to the next delimiter.
                let start = index
                while let byte = peek(), byte != UInt8(ascii: ","), byte != UInt8(ascii: "}"),
                    byte != UInt8(ascii: "]"), byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09
                {
                    index += 1
                }
                return index > start
            }
        }
    }
}
