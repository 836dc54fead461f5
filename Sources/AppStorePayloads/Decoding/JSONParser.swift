import Foundation

/// A strict RFC 8259 parser, one pass over the bytes, with messages that say where and what.
///
/// Hand-written because it is several times faster than `JSONSerialization` on Linux (no
/// bridging to `NSDictionary`) and because a truncated document deserves its own message.
struct JSONParser {
    static let maximumDepth = 512

    /// Parses exactly one JSON value (surrounding whitespace allowed).
    static func parse(_ data: Data) throws(PayloadError) -> JSONValue {
        let bytes = [UInt8](data)
        let result: Result<[JSONTape.Token], PayloadError> = bytes.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw)
            do throws(PayloadError) {
                try parser.parseDocument()
                return .success(parser.tokens)
            } catch {
                return .failure(error)
            }
        }
        return JSONTape(bytes: bytes, tokens: try result.get()).root
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var depth = 0
    private var tokens: [JSONTape.Token] = []

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        tokens.reserveCapacity(bytes.count / 12)
    }

    private mutating func parseDocument() throws(PayloadError) {
        skipWhitespace()
        guard position < bytes.count else { throw PayloadError("invalid JSON: the document is empty") }
        try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw invalid("unexpected \(shown(bytes[position])) after the end of the document")
        }
    }

    // MARK: - Values

    private mutating func append(_ kind: JSONTape.Kind, _ start: Int, _ end: Int, payload: Int64 = 0) {
        tokens.append(
            JSONTape.Token(
                kind: kind, start: UInt32(truncatingIfNeeded: start), end: UInt32(truncatingIfNeeded: end),
                next: UInt32(truncatingIfNeeded: tokens.count + 1), payload: payload))
    }

    private mutating func parseValue() throws(PayloadError) {
        guard position < bytes.count else { throw truncated("where a value should start") }
        switch bytes[position] {
        case UInt8(ascii: "{"): try parseObject()
        case UInt8(ascii: "["): try parseArray()
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            append(.true, position - 4, position)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            append(.false, position - 5, position)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            append(.null, position - 4, position)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        case let byte: throw invalid("expected a value, found \(shown(byte))")
        }
    }

    /// Closes the container whose token is at `index`.
    private mutating func close(_ index: Int, count: Int) {
        tokens[index].next = UInt32(truncatingIfNeeded: tokens.count)
        tokens[index].payload = Int64(count)
        tokens[index].end = UInt32(truncatingIfNeeded: position)
        depth -= 1
    }

    private mutating func parseObject() throws(PayloadError) {
        let opened = position
        try enter()
        let index = tokens.count
        append(.object, position, position)
        position += 1
        var count = 0
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            close(index, count: 0)
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw invalid("expected a member name in quotes, found \(shown(bytes[position]))")
            }
            try parseString()
            let key = tokens[tokens.count - 1]
            if key.kind == .escapedString {
                tokens[index].keyBits = ~0  // compared by value, never ruled out
            } else if key.end > key.start {
                tokens[index].keyBits |= JSONTape.keyBit(
                    count: Int(key.end - key.start), first: bytes[Int(key.start)],
                    last: bytes[Int(key.end) - 1])
            }
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            guard bytes[position] == UInt8(ascii: ":") else {
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(key.start)..<Int(key.end)]), as: UTF8.self)
                throw invalid("expected ':' after member name \"\(name)\", found \(shown(bytes[position]))")
            }
            position += 1
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                close(index, count: count)
                return
            case let byte: throw invalid("expected ',' or '}' in an object, found \(shown(byte))")
            }
        }
    }

    private mutating func parseArray() throws(PayloadError) {
        let opened = position
        try enter()
        let index = tokens.count
        append(.array, position, position)
        position += 1
        var count = 0
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            close(index, count: 0)
            return
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an array that opened at byte \(opened)") }
            try parseValue()
            count += 1
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an array that opened at byte \(opened)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                close(index, count: count)
                return
            case let byte: throw invalid("expected ',' or ']' in an array, found \(shown(byte))")
            }
        }
    }

    private mutating func enter() throws(PayloadError) {
        depth += 1
        if depth > Self.maximumDepth { throw invalid("nesting deeper than \(Self.maximumDepth) levels") }
    }

    /// Validates a string and records its byte range; escapes are decoded only if it is read.
    private mutating func parseString() throws(PayloadError) {
        let opened = position
        position += 1
        let start = position
        var escaped = false
        while position < bytes.count {
            // Eight bytes at a time while none is a quote, a backslash or a control character.
            while position + 8 <= bytes.count {
                let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
                let special = Self.specialBytes(word)
                if special != 0 {
                    // The lowest flagged byte is exact: go straight to it.
                    position += special.trailingZeroBitCount / 8
                    break
                }
                position += 8
            }
            guard position < bytes.count else { break }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                append(escaped ? .escapedString : .string, start, position)
                position += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                position += 1
                guard position < bytes.count else { break }
                switch bytes[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    position += 1
                case UInt8(ascii: "u"):
                    position += 1
                    _ = try parseHex4(opened: opened)
                case let escape:
                    position -= 1
                    throw invalid("unknown escape \\\(Character(Unicode.Scalar(escape))) inside a string")
                }
                continue
            }
            if byte < 0x20 { throw invalid("control character \(shown(byte)) inside a string") }
            position += 1
        }
        throw truncated("inside a string that opened at byte \(opened)")
    }

    /// The high bits of the bytes of a little-endian word that are `"`, `\\` or below 0x20
    /// (bytes above the first such byte may be flagged wrongly; the first is always right).
    @inline(__always)
    private static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let quote = hasZeroByte(word ^ (ones &* 0x22))
        let backslash = hasZeroByte(word ^ (ones &* 0x5C))
        let control = (word &- ones &* 0x20) & ~word & highs
        return quote | backslash | control
    }

    private mutating func parseHex4(opened: Int) throws(PayloadError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw truncated("inside a string that opened at byte \(opened)") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw invalid("expected a hex digit in a \\u escape, found \(shown(byte))")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }

    private mutating func parseNumber() throws(PayloadError) {
        let start = position
        var isInteger = true
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw truncated("inside a number") }
        let firstDigit = position
        guard isDigit(bytes[position]) else { throw invalid("expected a digit, found \(shown(bytes[position]))") }
        while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        if bytes[firstDigit] == UInt8(ascii: "0"), position - firstDigit > 1 {
            throw invalid("a number cannot start with 0", at: firstDigit)
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count else { throw truncated("inside a number") }
            guard isDigit(bytes[position]) else { throw invalid("expected a digit after '.', found \(shown(bytes[position]))") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count else { throw truncated("inside a number") }
            guard isDigit(bytes[position]) else { throw invalid("expected an exponent digit, found \(shown(bytes[position]))") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if isInteger, position - firstDigit <= 18 {
            var value: Int64 = 0
            for i in firstDigit..<position { value = value * 10 + Int64(bytes[i] - UInt8(ascii: "0")) }
            append(.integer, start, position, payload: bytes[start] == UInt8(ascii: "-") ? -value : value)
            return
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw invalid("number \(text) is out of range", at: start) }
        append(.double, start, position)
    }

    // MARK: - Helpers

    private mutating func expectLiteral(_ literal: StaticString) throws(PayloadError) {
        let start = position
        let count = literal.utf8CodeUnitCount
        for i in 0..<count {
            guard position < bytes.count else { throw truncated("inside the literal \(literal)") }
            guard bytes[position] == literal.utf8Start[i] else {
                throw invalid("expected \(literal), found \(shown(bytes[position]))", at: start)
            }
            position += 1
        }
    }

    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private func shown(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return String(format: "byte 0x%02X", byte)
    }

    private func invalid(_ what: String, at offset: Int? = nil) -> PayloadError {
        PayloadError("invalid JSON at byte \(offset ?? position): \(what)")
    }

    private func truncated(_ where: String) -> PayloadError {
        PayloadError("truncated JSON: the document ends \(`where`) (\(bytes.count) bytes read; is the file cut short?)")
    }
}
