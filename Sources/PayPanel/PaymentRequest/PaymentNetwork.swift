/// A card network Apple Pay can pay with. The raw value is the canonical Apple Pay JS name
/// (`masterCard`, `JCB`, `NAPAS`), which is also how networks are stored and printed.
public enum PaymentNetwork: String, CaseIterable, Sendable, Hashable, CustomStringConvertible {
    case amex
    case bancomat
    case bancontact
    case bankAxept
    case barcode
    case cartesBancaires
    case chinaUnionPay
    case conecs
    case dankort
    case discover
    case eftpos
    case elo
    case electron
    case elCorteIngles
    case girocard
    case himyan
    case humo
    case idCredit
    case interac
    case jcb = "JCB"
    case jaywan
    case maestro
    case mada
    case masterCard
    case meeza
    case mir
    case myDebit
    case nanaco
    case napas = "NAPAS"
    case pagoBancomat
    case postFinance
    case privateLabel
    case quicPay
    case ruPay
    case suica
    case tmoney
    case uzCard
    case verve
    case visa
    case vPay
    case waon

    /// Matches a network name regardless of case (`mastercard`, `MASTERCARD` → `masterCard`).
    public init?(name: String) {
        guard let network = PaymentNetwork.byLowercasedName[name.lowercased()] else { return nil }
        self = network
    }

    public var description: String { rawValue }

    /// A display name for the wallet and receipts.
    public var displayName: String {
        switch self {
        case .amex: "American Express"
        case .masterCard: "Mastercard"
        case .visa: "Visa"
        case .discover: "Discover"
        case .jcb: "JCB"
        case .chinaUnionPay: "China UnionPay"
        case .cartesBancaires: "Cartes Bancaires"
        default: rawValue.prefix(1).uppercased() + rawValue.dropFirst()
        }
    }

    private static let byLowercasedName: [String: PaymentNetwork] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0.rawValue.lowercased(), $0) })
}
