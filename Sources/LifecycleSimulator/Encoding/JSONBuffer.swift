/// A minimal JSON writer into bytes, keys in the order written. The simulator writes millions
/// of documents; building them by hand keeps the output byte-stable and fast.
struct JSONBuffer {
    var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int = 1024) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }
    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }
    mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }
    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func beginObject(_ name: StaticString) {
        key(name)
        beginObject()
    }
    mutating func beginArray(_ name: StaticString) {
        key(name)
        beginArray()
    }

    mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 { appendEscaped(byte) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A string whose bytes are known to need no escaping (base64, digits, dates).
    mutating func rawString<C: Collection>(_ value: C) where C.Element == UInt8 {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func int(_ value: Int64) {
        separate()
        appendDecimal(value)
        needsComma = true
    }
    mutating func int(_ value: Int) { int(Int64(value)) }
    mutating func bool(_ value: Bool) {
        separate()
        appendLiteral(value ? "true" : "false")
        needsComma = true
    }

    /// An integer as a JSON string (v1 sends every number that way).
    mutating func decimalString(_ value: Int64) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        appendDecimal(value)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }
    mutating func decimalString(_ value: UInt64) { decimalString(Int64(value)) }

    mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }
    mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        int(value)
    }
    mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }
    mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    private mutating func separate() { if needsComma { bytes.append(UInt8(ascii: ",")) } }

    private mutating func appendLiteral(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""):
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(byte)
        case UInt8(ascii: "\\"):
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(byte)
        case 0x0A:
            bytes.append(UInt8(ascii: "\\"))
            bytes.append(UInt8(ascii: "n"))
        case 0..<0x20:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: Array("\\u00".utf8))
            bytes.append(hex[Int(byte >> 4)])
            bytes.append(hex[Int(byte & 15)])
        default: bytes.append(byte)
        }
    }
}
