import Foundation

/// A strict RFC 8259 parser, one pass over the bytes, with messages that say where and what.
///
/// Hand-written because it is several times faster than `JSONSerialization` on Linux (no
/// bridging to `NSDictionary`) and because a truncated document deserves its own message.
struct JSONParser {
    static let maximumDepth = 512

    /// Parses exactly one JSON value (surrounding whitespace allowed).
    static func parse(_ data: Data) throws(PayloadError) -> JSONValue {
        let result: Result<JSONValue, PayloadError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw)
            do throws(PayloadError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0
    private var depth = 0

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private mutating func parseDocument() throws(PayloadError) -> JSONValue {
        skipWhitespace()
        guard position < bytes.count else { throw PayloadError("invalid JSON: the document is empty") }
        let value = try parseValue()
        skipWhitespace()
        if position < bytes.count {
            throw invalid("unexpected \(shown(bytes[position])) after the end of the document")
        }
        return value
    }

    // MARK: - Values

    private mutating func parseValue() throws(PayloadError) -> JSONValue {
        guard position < bytes.count else { throw truncated("where a value should start") }
        switch bytes[position] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case let byte: throw invalid("expected a value, found \(shown(byte))")
        }
    }

    private mutating func parseObject() throws(PayloadError) -> JSONValue {
        let opened = position
        try enter()
        position += 1
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return .object(JSONObject(members: members))
        }
        members.reserveCapacity(16)
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            guard bytes[position] == UInt8(ascii: "\"") else {
                throw invalid("expected a member name in quotes, found \(shown(bytes[position]))")
            }
            let key = try parseString()
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            guard bytes[position] == UInt8(ascii: ":") else {
                throw invalid("expected ':' after member name \"\(key)\", found \(shown(bytes[position]))")
            }
            position += 1
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            members.append((key, try parseValue()))
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an object that opened at byte \(opened)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                depth -= 1
                return .object(JSONObject(members: members))
            case let byte: throw invalid("expected ',' or '}' in an object, found \(shown(byte))")
            }
        }
    }

    private mutating func parseArray() throws(PayloadError) -> JSONValue {
        let opened = position
        try enter()
        position += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an array that opened at byte \(opened)") }
            elements.append(try parseValue())
            skipWhitespace()
            guard position < bytes.count else { throw truncated("inside an array that opened at byte \(opened)") }
            switch bytes[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                depth -= 1
                return .array(elements)
            case let byte: throw invalid("expected ',' or ']' in an array, found \(shown(byte))")
            }
        }
    }

    private mutating func enter() throws(PayloadError) {
        depth += 1
        if depth > Self.maximumDepth { throw invalid("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseString() throws(PayloadError) -> String {
        let opened = position
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw invalid("control character \(shown(byte)) inside a string") }
            position += 1
        }
        guard position < bytes.count else { throw truncated("inside a string that opened at byte \(opened)") }
        var utf8 = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { break }
                let escape = bytes[position]
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4(opened: opened)
                    if (0xD800..<0xDC00).contains(scalar), position + 1 < bytes.count,
                       bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") {
                        position += 2
                        let low = try parseHex4(opened: opened)
                        if (0xDC00..<0xE000).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            scalar = 0xFFFD
                        }
                    }
                    let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
                    utf8.append(contentsOf: Array(String(Character(character)).utf8))
                default:
                    position -= 1
                    throw invalid("unknown escape \\\(Character(Unicode.Scalar(escape))) inside a string")
                }
            default:
                if byte < 0x20 { throw invalid("control character \(shown(byte)) inside a string") }
                utf8.append(byte)
                position += 1
            }
        }
        throw truncated("inside a string that opened at byte \(opened)")
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

    private mutating func parseNumber() throws(PayloadError) -> JSONValue {
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
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard position < bytes.count else { throw truncated("inside a number") }
            guard isDigit(bytes[position]) else { throw invalid("expected an exponent digit, found \(shown(bytes[position]))") }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if isInteger, position - firstDigit <= 18 {
            var value: Int64 = 0
            for i in firstDigit..<position { value = value * 10 + Int64(bytes[i] - UInt8(ascii: "0")) }
            return .integer(bytes[start] == UInt8(ascii: "-") ? -value : value)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text) else { throw invalid("number \(text) is out of range", at: start) }
        return .double(value)
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
