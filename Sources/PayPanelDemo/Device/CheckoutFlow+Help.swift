import Foundation
import PayPanel

// What the payer can do on each screen: key hints for the terminal UI, commands for scripts.
extension CheckoutFlow {
    /// The line commands that work on the current screen (`wait`, `show` and `help` always do).
    public var lineCommands: [String] {
        var commands: [String]
        switch screen {
        case .banner: commands = ["expand", "back"]
        case .panel: commands = ["select N|AMOUNT", "buy", "app", "back"]
        case .sheet: commands = ["card \(cardRange(sheet?.cards.count ?? 0))", "confirm", "back"]
        case .appForm: commands = ["card \(cardRange(form?.walletCards.count ?? 0))|PAN", "expiry MM/YY", "holder NAME", "confirm", "back"]
        case .challenge: commands = ["pass", "fail", "back"]
        case .approved, .unresolved, .failed: commands = ["done"]
        case .authorizing, .closing, .finished: commands = []
        }
        return commands + ["wait SECONDS", "show", "quit"]
    }

    /// The keys that work on the current screen, as short phrases ("Enter pay").
    public var keyHints: [String] {
        switch screen {
        case .banner:
            return ["Enter expand", "q dismiss"]
        case .panel:
            let count = panel.selector.options.count
            return ["←/→ or 1-\(count) amount", "Tab/↑/↓ move", "Enter choose", "a Apple Pay", "p Pay in app", "Esc back", "q quit"]
        case .sheet:
            return ["↑/↓ or 1-\(max(sheet?.cards.count ?? 1, 1)) card", "Enter confirm", "Esc cancel", "q quit"]
        case .appForm:
            if form?.isEditingText == true { return ["type", "Tab/↑/↓ move", "Enter next", "Esc back", "Ctrl-C quit"] }
            return ["←/→ AutoFill card", "Tab/↑/↓ move", "Enter choose", "Esc back", "q quit"]
        case .challenge:
            return ["←/→ choose", "Enter answer", "Esc abandon", "q quit"]
        case .authorizing, .closing:
            return ["Ctrl-C leave now"]
        case .approved, .unresolved, .failed:
            return ["Enter done"]
        case .finished:
            return []
        }
    }

    private func cardRange(_ count: Int) -> String {
        count <= 1 ? "1" : "1-\(count)"
    }
}
