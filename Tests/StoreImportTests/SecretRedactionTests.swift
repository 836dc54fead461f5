import Foundation
import StoreImport
import Testing

@Suite struct SecretRedactionTests {
    func redacted(_ text: String) -> String {
        String(decoding: SecretRedaction.redacted(Data(text.utf8)), as: UTF8.self)
    }

    @Test func everyPasswordValueBecomesStarsOfTheSameLength() {
        #expect(
            redacted(#"{"a":1,"password":"s3cr\"t","b":{"password" : "xy"}}"#)
                == #"{"a":1,"password":"*******","b":{"password" : "**"}}"#, "the value's seven bytes, its escaped quote included"
        )
    }

    @Test func aDocumentWithoutAStringPasswordIsKeptAsItIs() {
        for text in [#"{"a":"password"}"#, #"{"password":12,"x":"y"}"#, #"{"passwords":"x"}"#, "", #""password""#] {
            #expect(redacted(text) == text)
        }
    }

    @Test func aValueCutOffByTheEndOfTheDocumentIsStarredToTheEnd() {
        #expect(redacted(#"{"password":"abc"#) == #"{"password":"***"#)
    }

    @Test func aSliceOfALargerBufferIsRedactedInItsOwnBytes() {
        let whole = Data(#"xx{"password":"ab"}yy"#.utf8)
        let slice = whole[whole.startIndex + 2..<whole.endIndex - 2]
        #expect(String(decoding: SecretRedaction.redacted(slice), as: UTF8.self) == #"{"password":"**"}"#)
    }
}
