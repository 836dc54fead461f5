/// Event types (docs/metrics.md, "Events"), in the order reports list them.
public enum EventType: String, Sendable, Codable, CaseIterable, Hashable {
    case activation, reactivation, renewal, conversion, billingRecovery, productChange
    case billingIssue, autoRenewOff, autoRenewOn, refund, expiration

    /// The event at the start of a period of this class.
    public init(_ c: PeriodClass) {
        switch c {
        case .activation: self = .activation
        case .reactivation: self = .reactivation
        case .renewal: self = .renewal
        case .conversion: self = .conversion
        case .billingRecovery: self = .billingRecovery
        case .productChange: self = .productChange
        }
    }

    /// Position in `allCases`; orders events that share an instant.
    var rank: Int {
        switch self {
        case .activation: 0
        case .reactivation: 1
        case .renewal: 2
        case .conversion: 3
        case .billingRecovery: 4
        case .productChange: 5
        case .billingIssue: 6
        case .autoRenewOff: 7
        case .autoRenewOn: 8
        case .refund: 9
        case .expiration: 10
        }
    }
}
