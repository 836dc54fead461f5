/// The class of a period (docs/metrics.md, "Classes of periods and runs"). The first period of a
/// subscription is its `activation`; every later one is exactly one of the others, tested in the
/// order that section gives.
public enum PeriodClass: String, Sendable, Codable, CaseIterable, Hashable {
    case activation, billingRecovery, productChange, conversion, renewal, reactivation

    /// Whether a period of this class starts a new run.
    public var startsRun: Bool { self == .activation || self == .reactivation }
}
