/// Apple's App Store Server API error codes (`errorCode` in an error body) as sentences a support
/// agent can act on; the code is kept beside the sentence for reference. Codes and meanings from
/// Apple's documentation of each error (developer.apple.com/documentation/appstoreserverapi).
public enum AppleErrorCode {
    /// The sentence for `code`, or nil for a code subdash does not know (Apple's own message is shown then).
    public static func sentence(_ code: Int) -> String? { sentences[code] }

    static let sentences: [Int: String] = [
        4_000_000: "Apple found the request invalid",
        4_000_002: "Apple does not know this app (check the bundle id)",
        4_000_005: "the revision (page token) is not valid",
        4_000_006: "this is not a valid transaction id",
        4_000_008: "this is not a valid original transaction id",
        4_000_009: "the number of days is not valid (1 to 90)",
        4_000_010: "the extension's reason code is not valid",
        4_000_011: "the request identifier is not valid",
        4_000_023: "the product id is not valid",
        4_000_027: "the list of storefront country codes is empty",
        4_000_028: "a storefront country code is not valid",
        4_000_033: "the app account token is not valid",
        4_000_035: "the customer's consent is required: Apple takes consumption information only with it",
        4_000_036: "the delivery status is not valid",
        4_000_041: "the sample-content value is not valid",
        4_000_047: "this kind of in-app purchase is not supported by this request",
        4_000_183: "the app account token must be a UUID",
        4_000_185: "a Family Sharing transaction cannot be given an app account token",
        4_000_187: "this request needs the original transaction id, not a later transaction's",
        4_030_004: "this subscription cannot be extended in its current state "
            + "(free offer period, billing retry, grace period past its expiry, or expired)",
        4_030_005: "this subscription was already extended twice in the last 365 days",
        4_030_007: "family-shared subscriptions cannot be extended",
        4_040_001: "Apple found no App Store account for this",
        4_040_002: "Apple found no App Store account for this yet; try again later",
        4_040_003: "Apple does not know this app",
        4_040_004: "Apple does not know this app yet; try again later",
        4_040_005: "Apple found no subscription with this original transaction id",
        4_040_006: "Apple found no subscription with this original transaction id yet; try again later",
        4_040_007: "no App Store Server Notifications URL is set for this app in this environment",
        4_040_008: "the test notification's token expired, or its status is not available",
        4_040_009: "Apple has no mass extension with this request id for this product",
        4_040_010: "Apple found no transaction with this id",
        4_290_000: "the App Store Server API's rate limit was reached",
        5_000_000: "Apple's server failed",
        5_000_001: "Apple's server failed; try again",
    ]
}
