import AppStoreServerAPI
import SubscriberAnalytics
import SubscriptionModel

extension OfferCatalogue {
    /// The Apple offer a flag means for a product (or its subscription group), as campaigns count
    /// it (docs/metrics.md, "Campaigns"): `report campaigns` and the Offers pane's funnel read it here.
    func campaignOffer(_ flag: OfferFlagKind, _ productId: String, _ group: String?) -> CampaignReport.Offer? {
        guard let offer = offer(for: flag, productId: productId, group: group) else { return nil }
        let kind: OfferKind =
            switch offer.kind {
            case .promotional: .promotional
            case .winBack: .winBack
            case .offerCode: .offerCode
            }
        return CampaignReport.Offer(kind: kind, identifier: offer.identifier)
    }
}
