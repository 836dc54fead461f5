import Foundation

/// A JSON value read from a `JSONTape`. Scalars are materialised when asked for; objects and
/// arrays stay views onto the tape, so reading a few fields of a large document costs little.
enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)

    var object: JSONObject? { if case .object(let o) = self { return o } else { return nil } }
    var array: JSONArray? { if case .array(let a) = self { return a } else { return nil } }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }

    /// How a value is named in a rejection: `true`, `12`, `"abc"`, `an object`.
    var foundDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s):
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "\"" + shown + "\""
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// The kind of a value in a sentence: `an object`, `an array`, `a string`.
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .integer, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object on a tape. Lookups compare the key's bytes against each member name in
/// document order, which beats hashing for the dozen-key objects Apple sends.
struct JSONObject: Sendable {
    let tape: JSONTape
    let index: Int

    subscript(key: String) -> JSONValue? {
        var key = key
        let found = key.withUTF8 { tape.member(of: index, named: $0) }
        return found.map { tape.value(at: $0) }
    }

    /// Looks `key` up from the member after the one `cursor` found last, and moves `cursor`.
    func value(_ key: String, cursor: JSONCursor) -> JSONValue? {
        valueIndex(key, cursor: cursor).map { tape.value(at: $0) }
    }

    /// The tape index of member `key`'s value (see `value(_:cursor:)`).
    func valueIndex(_ key: String, cursor: JSONCursor) -> Int? {
        var key = key
        guard let found = key.withUTF8({ tape.member(of: index, named: $0, from: cursor.next) }) else { return nil }
        cursor.next = Int(tape.tokens[found].next)
        return found
    }

    var count: Int { Int(tape.tokens[index].payload) }
    var isEmpty: Bool { count == 0 }

    var keys: [String] {
        var keys: [String] = []
        var i = index + 1
        let end = Int(tape.tokens[index].next)
        while i < end {
            keys.append(tape.string(at: i))
            i = Int(tape.tokens[i + 1].next)
        }
        return keys
    }
}

/// Where the next member lookup in one object starts (see `JSONTape.member`).
final class JSONCursor {
    @exclusivity(unchecked) var next: Int?
    init() {}
}

/// A JSON array on a tape.
struct JSONArray: Sequence, Sendable {
    let tape: JSONTape
    let index: Int

    var count: Int { Int(tape.tokens[index].payload) }
    var isEmpty: Bool { count == 0 }

    struct Iterator: IteratorProtocol {
        let tape: JSONTape
        var position: Int
        let end: Int

        mutating func next() -> JSONValue? {
            guard position < end else { return nil }
            defer { position = Int(tape.tokens[position].next) }
            return tape.value(at: position)
        }
    }

    func makeIterator() -> Iterator {
        Iterator(tape: tape, position: index + 1, end: Int(tape.tokens[index].next))
    }

    var underestimatedCount: Int { count }
}

/// A parsed document: its bytes and one token per value (and per member name), in document
/// order. A container's token says where the value after it starts, so members are skipped
/// without being looked at.
final class JSONTape: Sendable {
    enum Kind: UInt8, Sendable {
        case null, `true`, `false`, integer, double, string, escapedString, array, object
    }

    struct Token: Sendable {
        var kind: Kind
        /// Byte range of a scalar (a string's without its quotes).
        var start: UInt32
        var end: UInt32
        /// Index of the token after this value (and everything inside it).
        var next: UInt32
        /// An integer's value; a container's element or member count.
        var payload: Int64
        /// An object's member names, one bit each (`JSONTape.keyBit`): a name whose bit is
        /// clear is not there, without comparing a byte.
        var keyBits: UInt64 = 0
    }

    /// The bit of a member name in `Token.keyBits`, from its length and first and last bytes.
    @inline(__always)
    static func keyBit(count: Int, first: UInt8, last: UInt8) -> UInt64 {
        1 << UInt64((count &* 7 &+ Int(first) &* 3 &+ Int(last)) & 63)
    }

    let bytes: [UInt8]
    let tokens: [Token]

    init(bytes: [UInt8], tokens: [Token]) {
        self.bytes = bytes
        self.tokens = tokens
    }

    var root: JSONValue { value(at: 0) }

    func value(at i: Int) -> JSONValue {
        let token = tokens[i]
        switch token.kind {
        case .null: return .null
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .integer: return .integer(token.payload)
        case .double:
            let text = String(decoding: bytes[Int(token.start)..<Int(token.end)], as: UTF8.self)
            return .double(Double(text) ?? .nan)
        case .string, .escapedString: return .string(string(at: i))
        case .array: return .array(JSONArray(tape: self, index: i))
        case .object: return .object(JSONObject(tape: self, index: i))
        }
    }

    func string(at i: Int) -> String {
        let token = tokens[i]
        let range = Int(token.start)..<Int(token.end)
        if token.kind == .string {
            return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
        }
        return Self.unescape(bytes[range])
    }

    /// The index of the value of member `name` of the object at `object`. The search starts at
    /// the member name token `from` (when given) and wraps around, so reading members in
    /// document order finds each one at the first comparison.
    func member(of object: Int, named name: UnsafeBufferPointer<UInt8>, from: Int? = nil) -> Int? {
        if let first = name.first, let last = name.last,
            tokens[object].keyBits & Self.keyBit(count: name.count, first: first, last: last) == 0
        {
            return nil
        }
        let begin = object + 1
        let end = Int(tokens[object].next)
        let start = from.map { $0 < end ? $0 : begin } ?? begin
        return bytes.withUnsafeBufferPointer { all -> Int? in
            func scan(_ from: Int, _ to: Int) -> Int? {
                var i = from
                while i < to {
                    let key = tokens[i]
                    let length = Int(key.end &- key.start)
                    if key.kind == .string {
                        if length == name.count,
                            length == 0
                                || (all[Int(key.start)] == name[0]
                                    && memcmp(all.baseAddress! + Int(key.start), name.baseAddress!, length) == 0)
                        {
                            return i + 1
                        }
                    } else if Self.unescape(all[Int(key.start)..<Int(key.end)]).utf8.elementsEqual(name) {
                        return i + 1
                    }
                    i = Int(tokens[i + 1].next)
                }
                return nil
            }
            return scan(start, end) ?? (start > begin ? scan(begin, start) : nil)
        }
    }

    /// The raw bytes of the unescaped string at `i`, or nil for any other token.
    @inline(__always)
    func withPlainString<R>(at i: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        let token = tokens[i]
        guard token.kind == .string else { return nil }
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(token.start)..<Int(token.end)])) }
    }

    /// Decodes the escapes of a string the parser already validated.
    static func unescape<C: Collection>(_ raw: C) -> String where C.Element == UInt8, C.Index == Int {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(raw.count)
        var i = raw.startIndex
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for j in at..<(at + 4) {
                let b = raw[j]
                let digit: UInt8 = b <= UInt8(ascii: "9") ? b - UInt8(ascii: "0") : (b | 0x20) - UInt8(ascii: "a") + 10
                value = value << 4 | UInt32(digit)
            }
            return value
        }
        while i < raw.endIndex {
            let byte = raw[i]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                i += 1
                continue
            }
            let escape = raw[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(i)
                i += 4
                if (0xD800..<0xDC00).contains(scalar), i + 5 < raw.endIndex,
                    raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(i + 2)
                    if (0xDC00..<0xE000).contains(low) {
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                utf8.append(contentsOf: String(Character(character)).utf8)
            default: utf8.append(escape)
            }
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
