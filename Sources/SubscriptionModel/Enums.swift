/// The App Store environment a fact came from. v1 sends `PROD` at the top level and
/// `Production` inside `unified_receipt`; both decode to `.production`. A value Apple has not
/// documented is kept as it came (as Apple's own libraries do), and counted only with
/// `--environment all` (docs/metrics.md, "Which data, read when").
public struct StoreEnvironment: RawRepresentable, Sendable, Codable, Hashable {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let production = StoreEnvironment(rawValue: "Production")
    public static let sandbox = StoreEnvironment(rawValue: "Sandbox")
    public static let xcode = StoreEnvironment(rawValue: "Xcode")
    public static let localTesting = StoreEnvironment(rawValue: "LocalTesting")

    /// The environments Apple documents.
    public static let known: [StoreEnvironment] = [.production, .sandbox, .xcode, .localTesting]

    /// The value derived rows count an unknown environment under: one bucket whatever the raw
    /// value, so that `--environment all` lists it (the facts keep the raw value). Never a value
    /// a document's own environment is stored as.
    public static let unknown = StoreEnvironment(rawValue: "?")

    /// Whether Apple documents this environment.
    public var isKnown: Bool { Self.known.contains(self) }

    /// The environment derived rows count this one under: itself when known, else ``unknown``.
    public var counted: StoreEnvironment { isKnown ? self : .unknown }

    /// A wire value: the documented ones in any case (`PROD` too), anything else as it came.
    public init(wire: String) {
        switch wire.lowercased() {
        case "production", "prod": self = .production
        case "sandbox": self = .sandbox
        case "xcode": self = .xcode
        case "localtesting": self = .localTesting
        default: self.init(rawValue: wire)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The offer kind of a period, first match wins (docs/metrics.md, "Periods").
public enum OfferKind: String, Sendable, Codable, CaseIterable, Hashable {
    case standard, freeTrial, introductory, promotional, offerCode, winBack
}

/// Why a run ended (docs/metrics.md, "Auto-renew and expiration reasons").
public enum ExpirationReason: String, Sendable, Codable, CaseIterable, Hashable {
    case voluntary, billing, priceIncrease, productUnavailable, refund
    /// The last period of a family-shared subscription was revoked: the purchaser stopped
    /// sharing, the member left the family, or the purchaser was refunded.
    case sharingRevoked
    case other

    /// Apple's `expirationIntent` / v1 `expiration_intent` codes.
    public init?(expirationIntent code: Int) {
        switch code {
        case 1: self = .voluntary
        case 2: self = .billing
        case 3: self = .priceIncrease
        case 4: self = .productUnavailable
        case 5: self = .other
        default: return nil
        }
    }

    /// v2 `EXPIRED` subtypes.
    public init(expiredSubtype: String?) {
        switch expiredSubtype {
        case "VOLUNTARY": self = .voluntary
        case "BILLING_RETRY": self = .billing
        case "PRICE_INCREASE": self = .priceIncrease
        case "PRODUCT_NOT_FOR_SALE": self = .productUnavailable
        default: self = .other
        }
    }
}

/// Whose purchase a subscription is (Apple's `inAppOwnershipType`): the subscriber's own, or a
/// family member's access to someone else's purchase through Family Sharing.
public enum Ownership: String, Sendable, Codable, CaseIterable, Hashable {
    case purchased, familyShared
}

/// The wire format a document arrived in.
public enum PayloadFormat: String, Sendable, Codable, CaseIterable, Hashable {
    case v1Notification = "v1"
    case v2Notification = "v2"
    case verifyReceipt
    case statusResponse
    case transactionHistory
    case notificationHistory
    /// A Get Transaction Info response (`{"signedTransactionInfo": …}`) or a bare signed transaction.
    case transactionInfo
    /// A bare signed renewal info (`JWSRenewalInfoDecodedPayload`).
    case renewalInfo
    case customersCSV = "customers-csv"
}

/// Offers an operator can flag a subscriber for (docs/metrics.md, "Offer eligibility").
public enum OfferFlagKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// A win-back offer for a subscriber whose run ended lately; `winBack` in reports, flags and the store.
    case winBackOffer = "winBack"
    case retention, upgrade, loyalty, service
}
