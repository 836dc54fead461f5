import Foundation
import Testing

@testable import AppStoreServerAPI

/// What the client says and where it goes, without a server.
@Suite struct SupportClientTests {
    @Test func applesRecommendedHostsSince2026AreTheDefaults() {
        #expect(APIBase(environment: .production).url == "https://api.storekit.apple.com")
        #expect(APIBase(environment: .sandbox).url == "https://api.storekit-sandbox.apple.com")
    }

    @Test func applesErrorCodesAreSentencesAndTheCodeIsKept() {
        let body = #"{"errorCode":4030005,"errorMessage":"Subscription max extension."}"#
        #expect(
            AppStoreServerClient.appleError(Data(body.utf8))
                == ": this subscription was already extended twice in the last 365 days (errorCode 4030005)")
        #expect(AppleErrorCode.sentence(4_030_007) == "family-shared subscriptions cannot be extended")
        // An unknown code keeps Apple's message, made printable.
        let unknown = #"{"errorCode":4999999,"errorMessage":"New\u001b[31m thing"}"#
        #expect(
            AppStoreServerClient.appleError(Data(unknown.utf8))
                == ": New?[31m thing (errorCode 4999999)")
    }

    @Test func anExtensionBodyIsApplesShapeWithTheReasonCode() {
        let body = AppStoreServerClient.extendRequestBody(days: 7, reason: .serviceIssue, requestIdentifier: "r-1")
        #expect(String(decoding: body, as: UTF8.self) == #"{"extendByDays":7,"extendReasonCode":3,"requestIdentifier":"r-1"}"#)
        let mass = AppStoreServerClient.massExtendRequestBody(
            productId: "p", days: 1, reason: .customerSatisfaction, requestIdentifier: "r-2", storefronts: ["USA", "FRA"])
        #expect(
            String(decoding: mass, as: UTF8.self)
                == #"{"extendByDays":1,"extendReasonCode":1,"productId":"p","requestIdentifier":"r-2","storefrontCountryCodes":["USA","FRA"]}"#
        )
    }
}
