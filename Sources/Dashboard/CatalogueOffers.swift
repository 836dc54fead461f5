import SubscriberAnalytics
import SubscriptionModel

/// What the offer catalogue (README, "Offers that reach the customer") says a flag will mean for
/// the subscriptions in the flag dialog: one line per product, the lines `subdash flag` prints
/// ("retention on com.example.monthly means promotional:save-30 (1 subscription)"). The process
/// that opens the dashboard sets it; the dialog asks it when it opens and when `o` picks another
/// offer.
public struct CatalogueOffers: Equatable, Sendable {
    /// Where the catalogue comes from (its configuration file): two lookups are the same when it is.
    public var source: String
    public var lines: @Sendable (OfferFlagKind, [String]) -> [String]
    /// The catalogue read once for the campaigns list: the Apple offer a flag means for a product
    /// (and subscription group), as `subdash report campaigns` reads it; nil without a catalogue.
    public var campaignOffer: (@Sendable () -> @Sendable (OfferFlagKind, String, String?) -> CampaignReport.Offer?)?

    public init(
        source: String, lines: @escaping @Sendable (OfferFlagKind, [String]) -> [String],
        campaignOffer: (@Sendable () -> @Sendable (OfferFlagKind, String, String?) -> CampaignReport.Offer?)? = nil
    ) {
        self.source = source
        self.lines = lines
        self.campaignOffer = campaignOffer
    }

    public static func == (a: CatalogueOffers, b: CatalogueOffers) -> Bool { a.source == b.source }
}
