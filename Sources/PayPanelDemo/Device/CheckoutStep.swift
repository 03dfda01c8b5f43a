import Foundation
import PayPanel

/// What the caller does after an input.
public enum CheckoutStep: Sendable, Equatable {
    /// The screen (may have) changed: redraw.
    case updated
    /// The input does not work here; nothing changed. The message says why.
    case rejected(String)
    /// Run this with `CheckoutBackend`, then pass the result to `receive(_:at:)`. The screen
    /// shows the wait meanwhile.
    case backend(BackendRequest)
    /// The checkout is over: `ending` says how.
    case finished
}
