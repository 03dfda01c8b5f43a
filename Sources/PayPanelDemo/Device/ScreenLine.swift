import Foundation
import PayPanel

/// One line of a checkout screen and what it shows, so a terminal can style it (bold title,
/// highlighted focus, green success) while plain output prints `text` alone.
public struct ScreenLine: Sendable, Equatable {
    public var text: String
    public var style: ScreenStyle

    public init(_ text: String, style: ScreenStyle) {
        self.text = text
        self.style = style
    }
}

/// What a screen line shows.
public enum ScreenStyle: Sendable, Equatable {
    case frame
    case title
    case subtitle
    case body
    case detail
    case amounts
    case button
    /// The row or button with keyboard focus.
    case focused
    case notice
    case success
    case failure
    /// Ids, codes and other small print.
    case muted
    case blank
}
