import Foundation

// Time in the units the rest of the code needs, written once. `DurationUnitsTests` fails when
// one of these conversions is written out by hand anywhere else.

/// A `Duration` in the units the rest of the code needs: `Date` arithmetic and rates take
/// seconds as a `TimeInterval`, logs and options speak milliseconds, and the system calls that
/// wait take milliseconds, microseconds or nanoseconds.
extension Duration {
    /// The duration in seconds, fractions included.
    package var timeInterval: TimeInterval {
        TimeInterval(components.seconds) + TimeInterval(components.attoseconds) / 1e18
    }

    /// The duration in milliseconds, fractions included (access logs, benchmark figures).
    package var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }

    /// Whole milliseconds, the fraction dropped (options, limits, messages).
    package var wholeMilliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Whole milliseconds, a fraction counted as one more: a wait (`epoll_wait`) that must not
    /// wake before the deadline it stands for.
    package var millisecondsRoundedUp: Int64 {
        components.seconds * 1000 + (components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }

    /// Whole microseconds, the fraction dropped (`usleep`, latency figures).
    package var wholeMicroseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }

    /// Whole nanoseconds, the fraction dropped (Dispatch deadlines).
    package var wholeNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}

extension Date {
    /// Whole seconds since 1970-01-01T00:00:00Z, the fraction dropped (rounded down): the unit
    /// of Unix timestamps in JSON objects (`created`), webhook signatures (`t=`), APNs' JWT
    /// (`iat`) and expiry, and certificate times.
    package var unixSeconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
}
