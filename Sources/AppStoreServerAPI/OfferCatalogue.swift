import Foundation
import SubscriptionModel

/// Which Apple offer each flag kind means, per product: the `[offers.KIND]` sections of the
/// configuration file (README, "Offers that reach the customer"):
///
///     [offers.winBack]
///     "com.example.monthly" = "winBack:wb-monthly-50"
///     "group:21345678" = "promotional:come-back-30"
///     "*" = "offerCode:SPRING"
///
/// A key is a product id, `group:` and a subscription group id, or `*` (any product); the first
/// of these that the catalogue has wins. A value is the offer's kind (`promotional`, `winBack`
/// or `offerCode`), a colon, and its identifier (an offer code's reference name).
public struct OfferCatalogue: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable, Hashable {
        case promotional, winBack, offerCode

        /// The transaction's `offerType` that redeems such an offer.
        public var offerType: Int {
            switch self {
            case .promotional: 2
            case .winBack: 4
            case .offerCode: 3
            }
        }
    }

    public struct Offer: Sendable, Hashable {
        public var kind: Kind
        public var identifier: String
        public init(kind: Kind, identifier: String) {
            self.kind = kind
            self.identifier = identifier
        }
        public var text: String { "\(kind.rawValue):\(identifier)" }
    }

    public struct Entry: Sendable, Hashable {
        public var flag: OfferFlagKind
        /// A product id, `group:ID` or `*`.
        public var key: String
        public var offer: Offer
    }

    /// Sorted by flag kind, then key.
    public var entries: [Entry]

    public init(entries: [Entry] = []) {
        self.entries = entries.sorted { ($0.flag.rawValue, $0.key) < ($1.flag.rawValue, $1.key) }
    }

    public init(_ file: ConfigFile, path: String) throws(AppStoreAPIError) {
        var entries: [Entry] = []
        for (name, value) in file.values where name.hasPrefix("offers.") {
            let rest = name.dropFirst("offers.".count)
            guard let dot = rest.firstIndex(of: ".") else {
                throw AppStoreAPIError(
                    "\(path): [offers] takes one section per flag kind, [offers.winBack] and the like; \(rest) is outside one")
            }
            let kindName = String(rest[..<dot])
            let key = String(rest[rest.index(after: dot)...])
            guard let flag = OfferFlagKind.allCases.first(where: { $0.rawValue.lowercased() == kindName.lowercased() }) else {
                throw AppStoreAPIError(
                    "\(path): [offers.\(kindName)] is no flag kind (\(OfferFlagKind.allCases.map(\.rawValue).joined(separator: ", ")))"
                )
            }
            guard let colon = value.firstIndex(of: ":"),
                let kind = Kind.allCases.first(where: { $0.rawValue.lowercased() == value[..<colon].lowercased() })
            else {
                throw AppStoreAPIError(
                    "\(path): [offers.\(kindName)] \(key) = \"\(value)\": give the offer as promotional:ID, winBack:ID or offerCode:REFERENCE_NAME"
                )
            }
            let identifier = value[value.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !identifier.isEmpty, identifier.utf8.count <= 100,
                identifier.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control })
            else {
                throw AppStoreAPIError("\(path): [offers.\(kindName)] \(key): the offer identifier is empty or not printable")
            }
            entries.append(Entry(flag: flag, key: key, offer: Offer(kind: kind, identifier: identifier)))
        }
        self.init(entries: entries)
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// The offer `flag` means for a subscription of `productId` in `group`: the product's entry,
    /// else the group's, else `*`'s.
    public func offer(for flag: OfferFlagKind, productId: String, group: String?) -> Offer? {
        let mine = entries.filter { $0.flag == flag }
        if let e = mine.first(where: { $0.key == productId }) { return e.offer }
        if let group, let e = mine.first(where: { $0.key == "group:" + group }) { return e.offer }
        return mine.first(where: { $0.key == "*" })?.offer
    }
}
