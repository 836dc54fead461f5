/// Finds where a JSON value ends without building it: enough to cut a JSON array into its
/// elements and to tell a one-line document from the first line of a pretty-printed one.
/// Full validation is left to `JSONParser` when the document is decoded.
enum JSONScanner {
    enum Outcome: Equatable {
        /// The value ends just before this offset.
        case complete(end: Int)
        /// The bytes end inside the value.
        case incomplete
        /// Not JSON at this offset.
        case invalid(at: Int)
    }

    static func scanValue(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Outcome {
        var i = start
        let n = bytes.count
        guard i < n else { return .incomplete }
        switch bytes[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var closers: [UInt8] = []
            while i < n {
                let byte = bytes[i]
                switch byte {
                case UInt8(ascii: "{"): closers.append(UInt8(ascii: "}"))
                case UInt8(ascii: "["): closers.append(UInt8(ascii: "]"))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    guard closers.last == byte else { return .invalid(at: i) }
                    closers.removeLast()
                    if closers.isEmpty { return .complete(end: i + 1) }
                case UInt8(ascii: "\""):
                    guard let end = stringEnd(bytes, from: i) else { return .incomplete }
                    i = end
                    continue
                default: break
                }
                i += 1
            }
            return .incomplete
        case UInt8(ascii: "\""):
            guard let end = stringEnd(bytes, from: i) else { return .incomplete }
            return .complete(end: end)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
            while i < n {
                switch bytes[i] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: return .complete(end: i)
                default: i += 1
                }
            }
            return .incomplete
        default:
            return .invalid(at: i)
        }
    }

    /// The offset just past the closing quote of the string that opens at `start`.
    private static func stringEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var i = start + 1
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\""): return i + 1
            case UInt8(ascii: "\\"): i += 2
            default: i += 1
            }
        }
        return nil
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
}
